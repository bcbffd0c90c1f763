"""JointState subscriptions served by a thread of their own, outside the executor.

Why: with rclpy's wait-set executors every wake-up rebuilds, in Python, a wait
set of every entity of the node (six parameter services, timers, guard
conditions, the subscription's event handlers): ~300 us of the ~400 us a
JointState cost end to end with SingleThreadedExecutor. rclpy's
EventsExecutor avoids that, but queues one event per incoming message without
bound: under a flood of JointStates its backlog (and RSS) grows for as long as
the flood lasts, and parameter services answer tens of seconds late.

:class:`HotPath` takes the subscription away from the executor and serves it
from a daemon thread that waits on a wait set holding only that subscription
and a guard condition (to stop), plus the subscription's QoS event handlers
(incompatible QoS warnings...: left with the executor, they would wake it on
every message -- Fast DDS signals them through the reader's status -- and it
would rebuild its wait set in a loop until the thread took the message). Per
wake-up it takes every available message
(raw CDR bytes) and hands each to the handler, which runs the node's fused
path and publishes the pre-serialised /tf. The DDS history of the
subscription (sensor data QoS: keep last 5) is then the only queue, so a
flood costs CPU, never memory. The executor thread -- parameters, services,
the description topic, timers -- keeps answering because, after
:data:`_BUSY_YIELD_AFTER_S` of uninterrupted work, the loop sleeps
:data:`_YIELD_S`: the interpreter's switch interval alone is not enough, since
a thread that releases and retakes the GIL around every C call (take,
publish) starves a thread waiting for it -- seen as parameter answers 8 s late
under a flood.

A handler exception never ends the thread: :class:`MessageErrors` counts it
and logs it, throttled, and the next message is served.

Low-level API used (rclpy's C extension, as its own executors and
``wait_for_message`` use it): ``WaitSet``, ``GuardCondition``,
``Subscription.take_message(type, raw)``; and the node's ``_subscriptions``
list, from which the subscription is removed so that no executor (wait-set or
events) serves it too (its event handlers: ``Node.remove_waitable``). Humble
(rclpy 3.3.x, read in 3.3.0 and 3.3.15), Jazzy (7.x) and Kilted (9.x) have all
of it, so all three take this path; rclpy before Humble (Foxy 1.0, Galactic 2.0)
keeps a Node's subscriptions in a name-mangled list, and there
:func:`unavailable_reason` says why and the node serves the subscription's
callback on its executor. ``URDF_STATE_HOT_PATH=off`` forces that path anywhere.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

from ..health import LogThrottle
from ..process.threads import join_thread

__all__ = ['HotPath', 'MessageErrors', 'hot_path_requested', 'unavailable_reason']

#: Longest wait before the loop re-checks its stop flag (the guard condition is
#: what stops it; this only bounds a missed trigger). Long: a container runs one
#: such thread per robot, and each wake-up of an idle one is CPU for nothing.
_WAIT_TIMEOUT_NS = 5_000_000_000
#: Under a backlog (messages keep coming with no idle wait), the loop sleeps
#: _YIELD_S after this much work, so the executor thread gets the GIL (~2.5 %
#: of a flood's throughput; nothing at all while the loop catches up in time).
_BUSY_YIELD_AFTER_S = 0.02
_YIELD_S = 0.0005
#: A failing handler is reported at most this often (with the count meanwhile).
_ERROR_LOG_PERIOD_S = 5.0


def hot_path_requested(requested: bool | None = None) -> bool:
    """Whether to use the hot path: ``requested``, else ``URDF_STATE_HOT_PATH``
    (``auto``/``on`` -- the default -- or ``off``)."""
    if requested is not None:
        return bool(requested)
    value = (os.environ.get('URDF_STATE_HOT_PATH') or 'auto').strip().lower()
    if value not in ('auto', 'on', 'off', '1', '0', 'true', 'false'):
        raise ValueError(f"URDF_STATE_HOT_PATH must be auto, on or off, not '{value}'")
    return value not in ('off', '0', 'false')


def unavailable_reason(node=None, subscription=None) -> str | None:
    """Why this rclpy cannot serve a subscription from our own thread (None: it can)."""
    for name in ('WaitSet', 'GuardCondition', 'Subscription'):
        if not hasattr(_rclpy, name):
            return f'rclpy has no {name} in its C extension'
    if not hasattr(_rclpy.Subscription, 'take_message'):
        return 'rclpy subscriptions have no take_message'
    if node is not None:
        subscriptions = getattr(node, '_subscriptions', None)
        if not isinstance(subscriptions, list):
            return "this rclpy's Node keeps its subscriptions private"
        if subscription is not None and subscription not in subscriptions:
            return 'the subscription is not in the node'
    return None


class MessageErrors:
    """Counts messages whose handling raised, and logs them throttled (never raises)."""

    def __init__(self, logger, what: str = 'a JointState message') -> None:
        self._logger = logger
        self._what = what
        self.count = 0
        self._throttle = LogThrottle(_ERROR_LOG_PERIOD_S)

    def record(self, exc: BaseException) -> None:
        """One more failure; logged when the last report is old enough."""
        self.count += 1
        held = self._throttle.allow(self._what, time.monotonic_ns())
        if held is None:
            return
        more = f' ({held} more since the last report)' if held else ''
        try:
            self._logger.error(f'Failed to handle {self._what}: {type(exc).__name__}: {exc}'
                               f'{more}; skipped it (failures so far: {self.count})')
        except Exception:  # noqa: BLE001 - a logging failure must not end the caller either
            pass

    def guarded(self, handler: Callable[[bytes], None]) -> Callable[[bytes], None]:
        """``handler`` with its exceptions recorded instead of raised (the executor path)."""
        def call(data: bytes) -> None:
            try:
                handler(data)
            except Exception as exc:  # noqa: BLE001 - one bad message must not stop the node
                self.record(exc)
        return call


class HotPath:
    """Raw subscriptions (*routes*: each with its handler) served by one daemon thread of
    their own (see the module docstring).

    Build with :meth:`attach` (None when the rclpy at hand cannot), then
    :meth:`start`; :meth:`stop` before destroying the node. The plain
    ``joint_states`` subscription is one route; ``source_list`` topics are several,
    drained in turn: per wake-up the loop takes *one* message from each subscription
    in turn until all are empty (round robin), so a source flooding its topic delays
    the others by one message each, never by its whole backlog.
    """

    def __init__(self, node, routes: Sequence[tuple[object, Callable[[bytes], None]]],
                 errors: MessageErrors) -> None:
        self._node = node
        self._routes = list(routes)
        self._errors = errors
        self._context = node.context
        self._events = [event for subscription, _ in self._routes
                        for event in getattr(subscription, 'event_handlers', ())]
        self._guard = _rclpy.GuardCondition(self._context.handle)
        self._wait_set = _rclpy.WaitSet(len(self._routes), 1, 0, 0, 0, len(self._events),
                                        self._context.handle)
        self._stopping = False
        self._thread: threading.Thread | None = None

    @classmethod
    def attach(cls, node, routes: Sequence[tuple[object, Callable[[bytes], None]]],
               errors: MessageErrors, what: str = 'joint_states', **extra) -> 'HotPath | None':
        """Take every subscription of ``routes`` (raw, of ``node``) away from the executors;
        None if impossible (logged, naming ``what``).

        Call before the node is added to an executor: an EventsExecutor
        registers the subscriptions it sees when a node is added. ``extra``: a
        subclass's own constructor arguments.
        """
        for subscription, _ in routes:
            reason = unavailable_reason(node, subscription)
            if reason is not None:
                node.get_logger().info(f'{what} served by the executor ({reason})')
                return None
        hot = cls(node, routes, errors, **extra)
        for subscription, _ in routes:
            node._subscriptions.remove(subscription)
        for event in hot._events:
            node.remove_waitable(event)
        return hot

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name='urdf_state_joint_states',
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread (guard condition), then hand the subscriptions back to the node,
        so that destroying the node destroys them as any other."""
        self._stopping = True
        try:
            self._guard.trigger_guard_condition()
        except Exception:  # noqa: BLE001 - already destroyed: the loop ends on its timeout
            pass
        join_thread(self._thread, timeout)
        for subscription, _ in self._routes:
            if subscription not in self._node._subscriptions:
                self._node._subscriptions.append(subscription)
                for event in getattr(subscription, 'event_handlers', ()):
                    self._node.add_waitable(event)

    def _wait(self, routes) -> bool:
        """One wait on every route, the guard and the event handlers; False: stopping."""
        wait_set = self._wait_set
        wait_set.clear_entities()
        for route in routes:
            wait_set.add_subscription(route[0])
        wait_set.add_guard_condition(self._guard)
        events = self._events
        for event in events:
            event.add_to_wait_set(wait_set)
        wait_set.wait(_WAIT_TIMEOUT_NS)
        if self._stopping:
            return False
        for event in events:
            if event.is_ready(wait_set):   # incompatible QoS and kin: logged by rclpy's handler
                _run_to_end(event.execute(event.take_data()))
        return True

    def _run(self) -> None:
        routes = [(sub.handle, sub.handle.take_message, sub.msg_type, handler)
                  for sub, handler in self._routes]
        errors = self._errors
        busy_since = None
        # Entered for the thread's life: none of them can be destroyed under the loop.
        with ExitStack() as entered:
            for entity in (*(r[0] for r in routes), self._guard, self._wait_set, *self._events):
                entered.enter_context(entity)
            while not self._stopping:
                try:
                    if not self._wait(routes):
                        break
                    pending = routes
                    while pending and not self._stopping:   # round robin until all are empty
                        still = []
                        for route in pending:
                            taken = route[1](route[2], True)
                            if taken is None:
                                continue
                            still.append(route)
                            try:
                                route[3](taken[0])
                            except Exception as exc:  # noqa: BLE001 - skip this message only
                                if not self._context.ok():
                                    return  # shutting down (Ctrl-C): publishing fails, say nothing
                                errors.record(exc)
                        pending = still
                        busy_since = _yield_when_busy(busy_since) if still else None
                except Exception as exc:  # noqa: BLE001 - wait/take failed
                    if self._stopping or not self._context.ok():
                        break
                    errors.record(exc)
                    time.sleep(0.01)  # never a busy loop on a persistent failure


def _yield_when_busy(busy_since: float | None) -> float:
    """After :data:`_BUSY_YIELD_AFTER_S` of work without an idle wait, sleep :data:`_YIELD_S`
    so the executor thread gets the GIL (see the module docstring); returns the new start
    of the work."""
    now = time.perf_counter()
    if busy_since is None:
        return now
    if now - busy_since > _BUSY_YIELD_AFTER_S:
        time.sleep(_YIELD_S)
        return time.perf_counter()
    return busy_since


def _run_to_end(coroutine) -> None:
    """Run an event handler's ``execute`` coroutine (its callback is synchronous)."""
    try:
        while True:
            coroutine.send(None)
    except StopIteration:
        pass
