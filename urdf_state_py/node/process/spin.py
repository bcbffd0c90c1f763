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
Running one node until Ctrl-C: the executor choice and the spin loop shared by every main.

The state publisher, the joint sweeper and the TF viewer all init rclpy, build
a node, spin it until Ctrl-C, SIGTERM or an external shutdown, and must then
end quietly (exit status 0, no traceback) after destroying the node and
shutting rclpy down -- also when the signal comes twice, as under ``ros2
launch`` (see :class:`ShutdownSignals`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
import os
import time

import rclpy
from rclpy import executors
from rclpy.executors import Executor, ExternalShutdownException
from rclpy.node import Node
from rclpy.task import Future

from .shutdown_signals import ShutdownSignals

__all__ = ['MultiThreadedExecutor', 'SingleThreadedExecutor', 'make_executor', 'spin_until_done',
           'spin_until_shutdown']

#: Longest a spin waits for work before checking ``rclpy.ok()`` again.
SPIN_TIMEOUT_S = 0.5
#: make_executor serves the state publisher, so its warning carries that node's name.
_LOGGER_NAME = 'urdf_state'


class _CollectedQuietly:
    """
    An rclpy executor which a signal may interrupt as it is built.

    rclpy's ``Executor.__init__`` creates guard conditions, which need a live
    context; rclpy's own signal handler shuts the context down the moment a
    SIGINT or SIGTERM arrives, so an executor built in that instant fails
    half-way, and rclpy's ``__del__`` then reads an attribute never set:
    "Exception ignored in Executor.__del__ ... AttributeError" and a traceback
    on stderr of a node that was only told to stop (seen once under ``ros2
    launch``-style SIGTERM while a node finished starting). rclpy's ``__del__``
    runs here only for an executor whose ``__init__`` completed.
    """

    def __init__(self, *args, **kwargs) -> None:
        self.urdf_state_built = False
        super().__init__(*args, **kwargs)
        self.urdf_state_built = True

    def __del__(self) -> None:
        finalize = getattr(super(), '__del__', None)
        if self.__dict__.get('urdf_state_built') and finalize is not None:
            finalize()


class SingleThreadedExecutor(_CollectedQuietly, executors.SingleThreadedExecutor):
    """
    Rclpy's SingleThreadedExecutor, collected quietly.

    Collected quietly when a signal interrupts its construction (see
    :class:`_CollectedQuietly`).
    """


class MultiThreadedExecutor(_CollectedQuietly, executors.MultiThreadedExecutor):
    """
    Rclpy's MultiThreadedExecutor, collected quietly.

    Collected quietly when a signal interrupts its construction (see
    :class:`_CollectedQuietly`).
    """


def make_executor(kind: str | None = None) -> Executor:
    """
    Return the state publisher's executor: EventsExecutor where it exists, else the default.

    EventsExecutor (``rclpy.experimental``, Jazzy and later; absent in Humble)
    cuts the per-message overhead of the wait-set executor roughly in half,
    which is most of the node's CPU per update. But it queues one event per
    message it has not served yet, without bound: ``auto`` takes it only where
    the native loop serves joint_states (it owns that subscription, so a flood
    never reaches the executor); where Python serves them, the wait-set
    executor takes at most one message per subscription per wait, and a flood
    stays in the DDS history (bounded by its depth) instead of in memory.
    ``kind`` (or the environment variable ``URDF_STATE_EXECUTOR``): ``auto``
    (default), ``events`` or ``single``; ``events`` where it does not exist
    falls back with a warning.
    """
    kind = (kind or os.environ.get('URDF_STATE_EXECUTOR') or 'auto').lower()
    if kind not in ('auto', 'events', 'single'):
        raise ValueError(f"URDF_STATE_EXECUTOR must be auto, events or single, not '{kind}'")
    if kind == 'auto' and not _native_loop_serves():
        return SingleThreadedExecutor()
    if kind != 'single':
        events_executor = _events_executor_class()
        if events_executor is not None:
            return events_executor()
        if kind == 'events':
            rclpy.logging.get_logger(_LOGGER_NAME).warning(
                'EventsExecutor is not available in this ROS 2 release; '
                'using the single-threaded executor')
    return SingleThreadedExecutor()


def _native_loop_serves() -> bool:
    """Tell whether the native loop may serve joint_states here (see tf_path.native)."""
    from ..tf_path.native import status
    found = status()
    return found.module is not None and found.loop_refused is None


def _events_executor_class():
    """Rclpy's EventsExecutor (a factory function in Kilted), or None where it does not exist."""
    try:
        from rclpy.experimental import EventsExecutor
    except ImportError:
        return None
    return EventsExecutor


def spin_until_done(executor: Executor, future: Future, timeout: float) -> bool:
    """
    Spin ``executor`` until ``future`` is done (True) or ``timeout`` seconds passed (False).

    What ``executor.spin_until_future_complete(future, timeout)`` promises, for a
    caller that waits on many futures in turn. That call on Jazzy's rclpy (7.1)
    adds a done callback to the future on each of its inner spins, and each
    becomes a task the executor keeps for good (3 per call, measured): a client
    asking 10 times a second went from 15 ms to 100 ms per answer in two minutes
    and used a whole core, every wait walking the tasks of all earlier ones.
    ``spin_once`` adds nothing.
    """
    end = time.monotonic() + timeout
    while not future.done():
        left = end - time.monotonic()
        if left <= 0 or not executor.context.ok():
            return False
        executor.spin_once(timeout_sec=min(left, SPIN_TIMEOUT_S))
    return True


def _survive(err: Exception) -> None:
    """
    Log a failure that escaped the executor, and carry on spinning.

    The node's own callbacks are guarded (see guards), but rclpy takes some
    inputs itself before any callback runs -- a malformed request to a
    parameter service fails inside the executor. One bad request from the
    network must not end the process: it is logged (throttled) and dropped.
    """
    rclpy.logging.get_logger(_LOGGER_NAME).error(
        f'Dropped an input that failed inside the executor: {type(err).__name__}: {err} '
        '(carrying on)', throttle_duration_sec=5.0)


def spin_until_shutdown(make_node: Callable[[], Node], *, args: Sequence[str] | None = None,
                        executor: Callable[[], Executor] = SingleThreadedExecutor,
                        step: Callable[[], float | None] | None = None) -> bool:
    """
    Init rclpy with ``args``, build a node, spin it until told to stop, then clean up.

    Returns True when the run was interrupted (Ctrl-C, SIGTERM, an external
    shutdown), False when ``step`` ended it or rclpy was shut down between two
    spins. SIGINT and SIGTERM are handled by :class:`ShutdownSignals`.

    ``make_node`` and ``executor`` are factories called after ``rclpy.init``
    (both need a live context); a Ctrl-C while a node parses a large
    description cancels the parse (see
    :func:`~urdf_state_py.node.process.shutdown_signals.on_shutdown_signal`) and ends
    as quietly as one while it spins. ``step`` runs before every spin and
    returns how long that spin may last, or None to stop (the viewer redraws
    there); a spin returns after one callback or at the end of that time.

    The loop calls ``spin_once`` in windows, for every executor: the wait-set
    executors keep their generator of ready callbacks between calls (so this
    is what ``spin()`` does). Not EventsExecutor's ``spin()``: it busy-loops
    at 100 % CPU and never returns on Ctrl-C with Kilted's rclpy. Not its
    ``spin_until_future_complete`` on a never-done future either (which stays
    in C++ for the whole window): each call leaves a small Python block behind
    that is never freed (32 bytes of RSS per call, measured on Jazzy's and
    Kilted's rclpy), so a node idling in 0.5 s windows grew by 230 kB an hour.
    The node's joint_states are served by a thread of their own (hot_path), so
    the executor's callbacks are rare and returning to Python after each costs
    nothing measurable. An exception out of a spin while rclpy is
    still up is logged and survived (:func:`_survive`). A failure after
    rclpy's SIGINT handler has shut the context down (a call interrupted
    mid-way, e.g. during start-up) counts as an interruption, not an error.
    """
    with ShutdownSignals() as signals:
        return _run(make_node, args, executor, step, signals)


def _run(make_node: Callable[[], Node], args: Sequence[str] | None,
         executor: Callable[[], Executor], step: Callable[[], float | None] | None,
         signals: ShutdownSignals) -> bool:
    node = None
    spinner = None
    try:
        rclpy.init(args=args)
        # The node first, so that a signal while it starts (it may parse for
        # seconds) meets no executor: rclpy's EventsExecutor brings threads and
        # signal handling of its own. A signal during start-up is only recorded
        # (and cancels the start-up parse): it is seen here, between the steps.
        if signals.received is None:
            node = make_node()
        if signals.received is None:
            spinner = executor()
            spinner.add_node(node)
        while rclpy.ok() and signals.received is None:
            timeout = SPIN_TIMEOUT_S if step is None else step()
            if timeout is None:
                break
            try:
                spinner.spin_once(timeout_sec=timeout)
            except (KeyboardInterrupt, ExternalShutdownException):
                raise
            except Exception as err:  # see _survive
                if not rclpy.ok() or signals.received is not None:
                    raise
                _survive(err)
    except (KeyboardInterrupt, ExternalShutdownException):
        return True
    except Exception:  # re-raised unless Ctrl-C caused it
        if rclpy.ok() and signals.received is None:
            raise
        return True
    finally:
        if spinner is not None:
            spinner.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return signals.received is not None
