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
MoveIt's JointModelGroup: a planning group's joints, links, variables and named states.

Built as moveit_core's ``JointModelGroup`` constructor builds it: the joints
sorted depth-first (by joint index), split into active (with variables, not
mimic), mimic and fixed joints; the links are the child links of those joints,
sorted by link index; the variables are every non-fixed joint's, mimic ones
included. Named states are the SRDF's ``<group_state>`` values as given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import random
from typing import Protocol

from .joint_model import independent_values, JointModel, VariableBounds


class _Robot(Protocol):
    """What a group asks of the RobotModel that holds it."""

    link_model_names: Sequence[str]

    @property
    def joint_model_groups(self) -> Sequence[JointModelGroup]: ...

    def joint_of_variable(self, variable: str) -> JointModel: ...

    def follow_mimic(self, values: Mapping[str, float]) -> dict[str, float]: ...


class JointModelGroup:
    """One planning group (moveit_py's read-side names, MoveIt C++'s in snake_case)."""

    def __init__(self, robot: _Robot, name: str, joints: list[JointModel]) -> None:
        self._robot = robot
        self.name = name
        self._joints = sorted(joints, key=lambda j: j.joint_index)
        self._joint_set = {j.name for j in self._joints}
        self.joint_model_names = [j.name for j in self._joints]
        self._active = [j for j in self._joints if j.variable_count and j.mimic is None]
        self.active_joint_model_names = [j.name for j in self._active]
        self.mimic_joint_model_names = [j.name for j in self._joints
                                        if j.variable_count and j.mimic is not None]
        self.fixed_joint_model_names = [j.name for j in self._joints if not j.variable_count]
        self.variable_names = [v for j in self._joints for v in j.variable_names]
        links = {j.child_link_model_name for j in self._joints}
        self.link_model_names = [n for n in robot.link_model_names if n in links]
        self._link_set = links
        self._states: dict[str, dict[str, float]] = {}
        self.default_state_names: list[str] = []
        self.end_effector_name = ''
        self._eef_parent = ('', '')
        self.attached_end_effector_names: list[str] = []

    def __repr__(self) -> str:
        return f'JointModelGroup({self.name!r})'

    @property
    def variable_count(self) -> int:
        """Return number of variables of the group's joints (mimic ones included)."""
        return len(self.variable_names)

    @property
    def active_variable_count(self) -> int:
        """Return number of variables of the active joints."""
        return sum(j.variable_count for j in self._active)

    @property
    def active_joint_model_bounds(self) -> list[list[VariableBounds]]:
        """Per active joint, the bounds of each of its variables (moveit_py)."""
        return [list(j.variable_bounds) for j in self._active]

    @property
    def is_end_effector(self) -> bool:
        """Return True when the SRDF names this group as an end effector."""
        return bool(self.end_effector_name)

    @property
    def end_effector_parent_group(self) -> tuple[str, str]:
        """(parent group, parent link) of the end effector this group is ('' when none)."""
        return self._eef_parent

    @property
    def subgroup_names(self) -> list[str]:
        """Every other group whose joints are all in this one (MoveIt computes, not reads them)."""
        return [g.name for g in self._robot.joint_model_groups
                if g is not self and set(g.joint_model_names) <= self._joint_set]

    def has_joint_model(self, name: str) -> bool:
        """Whether the joint ``name`` (active, mimic or fixed) is in the group."""
        return name in self._joint_set

    def has_link_model(self, name: str) -> bool:
        """Whether the link ``name`` is the child link of one of the group's joints."""
        return name in self._link_set

    def get_variable_default_positions(self, state: str | None = None) -> dict[str, float]:
        """
        Values of the named SRDF state (as written), or MoveIt's defaults for the group.

        KeyError names an unknown state and lists the known ones.
        """
        if state is not None:
            try:
                return dict(self._states[state])
            except KeyError:
                raise KeyError(f"group '{self.name}' has no state '{state}' (known: "
                               f"{', '.join(self.default_state_names) or 'none'})") from None
        return self._with_mimic(independent_values(self._active))

    def get_variable_random_positions(self, seed: int | None = None) -> dict[str, float]:
        """Random values for the group's variables within bounds; same ``seed``, same values."""
        return self._with_mimic(independent_values(self._active, random.Random(seed)))

    def _with_mimic(self, values: dict[str, float]) -> dict[str, float]:
        """
        ``values`` for every group variable, mimic joints following a source in the group.

        A mimic joint whose source is outside the group stays 0: MoveIt's
        group update skips it and its buffer starts zeroed.
        """
        followed = self._robot.follow_mimic(values)
        result = {}
        for variable in self.variable_names:
            joint = self._robot.joint_of_variable(variable)
            if joint.mimic is None:
                result[variable] = values[variable]
            else:
                result[variable] = followed[variable] if joint.mimic in self._joint_set else 0.0
        return result

    # -- set up by the RobotModel from the SRDF (MoveIt's addDefaultState, setEndEffector*) --

    def add_default_state(self, name: str, values: Mapping[str, float]) -> None:
        """Add the SRDF named state ``name`` (its values as written)."""
        self._states[name] = dict(values)
        self.default_state_names.append(name)

    def set_end_effector(self, name: str, parent_group: str, parent_link: str) -> None:
        """Make this group the SRDF end effector ``name``, attached at ``parent_link``."""
        self.end_effector_name = name
        self._eef_parent = (parent_group, parent_link)
