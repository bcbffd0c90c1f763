"""SIGINT and SIGTERM end a node once, quietly: what ``ros2 launch`` and a terminal send.

Used by :func:`urdf_state_py.node.spin.spin_until_shutdown` around a node's
whole life (rclpy init, building the node, spinning, clean-up).
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ['ShutdownRequested', 'ShutdownSignals']


class ShutdownRequested(BaseException):
    """SIGINT or SIGTERM arrived during start-up (see :meth:`ShutdownSignals.interruptible`).

    A BaseException, so that ``except Exception`` (a parser wrapping errors)
    lets it through, and not a KeyboardInterrupt: CPython marks a
    KeyboardInterrupt that passes through code run from a string (pybind11's
    ``py::exec``, which rclpy's C++ uses) as unhandled even when it is caught
    later, and ``python -m`` then ends by killing itself with SIGINT (exit
    status -2, seen here once in ~15 Ctrl-Cs during start-up).
    """


class ShutdownSignals:
    """SIGINT and SIGTERM stop the node once, quietly; every later one is ignored.

    A terminal's Ctrl-C under ``ros2 launch`` reaches the node twice: the
    terminal sends SIGINT to the whole process group, and launch forwards the
    SIGINT it got itself. With Python's default handler the second one raised
    a KeyboardInterrupt inside ``destroy_node()`` (a traceback, and launch's
    "process has died ... exit code -2"), or killed the interpreter while it
    exited (Python restores SIG_DFL during finalization). So the first SIGINT
    or SIGTERM is recorded in :attr:`received` (the spin loop checks it), and
    raises :class:`ShutdownRequested` only inside :meth:`interruptible`
    (start-up: rclpy init, building the node, which may be parsing a large
    description); an exception anywhere else could hit an exception handler
    or the clean-up, and inside an EventsExecutor callback it is logged as a
    FATAL error with its traceback. From then on both signals are ignored for the
    rest of the process: at once in the kernel (see :func:`_ignore_in_kernel`),
    and on leaving the block for Python too (SIG_IGN, which finalization
    leaves alone).

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
        self._raise = False
        self._previous: dict[int, object] = {}

    def __enter__(self) -> ShutdownSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._on_signal) for sig in self.SIGNALS}
        return self

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """The first signal inside this block raises ShutdownRequested (also a pending one).

        The exception can only come from inside the block (at the latest while
        leaving it), so the caller's ``except ShutdownRequested`` around the
        block sees it, and its exception handlers and ``finally`` never do.
        """
        self._raise = True
        try:
            if self.received is not None:
                raise ShutdownRequested
            yield
        finally:
            self._raise = False

    def _on_signal(self, signum: int, _frame) -> None:
        first = self.received is None
        if first:
            self.received = signum
            _ignore_in_kernel(self.SIGNALS)
        if first and self._raise:
            raise ShutdownRequested

    def __exit__(self, *_exc) -> None:
        # With a signal received: nothing new can arrive (ignored in the kernel)
        # and what was pending has reached _on_signal by now, so switching
        # Python's handlers to SIG_IGN cannot meet a pending one.
        for sig, previous in self._previous.items():
            signal.signal(sig, previous if self.received is None else signal.SIG_IGN)


def _ignore_in_kernel(signals: Sequence[int]) -> None:
    """Set ``signals`` to SIG_IGN in the kernel only, leaving Python's table as it is.

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
