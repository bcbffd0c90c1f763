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
The container's Fast DDS profile: endpoint histories allocated on use, not up front.

Every robot in the container brings ~13 DDS endpoints (six parameter services,
each a reader and a writer, its topics). rmw_fastrtps preallocates each one's
history (``PREALLOCATED_WITH_REALLOC``), ~100 kB per service: about half of
what a robot costs the process (measured: a bare rclpy node with its parameter
services, 1.22 MB per extra node; with this profile 0.61 MB, Jazzy and Kilted
alike). :func:`lean_endpoints` has the container load ``container_fastdds.xml``
(``DYNAMIC_REUSABLE`` histories: a sample is allocated when stored and reused
afterwards), through rmw's own switch ``RMW_FASTRTPS_USE_QOS_FROM_XML=1``; the
file restates rmw's other defaults (synchronous publishing, no data sharing,
reallocating discovery histories), and every topic's ROS QoS applies as always.

It is set for the container's own process only, before rclpy starts, and only
where it cannot take anything from the user: not when another RMW is chosen,
not when a Fast DDS profile is given (``FASTDDS_DEFAULT_PROFILES_FILE``,
``FASTRTPS_DEFAULT_PROFILES_FILE``, ``RMW_FASTRTPS_USE_QOS_FROM_XML``, a default
profile file in the working directory), and not with
``URDF_STATE_FASTDDS_PROFILE=off``.
"""

from __future__ import annotations

from collections.abc import MutableMapping
import os
from pathlib import Path
import sys

__all__ = ['PROFILE', 'SWITCH', 'lean_endpoints']

PROFILE = Path(__file__).with_name('container_fastdds.xml')
SWITCH = 'URDF_STATE_FASTDDS_PROFILE'
_USER_SETTINGS = ('FASTDDS_DEFAULT_PROFILES_FILE', 'FASTRTPS_DEFAULT_PROFILES_FILE',
                  'RMW_FASTRTPS_USE_QOS_FROM_XML')
_DEFAULT_FILES = ('DEFAULT_FASTDDS_PROFILES.xml', 'DEFAULT_FASTRTPS_PROFILES.xml')


def lean_endpoints(environ: MutableMapping[str, str] | None = None,
                   fastdds_major: int | None = None) -> str:
    """
    Point Fast DDS at :data:`PROFILE` where the module docstring allows.

    ``environ``: where to set it (default ``os.environ``); returns what was done, for
    the log.

    ``fastdds_major``: Fast DDS's major version (None: as installed);
    2 reads ``FASTRTPS_DEFAULT_PROFILES_FILE``, 3 and later ``FASTDDS_...``.
    """
    env = os.environ if environ is None else environ
    if env.get(SWITCH, '').strip().lower() in ('off', '0', 'false', 'no'):
        return f'Fast DDS profile of the container not used ({SWITCH}=off)'
    rmw = env.get('RMW_IMPLEMENTATION', '').strip()
    if rmw and not rmw.startswith('rmw_fastrtps'):
        return f'Fast DDS profile of the container not used (RMW_IMPLEMENTATION={rmw})'
    given = [name for name in _USER_SETTINGS if env.get(name, '').strip()]
    given += [name for name in _DEFAULT_FILES if os.path.isfile(name)]
    if given:
        return (f'Fast DDS profile of the container not used: yours applies '
                f'({", ".join(given)}; per-robot memory then depends on it)')
    major = fastdds_major if fastdds_major is not None else _fastdds_major()
    variable = 'FASTRTPS_DEFAULT_PROFILES_FILE' if major < 3 else 'FASTDDS_DEFAULT_PROFILES_FILE'
    env[variable] = str(PROFILE)
    env['RMW_FASTRTPS_USE_QOS_FROM_XML'] = '1'
    return (f'Fast DDS endpoint histories allocated on use ({variable}={PROFILE}; '
            f"{SWITCH}=off to keep rmw's preallocation)")


def _fastdds_major() -> int:
    """
    Return the installed Fast DDS's major version.

    3 where Fast DDS 3 is installed (its ``share/fastdds``: Kilted and later), else 2
    (``share/fastrtps``: Humble, Jazzy), looked up in this Python's prefix (the PyPI
    wheels) and the sourced ROS 2 prefixes.
    """
    prefixes = [sys.prefix] + os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    found = any(os.path.isdir(os.path.join(prefix, 'share', 'fastdds'))
                for prefix in filter(None, prefixes))
    return 3 if found else 2
