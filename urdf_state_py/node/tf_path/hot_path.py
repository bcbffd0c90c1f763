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
JointState subscriptions served by a thread of their own, outside the executor.

Why: rclpy's wait-set executors rebuild, in Python, a wait set of every entity of the
node on every wake-up (most of what a JointState costs), and its EventsExecutor queues
one event per message without bound under a flood. :class:`HotPath` serves the
subscriptions, owned by the native extension, from a daemon thread running its
``Loop``, so the DDS history is the only queue and parameters keep answering. How the
subscriptions are taken over from rclpy with public APIs only, and handed back should
the loop end: docs/design.md, "The hot path". A handler exception never ends the
thread: :class:`MessageErrors` counts it and logs it, throttled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
import os
import threading
import time
from types import ModuleType

from ..health import LogThrottle
from ..process.threads import join_thread

__all__ = ['HotPath', 'MessageErrors', 'hot_path_requested', 'qos_arguments',
           'unavailable_reason']

#: A failing handler is reported at most this often (with the count meanwhile).
_ERROR_LOG_PERIOD_S = 5.0


def hot_path_requested(requested: bool | None = None) -> bool:
    """
    Return whether to use the hot path.

    ``requested``, else ``URDF_STATE_HOT_PATH`` (``auto``/``on`` -- the default -- or
    ``off``).
    """
    if requested is not None:
        return bool(requested)
    value = (os.environ.get('URDF_STATE_HOT_PATH') or 'auto').strip().lower()
    if value not in ('auto', 'on', 'off', '1', '0', 'true', 'false'):
        raise ValueError(f"URDF_STATE_HOT_PATH must be auto, on or off, not '{value}'")
    return value not in ('off', '0', 'false')


def unavailable_reason(module: ModuleType | None, node) -> str | None:
    """
    Return why the extension cannot serve a subscription of ``node`` from its own thread.

    None: it can. It needs the rcl pointers of the node, its context and its clock.
    """
    if module is None or not hasattr(module, 'Subscription'):
        return 'the native extension is not loaded'
    for what, handle in (('node', node.handle), ('context', node.context.handle),
                         ('clock', node.get_clock().handle)):
        if not hasattr(handle, 'pointer'):
            return f"this rclpy's {what} handle has no rcl pointer"
    return None


def qos_arguments(qos) -> tuple:
    """
    Return an rclpy ``QoSProfile`` as the extension's ``Subscription`` takes it.

    Rclpy's enum values are rmw's; durations in ns, 0 the rmw default.
    """
    return (int(qos.history), int(qos.depth), int(qos.reliability), int(qos.durability),
            qos.deadline.nanoseconds, qos.lifespan.nanoseconds, int(qos.liveliness),
            qos.liveliness_lease_duration.nanoseconds,
            bool(qos.avoid_ros_namespace_conventions))


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
        except Exception:  # a logging failure must not end the caller either
            pass

    def guarded(self, handler: Callable[[bytes], None]) -> Callable[[bytes], None]:
        """Wrap ``handler`` to record its exceptions instead of raising (the executor path)."""
        def call(data: bytes) -> None:
            try:
                handler(data)
            except Exception as exc:  # one bad message must not stop the node
                self.record(exc)
        return call


class HotPath:
    """
    JointState subscriptions owned by the extension, served by one daemon thread.

    Each subscription is (topic as given to rclpy, QoS, handler), all served by one
    daemon thread running its ``Loop`` (see the module docstring).

    Build with :meth:`attach`, then :meth:`start`; :meth:`stop` before destroying the
    node. The plain ``joint_states`` is one subscription; ``source_list`` topics are
    several, drained in turn (one message from each until all are empty), so a source
    flooding its topic delays the others by one message each. ``sync``: the
    :class:`~.native_loop.LoopSync` whose plans serve subscription 0 without Python
    (None: every message goes to its handler); ``tf_publisher``: the /tf publisher the
    plans publish on; ``on_ended(why)``: called on the thread should the loop end,
    before the subscriptions go back to the executor.
    """

    def __init__(self, node, module: ModuleType,
                 subscriptions: Sequence[tuple[str, object, Callable[[bytes], None]]],
                 errors: MessageErrors, *, tf_publisher, sync=None,
                 on_ended: Callable[[str], None] | None = None) -> None:
        from rclpy.guard_condition import GuardCondition
        self._node = node
        self._errors = errors
        self._context = node.context
        self._topic_handlers = [(topic, qos, errors.guarded(handler))
                                for topic, qos, handler in subscriptions]
        self._tf_publisher = tf_publisher
        self._clock = node.get_clock()
        self.sync = sync
        self.loop = sync.loop if sync is not None else module.Loop()
        self._on_ended = on_ended
        self._guard = GuardCondition(None, None, self._context)
        self._owned: list = []
        try:
            for topic, qos, _ in self._topic_handlers:
                self._owned.append(module.Subscription(node.handle, topic, *qos_arguments(qos)))
        except BaseException:
            self._close()
            raise
        self._events = [(owned, index, owned.topic_name) for owned in self._owned
                        for index in range(len(owned.event_pointers))]
        #: The rclpy subscriptions serving the topics after the loop ended (executor).
        self.handed_back: list = []
        self._stopping = False
        self._thread: threading.Thread | None = None

    @classmethod
    def attach(cls, node, module: ModuleType,
               subscriptions: Sequence[tuple[object, str, Callable]], errors: MessageErrors,
               **extra) -> 'HotPath':
        """
        Take over ``subscriptions``, each an rclpy raw JointState subscription of ``node``.

        Each is ``(subscription, topic as given to create_subscription, handler)``:
        the extension subscribes with that topic and the subscription's QoS, then rclpy's
        is destroyed. Call before the node is added to an executor. Raises (the rclpy
        subscriptions untouched) when the extension cannot subscribe.
        """
        hot = cls(node, module, [(topic, sub.qos_profile, handler)
                                 for sub, topic, handler in subscriptions], errors, **extra)
        for subscription, _, _ in subscriptions:
            node.destroy_subscription(subscription)
        return hot

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name='urdf_state_joint_states',
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread, then close the extension's subscriptions (before the node goes)."""
        self._stopping = True
        self.loop.request_stop()
        try:
            self._guard.trigger()
        except Exception:  # already destroyed: the loop ends on its timeout
            pass
        join_thread(self._thread, timeout)
        if not self.running:   # else the loop may still use them: left to the process's end
            self._close()

    def _close(self) -> None:
        for owned in self._owned:
            owned.close()
        self._guard.destroy()

    def _on_event(self, index: int) -> None:
        """Log a QoS event of a subscription as rclpy's default handlers log it."""
        try:
            owned, at, topic = self._events[index]
            taken = owned.take_event(at)
            if taken is None:
                return
            kind, _total, _change, policy = taken
            if kind == 'incompatible_qos':
                from rclpy.qos import qos_policy_name_from_kind
                self._node.get_logger().warning(
                    f"New publisher discovered on topic '{topic}', offering incompatible QoS. "
                    'No messages will be received from it. Last incompatible policy: '
                    f'{qos_policy_name_from_kind(policy)}')
            else:
                self._node.get_logger().warning(
                    f"Incompatible type on topic '{topic}', no messages will be sent to it.")
        except Exception as exc:  # an event must not end the loop
            self._errors.record(exc)

    def _run(self) -> None:
        why = self._serve()
        if why is None or self._stopping or not self._context.ok():
            return
        try:
            if self._on_ended is not None:
                self._on_ended(why)
        except Exception as exc:  # the subscriptions go back all the same
            self._errors.record(exc)
        self._hand_back()

    def _serve(self) -> str | None:
        """``Loop.run`` on this thread: None once stopped, else why it ended."""
        pub, context, clock = self._tf_publisher.handle, self._context.handle, self._clock.handle
        guard = self._guard.handle
        try:
            with ExitStack() as entered:  # none destroyed under the C loop
                for entity in (pub, guard, context, clock):
                    entered.enter_context(entity)
                return self.loop.run(
                    context.pointer, [owned.pointer for owned in self._owned], pub.pointer,
                    guard.pointer, clock.pointer,
                    [pointer for owned in self._owned for pointer in owned.event_pointers],
                    tuple(handler for _, _, handler in self._topic_handlers), self._on_event)
        except Exception as exc:  # the caller decides what follows
            return f'{type(exc).__name__}: {exc}'

    def _hand_back(self) -> None:
        """
        Hand the subscriptions back to the executor once the loop ended.

        Each subscription becomes an rclpy subscription again (same topic and QoS, its QoS
        parameters already declared), served by the executor.
        """
        from sensor_msgs.msg import JointState
        for owned in self._owned:
            owned.close()
        for topic, qos, handler in self._topic_handlers:
            try:
                self.handed_back.append(self._node.create_subscription(
                    JointState, topic, handler, qos, raw=True))
            except Exception as exc:  # the node is going: nothing to serve
                self._errors.record(exc)
