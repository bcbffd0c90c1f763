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
The kinematic model: plain, immutable data with no ROS and no parser in it.

Every parser (built in or plugin) produces a :class:`Model`; building one runs
the structural checks (unique names, one root, a tree, sane mimic rules), so a
plugin gets the same guarantees as the URDF parser without repeating them.
Introspection follows MoveIt's RobotModel vocabulary (active joints, mimic
joints, variables) because that is what ROS 2 users already know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
import enum
from functools import cached_property
import math
from typing import TypeVar

from .errors import DescriptionError

Vector3 = tuple[float, float, float]
JointLike = TypeVar('JointLike')  # anything with ``parent`` and ``child`` link names


class JointType(str, enum.Enum):
    """The six URDF joint types; the value is the spelling used in URDF."""

    FIXED = 'fixed'
    REVOLUTE = 'revolute'
    CONTINUOUS = 'continuous'
    PRISMATIC = 'prismatic'
    PLANAR = 'planar'
    FLOATING = 'floating'


# Variable suffixes of multi-DOF joints, as MoveIt names them.
PLANAR_VARIABLES = ('x', 'y', 'theta')
FLOATING_VARIABLES = ('trans_x', 'trans_y', 'trans_z', 'rot_x', 'rot_y', 'rot_z', 'rot_w')


def _check_finite(values: Iterable[float], what: str) -> None:
    for value in values:
        if not math.isfinite(value):
            raise DescriptionError(f'{what} has a non-finite value ({value!r})')


def unit_axis(axis: Iterable[float], what: str) -> Vector3:
    """
    ``axis`` scaled to length 1; DescriptionError naming ``what`` if it is zero or not finite.

    The components are divided by the largest magnitude before squaring, so
    neither ``1e200`` (whose square overflows to inf: the axis would come out
    as zero and the quaternion non-unit) nor ``1e-200`` (whose square
    underflows to 0) loses the direction.
    """
    x, y, z = (float(c) for c in axis)
    _check_finite((x, y, z), f'{what} axis')
    scale = max(abs(x), abs(y), abs(z))
    if scale == 0.0:
        raise DescriptionError(f'{what} has a zero axis')
    x, y, z = x / scale, y / scale, z / scale
    norm = math.sqrt(x * x + y * y + z * z)   # in [1, sqrt(3)]: no overflow, no underflow
    return (x / norm, y / norm, z / norm)


@dataclass(frozen=True)
class Origin:
    """
    A joint's fixed placement in its parent link: translation and fixed-axis rpy.

    The rotation is R = Rz(yaw) * Ry(pitch) * Rx(roll), as in URDF.
    """

    xyz: Vector3 = (0.0, 0.0, 0.0)
    rpy: Vector3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Limits:
    """Position limits and the effort/velocity ratings; bounds may be absent (continuous)."""

    lower: float | None = None
    upper: float | None = None
    effort: float = 0.0
    velocity: float = 0.0


@dataclass(frozen=True)
class SafetyController:
    """URDF ``<safety_controller>``: soft limits kept for users and tools; not enforced here."""

    soft_lower_limit: float = 0.0
    soft_upper_limit: float = 0.0
    k_position: float = 0.0
    k_velocity: float = 0.0


@dataclass(frozen=True)
class Mimic:
    """Value = multiplier * value(joint) + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class Link:
    """A rigid body; only its name matters for kinematics."""

    name: str


@dataclass(frozen=True)
class Joint:
    """A joint between two links. ``axis`` is normalised on construction."""

    name: str
    type: JointType  # noqa: A003 (URDF's attribute name; public API since 0.1)
    parent: str
    child: str
    origin: Origin = field(default_factory=Origin)
    axis: Vector3 = (1.0, 0.0, 0.0)
    limits: Limits | None = None
    safety: SafetyController | None = None
    mimic: Mimic | None = None

    def __post_init__(self) -> None:
        what = f"joint '{self.name}'"
        object.__setattr__(self, 'type', JointType(self.type))
        _check_finite(self.origin.xyz, f'{what} origin xyz')
        _check_finite(self.origin.rpy, f'{what} origin rpy')
        _check_finite(self.axis, f'{what} axis')
        if self.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC):
            object.__setattr__(self, 'axis', unit_axis(self.axis, f'{what} ({self.type.value})'))
        if self.limits is not None:
            bounds = [b for b in (self.limits.lower, self.limits.upper) if b is not None]
            _check_finite(bounds + [self.limits.effort, self.limits.velocity], f'{what} limit')
            if self.limits.lower is not None and self.limits.upper is not None \
                    and self.limits.lower > self.limits.upper:
                raise DescriptionError(f'{what} has lower limit {self.limits.lower} > '
                                       f'upper limit {self.limits.upper}')
        if self.mimic is not None:
            _check_finite((self.mimic.multiplier, self.mimic.offset), f'{what} mimic')
            if self.mimic.joint == self.name:
                raise DescriptionError(f'{what} mimics itself')
            if self.type in (JointType.PLANAR, JointType.FLOATING):
                raise DescriptionError(f'{what} is {self.type.value}: only 1-DOF joints can mimic')

    @property
    def is_movable(self) -> bool:
        """Return True for every type but fixed."""
        return self.type is not JointType.FIXED

    @property
    def is_mimic(self) -> bool:
        """Return a movable joint driven by another joint's value (fixed joints never move)."""
        return self.mimic is not None and self.is_movable

    @property
    def is_bounded(self) -> bool:
        """Revolute and prismatic joints with both bounds: the ones that get clamped."""
        return (self.type in (JointType.REVOLUTE, JointType.PRISMATIC)
                and self.limits is not None
                and self.limits.lower is not None and self.limits.upper is not None)

    @property
    def variable_names(self) -> tuple[str, ...]:
        """Return MoveIt's variable names: the joint name, or ``name/x`` etc. (multi-DOF)."""
        if self.type is JointType.FIXED:
            return ()
        if self.type is JointType.PLANAR:
            return tuple(f'{self.name}/{v}' for v in PLANAR_VARIABLES)
        if self.type is JointType.FLOATING:
            return tuple(f'{self.name}/{v}' for v in FLOATING_VARIABLES)
        return (self.name,)

    def variable_bounds(self) -> dict[str, tuple[float, float]]:
        """Bounds per variable; unbounded directions are +-inf, quaternion parts +-1."""
        inf = math.inf
        if self.type is JointType.FIXED:
            return {}
        if self.type is JointType.PLANAR:
            x, y, theta = self.variable_names
            return {x: (-inf, inf), y: (-inf, inf), theta: (-math.pi, math.pi)}
        if self.type is JointType.FLOATING:
            names = self.variable_names
            return {**{n: (-inf, inf) for n in names[:3]}, **{n: (-1.0, 1.0) for n in names[3:]}}
        if self.is_bounded:
            return {self.name: (self.limits.lower, self.limits.upper)}
        return {self.name: (-inf, inf)}

    def default_positions(self) -> dict[str, float]:
        """0 for each variable, the mid-point where 0 is out of bounds, identity rotation."""
        defaults = {}
        for name, (lower, upper) in self.variable_bounds().items():
            defaults[name] = 0.0 if lower <= 0.0 <= upper else 0.5 * (lower + upper)
        if self.type is JointType.FLOATING:
            defaults[f'{self.name}/rot_w'] = 1.0
        return defaults


@dataclass(frozen=True)
class Model:
    """
    A validated kinematic tree.

    Construction checks the structure and raises :class:`DescriptionError`
    naming the element at fault. ``joints`` is stored in topological order
    (every joint after the joint of its parent link), which is the order the
    kinematics evaluates in.
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]

    def __post_init__(self) -> None:
        links = tuple(self.links)
        joints = tuple(self.joints)
        if not links:
            raise DescriptionError(f"robot '{self.name}' has no links")
        _unique((link.name for link in links), 'link')
        _unique((joint.name for joint in joints), 'joint')
        link_names = {link.name for link in links}
        parent_joint: dict[str, Joint] = {}
        for joint in joints:
            for role, link in (('parent', joint.parent), ('child', joint.child)):
                if link not in link_names:
                    raise DescriptionError(
                        f"joint '{joint.name}': {role} link '{link}' does not exist")
            if joint.child in parent_joint:
                raise DescriptionError(
                    f"link '{joint.child}' has two parent joints: "
                    f"'{parent_joint[joint.child].name}' and '{joint.name}'")
            parent_joint[joint.child] = joint
        roots = [link.name for link in links if link.name not in parent_joint]
        if not roots:
            raise DescriptionError('no root link: every link is the child of a joint '
                                   '(the joints form a loop)')
        if len(roots) > 1:
            raise DescriptionError(f'several root links (the description is not one tree): '
                                   f'{", ".join(repr(r) for r in roots)}')
        ordered = topological_order(roots[0], joints)
        if len(ordered) != len(joints):
            reached = {j.name for j in ordered}
            cyclic = sorted(j.child for j in joints if j.name not in reached)
            raise DescriptionError('kinematic loop not connected to the root, through links: '
                                   + ', '.join(repr(n) for n in cyclic))
        by_name = {joint.name: joint for joint in joints}
        for joint in joints:
            if joint.mimic is not None and joint.mimic.joint not in by_name:
                raise DescriptionError(
                    f"joint '{joint.name}' mimics unknown joint '{joint.mimic.joint}'")
        _check_mimic_cycles(by_name)
        object.__setattr__(self, 'links', links)
        object.__setattr__(self, 'joints', tuple(ordered))

    # -- lookup ---------------------------------------------------------------

    @cached_property
    def root(self) -> str:
        """Return the one link that is no joint's child."""
        children = {joint.child for joint in self.joints}
        return next(link.name for link in self.links if link.name not in children)

    @cached_property
    def joint_map(self) -> Mapping[str, Joint]:
        """Joints by name."""
        return {joint.name: joint for joint in self.joints}

    @cached_property
    def parent_joint(self) -> Mapping[str, Joint]:
        """Return the joint above each non-root link."""
        return {joint.child: joint for joint in self.joints}

    @property
    def link_names(self) -> tuple[str, ...]:
        """Link names as declared."""
        return tuple(link.name for link in self.links)

    @property
    def joint_names(self) -> tuple[str, ...]:
        """Joint names in topological order."""
        return tuple(joint.name for joint in self.joints)

    def joint(self, name: str) -> Joint:
        """Return the joint called ``name`` (KeyError names it when absent)."""
        try:
            return self.joint_map[name]
        except KeyError:
            raise KeyError(f"no joint '{name}' in robot '{self.name}'") from None

    # -- MoveIt-like introspection --------------------------------------------

    @cached_property
    def movable_joint_names(self) -> tuple[str, ...]:
        """Every non-fixed joint, mimic ones included."""
        return tuple(j.name for j in self.joints if j.is_movable)

    @property
    def active_joint_names(self) -> tuple[str, ...]:
        """Non-fixed joints that are not mimic joints: the ones a joint state drives."""
        return tuple(j.name for j in self.joints if j.is_movable and not j.is_mimic)

    @property
    def mimic_joint_names(self) -> tuple[str, ...]:
        """Non-fixed joints that follow another joint."""
        return tuple(j.name for j in self.joints if j.is_mimic)

    @cached_property
    def variable_names(self) -> tuple[str, ...]:
        """All variables of all non-fixed joints, in topological order."""
        return tuple(v for j in self.joints for v in j.variable_names)

    def variable_bounds(self) -> dict[str, tuple[float, float]]:
        """(lower, upper) per variable; see :meth:`Joint.variable_bounds`."""
        return {k: v for j in self.joints for k, v in j.variable_bounds().items()}

    def default_positions(self) -> dict[str, float]:
        """Return a default value per variable: 0, or the mid-point when 0 is out of bounds."""
        return {k: v for j in self.joints for k, v in j.default_positions().items()}

    def children(self, link: str) -> tuple[str, ...]:
        """Return the child links of ``link``."""
        if link not in self.link_names:
            raise KeyError(f"no link '{link}' in robot '{self.name}'")
        return tuple(j.child for j in self.joints if j.parent == link)

    def chain(self, from_link: str, to_link: str) -> tuple[str, ...]:
        """Joint names on the path from ``from_link`` to ``to_link`` (up, then down)."""
        up = self._path_to_root(from_link)
        down = self._path_to_root(to_link)
        while up and down and up[-1] == down[-1]:
            up.pop()
            down.pop()
        return tuple(up + down[::-1])

    def _path_to_root(self, link: str) -> list[str]:
        if link not in self.link_names:
            raise KeyError(f"no link '{link}' in robot '{self.name}'")
        path = []
        while link in self.parent_joint:
            joint = self.parent_joint[link]
            path.append(joint.name)
            link = joint.parent
        return path


def _unique(names: Iterable[str], kind: str) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise DescriptionError(f"{kind} name '{name}' is not unique")
        seen.add(name)


def topological_order(root: str, joints: Iterable[JointLike]) -> list[JointLike]:
    """
    Joints reachable from ``root``, each after its parent link's joint (breadth first).

    Works on anything with ``parent`` and ``child`` link names (the benchmark's
    naive baseline orders urdf_parser_py joints with it too).
    """
    by_parent: dict[str, list[JointLike]] = {}
    for joint in joints:
        by_parent.setdefault(joint.parent, []).append(joint)
    ordered: list[JointLike] = []
    frontier = [root]
    while frontier:
        nxt = []
        for link in frontier:
            for joint in by_parent.get(link, ()):
                ordered.append(joint)
                nxt.append(joint.child)
        frontier = nxt
    return ordered


def _check_mimic_cycles(by_name: Mapping[str, Joint]) -> None:
    for start in by_name.values():
        seen = [start.name]
        joint = start
        while joint.mimic is not None:
            joint = by_name[joint.mimic.joint]
            if joint.name in seen:
                loop = seen[seen.index(joint.name):] + [joint.name]
                raise DescriptionError('mimic cycle: ' + ' -> '.join(loop))
            seen.append(joint.name)
