# Copyright 2026 urdf_state_py maintainers
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
A ceiling on the node process's address space (``RLIMIT_AS``), set before ROS starts.

Why: rmw_fastrtps deserialises a service request from a growable buffer
(``rmw_take_request`` copies the payload into a ``FastBuffer()`` of its own), so the
check the generated type support makes before sizing a sequence (``cdr.jump(size)``:
"at least one byte per element left?") grows the buffer instead of failing. One
12-byte GetParameters request whose name count says 10^8 then has the process
allocate the sequence and an empty string per element: 4.7 GB after 8 s and still
growing (Jazzy, Fast CDR 2.2.5; 2^28 reached 13 GB), below rclpy, before any callback
of ours runs. Nothing above rmw can refuse such a request, but it can bound what it
costs: with the ceiling the allocation fails, the type support returns false and rmw
drops the request (``*taken = false``), in about a second instead of the machine's
memory. The node's own needs are far below the headroom (the parser runs in a
process of its own, with its own limit).

``URDF_STATE_ADDRESS_SPACE_HEADROOM_MB`` (default 2048) is the room above the size
before rclpy starts (Fast DDS then takes ~0.5 GB of it: shared-memory segments,
threads); 0 leaves the limit as it is. Only the soft limit is lowered, never raised.
"""

from __future__ import annotations

import os

__all__ = ['DEFAULT_HEADROOM_MB', 'HEADROOM_ENV', 'limit_address_space']

HEADROOM_ENV = 'URDF_STATE_ADDRESS_SPACE_HEADROOM_MB'
DEFAULT_HEADROOM_MB = 2048
_MB = 1 << 20


def _current_size() -> int | None:
    """Return the address space [bytes] (Linux: /proc/self/statm), or None elsewhere."""
    try:
        with open('/proc/self/statm', encoding='ascii') as statm:
            return int(statm.read().split()[0]) * os.sysconf('SC_PAGE_SIZE')
    except (OSError, ValueError, IndexError):
        return None


def limit_address_space(headroom_mb: int | None = None) -> tuple[int | None, str]:
    """
    Lower the soft ``RLIMIT_AS`` to the current size plus a headroom.

    ``headroom_mb``: the environment's or 2048 MB by default. Returns (the limit in
    bytes or None, what was done).
    """
    if headroom_mb is None:
        text = os.environ.get(HEADROOM_ENV, '').strip() or str(DEFAULT_HEADROOM_MB)
        try:
            headroom_mb = int(text)
        except ValueError:
            return None, f"{HEADROOM_ENV}='{text}' is not a whole number of MB: no limit set"
    if headroom_mb <= 0:
        return None, f'address space not limited ({HEADROOM_ENV}={headroom_mb})'
    try:
        import resource
    except ImportError:   # pragma: no cover - not a POSIX system
        return None, 'address space not limited (no resource module here)'
    size = _current_size()
    if size is None:
        return None, 'address space not limited (its current size is unknown here)'
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = size + headroom_mb * _MB
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft <= limit:
        return soft, f'address space already limited to {soft // _MB} MB'
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit, (f'address space limited to {limit // _MB} MB ({size // _MB} MB now + '
                   f'{headroom_mb} MB; {HEADROOM_ENV} sets the headroom, 0 = no limit)')
