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
MoveIt's RobotModel without MoveIt: the URDF's tree plus the SRDF's semantics.

Built as moveit_core's ``RobotModel::buildModel`` builds it:

* the root joint is the SRDF virtual joint whose child is the URDF's root link
  (else ``ASSUMED_FIXED_ROOT_JOINT``, fixed); the model frame is that virtual
  joint's parent frame when it is planar or floating, else the root link;
* joints and links are numbered depth-first from the root joint, a link's
  children in urdfdom's order (by joint name: urdfdom keeps joints in a
  ``std::map``), and the variables follow that order;
* mimic chains are collapsed onto their first source (factors multiplied);
  a joint mimicking one with another number of variables is not a mimic joint;
* groups take the joints of their ``<chain>``s (MoveIt's walk from the tip, or
  through the common ancestor), ``<joint>``s, the parent joints of their
  ``<link>``s and their subgroups' joints; a group left without joints is
  dropped (with a warning), and so are groups built on it;
* group states keep the values of the group's joints (a joint outside the
  group, or with the wrong number of values, is ignored with a warning, as
  MoveIt logs and ignores it); end effectors find
  their parent group (given, else the group holding the parent link with the
  fewest joints).

FK and mimic rules come from the URDF model's :class:`~..kinematics.Kinematics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
import os
import random

from .common_roots import common_roots
from .joint_model import independent_values, JointModel, VariableBounds
from .joint_model_group import JointModelGroup
from ..errors import DescriptionError
from ..model import JointType, Model
from ..parsers.registry import load_model_file, read_file
from ..parsers.semantic_parsers import load_semantic
from ..parsers.srdf import Group, Semantic

ASSUMED_FIXED_ROOT_JOINT = 'ASSUMED_FIXED_ROOT_JOINT'


class RobotModel:
    """The semantic robot model (moveit_py's read-side names, MoveIt C++'s in snake_case)."""

    def __init__(self, model: Model, semantic: Semantic | None = None) -> None:
        semantic = semantic or Semantic(model.name)
        self.model = model
        self.semantic = semantic
        self.name = model.name
        self.root_link_name = model.root
        self.model_frame = model.root
        self.warnings: list[str] = list(semantic.warnings)
        passive = set(semantic.passive_joints)
        root = self._root_joint(semantic, passive)
        self._joints: list[JointModel] = [root]
        self._build_tree(passive)
        self._joint_map = {j.name: j for j in self._joints}
        self._link_parent = {j.child_link_model_name: j for j in self._joints}
        self.joint_model_names = [j.name for j in self._joints]
        self.link_model_names = [j.child_link_model_name for j in self._joints]
        self._build_mimic()
        self.variable_names: list[str] = []
        self._joint_of_variable: dict[str, JointModel] = {}
        for joint in self._joints:
            joint.first_variable_index = len(self.variable_names)
            self.variable_names.extend(joint.variable_names)
            self._joint_of_variable.update((v, joint) for v in joint.variable_names)
        self.active_joint_model_names = [j.name for j in self._joints
                                         if j.variable_count and j.mimic is None]
        self.mimic_joint_model_names = [j.name for j in self._joints if j.mimic is not None]
        self.passive_joint_names = [j.name for j in self._joints if j.is_passive]
        self._groups: dict[str, JointModelGroup] = {}
        self._skipped: set[str] = set()
        self._build_groups(semantic)
        self._build_group_states(semantic)
        self._build_end_effectors(semantic)

    def __repr__(self) -> str:
        return f'RobotModel({self.name!r})'

    # -- building ---------------------------------------------------------------

    def _root_joint(self, semantic: Semantic, passive: set[str]) -> JointModel:
        """moveit_core's ``constructJointModel`` for the root link."""
        root = self.model.root
        chosen = None
        for virtual in semantic.virtual_joints:
            if virtual.child_link != root:
                if root == 'world' and virtual.type == 'fixed':
                    chosen = (virtual.name, JointType.FIXED)   # Gazebo's dummy world link
                else:
                    self.warnings.append(
                        f"skipping virtual joint '{virtual.name}': its child "
                        f"'{virtual.child_link}' is not the URDF's root link '{root}'")
                continue
            chosen = (virtual.name, JointType(virtual.type))
            if virtual.type != 'fixed':
                self.model_frame = virtual.parent_frame
            break
        name, joint_type = chosen or (ASSUMED_FIXED_ROOT_JOINT, JointType.FIXED)
        return JointModel(name, joint_type, None, root, None, name in passive)

    def _build_tree(self, passive: set[str]) -> None:
        """Depth-first from the root link, children by joint name (iterative: deep trees)."""
        children: dict[str, list] = {}
        for joint in self.model.joints:
            children.setdefault(joint.parent, []).append(joint)
        stack = sorted(children.get(self.model.root, ()), key=lambda j: j.name, reverse=True)
        while stack:
            joint = stack.pop()
            self._joints.append(JointModel(joint.name, joint.type, joint.parent, joint.child,
                                           joint, joint.name in passive))
            stack.extend(sorted(children.get(joint.child, ()), key=lambda j: j.name, reverse=True))
        for index, joint in enumerate(self._joints):
            joint.joint_index = index

    def _build_mimic(self) -> None:
        for joint in self._joints:
            rule = joint.urdf_joint.mimic if joint.urdf_joint is not None else None
            if rule is None or not joint.variable_count:
                continue
            source = self._joint_map[rule.joint]
            if source.variable_count != joint.variable_count:
                self.warnings.append(f"joint '{joint.name}' cannot mimic '{source.name}': they "
                                     'have a different number of variables')
                continue
            joint.mimic, joint.mimic_factor, joint.mimic_offset = \
                source.name, rule.multiplier, rule.offset
        for joint in self._joints:   # the model has no mimic cycles: this ends
            while joint.mimic is not None and self._joint_map[joint.mimic].mimic is not None:
                source = self._joint_map[joint.mimic]
                joint.mimic_offset += joint.mimic_factor * source.mimic_offset
                joint.mimic_factor *= source.mimic_factor
                joint.mimic = source.mimic

    def _build_groups(self, semantic: Semantic) -> None:
        configs = {g.name: g for g in semantic.groups}
        pending = list(reversed(semantic.groups))
        while pending:   # subgroups first (the SRDF reader refused cycles)
            config = pending[-1]
            waiting = [configs[s] for s in config.subgroups
                       if s not in self._groups and s not in self._skipped]
            if waiting:
                pending.extend(waiting)
                continue
            pending.pop()
            if config.name in self._groups or config.name in self._skipped:
                continue
            self._add_group(config)

    def _add_group(self, config: Group) -> None:
        """moveit_core's ``addJointModelGroup``."""
        missing = [s for s in config.subgroups if s not in self._groups]
        if missing:
            self.warnings.append(f"group '{config.name}' dropped: its subgroup '{missing[0]}' "
                                 'was dropped')
            self._skipped.add(config.name)
            return
        members: set[str] = set()
        for base, tip in config.chains:
            members.update(self._chain_joints(base, tip))
        members.update(j for j in config.joints if j in self._joint_map)
        members.update(self._parent_joint(link).name for link in config.links)
        for sub in config.subgroups:
            members.update(self._groups[sub].joint_model_names)
        if not members:
            self.warnings.append(f"group '{config.name}' dropped: it has no joint")
            self._skipped.add(config.name)
            return
        self._groups[config.name] = JointModelGroup(
            self, config.name, [self._joint_map[n] for n in members])

    def _parent_joint(self, link: str) -> JointModel:
        return self._link_parent[link]

    def _chain_joints(self, base: str, tip: str) -> list[str]:
        """Return the joints MoveIt puts in a ``<chain base_link tip_link>`` (its own walk)."""
        up: list[str] = []
        link: str | None = tip
        while link is not None and link != base:
            joint = self._parent_joint(link)
            up.append(joint.name)
            link = joint.parent_link_model_name
        if link == base:
            return up
        index = 0
        position = {name: i for i, name in enumerate(up)}
        down: list[str] = []
        link = base
        while link is not None:
            joint = self._parent_joint(link)
            if joint.name in position:
                index = position[joint.name] + 1
                break
            down.append(joint.name)
            link = joint.parent_link_model_name
        return up[:index] + down if index else []

    def _build_group_states(self, semantic: Semantic) -> None:
        for state in semantic.group_states:
            group = self._groups.get(state.group)
            if group is None:
                continue   # dropped group: warned about already
            values = {}
            for joint_name, numbers in state.values:
                joint = self._joint_map.get(joint_name)
                where = f"group state '{state.group}/{state.name}'"
                if joint is None or not group.has_joint_model(joint_name):
                    self.warnings.append(f"{where}: joint '{joint_name}' is not in the group, "
                                         'ignored')
                elif len(numbers) != joint.variable_count:
                    self.warnings.append(f"{where}: joint '{joint_name}' needs "
                                         f'{joint.variable_count} value(s), {len(numbers)} '
                                         'given: ignored')
                else:
                    values.update(zip(joint.variable_names, numbers))
            if values:
                group.add_default_state(state.name, values)

    def _build_end_effectors(self, semantic: Semantic) -> None:
        self._end_effectors: dict[str, JointModelGroup] = {}
        for eef in semantic.end_effectors:
            group = self._groups.get(eef.group)
            if group is None:
                continue
            candidates = [g for g in self.joint_model_groups
                          if g is not group and g.has_link_model(eef.parent_link)]
            for candidate in candidates:
                candidate.attached_end_effector_names.append(eef.name)
            parent = self._groups.get(eef.parent_group)
            if parent is not None and (parent is group
                                       or not parent.has_link_model(eef.parent_link)):
                self.warnings.append(f"end effector '{eef.name}': parent group '{parent.name}' "
                                     f'cannot be its parent (it is the end effector, or lacks '
                                     f"link '{eef.parent_link}')")
                parent = None
            if parent is None and candidates:
                parent = min(candidates, key=lambda g: len(g.joint_model_names))
            group.set_end_effector(eef.name, parent.name if parent else '', eef.parent_link)
            self._end_effectors[eef.name] = group

    # -- moveit_py's RobotModel -------------------------------------------------

    @property
    def root_joint_name(self) -> str:
        """Return the root joint: the SRDF's virtual joint, else ``ASSUMED_FIXED_ROOT_JOINT``."""
        return self._joints[0].name

    @property
    def joint_model_group_names(self) -> list[str]:
        """Group names, sorted (as MoveIt lists them)."""
        return sorted(self._groups)

    @property
    def joint_model_groups(self) -> list[JointModelGroup]:
        """Return the groups, sorted by name."""
        return [self._groups[n] for n in self.joint_model_group_names]

    @property
    def end_effectors(self) -> list[JointModelGroup]:
        """Return the groups that are end effectors, sorted by group name."""
        return sorted(set(self._end_effectors.values()), key=lambda g: g.name)

    def has_joint_model_group(self, name: str) -> bool:
        """Whether a group called ``name`` exists."""
        return name in self._groups

    def get_joint_model_group(self, name: str) -> JointModelGroup:
        """Return the group ``name``; KeyError naming it and the known groups."""
        try:
            return self._groups[name]
        except KeyError:
            raise KeyError(f"robot '{self.name}' has no group '{name}' (known: "
                           f"{', '.join(self.joint_model_group_names) or 'none'})") from None

    # -- MoveIt C++'s RobotModel ------------------------------------------------

    @property
    def variable_count(self) -> int:
        """Return number of variables, the root joint's included."""
        return len(self.variable_names)

    def has_joint_model(self, name: str) -> bool:
        """Whether the joint ``name`` (URDF, virtual or assumed root) exists."""
        return name in self._joint_map

    def get_joint_model(self, name: str) -> JointModel:
        """Return the joint ``name``; KeyError naming it."""
        return self._named(self._joint_map, 'joint', name)

    def has_end_effector(self, name: str) -> bool:
        """Whether the SRDF names an end effector ``name``."""
        return name in self._end_effectors

    def get_end_effector(self, name: str) -> JointModelGroup:
        """Return the group of end effector ``name``; KeyError naming it."""
        return self._named(self._end_effectors, 'end effector', name)

    def joint_of_variable(self, variable: str) -> JointModel:
        """Return the joint a variable belongs to; KeyError naming it."""
        return self._named(self._joint_of_variable, 'variable', variable)

    def _named(self, table: dict, kind: str, name: str):
        """Return ``table[name]``; a KeyError naming the robot, the ``kind`` and ``name``."""
        try:
            return table[name]
        except KeyError:
            raise KeyError(f"robot '{self.name}' has no {kind} '{name}'") from None

    def get_variable_bounds(self, variable: str) -> VariableBounds:
        """Return the bounds of one variable."""
        return self.joint_of_variable(variable).get_variable_bounds(variable)

    def get_variable_default_positions(self) -> dict[str, float]:
        """Return MoveIt's default value of every variable (mimic joints following), in order."""
        return self.follow_mimic(independent_values(self._joints))

    def get_variable_random_positions(self, seed: int | None = None) -> dict[str, float]:
        """Random values within bounds (mimic joints following); the same seed, the same values."""
        return self.follow_mimic(independent_values(self._joints, random.Random(seed)))

    def follow_mimic(self, values: Mapping[str, float]) -> dict[str, float]:
        """
        Return every variable in order: ``values``' for the independent ones, mimic rules applied.

        The mimic rules are applied by the URDF model's Kinematics, limits ignored.
        """
        urdf_values = {k: v for k, v in values.items() if k in self._kinematics.variable_index}
        q, _ = self._kinematics.resolve(self._kinematics.positions(urdf_values),
                                        ignore_limits=True)
        index = self._kinematics.variable_index
        return {v: (float(q[index[v]]) if self._joint_of_variable[v].mimic is not None
                    else float(values.get(v, 0.0))) for v in self.variable_names}

    @cached_property
    def _kinematics(self):
        from ..kinematics import Kinematics  # numpy on first use
        return Kinematics(self.model)

    def get_rigidly_connected_parent_link_model_name(self, link: str,
                                                     group: str | None = None) -> str:
        """
        Return the furthest ancestor of ``link`` reached through fixed joints only.

        With ``group``, also through joints that are not in that group.
        """
        members = set(self.get_joint_model_group(group).joint_model_names) if group else set()
        if link not in self.link_model_names:
            raise KeyError(f"robot '{self.name}' has no link '{link}'")
        joint = self._parent_joint(link)
        while joint.parent_link_model_name is not None and (
                joint.type is JointType.FIXED or (members and joint.name not in members)):
            link = joint.parent_link_model_name
            joint = self._parent_joint(link)
        return link

    def get_common_root_name(self, joint_a: str, joint_b: str) -> str:
        """Return the joint MoveIt's ``getCommonRoot`` answers for two joints."""
        a, b = self.get_joint_model(joint_a), self.get_joint_model(joint_b)
        return self._joints[self._common_roots.get((a.joint_index, b.joint_index), 0)].name

    @cached_property
    def _common_roots(self) -> dict[tuple[int, int], int]:
        return common_roots(self._joints)


def load_robot_model(urdf_path: str | os.PathLike, srdf_path: str | os.PathLike | None = None,
                     parser: str = 'auto') -> RobotModel:
    """
    Return the RobotModel of a URDF (or xacro) file and its SRDF file, as MoveIt would build it.

    DescriptionError names the file and what is wrong in it (an SRDF naming a
    joint, link or group the robot does not have included).
    """
    model = load_model_file(urdf_path, parser)
    return robot_model_with_srdf_file(model, srdf_path) if srdf_path is not None \
        else RobotModel(model)


def robot_model_with_srdf_file(model: Model, srdf_path: str | os.PathLike) -> RobotModel:
    """Return the RobotModel of ``model`` with the SRDF file ``srdf_path``; errors name it."""
    path = os.fspath(srdf_path)
    data = read_file(path)
    try:
        return RobotModel(model, load_semantic(data, model))
    except DescriptionError as exc:
        raise DescriptionError(f'{path}: {exc.reason}', parser='srdf', kind=exc.kind) from exc


def group_state_positions(robot: RobotModel, group_states: Sequence[str]) -> dict[str, float]:
    """
    Return MoveIt's default positions overridden by the ``GROUP/STATE`` values in order.

    This is what ``RobotState::setToDefaultValues(group, state)`` does one after the other;
    mimic joints are left to the caller's kinematics. DescriptionError names an unknown group
    or state.
    """
    values = robot.get_variable_default_positions()
    for entry in group_states:
        group_name, _, state = entry.partition('/')
        if not robot.has_joint_model_group(group_name):
            raise DescriptionError(f"unknown group '{group_name}' in '{entry}' (groups: "
                                   f"{', '.join(robot.joint_model_group_names) or 'none'})")
        group = robot.get_joint_model_group(group_name)
        if state not in group.default_state_names:
            raise DescriptionError(f"group '{group_name}' has no state '{state}' (states: "
                                   f"{', '.join(group.default_state_names) or 'none'})")
        values.update(group.get_variable_default_positions(state))
    return values
