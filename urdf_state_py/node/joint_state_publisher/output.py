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
Several joint state sources in, one complete JointState out: no ROS in here.

The joint_state_publisher part of the node (``source_list``):

* :class:`VelocityIntegrator` turns a velocity-only message into positions for
  the ``integrate_velocity`` joints (wheels that report only a speed), so the
  merger sees positions as from any source;
* :class:`SourceOwners` notices when two sources give the same joint (a warning
  once per joint; the newest value wins, as for several publishers on one topic);
* :class:`JointStateOutput` builds the merged ``/joint_states``: every movable
  joint of the model (mimic joints included; planar/floating joints as their
  MoveIt variables), positions as /tf carries them (after limits and mimic
  rules), velocity and effort as sources last gave them.

Velocity/effort rule: a field is published only once some source has given it
for some joint (since the model was loaded); from then on every joint has one,
0.0 for a joint no source gave it for (joint_state_publisher's rule), so the
arrays are always as long as ``name`` and never hold NaN. A mimic joint
publishes its master's velocity times the multiplier and its master's effort
(as joint_state_publisher does for dependent joints).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import math

import numpy as np
from urdf_state_py.core.model import Model

__all__ = ['JointStateFields', 'JointStateOutput', 'SourceOwners', 'VelocityIntegrator']

_NS = 1_000_000_000


@dataclass
class JointStateFields:
    """A sensor_msgs/JointState without its header."""

    name: list[str]
    position: list[float]
    velocity: list[float]
    effort: list[float]


class JointStateOutput:
    """The merged JointState of one model (see the module docstring)."""

    def __init__(self, model: Model, variable_index) -> None:
        names, rows, master_rows, factors = [], [], [], []
        for joint in model.joints:
            if not joint.is_movable:
                continue
            for var in joint.variable_names:
                names.append(var)
                rows.append(variable_index[var])
                if joint.is_mimic:
                    master = model.joint_map[joint.mimic.joint]
                    master_rows.append(variable_index[master.variable_names[0]])
                    factors.append(joint.mimic.multiplier)
                else:
                    master_rows.append(variable_index[var])
                    factors.append(1.0)
        self.names = names
        self._rows = np.array(rows, dtype=np.intp)
        self._master_rows = np.array(master_rows, dtype=np.intp)
        self._factors = np.array(factors, dtype=float)
        n = len(variable_index)
        self.velocity = np.zeros(n)
        self.effort = np.zeros(n)
        self.has_velocity = False
        self.has_effort = False

    def record(self, indices: np.ndarray, velocity: np.ndarray | None,
               effort: np.ndarray | None) -> None:
        """Keep the finite velocity/effort values a source gave for variables ``indices``."""
        for values, target, flag in ((velocity, self.velocity, 'has_velocity'),
                                     (effort, self.effort, 'has_effort')):
            if values is None or not len(indices):
                continue
            keep = np.isfinite(values)
            if keep.any():
                target[indices[keep]] = values[keep]
                setattr(self, flag, True)

    def fields(self, q_effective: np.ndarray) -> JointStateFields:
        """The message for the effective configuration ``q_effective`` (limits, mimic applied)."""
        velocity = (self.velocity[self._master_rows] * self._factors).tolist() \
            if self.has_velocity else []
        effort = self.effort[self._master_rows].tolist() if self.has_effort else []
        return JointStateFields(list(self.names), q_effective[self._rows].tolist(),
                                velocity, effort)


class SourceOwners:
    """Which source gave each variable last; warns once per joint given by two sources."""

    def __init__(self) -> None:
        self._owner: dict[int, str] = {}
        self._warned: set[int] = set()

    def claim(self, source: str, indices: Iterable[int], names: Sequence[str]) -> list[str]:
        """Record that ``source`` gave variables ``indices`` (named ``names``); new warnings."""
        warnings = []
        for index, name in zip(indices, names):
            previous = self._owner.get(index)
            if previous is not None and previous != source and index not in self._warned:
                self._warned.add(index)
                warnings.append(f"Joint '{name}' is given by two sources, '{previous}' and "
                                f"'{source}': the newest value wins (reported once per joint)")
            self._owner[index] = source
        return warnings


class VelocityIntegrator:
    """
    Positions of the ``integrate_velocity`` joints from velocity-only messages.

    Between two stamps a joint moves at the velocity reported at the first
    (zero-order hold): ``q(t_k) = q(t_{k-1}) + v_{k-1} (t_k - t_{k-1})``. The
    first velocity of a joint starts from its current value; a position for the
    joint restarts it from that position; a stamp earlier than the joint's last
    one restarts it without moving (a bag played in a loop). Bounded joints stay
    within their limits; continuous joints are not wrapped.
    """

    def __init__(self, model: Model, variable_index, joints: Iterable[str]) -> None:
        self._index: dict[str, int] = {}
        self._bounds: dict[str, tuple[float, float]] = {}
        for name in joints:
            joint = model.joint_map[name]
            self._index[name] = variable_index[name]
            self._bounds[name] = ((joint.limits.lower, joint.limits.upper) if joint.is_bounded
                                  else (-math.inf, math.inf))
        self._last: dict[str, tuple[int, float, float]] = {}   # name -> (stamp, q, v)

    @property
    def joints(self) -> tuple[str, ...]:
        return tuple(self._index)

    def positions(self, names: Sequence[str], positions: np.ndarray, velocities: np.ndarray,
                  stamp_ns: int, q: np.ndarray) -> tuple[list[str], list[float]]:
        """
        Return the positions to merge for the integrated joints of one message.

        ``positions``/``velocities``: the message's arrays (either may be empty);
        ``q``: the merger's current state (where an integration starts).
        Returns the integrated joints' names and positions (empty: none).
        """
        if not self._index:
            return [], []
        has_position = len(positions) == len(names)
        has_velocity = len(velocities) == len(names)
        out_names, out_positions = [], []
        for i, name in enumerate(names):
            if name not in self._index:
                continue
            velocity = float(velocities[i]) if has_velocity else 0.0
            if not math.isfinite(velocity):
                velocity = 0.0
            if has_position and math.isfinite(positions[i]):
                self._last[name] = (stamp_ns, float(positions[i]), velocity)
                continue   # the position itself is merged as any other
            if not has_velocity:
                continue
            last = self._last.get(name)
            if last is None or stamp_ns < last[0]:
                value = float(q[self._index[name]])
            else:
                lower, upper = self._bounds[name]
                value = min(max(last[1] + last[2] * ((stamp_ns - last[0]) / _NS), lower), upper)
            self._last[name] = (stamp_ns, value, velocity)
            out_names.append(name)
            out_positions.append(value)
        return out_names, out_positions
