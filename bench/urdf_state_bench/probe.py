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
GetParameters asked at a steady pace from a process of its own.

Run as ``python -m urdf_state_bench.probe NODE INTERVAL_S TIMEOUT_S`` with a
loopback environment. Its own process, because a probe inside a busy process (one
that also checks every /tf it receives, say) measures that process's GIL and
scheduling as much as the node: the chaos soak saw 4 s "answers" that way.

Events on stdout (JSON lines): ``{"event": "ready"}`` once the service is there
(``{"event": "error", ...}`` if it never came), then one ``{"event": "answer",
"t": ..., "latency": ...}`` per request: ``t`` is ``time.monotonic()`` when asked
(CLOCK_MONOTONIC, the same clock in every process of the machine), ``latency`` in
seconds or ``null`` for no answer within TIMEOUT_S. Ends on ``{"cmd": "quit"}``
or at the end of stdin.
"""

from __future__ import annotations

import sys
import threading
import time

from .common import command_lines
from .driver import emit
from .flood import ParameterProbe


def main(argv: list[str]) -> int:
    node, interval, timeout = argv[0], float(argv[1]), float(argv[2])
    probe = ParameterProbe(node)
    stop = threading.Event()

    def until_quit() -> None:
        for _ in command_lines(sys.stdin):
            pass
        stop.set()
    threading.Thread(target=until_quit, daemon=True).start()
    try:
        if not probe.wait_ready():
            emit(event='error', what=f'no {node}/get_parameters service')
            return 1
        emit(event='ready')
        while not stop.is_set():
            asked = time.monotonic()
            emit(event='answer', t=asked, latency=probe.ask(timeout))
            stop.wait(interval)
    finally:
        probe.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
