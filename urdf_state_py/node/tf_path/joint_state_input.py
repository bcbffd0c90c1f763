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
joint_states in, /tf out: the node's per-message work, on whichever thread serves it.

:class:`JointStateInput` owns the ``joint_states`` subscription (raw CDR), decodes
each message (in C where :mod:`.native` allows), runs
:func:`~.joint_state_step.joint_state_step` under :attr:`JointStateInput.lock`, then
reports and publishes what it returns. Where the native loop runs, it serves the
common message itself and hands every other one to :meth:`JointStateInput.on_raw`
(docs/design.md, "A JointState's way to /tf"); the node logs once which path serves
and why (also on /diagnostics). The node swaps the model and settings under the same
lock, so a /tf is computed wholly with the old or wholly with the new ones. A message
that cannot be read, is rejected or fails otherwise is dropped and reported through
the node's :class:`~.guards.CallbackGuard`; the reader refuses a name list longer
than the model accepts before decoding it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from rclpy.qos import qos_profile_sensor_data
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState

from .hot_path import hot_path_requested, HotPath, MessageErrors
from .hot_path import unavailable_reason as hot_unavailable_reason
from .joint_state_cdr import MalformedJointState
from .joint_state_step import joint_state_step, Step, tf_step
from .native import joint_state_reader
from .native import status as native_status
from .native_loop import LoopSync, PausingLock
from ..guards import CallbackGuard, INTERNAL_ERROR
from ..health import Health

__all__ = ['JointStateInput']

_NS = 1_000_000_000


class JointStateInput:
    """
    The joint_states subscription and its path to /tf (see the module docstring).

    ``current()`` returns the node's ``(loaded, cfg)``: the loaded state
    (None while waiting for a description) and the parameter values; ``guard``
    reports dropped messages, ``health`` counts what /diagnostics shows.
    """

    def __init__(self, node, tf_publisher, current: Callable[[], tuple[Any, Mapping[str, Any]]],
                 guard: CallbackGuard, health: Health, *, hot_path: bool | None = None,
                 subscribe: bool = True) -> None:
        """
        Set up the joint state input.

        ``subscribe``: False with ``source_list`` (see sources.py: the node then reads
        the listed topics, and publishes on joint_states rather than reading it).
        """
        self._node = node
        self._tf_pub = tf_publisher
        self._current = current
        self._guard = guard
        self._health = health
        self._clock_handle = node.get_clock().handle   # rcl clock: get_now() in every release
        self._reader = joint_state_reader()
        health.joint_states_decoder = native_status().summary
        node.get_logger().info(health.joint_states_decoder)
        #: Held while a message is handled and while the node changes the state it reads
        #: (re-entrant; pauses the native loop while held).
        self.lock = PausingLock()
        #: Node clock (ns) of the last /tf publication (the defaults timer reads it).
        self.last_tf_ns = 0
        #: Messages whose handling raised (skipped, logged throttled).
        self.errors = MessageErrors(node.get_logger())
        self.subscription = None
        self._topic = 'joint_states'
        self.hot_path: HotPath | None = None
        if subscribe:
            self._subscribe(node, hot_path)

    def _subscribe(self, node, hot_path: bool | None) -> None:
        handler = self.errors.guarded(self.on_raw)
        self.subscription = node.create_subscription(
            JointState, 'joint_states', handler, qos_profile_sensor_data,
            qos_overriding_options=QoSOverridingOptions.with_default_policies(), raw=True)
        self._topic = self.subscription.topic_name
        if not hot_path_requested(hot_path):
            self.report_path('executor (URDF_STATE_HOT_PATH=off)')
            return
        self.hot_path = self.thread_for([(self.subscription, 'joint_states', self.on_raw)])
        if self.hot_path is not None:
            self.subscription = None   # destroyed: the extension's serves the topic

    def thread_for(self, subscriptions, what: str = 'joint_states', planned: bool = True
                   ) -> HotPath | None:
        """
        Return the thread serving ``subscriptions``, or None: the executor serves them.

        ``subscriptions``: (rclpy subscription, the topic as given to rclpy, handler)
        each. The thread is the extension's loop, with its plans where they may run;
        which path serves, and why, is logged.

        ``planned``: subscription 0 is ``joint_states``, whose plan the loop runs and syncs
        through :attr:`lock`; else (``source_list`` topics) the loop never has a plan
        and hands every message to its handler, so one thread serves every JointState
        input. Should the loop end, the executor serves ``subscriptions`` again.
        """
        node, native = self._node, native_status()
        suffix = '' if planned else ' for the source_list topics'
        why_not = native.reason if native.module is None else \
            hot_unavailable_reason(native.module, node)
        if why_not is None:
            sync = None
            if planned and native.loop_refused is None:
                sync = LoopSync(native.module, self._current, self._health, self, self.errors)

            def ended(why: str) -> None:
                if sync is not None:
                    self.lock.detach()
                self.report_path(f'executor (the native loop ended: {why}){suffix}', warn=True)

            try:
                hot = HotPath.attach(node, native.module, subscriptions, self.errors,
                                     tf_publisher=self._tf_pub, sync=sync, on_ended=ended)
            except Exception as exc:  # the executor serves rclpy's subscription
                why_not = f'the native extension could not subscribe: {exc}'
            else:
                if sync is not None:
                    self.lock.sync = sync
                self.report_path(f'Python hot path ({native.loop_refused})'
                                 if planned and sync is None
                                 else f'native loop (C) ({native.reason}){suffix}')
                return hot
        self.report_path(f'executor ({why_not}){suffix}')
        return None

    def report_path(self, which: str, warn: bool = False) -> None:
        """Log which path serves the JointState input and why (also on /diagnostics)."""
        self._health.joint_states_path = f'joint_states path: {which}'
        logger = self._node.get_logger()
        (logger.warning if warn else logger.info)(self._health.joint_states_path)

    def start(self) -> None:
        """Start serving (the hot path's thread; the executor path needs nothing)."""
        if self.hot_path is not None:
            self.hot_path.start()

    def stop(self) -> None:
        """Stop the hot path's thread (before the node is destroyed)."""
        if self.hot_path is not None:
            self.hot_path.stop()

    def now_ns(self) -> int:
        """Return the node clock now, in ns (``get_clock().now()`` without building a Time)."""
        return self._clock_handle.get_now().nanoseconds

    # -- per message --------------------------------------------------------------

    def on_raw(self, data: bytes) -> None:
        """One serialised JointState, from the hot path's thread or the executor."""
        with self.lock:
            loaded, cfg = self._current()
            if loaded is None:
                return
            now_ns = self.now_ns()
            try:
                self._reader.max_names = loaded.merger.max_names
                names, positions, sec, nanosec = self._reader.read(data)
                self.on_fields(loaded, cfg, names, positions, sec, nanosec, now_ns)
            except MalformedJointState as err:
                self._guard.report(self._topic, err.reason, str(err))
            except Exception as err:  # no message may end the node
                self._guard.report(self._topic, INTERNAL_ERROR, f'{type(err).__name__}: {err}')

    def on_fields(self, loaded, cfg: Mapping[str, Any], names, positions, sec: int,
                  nanosec: int, now_ns: int, topic: str | None = None) -> np.ndarray | None:
        """
        Serve a JointState's fields (under :attr:`lock`): report and publish its step.

        Return the configuration published on /tf (None: nothing published).
        """
        step = joint_state_step(loaded, names, positions, sec, nanosec, now_ns,
                                publish_default_positions=cfg['publish_default_positions'],
                                ignore_limits=cfg['ignore_limits'])
        update = step.update
        for warning in update.warnings:
            self._node.get_logger().warning(warning)
        topic = topic or self._topic
        if update.backwards:
            self._guard.log(topic, 'time moved backwards', update.backwards, now_ns)
        if update.error:
            self._guard.report(topic, update.reason, update.error)
        if update.ignored:
            self._health.messages_with_unknown_names += 1
            self._guard.log(topic, 'unknown names', update.ignored, now_ns)
        self._health.non_finite_values += update.non_finite
        if step.payload is None:
            return None
        self._publish(loaded, step, now_ns)
        return step.q

    # -- publishing (also the node's, under the lock) ------------------------------

    def publish_defaults(self, loaded, ignore_limits: bool) -> None:
        """Publish the joints that never received a state, at their defaults, stamped now."""
        pending = loaded.merger.pending_joints()
        if pending:
            now_ns = self.now_ns()
            self._publish(loaded, tf_step(loaded, pending, now_ns // _NS, now_ns % _NS,
                                          ignore_limits), now_ns)

    def _publish(self, loaded, step: Step, now_ns: int) -> None:
        """Publish the /tf of ``step``, counting and warning about what it clamped."""
        if len(step.clamped):
            self._health.clamp(step.clamped, now_ns)
        if step.newly_clamped:
            self._warn_clamped(loaded, step.newly_clamped)
        self._tf_pub.publish(step.payload)
        self.last_tf_ns = now_ns
        self._health.tf_published += 1

    def _warn_clamped(self, loaded, names: list[str]) -> None:
        """Warn about joints clamped for the first time (see NativePlans.resolved)."""
        for name in names:
            joint = loaded.model.joint_map[name]
            lim = joint.limits
            if joint.is_mimic:
                got = f"as mimic of '{joint.mimic.joint}'"
            else:
                index = loaded.kinematics.variable_index[joint.variable_names[0]]
                got = f'got {loaded.merger.q[index]:g}'
            self._node.get_logger().warning(
                f"Joint '{name}' is beyond its limits [{lim.lower:g}, {lim.upper:g}] "
                f'({got}): clamped (reported once per joint; set ignore_limits '
                'to publish values as given)')
