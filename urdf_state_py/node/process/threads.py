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
Joining the node's own threads at teardown, also one whose start a Ctrl-C interrupted.

Why every thread is joined, never left to die with the process: a daemon
thread still inside rclpy's C++ code with the GIL released (a wait set's
``wait``) when the interpreter finalises is ended by ``pthread_exit`` as it
takes the GIL back; that unwind meets a ``noexcept`` frame of pybind11 and
calls ``std::terminate``: "terminate called without an active exception",
exit status -6 (seen at Ctrl-C during the node's start-up, Jazzy and Kilted).

A Ctrl-C during start-up raises in the main thread wherever it is (see
:class:`~.shutdown_signals.ShutdownSignals`), also inside ``Thread.start()``
while it waits for the new thread to report that it runs; ``Thread.join`` then
refuses ("cannot join thread before it is started") although the thread runs.
:func:`join_thread` waits for it all the same.
"""

from __future__ import annotations

import threading
import time

__all__ = ['join_thread']

#: Between two attempts to join a thread that has not reported its start yet.
_RETRY_S = 0.001


def join_thread(thread: threading.Thread | None, timeout: float) -> None:
    """Join ``thread`` for at most ``timeout`` s (None, or the calling thread: nothing to do)."""
    if thread is None or thread is threading.current_thread():
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            thread.join(max(deadline - time.monotonic(), 0.0))
            return
        except RuntimeError:   # start() interrupted before the thread reported that it runs
            if time.monotonic() >= deadline:
                return
            time.sleep(_RETRY_S)
