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
The demo's helper processes (started with a log, stopped in steps) and the signals it records.

A helper gets SIGINT first (a clean shutdown, as Ctrl-C in a terminal), then
SIGTERM, then SIGKILL: the demo never leaves a process behind. The demo records
the signals it receives rather than raising in the middle of a wait.
"""

from __future__ import annotations

import os
from pathlib import Path
import signal
import subprocess
import sys
import time

__all__ = ['ChildProcess', 'ReceivedSignals', 'STOP_TIMEOUT', 'sleep_until']

STOP_TIMEOUT = 4.0      # seconds a child gets to end after SIGINT (then SIGTERM, 2 s, SIGKILL)


class ChildProcess:
    """
    One helper process; ``log``: file for its stdout+stderr (None: inherit the terminal).

    ``ignore_sigint``: start it with SIGINT ignored (inherited across exec), for
    a child that re-enables SIGINT itself once it can handle it (the viewer:
    a Ctrl-C while it is still importing must not print a traceback).
    """

    def __init__(self, name: str, argv: list[str], env: dict, log: Path | None,
                 ignore_sigint: bool = False, cwd: Path | None = None) -> None:
        self.name = name
        self.log = log
        self._log_file = open(log, 'wb') if log is not None else None
        out = self._log_file if self._log_file is not None else None
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignore_sigint else None
        try:
            self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                         stdout=out,
                                         stderr=subprocess.STDOUT if out is not None else None)
        finally:
            if ignore_sigint:
                signal.signal(signal.SIGINT, previous)

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int:
        """SIGINT, wait; SIGTERM, wait; SIGKILL. Returns the exit code."""
        t0 = time.monotonic()
        for sig, patience in ((signal.SIGINT, STOP_TIMEOUT), (signal.SIGTERM, 2.0)):
            if self.proc.poll() is not None:
                break
            try:
                self.proc.send_signal(sig)
                self.proc.wait(patience)
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                break
        if self.proc.poll() is None:
            self.proc.kill()
        code = self.proc.wait()
        if os.environ.get('URDF_STATE_DEMO_DEBUG'):
            print(f'[demo] {self.name} ended with {code} after {time.monotonic() - t0:.2f} s',
                  file=sys.stderr)
        if self._log_file is not None:
            self._log_file.close()
        return code

    def tail(self, lines: int = 15) -> str:
        if self.log is None or not self.log.is_file():
            return ''
        text = self.log.read_text(errors='replace').rstrip().splitlines()
        return '\n'.join('    ' + line for line in text[-lines:])


class ReceivedSignals:
    """
    Records SIGINT/SIGTERM/SIGHUP instead of raising in the middle of a wait.

    (A KeyboardInterrupt raised inside ``Popen.wait`` can leave the Popen's
    internal lock held, and the next wait then blocks forever.)
    """

    HANDLED = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, 'SIGHUP', None))
                    if s is not None)

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous = {}

    def _handler(self, signum, frame) -> None:
        self.received.append(signum)

    def __enter__(self) -> 'ReceivedSignals':
        for sig in self.HANDLED:
            self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)

    @property
    def interrupted(self) -> bool:
        """Ctrl-C: the terminal sent SIGINT to the whole process group, viewer included."""
        return signal.SIGINT in self.received

    @property
    def terminated(self) -> bool:
        """SIGTERM/SIGHUP: only this process got it; the children must be told."""
        return any(sig != signal.SIGINT for sig in self.received)


def sleep_until(predicate, timeout: float, step: float = 0.05) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes (no blocking waits)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)
    return True
