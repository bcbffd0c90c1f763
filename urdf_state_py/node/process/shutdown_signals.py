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
SIGINT and SIGTERM end a node once, quietly: what ``ros2 launch`` and a terminal send.

Used by :func:`urdf_state_py.node.process.spin.spin_until_shutdown` around a node's
whole life (rclpy init, building the node, spinning, clean-up).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
import ctypes
import signal
import threading

__all__ = ['ShutdownSignals', 'on_shutdown_signal', 'shutdown_requested']

#: The ShutdownSignals block the main thread is in, if any (see on_shutdown_signal).
_active: ShutdownSignals | None = None


class ShutdownSignals:
    """
    SIGINT and SIGTERM stop the node once, quietly; every later one is ignored.

    A terminal's Ctrl-C under ``ros2 launch`` reaches the node twice: the
    terminal sends SIGINT to the whole process group, and launch forwards the
    SIGINT it got itself. With Python's default handler the second one raised
    a KeyboardInterrupt inside ``destroy_node()`` (a traceback, and launch's
    "process has died ... exit code -2"), or killed the interpreter while it
    exited (Python restores SIG_DFL during finalization). So the first SIGINT
    or SIGTERM is only recorded in :attr:`received` (the spin loop and the
    start-up check it) and cancels what registered with
    :func:`on_shutdown_signal` (the start-up parse); from then on both signals
    are ignored for the rest of the process: at once in the kernel (see
    :func:`_ignore_in_kernel`), and on leaving the block for Python too
    (SIG_IGN, which finalization leaves alone).

    The handler never raises. Python runs it in the main thread between any
    two bytecodes, also inside code that cannot take an exception there: an
    exception raised from it during start-up once landed in importlib's
    module-lock callback ("Exception ignored in ... _get_module_lock"), which
    left the import lock held and the node hanging at exit, and once in the
    middle of starting the joint_states thread, whose native loop then ran on
    as rclpy was torn down (a segmentation fault at exit).

    Installed before ``rclpy.init``: rclpy's own handlers (Humble to Kilted
    alike) keep the previous handler and chain to it, after waking the
    executors' wait sets; rclpy's EventsExecutor (Jazzy 7.1 and Kilted 9.1
    alike) also catches both signals itself and shuts the context down, and
    still lets this handler run. SIGTERM is handled the same way, ending in exit
    status 0 as robot_state_publisher does. When no signal came, leaving the
    block restores the previous handlers (tests spin in-process). Only the
    main thread can install handlers; elsewhere this does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, object] = {}
        self._cancels: list[Callable[[], None]] = []

    def __enter__(self) -> ShutdownSignals:
        global _active
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._on_signal) for sig in self.SIGNALS}
            _active = self
        return self

    def _on_signal(self, signum: int, _frame) -> None:
        if self.received is not None:
            return
        self.received = signum
        _ignore_in_kernel(self.SIGNALS)
        for cancel in list(self._cancels):
            _cancel_quietly(cancel)

    def __exit__(self, *_exc) -> None:
        global _active
        # With a signal received: nothing new can arrive (ignored in the kernel)
        # and what was pending has reached _on_signal by now, so switching
        # Python's handlers to SIG_IGN cannot meet a pending one.
        for sig, previous in self._previous.items():
            signal.signal(sig, previous if self.received is None else signal.SIG_IGN)
        if _active is self:
            _active = None


def shutdown_requested() -> bool:
    """Whether SIGINT or SIGTERM has come to the running ShutdownSignals block."""
    return _active is not None and _active.received is not None


@contextmanager
def on_shutdown_signal(cancel: Callable[[], None]) -> Iterator[None]:
    """
    Call ``cancel`` if SIGINT or SIGTERM comes while inside this block (at once if one came).

    For the main thread's long waits during start-up (the start-up parse):
    ``cancel`` runs inside the signal handler, in the main thread, so it must
    only tell the wait to end (kill a process, set a flag), never block or
    take a lock. Outside a ShutdownSignals block (a node built in a test) this
    does nothing.
    """
    signals = _active
    if signals is None:
        yield
        return
    signals._cancels.append(cancel)
    try:
        if signals.received is not None:
            _cancel_quietly(cancel)
        yield
    finally:
        signals._cancels.remove(cancel)


def _cancel_quietly(cancel: Callable[[], None]) -> None:
    """Run ``cancel``; a failure there must not become an exception in whatever was interrupted."""
    try:
        cancel()
    except Exception:  # noqa: BLE001, S110 - see above; the spin loop still ends the node
        pass


def _ignore_in_kernel(signals: Sequence[int]) -> None:
    """
    Set ``signals`` to SIG_IGN in the kernel only, leaving Python's table as it is.

    ``signal.signal(sig, SIG_IGN)`` from a handler races with a signal that
    already arrived but is not handled yet (SIGINT then SIGTERM, ms apart):
    Python then finds no handler for it and prints "OSError: Signal 15
    ignored due to race condition". libc's ``signal`` leaves the pending one
    to our handler, and discards every later one. Where libc cannot be
    reached, Python's own switch is the fallback.
    """
    try:
        libc_signal = ctypes.CDLL(None).signal
        libc_signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        libc_signal.restype = ctypes.c_void_p
        for sig in signals:
            libc_signal(int(sig), 1)  # SIG_IGN
    except (OSError, AttributeError):
        for sig in signals:
            signal.signal(sig, signal.SIG_IGN)
