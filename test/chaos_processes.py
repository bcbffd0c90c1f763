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

"""The chaos soak's helper processes: the GetParameters probe, and the hang watchdog."""
from __future__ import annotations

import faulthandler
import os
from pathlib import Path
import queue
import threading

#: Past the run's length plus this, the soak is hung: every thread's stack is printed
#: and the node and flood publishers are killed, which ends each wait with a failure;
#: if the test still has not ended HANG_S later, the process exits.
HANG_S = 600.0


def probe_env() -> dict:
    """
    Return the probe's environment: its Fast DDS writers heartbeat every 50 ms (not 3 s).

    In a flood the node's receive queue overflows and drops samples, a request among
    them; a reliable writer resends only after its next heartbeat, so with the default
    3 s period the answer "took" 1.7-8.7 s while the node's parameter thread sat idle,
    waiting for the request. With 50 ms the time measures the node. Both are in
    docs/soak.md. ``URDF_STATE_CHAOS_DEFAULT_HEARTBEAT=1``: the default, as
    ``ros2 param get`` has it.
    """
    if os.environ.get('URDF_STATE_CHAOS_DEFAULT_HEARTBEAT') == '1':
        return dict(os.environ)
    distro = os.environ.get('URDF_STATE_DISTRO') or os.environ.get('ROS_DISTRO', '')
    if distro in ('humble', 'jazzy'):     # Fast DDS 2: camelCase elements, FASTRTPS_...
        name, variable = 'fastdds2_probe_writer.xml', 'FASTRTPS_DEFAULT_PROFILES_FILE'
    else:                                 # Fast DDS 3: snake_case, FASTDDS_...
        name, variable = 'fastdds3_probe_writer.xml', 'FASTDDS_DEFAULT_PROFILES_FILE'
    return dict(os.environ, **{variable: str(Path(__file__).parent / 'fixtures' / name)})


def collect_answers(soak, probe) -> None:
    """Yield the answers of the probe process (a GetParameters every 100 ms) as they come."""
    while True:
        try:
            event = probe.events.get(timeout=0.5)
        except queue.Empty:
            if probe.popen.poll() is not None:
                raise AssertionError(
                    f'the probe exited ({probe.popen.returncode}): {probe.tail()}')
            continue
        if event.get('event') == 'answer':
            soak.answers.append((event['t'], event['latency']))
        elif event.get('event') in ('error', 'eof'):
            assert soak.stop.is_set(), f'the probe: {event} {probe.tail()}'
            return


def abandon() -> None:
    """Handle a hung soak: show where, kill what it waits on, and exit if that did not help."""
    print(f'\nchaos soak: not finished {HANG_S:.0f} s after its end; the stacks:', flush=True)
    faulthandler.dump_traceback(all_threads=True)
    import psutil  # here: the soak itself skips without it
    for child in psutil.Process().children(recursive=True):
        child.kill()
    last = threading.Timer(HANG_S, os._exit, (3,))
    last.daemon = True
    last.start()
