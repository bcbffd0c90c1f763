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
MoveIt's JointModel: one joint's variables, bounds, default and random values.

The rules are moveit_core's (``robot_model.cpp``'s ``jointBoundsFromURDF`` and
the ``*_joint_model.cpp`` files), per type:

* revolute / prismatic: the URDF ``<limit>``, narrowed by ``<safety_controller>``
  soft limits where those are tighter; default 0 when 0 is within the bounds,
  else the mid-point; random uniform within the bounds;
* continuous: always ``[-pi, pi]`` with ``position_bounded`` false (whatever
  the URDF says); default 0; random uniform in ``[-pi, pi]``;
* planar (``j/x j/y j/theta``): x, y unbounded (position_bounded true, +-inf),
  theta ``[-pi, pi]`` not bounded; default 0 0 0; random x, y are 0 (infinite
  bounds), theta uniform;
* floating (``j/trans_x .. j/trans_z j/rot_x .. j/rot_w``): translations +-inf,
  quaternion parts ``[-1, 1]``, all position_bounded; default identity
  (rot_w = 1); random translations 0, rotation a uniform random quaternion;
* fixed: no variables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import math
import random
import sys

from ..model import FLOATING_VARIABLES, Joint, JointType, PLANAR_VARIABLES

_INF = math.inf
_EPSILON = sys.float_info.epsilon
#: MoveIt's JointModel::getTypeName() spellings (continuous joints are revolute there).
TYPE_NAMES = {
    JointType.FIXED: 'Fixed', JointType.REVOLUTE: 'Revolute', JointType.CONTINUOUS: 'Revolute',
    JointType.PRISMATIC: 'Prismatic', JointType.PLANAR: 'Planar', JointType.FLOATING: 'Floating',
}


@dataclass(frozen=True)
class VariableBounds:
    """moveit::core::VariableBounds (position and velocity parts)."""

    min_position: float = 0.0
    max_position: float = 0.0
    position_bounded: bool = False
    min_velocity: float = 0.0
    max_velocity: float = 0.0
    velocity_bounded: bool = False


class JointModel:
    """
    One joint of a :class:`~.robot_model.RobotModel`, with MoveIt's names.

    ``urdf_joint`` is the URDF joint behind it (None for the root joint made
    from the SRDF's virtual joint or for ``ASSUMED_FIXED_ROOT_JOINT``).
    """

    def __init__(self, name: str, joint_type: JointType, parent_link: str | None,
                 child_link: str, urdf_joint: Joint | None = None,
                 is_passive: bool = False) -> None:
        self.name = name
        self.type = joint_type
        self.type_name = TYPE_NAMES[joint_type]
        self.is_continuous = joint_type is JointType.CONTINUOUS
        self.parent_link_model_name = parent_link
        self.child_link_model_name = child_link
        self.urdf_joint = urdf_joint
        self.is_passive = is_passive
        self.joint_index = -1
        self.first_variable_index = -1
        #: Name of the joint this one mimics (mimic chains collapsed, as MoveIt does).
        self.mimic: str | None = None
        self.mimic_factor = 1.0
        self.mimic_offset = 0.0
        if joint_type is JointType.PLANAR:
            self.variable_names = tuple(f'{name}/{v}' for v in PLANAR_VARIABLES)
        elif joint_type is JointType.FLOATING:
            self.variable_names = tuple(f'{name}/{v}' for v in FLOATING_VARIABLES)
        elif joint_type is JointType.FIXED:
            self.variable_names = ()
        else:
            self.variable_names = (name,)
        self.variable_bounds: tuple[VariableBounds, ...] = _bounds(joint_type, urdf_joint)

    def __repr__(self) -> str:
        return f'JointModel({self.name!r}, {self.type_name})'

    @property
    def variable_count(self) -> int:
        """Return number of variables (0 fixed, 1 revolute/prismatic, 3 planar, 7 floating)."""
        return len(self.variable_names)

    def get_variable_bounds(self, variable: str | None = None) -> VariableBounds:
        """Bounds of ``variable`` (default: the joint's only variable)."""
        if variable is None:
            variable = self.name if self.variable_count == 1 else ''
        try:
            return self.variable_bounds[self.variable_names.index(variable)]
        except ValueError:
            raise KeyError(f"joint '{self.name}' has no variable '{variable}'") from None

    def default_positions(self) -> list[float]:
        """Return MoveIt's default value per variable (0 within the bounds, else the middle)."""
        values = [0.0 if b.min_position <= 0.0 <= b.max_position
                  else (b.min_position + b.max_position) / 2.0 for b in self.variable_bounds]
        if self.type is JointType.PLANAR:
            values[2] = 0.0
        elif self.type is JointType.FLOATING:
            values[3:] = [0.0, 0.0, 0.0, 1.0]
        return values

    def random_positions(self, rng: random.Random) -> list[float]:
        """Random values within the bounds, drawn from ``rng`` in MoveIt's order."""
        bounds = self.variable_bounds
        if self.type in (JointType.PLANAR, JointType.FLOATING):
            translations = len(bounds) - (1 if self.type is JointType.PLANAR else 4)
            values = [0.0 if math.isinf(b.min_position) or math.isinf(b.max_position)
                      else rng.uniform(b.min_position, b.max_position)
                      for b in bounds[:translations]]
            if self.type is JointType.PLANAR:
                return values + [rng.uniform(bounds[2].min_position, bounds[2].max_position)]
            return values + _random_quaternion(rng)
        return [rng.uniform(b.min_position, b.max_position) for b in bounds]


def independent_values(joints: Iterable[JointModel],
                       rng: random.Random | None = None) -> dict[str, float]:
    """Return defaults (with ``rng``: random values) of the joints that mimic none, by variable."""
    values = {}
    for joint in joints:
        if joint.variable_count and joint.mimic is None:
            values.update(zip(joint.variable_names, joint.default_positions() if rng is None
                              else joint.random_positions(rng)))
    return values


def _bounds(joint_type: JointType, joint: Joint | None) -> tuple[VariableBounds, ...]:
    if joint_type is JointType.FIXED:
        return ()
    if joint_type is JointType.PLANAR:
        return (VariableBounds(-_INF, _INF, True), VariableBounds(-_INF, _INF, True),
                VariableBounds(-math.pi, math.pi, False))
    if joint_type is JointType.FLOATING:
        return (*(VariableBounds(-_INF, _INF, True) for _ in range(3)),
                *(VariableBounds(-1.0, 1.0, True) for _ in range(4)))
    return (_bounds_from_urdf(joint_type, joint),)


def _bounds_from_urdf(joint_type: JointType, joint: Joint) -> VariableBounds:
    """moveit_core's ``jointBoundsFromURDF`` then ``RevoluteJointModel::setContinuous``."""
    limits, safety = joint.limits, joint.safety
    lower, upper, bounded = 0.0, 0.0, False
    if safety is not None:
        bounded, lower, upper = True, safety.soft_lower_limit, safety.soft_upper_limit
        if limits is not None:
            lower = max(lower, _or_zero(limits.lower))
            upper = min(upper, _or_zero(limits.upper))
    elif limits is not None:
        bounded, lower, upper = True, _or_zero(limits.lower), _or_zero(limits.upper)
    velocity = abs(limits.velocity) if limits is not None else 0.0
    if joint_type is JointType.CONTINUOUS:
        lower, upper, bounded = -math.pi, math.pi, False
    return VariableBounds(lower, upper, bounded, -velocity, velocity, velocity > _EPSILON)


def _or_zero(value: float | None) -> float:
    """Urdfdom reads a missing ``lower``/``upper`` as 0."""
    return 0.0 if value is None else value


def _random_quaternion(rng: random.Random) -> list[float]:
    """Return a uniformly distributed unit quaternion (x, y, z, w), as random_numbers draws it."""
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    mult1, mult2 = math.sqrt(1.0 - u1), math.sqrt(u1)
    return [mult1 * math.sin(2.0 * math.pi * u2), mult1 * math.cos(2.0 * math.pi * u2),
            mult2 * math.sin(2.0 * math.pi * u3), mult2 * math.cos(2.0 * math.pi * u3)]
