"""The node's ``/diagnostics``: one DiagnosticStatus at 1 Hz, as other ROS 2 nodes publish it.

A thin adapter over :func:`urdf_state_py.node.health.node_status`: the
process's :class:`~urdf_state_py.node.process.ticker.Ticker` thread reads the counters and the current model's view, and publishes a
``diagnostic_msgs/DiagnosticArray`` with one status, the way
``diagnostic_updater`` does (topic ``/diagnostics``, reliable, volatile,
depth 1; stamped with the node clock). Its name is ``<node>: robot state``
(``<node>``: the node's fully qualified name without the leading ``/``, so
several namespaced instances stay apart), its ``hardware_id`` the robot's
name; rqt_robot_monitor and diagnostic_aggregator take it as is.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node
from rclpy.serialization import serialize_message

from .guards import CallbackGuard
from .health import Health, ModelView, node_status
from .process.ticker import Ticker

__all__ = ['DiagnosticsPublisher', 'TASK', 'model_view']

TASK = 'robot state'
_LEVELS = {0: DiagnosticStatus.OK, 1: DiagnosticStatus.WARN, 2: DiagnosticStatus.ERROR}
_NS = 1_000_000_000
#: header.stamp (sec, nanosec) of a serialised DiagnosticArray: right after the 4-byte CDR
#: encapsulation, whose second byte says the byte order (1: little-endian).
_STAMP = {1: struct.Struct('<iI'), 0: struct.Struct('>iI')}
_STAMP_AT = 4


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
    """Publishes the node's status once per tick of the process's ``ticker`` (1 Hz).

    The ticker's thread only reads counters and publishes; :meth:`start`
    registers with it, :meth:`close` leaves it before the node is destroyed.

    ``view(now_ns, stale_after_s)``: the current :class:`ModelView` (None
    without a model); ``stale_after_s()``: the configured staleness limit.
    """

    def __init__(self, node: Node, health: Health, guard: CallbackGuard, ticker: Ticker,
                 now_ns: Callable[[], int], event_callbacks=None, *,
                 view: Callable[[int, float], ModelView | None],
                 stale_after_s: Callable[[], float]) -> None:
        self._health = health
        self._view = view
        self._stale_after_s = stale_after_s
        self._now_ns = now_ns
        self._clock = node.get_clock()
        self._context = node.context
        self._ticker = ticker
        self.name = f'{node.get_fully_qualified_name().lstrip("/")}: {TASK}'
        kwargs = {'event_callbacks': event_callbacks} if event_callbacks is not None else {}
        self._publisher = node.create_publisher(DiagnosticArray, '/diagnostics', 1, **kwargs)
        self._last = (now_ns(), health.tf_published)
        self._clamps = 0
        #: (what the status shows, its serialised DiagnosticArray): an unchanged status,
        #: the common case once a second, is published again with only its stamp rewritten.
        self._serialized: tuple[tuple, bytearray] | None = None
        self._publish_guarded = guard.wrap('/diagnostics', self._on_tick)

    def start(self) -> None:
        """Start publishing (apart from the constructor: the owner holds this before it runs)."""
        self._ticker.add(self._publish_guarded)

    def close(self) -> None:
        """Stop publishing (before the node and its publisher go)."""
        self._ticker.remove(self._publish_guarded)

    def _on_tick(self) -> None:
        if self._context.ok():   # not while rclpy shuts down (Ctrl-C)
            self.publish()

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
        shown = (status.level, status.message, view.robot if view is not None else '',
                 tuple(status.values))
        if self._serialized is None or self._serialized[0] != shown:
            self._serialized = (shown, bytearray(serialize_message(self._message(shown))))
        stamp = self._clock.now().nanoseconds
        data = self._serialized[1]
        _STAMP[data[1] & 1].pack_into(data, _STAMP_AT, stamp // _NS, stamp % _NS)
        self._publisher.publish(bytes(data))

    def _message(self, shown: tuple) -> DiagnosticArray:
        level, message, robot, values = shown
        msg = DiagnosticArray()
        msg.status = [DiagnosticStatus(
            level=_LEVELS[level], name=self.name, message=message, hardware_id=robot,
            values=[KeyValue(key=k, value=v) for k, v in values])]
        return msg
