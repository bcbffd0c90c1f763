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
``source_list``: several joint state topics in, /tf and a complete ``joint_states`` out.

joint_state_publisher's job inside the node. With ``source_list`` non-empty
the node subscribes each listed topic instead of ``joint_states`` (as
joint_state_publisher, which would otherwise read its own output), merges them
by joint name with the rules of several publishers on one topic (newest value
per joint, any subset per message), and publishes the merged state on
``joint_states`` (see :mod:`.output` for its contents).

* Topics: each entry is resolved as the node resolves ``joint_states``; one
  listed twice is subscribed once, and ``joint_states`` itself (the output) is
  left out -- each with a warning, so no source can feed the output back in.
* Threads: every source subscription (one per topic) is served by one thread,
  chosen as for the plain subscription
  (:meth:`~.joint_state_input.JointStateInput.thread_for`): the native loop's
  wait set where it can run (no plan: each message goes to its subscription's
  handler), else the executor. Each message goes through the
  JointState step of :class:`~.joint_state_input.JointStateInput` under its lock,
  then the merged JointState is published with the /tf it caused, stamped
  with that message's stamp.
* While nothing arrives, a timer re-publishes the merged state at least every
  ``1/rate`` s, stamped with the node clock (joint_state_publisher's rule), so
  a consumer such as MoveIt always has every joint.
* QoS: sources are read like ``joint_states`` (sensor data, overridable per
  topic); the output is joint_state_publisher's publisher (reliable, volatile,
  keep last 10).
"""

from __future__ import annotations

import numpy as np
from rclpy.qos import qos_profile_sensor_data
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState

from .joint_settings import integrated_joints
from .output import JointStateOutput, SourceOwners, VelocityIntegrator
from ..guards import INTERNAL_ERROR
from ..tf_path.hot_path import hot_path_requested
from ..tf_path.joint_state_cdr import JointStateReader, MalformedJointState

__all__ = ['SourceInput', 'source_topics']

_NS = 1_000_000_000
#: joint_state_publisher's publisher: create_publisher(JointState, 'joint_states', 10).
OUTPUT_DEPTH = 10


def source_topics(node, listed: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """
    Return the topics to subscribe, in order, each once, and the warnings to log.

    Each topic is ``(entry, resolved name)``: the entry as listed is what is subscribed
    (rcl expands and remaps it; its resolved name, remapped once more, could be another
    topic), the resolved name tells duplicates and the output apart.
    """
    output = node.resolve_topic_name('joint_states')
    topics, resolved, warnings = [], set(), []
    for entry in listed:
        topic = node.resolve_topic_name(entry)
        if topic == output:
            warnings.append(f"source_list: '{entry}' is the node's own output ({output}): "
                            'left out (it would read back what it publishes)')
        elif topic in resolved:
            warnings.append(f"source_list: '{entry}' ({topic}) is listed twice: subscribed once")
        else:
            topics.append((entry, topic))
            resolved.add(topic)
    return topics, warnings


class _SourceState:
    """What the merged output keeps for one loaded model (rebuilt with the model)."""

    def __init__(self, loaded, integrate: tuple[str, ...]) -> None:
        self.merger = loaded.merger
        self.integrate = integrate
        index = loaded.kinematics.variable_index
        self.index = index
        self.output = JointStateOutput(loaded.model, index)
        self.owners = SourceOwners()
        self.integrator = VelocityIntegrator(
            loaded.model, index, integrated_joints(loaded.model, list(integrate)))


class SourceInput:
    """
    The source subscriptions, the merged ``joint_states`` publisher and its timer.

    ``joint_states``: the node's :class:`~.joint_state_input.JointStateInput`
    (its lock, JointState step and /tf publishing are shared).
    """

    def __init__(self, node, topics: list[tuple[str, str]], joint_states, current, guard, *,
                 hot_path: bool | None = None, output: bool = True) -> None:
        """
        Set up the joint state sources.

        ``topics``: ``(entry, resolved name)`` of each (see :func:`source_topics`).
        ``output``: publish the merged ``joint_states`` (False: ``integrate_velocity``
        on a plain ``joint_states`` input, which is then read here, and nothing is published).
        """
        self._node = node
        self._input = joint_states
        self._current = current
        self._guard = guard
        self._state: _SourceState | None = None
        self.last_ns = 0    # node clock of the last /joint_states publication
        self.published = 0
        self._publisher = node.create_publisher(JointState, 'joint_states', OUTPUT_DEPTH) \
            if output else None
        subscriptions = []
        for entry, topic in topics:
            handler = self._handler(topic)
            subscription = node.create_subscription(
                JointState, entry, joint_states.errors.guarded(handler), qos_profile_sensor_data,
                qos_overriding_options=QoSOverridingOptions.with_default_policies(), raw=True)
            subscriptions.append((subscription, entry, handler))
        self.hot_path = None
        if hot_path_requested(hot_path):
            self.hot_path = joint_states.thread_for(subscriptions, 'joint state sources',
                                                    planned=False)
        self._timer = None
        if output:
            node.get_logger().info(f"Merging joint states from {', '.join(t for _, t in topics)} "
                                   f'into {self._publisher.topic_name}')

    def start(self, rate: float) -> None:
        if self._publisher is not None:
            self.set_rate(rate)
        if self.hot_path is not None:
            self.hot_path.start()

    def stop(self) -> None:
        if self.hot_path is not None:
            self.hot_path.stop()

    def set_rate(self, rate: float) -> None:
        """(Re)create the re-publish timer: it ticks twice per period, so no gap exceeds 1/rate."""
        if self._publisher is None:
            return
        if self._timer is not None:
            self._node.destroy_timer(self._timer)
        self._period_ns = int(_NS / rate)
        self._timer = self._node.create_timer(
            0.5 / rate, self._guard.wrap('joint_states timer', self._on_timer))

    # -- per message (the sources' thread) ------------------------------------------

    def _handler(self, topic: str):
        reader = JointStateReader()

        def on_raw(data: bytes) -> None:
            with self._input.lock:
                loaded, cfg = self._current()
                if loaded is not None:
                    self._on_message(topic, reader, data, loaded, cfg)
        return on_raw

    def _source_state(self, loaded, cfg) -> _SourceState:
        integrate = tuple(cfg['integrate_velocity'])
        state = self._state
        if state is None or state.merger is not loaded.merger:
            state = self._state = _SourceState(loaded, integrate)
        elif state.integrate != integrate:
            state.integrate = integrate
            state.integrator = VelocityIntegrator(
                loaded.model, state.index, integrated_joints(loaded.model, list(integrate)))
        return state

    def _on_message(self, topic: str, reader: JointStateReader, data: bytes, loaded,
                    cfg) -> None:
        now_ns = self._input.now_ns()
        try:
            reader.max_names = loaded.merger.max_names
            names, positions, velocities, efforts, sec, nanosec = reader.read_all(data)
            state = self._source_state(loaded, cfg)
            stamp_ns = sec * _NS + nanosec
            known = [(i, state.index[n]) for i, n in enumerate(names) if n in state.index]
            if known:
                at = np.array([k[0] for k in known], dtype=np.intp)
                rows = np.array([k[1] for k in known], dtype=np.intp)
                for warning in state.owners.claim(topic, rows.tolist(),
                                                  [names[i] for i in at.tolist()]):
                    self._node.get_logger().warning(warning)
                state.output.record(rows, velocities[at] if len(velocities) == len(names)
                                    else None, efforts[at] if len(efforts) == len(names) else None)
            merged_names, merged_positions = names, positions
            if not len(positions) and len(names):   # no positions: the integrated ones, if any
                merged_names, merged_positions = state.integrator.positions(
                    names, positions, velocities, stamp_ns, loaded.merger.q)
                if not merged_names and len(velocities) == len(names):
                    return   # velocity only: kept for /joint_states, nothing moves
                if not merged_names:
                    merged_names, merged_positions = names, positions  # the merger says why
            else:
                state.integrator.positions(names, positions, velocities, stamp_ns,
                                           loaded.merger.q)
            q_eff = self._input.on_fields(loaded, cfg, merged_names, merged_positions, sec,
                                          nanosec, now_ns, topic)
            if q_eff is not None:
                self._publish(state, q_eff, sec, nanosec, now_ns)
        except MalformedJointState as err:
            self._guard.report(topic, err.reason, str(err))
        except Exception as err:  # no message may end the node
            self._guard.report(topic, INTERNAL_ERROR, f'{type(err).__name__}: {err}')

    # -- publishing -----------------------------------------------------------------

    def _publish(self, state: _SourceState, q_eff: np.ndarray, sec: int, nanosec: int,
                 now_ns: int) -> None:
        if self._publisher is None:
            return
        fields = state.output.fields(q_eff)
        msg = JointState(name=fields.name, position=fields.position, velocity=fields.velocity,
                         effort=fields.effort)
        msg.header.stamp.sec = sec
        msg.header.stamp.nanosec = nanosec
        self._publisher.publish(msg)
        self.last_ns = now_ns
        self.published += 1

    def _on_timer(self) -> None:
        with self._input.lock:
            loaded, cfg = self._current()
            if loaded is None:
                return
            now_ns = self._input.now_ns()
            if now_ns - self.last_ns < self._period_ns // 2:
                return
            state = self._source_state(loaded, cfg)
            q_eff, _ = loaded.kinematics.resolve(loaded.merger.q, cfg['ignore_limits'])
            self._publish(state, q_eff, now_ns // _NS, now_ns % _NS, now_ns)
