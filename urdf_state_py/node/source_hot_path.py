"""Every ``source_list`` subscription served by one thread: :class:`HotPath` for several topics.

The same design as :mod:`.hot_path` (its docstring says why a thread of its
own, and which low-level rclpy API it uses), for N subscriptions: one wait set
holds every source subscription, their QoS event handlers and the stop guard
condition. The one difference is the drain: per wake-up the loop takes *one*
message from each subscription in turn until all are empty (round robin), so a
source flooding its topic delays the others by one message each, never by its
whole backlog. Kept apart from :class:`HotPath`'s single-subscription loop,
which stays the plain ``joint_states`` case.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

from .hot_path import (_BUSY_YIELD_AFTER_S, _WAIT_TIMEOUT_NS, _YIELD_S, HotPath,
                       MessageErrors, _run_to_end, unavailable_reason)

__all__ = ['SourcesHotPath']


class SourcesHotPath(HotPath):
    """Raw subscriptions, each with its handler, served by one daemon thread."""

    def __init__(self, node, routes: Sequence[tuple[object, Callable[[bytes], None]]],
                 errors: MessageErrors) -> None:
        self._node = node
        self._routes = list(routes)
        self._subscription = self._routes[0][0]   # see stop()
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
    def attach_all(cls, node, routes: Sequence[tuple[object, Callable[[bytes], None]]],
                   errors: MessageErrors) -> 'SourcesHotPath | None':
        """Take every subscription of ``routes`` away from the executors; None if impossible."""
        for subscription, _ in routes:
            reason = unavailable_reason(node, subscription)
            if reason is not None:
                node.get_logger().info(f'joint state sources served by the executor ({reason})')
                return None
        hot = cls(node, routes, errors)
        for subscription, _ in routes:
            node._subscriptions.remove(subscription)
        for event in hot._events:
            node.remove_waitable(event)
        return hot

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread, then hand every subscription back to the node (:meth:`HotPath.stop`
        hands back the first one and every event handler)."""
        super().stop(timeout)
        for subscription, _ in self._routes[1:]:
            if subscription not in self._node._subscriptions:
                self._node._subscriptions.append(subscription)

    def _wait(self, routes) -> bool:
        """One wait on every source, the guard and the event handlers; False: stopping."""
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
        with ExitStack() as entered:
            for entity in (*(r[0] for r in routes), self._guard, self._wait_set, *self._events):
                entered.enter_context(entity)
            while not self._stopping:
                try:
                    if not self._wait(routes):
                        break
                    pending = list(routes)
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
                                    return
                                errors.record(exc)
                        pending = still
                        busy_since = _yield_when_busy(busy_since)
                    busy_since = None
                except Exception as exc:  # noqa: BLE001 - wait/take failed
                    if self._stopping or not self._context.ok():
                        break
                    errors.record(exc)
                    time.sleep(0.01)  # never a busy loop on a persistent failure


def _yield_when_busy(busy_since: float | None) -> float:
    """After :data:`_BUSY_YIELD_AFTER_S` of work without an idle wait, sleep :data:`_YIELD_S`
    so the executor thread gets the GIL (see hot_path); returns the new start of the work."""
    now = time.perf_counter()
    if busy_since is None:
        return now
    if now - busy_since > _BUSY_YIELD_AFTER_S:
        time.sleep(_YIELD_S)
        return time.perf_counter()
    return busy_since
