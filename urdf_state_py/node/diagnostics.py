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
``/diagnostics``: each robot's DiagnosticStatus, sent once a second in one array per process.

A thin adapter over :func:`urdf_state_py.node.health.node_status`. Each robot
has a :class:`RobotStatus`, named ``<node>: robot state`` (``<node>``: the
node's fully qualified name without the leading ``/``, so several namespaced
robots stay apart), its ``hardware_id`` the robot's name. A
:class:`DiagnosticsBoard` owns one ``/diagnostics`` publisher (reliable,
volatile, depth 1, as ``diagnostic_updater``) and, on each tick of the
process's :class:`~urdf_state_py.node.process.ticker.Ticker` thread, sends one
``diagnostic_msgs/DiagnosticArray`` carrying the status of every robot it
serves, stamped with its node's clock: the standalone node's board serves
that node alone; the container's serves all its robots, as a
``diagnostic_updater`` sends all the tasks of one node together.
rqt_robot_monitor and diagnostic_aggregator take each status by its name.

An idle robot's status is not rebuilt: :func:`quiet_key` fingerprints what the
status shows (its counters, the native loop's activity, the model) without
pausing the loop, and a robot whose key has not changed keeps its last status
(rebuilt anyway every :data:`REBUILD_NS`, and when a joint turns stale). When no
status changed, the board sends its last array again with only the stamp rewritten.
Measured idle on a 2-core VM, a container's twenty rebuilt statuses and twenty
publications cost 15-23 ms of CPU per second, about half of it the publications; this
way 2-4 ms/s (see docs/benchmarks.md, The container).
"""

from __future__ import annotations

from collections.abc import Callable
import math
import threading
import time
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.node import Node
from rclpy.serialization import serialize_message

from .guards import CallbackGuard
from .health import Health, ModelView, node_status
from .process.ticker import Ticker
from .tf_path.plain_cdr import ENCAPSULATIONS, HEADER_SIZE, STAMP

__all__ = ['DiagnosticsBoard', 'RobotStatus', 'TASK', 'model_view', 'quiet_key']

TASK = 'robot state'
_LEVELS = {0: DiagnosticStatus.OK, 1: DiagnosticStatus.WARN, 2: DiagnosticStatus.ERROR}
_NS = 1_000_000_000
#: A status whose :func:`quiet_key` stays the same is still rebuilt this often (monotonic).
REBUILD_NS = 30 * _NS


def model_view(loaded: Any, now_ns: int, stale_after_s: float) -> ModelView | None:
    """
    Return what the status shows of a loaded model and its joint state.

    ``loaded``: a description_loader.Loaded (None: the result is None too).
    ``stale_after_s`` 0: no staleness check.
    """
    if loaded is None:
        return None
    m, merger = loaded.model, loaded.merger
    stale_ns = int(stale_after_s * _NS)
    return ModelView(robot=m.name, parser=loaded.parser, links=len(m.links),
                     joints=len(m.joints), movable=len(m.movable_joint_names),
                     never_received=tuple(j for j in merger.pending_joints()
                                          if j not in loaded.passive_joints),
                     stale=merger.stale_joints(now_ns, stale_ns) if stale_ns else (),
                     clamps=loaded.plans.clamps, last_clamped=tuple(loaded.plans.last_clamped),
                     parts=loaded.part_names)


def quiet_key(health: Health, loaded: Any, activity: int | None, now_ns: int) -> tuple | None:
    """
    Return a cheap fingerprint of what the status would show.

    Return a fingerprint of what the status would show, cheap enough for every tick of an idle
    robot: equal keys, the same status (its stamp aside) -- until a joint turns stale,
    which :meth:`RobotStatus.refresh` times itself. None while a recent rejection or
    clamp can change the status with time alone.

    ``activity``: the native loop's (``Loop.activity()``, read without pausing it), which
    stands for what the loop changed since; None without the loop, where the newest time
    a joint received a value stands for the messages Python served.

    The model is told by its merger itself (compared by identity: a new model comes with
    a new merger), not by an id(), which a freed model's successor can be given.
    """
    counters = health.fingerprint(now_ns)
    if counters is None:
        return None
    if loaded is None:
        return (activity, counters)
    merger = loaded.merger
    if activity is None:
        activity = ('seen', int(merger.seen_ns.max(initial=0)))
    return (activity, counters, merger, merger.received_generation, loaded.plans.clamps)


class RobotStatus:
    """
    One robot's status, rebuilt when its :func:`quiet_key` says it may have changed.

    ``loaded()``: the robot's current model (description_loader.Loaded, or
    None); ``joint_input``: its :class:`~.tf_path.joint_state_input.JointStateInput`,
    whose lock a build holds (bringing the native loop's counters into Python)
    and whose loop's activity the key reads without it; ``stale_after_s()``: the
    configured staleness limit. ``guard`` reports a failing build (the last
    status stays).
    """

    def __init__(self, node: Node, health: Health, guard: CallbackGuard,
                 now_ns: Callable[[], int], *, loaded: Callable[[], Any], joint_input: Any,
                 stale_after_s: Callable[[], float]) -> None:
        self.name = f'{node.get_fully_qualified_name().lstrip("/")}: {TASK}'
        self._health = health
        self._loaded = loaded
        self._input = joint_input
        self._stale_after_s = stale_after_s
        self._now_ns = now_ns
        self._last = (now_ns(), health.tf_published)
        self._clamps = 0
        #: (key before the last build, its monotonic time, when a joint turns stale)
        self._built: tuple[tuple | None, int, float] = (None, 0, 0.0)
        self._shown: tuple | None = None
        #: The status the board sends (None until the first build).
        self.status: DiagnosticStatus | None = None
        self.refresh_guarded: Callable[[], bool | None] = guard.wrap('/diagnostics', self.refresh)

    def _view(self, now_ns: int, stale_after_s: float) -> tuple[ModelView | None, float]:
        """
        Return the model's view and when it next changes with time alone.

        Both are read under the JointState lock: the native loop writes ``seen_ns`` in
        place, and a copy taken beside it was a data race (ThreadSanitizer, plan_step vs
        a numpy copy).
        """
        with self._input.lock:
            return (model_view(self._loaded(), now_ns, stale_after_s),
                    self._stale_at(now_ns, stale_after_s))

    def _key(self, now_ns: int, stale_after_s: float) -> tuple | None:
        sync = self._input.lock.sync
        key = quiet_key(self._health, self._loaded(), sync.activity() if sync else None, now_ns)
        return None if key is None else (stale_after_s, key)

    def _stale_at(self, now_ns: int, stale_after_s: float) -> float:
        """When the stale joints shown change with time alone (robot clock, ns)."""
        loaded = self._loaded()
        if loaded is None or stale_after_s <= 0:
            return math.inf
        at = loaded.merger.next_stale_ns(now_ns, int(stale_after_s * _NS))
        return math.inf if at is None else at

    def refresh(self) -> bool:
        """Bring :attr:`status` up to date; True when it changed."""
        now_ns = self._now_ns()
        stale_after_s = self._stale_after_s()
        key = self._key(now_ns, stale_after_s)
        built_key, built_at, stale_at = self._built
        if key is not None and key == built_key and now_ns < stale_at and \
                time.monotonic_ns() - built_at < REBUILD_NS:
            self._last = (now_ns, self._last[1])
            return False
        view, stale_at = self._view(now_ns, stale_after_s)  # first: brings the counters up to date
        last_ns, last_count = self._last
        count = self._health.tf_published
        rate = (count - last_count) * _NS / (now_ns - last_ns) if now_ns > last_ns else 0.0
        self._last = (now_ns, count)
        if view is not None and view.clamps != self._clamps:   # the native loop clamped
            self._clamps = view.clamps
            self._health.clamp(view.last_clamped, now_ns)
        status = node_status(self._health, view, stale_after_s=stale_after_s,
                             tf_rate_hz=rate, now_ns=now_ns)
        # The key was taken before the build: what happens during it changes the next key.
        # A rate above 0 falls to 0 with time alone, a fresh joint turns stale.
        self._built = (key if rate == 0.0 else None, time.monotonic_ns(), stale_at)
        shown = (status.level, status.message, view.robot if view is not None else '',
                 tuple(status.values))
        if shown == self._shown:
            return False
        self._shown = shown
        self.status = DiagnosticStatus(
            level=_LEVELS[status.level], name=self.name, message=status.message,
            hardware_id=shown[2], values=[KeyValue(key=k, value=v) for k, v in status.values])
        return True


class DiagnosticsBoard:
    """
    One ``/diagnostics`` publisher for the robots added to it.

    It publishes on ``node`` the statuses of its robots as one array per tick of
    ``ticker`` (see the module docstring); ``guard`` reports
    a failing tick (that array is not sent, the next tick tries again).
    """

    def __init__(self, node: Node, ticker: Ticker, guard: CallbackGuard,
                 event_callbacks=None) -> None:
        kwargs = {'event_callbacks': event_callbacks} if event_callbacks is not None else {}
        self._publisher = node.create_publisher(DiagnosticArray, '/diagnostics', 1, **kwargs)
        self._clock = node.get_clock()
        self._context = node.context
        self._ticker = ticker
        self._robots: tuple[RobotStatus, ...] = ()
        self._lock = threading.Lock()   # guards _robots
        #: (the robots it carries, the serialised array): sent again, stamped anew, while
        #: no robot comes or goes and no status changes.
        self._sent: tuple[tuple[RobotStatus, ...], bytearray | None] | None = None
        self._started = False
        self._tick_guarded = guard.wrap('/diagnostics', self._tick)

    def add(self, robot: RobotStatus) -> None:
        """Send ``robot``'s status from the next tick on (the first one starts the board)."""
        with self._lock:
            self._robots += (robot,)
            if not self._started:
                self._started = True
                self._ticker.add(self._tick_guarded)

    def remove(self, robot: RobotStatus) -> None:
        """Stop sending ``robot``'s status; returns once a tick using it has ended."""
        with self._lock:
            self._robots = tuple(r for r in self._robots if r is not robot)
        self._ticker.settle()

    def close(self) -> None:
        """Stop sending (before ``node`` and its publisher go)."""
        self._ticker.remove(self._tick_guarded)

    def _tick(self) -> None:
        if not self._context.ok():   # not while rclpy shuts down (Ctrl-C)
            return
        with self._lock:
            robots = self._robots
        changed = False
        for robot in robots:
            changed = bool(robot.refresh_guarded()) or changed
        if changed or self._sent is None or self._sent[0] is not robots:
            statuses = [r.status for r in robots if r.status is not None]
            self._sent = (robots, bytearray(serialize_message(DiagnosticArray(status=statuses)))
                          if statuses else None)
        if self._sent[1] is None:   # no robot, or none built yet
            return
        stamp = self._clock.now().nanoseconds
        data = self._sent[1]
        # header.stamp comes first, right after the encapsulation (which gives the byte order)
        stamp_struct = STAMP[ENCAPSULATIONS[bytes(data[:2])][0]]
        stamp_struct.pack_into(data, HEADER_SIZE, stamp // _NS, stamp % _NS)
        self._publisher.publish(bytes(data))
