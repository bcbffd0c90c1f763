"""The node's ``/diagnostics``: one DiagnosticStatus at 1 Hz, as other ROS 2 nodes publish it.

A thin adapter over :func:`urdf_state_py.node.health.node_status`: a thread
reads the counters and the current model's view, and publishes a
``diagnostic_msgs/DiagnosticArray`` with one status, the way
``diagnostic_updater`` does (topic ``/diagnostics``, reliable, volatile,
depth 1; stamped with the node clock). Its name is ``<node>: robot state``
(``<node>``: the node's fully qualified name without the leading ``/``, so
several namespaced instances stay apart), its ``hardware_id`` the robot's
name; rqt_robot_monitor and diagnostic_aggregator take it as is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node

from .guards import CallbackGuard
from .health import Health, ModelView, node_status
from .process.threads import join_thread

__all__ = ['DiagnosticsPublisher', 'PERIOD_S', 'TASK', 'model_view']

PERIOD_S = 1.0
TASK = 'robot state'
_LEVELS = {0: DiagnosticStatus.OK, 1: DiagnosticStatus.WARN, 2: DiagnosticStatus.ERROR}
_NS = 1_000_000_000


def model_view(loaded: Any, now_ns: int, stale_after_s: float) -> ModelView | None:
    """What the status shows of a loaded model (description_loader.Loaded) and its joint
    state; None without one. ``stale_after_s`` 0: no staleness check."""
    if loaded is None:
        return None
    m, merger = loaded.model, loaded.merger
    stale_ns = int(stale_after_s * _NS)
    return ModelView(robot=m.name, parser=loaded.parser, links=len(m.links),
                     joints=len(m.joints), movable=len(m.movable_joint_names),
                     never_received=merger.pending_joints(),
                     stale=merger.stale_joints(now_ns, stale_ns) if stale_ns else (),
                     clamps=loaded.fast.clamps, last_clamped=tuple(loaded.fast.last_clamped))


class DiagnosticsPublisher:
    """Publishes the node's status every :data:`PERIOD_S` seconds, from a thread of its own.

    Not an rclpy timer: a timer is one more entity in every executor wake-up,
    and with Kilted's EventsExecutor a node that always has a timer was seen to
    abort at Ctrl-C now and then ("terminate called without an active
    exception"). The thread only reads counters and publishes; :meth:`start`
    starts it, :meth:`close` stops it before the node is destroyed.

    ``view(now_ns, stale_after_s)``: the current :class:`ModelView` (None
    without a model); ``stale_after_s()``: the configured staleness limit.
    """

    def __init__(self, node: Node, health: Health, guard: CallbackGuard,
                 now_ns: Callable[[], int], event_callbacks=None, *,
                 view: Callable[[int, float], ModelView | None],
                 stale_after_s: Callable[[], float]) -> None:
        self._health = health
        self._view = view
        self._stale_after_s = stale_after_s
        self._now_ns = now_ns
        self._clock = node.get_clock()
        self._context = node.context
        self.name = f'{node.get_fully_qualified_name().lstrip("/")}: {TASK}'
        kwargs = {'event_callbacks': event_callbacks} if event_callbacks is not None else {}
        self._publisher = node.create_publisher(DiagnosticArray, '/diagnostics', 1, **kwargs)
        self._last = (now_ns(), health.tf_published)
        self._clamps = 0
        self._publish_guarded = guard.wrap('/diagnostics', self.publish)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start publishing (apart from the constructor: the owner holds this before it runs)."""
        self._thread = threading.Thread(target=self._run, name='urdf_state diagnostics',
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(PERIOD_S) and self._context.ok():
            self._publish_guarded()

    def close(self) -> None:
        """Stop publishing (before the node and its publisher go)."""
        self._stop.set()
        join_thread(self._thread, timeout=2.0 * PERIOD_S)

    def publish(self) -> None:
        now_ns = self._now_ns()
        stale_after_s = self._stale_after_s()
        view = self._view(now_ns, stale_after_s)   # first: it brings the counters up to date
        last_ns, last_count = self._last
        count = self._health.tf_published
        rate = (count - last_count) * _NS / (now_ns - last_ns) if now_ns > last_ns else 0.0
        self._last = (now_ns, count)
        if view is not None and view.clamps != self._clamps:   # the fast path clamped
            self._clamps = view.clamps
            self._health.clamp(view.last_clamped, now_ns)
        status = node_status(self._health, view, stale_after_s=stale_after_s,
                             tf_rate_hz=rate, now_ns=now_ns)
        msg = DiagnosticArray()
        msg.header.stamp = self._clock.now().to_msg()
        msg.status = [DiagnosticStatus(
            level=_LEVELS[status.level], name=self.name, message=status.message,
            hardware_id=view.robot if view is not None else '',
            values=[KeyValue(key=k, value=v) for k, v in status.values])]
        self._publisher.publish(msg)
