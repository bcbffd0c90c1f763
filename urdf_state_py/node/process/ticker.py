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
One thread that runs every robot's periodic work (``/diagnostics`` at 1 Hz).

Not an rclpy timer: a timer is one more entity in every executor wake-up, and
with Kilted's EventsExecutor a node that always had a timer was seen to abort
at Ctrl-C now and then ("terminate called without an active exception"). Not
a thread per robot either: a process serving twenty robots would keep twenty
threads that wake once a second. A :class:`Ticker` calls each registered job
once per period, in the order they were added, from one daemon thread that
exists while a job is registered. A job must not raise (wrap it in the
robot's guard); one that does is dropped from that tick only.
"""

from __future__ import annotations

from collections.abc import Callable
import threading

from .threads import join_thread

__all__ = ['Ticker']


class Ticker:
    """Calls registered jobs every ``period_s`` seconds from one thread (see the module)."""

    def __init__(self, period_s: float, name: str = 'urdf_state ticker') -> None:
        self.period_s = period_s
        self._name = name
        self._jobs: list[Callable[[], None]] = []
        self._lock = threading.Lock()     # guards the job list
        self._tick = threading.Lock()     # held for the length of one tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, job: Callable[[], None]) -> None:
        """Run ``job`` every period from now on (the thread starts with the first job)."""
        with self._lock:
            self._jobs.append(job)
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def remove(self, job: Callable[[], None]) -> None:
        """
        Stop running ``job``.

        Returns once a tick running it has ended (unless called from that tick).
        """
        with self._lock:
            if job in self._jobs:
                self._jobs.remove(job)
        self.settle()

    def settle(self) -> None:
        """
        Wait for a tick in progress to end.

        Return once a tick in progress has ended (at once when called from that tick):
        after it, no job holds what its owner took away before the call.
        """
        if threading.current_thread() is not self._thread:
            with self._tick:
                pass

    def close(self) -> None:
        """Stop the thread (before the nodes whose jobs it runs are destroyed)."""
        self._stop.set()
        join_thread(self._thread, timeout=2.0 * self.period_s)

    def _run(self) -> None:
        while not self._stop.wait(self.period_s):
            with self._lock:
                jobs = list(self._jobs)
            with self._tick:
                for job in jobs:
                    with self._lock:
                        if job not in self._jobs:
                            continue
                    try:
                        job()
                    except Exception:  # see the module docstring
                        continue
