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
SRDF (MoveIt's Semantic Robot Description Format): the reader, checked against the URDF.

An SRDF names parts of a robot that the URDF already describes: planning
groups, named group states (``home``, ``ready``), end effectors, the virtual
joint that places the robot in the world, passive (unsensed) joints and the
link pairs whose collisions are not checked. It is read the way srdfdom
(``srdf::Model::initXml``) reads it, with the same safe XML gate as the URDF
(:func:`._xml.read_tree`: no entities, no external references) and a size
limit, and with one deliberate difference: srdfdom logs and *drops* an element
that names a joint, link or group the robot does not have; here that is a
:class:`DescriptionError` naming it, so a typo is found when the file is
loaded instead of as a silently missing group.

What is read, as srdfdom reads it: top-level ``<virtual_joint>``, ``<group>``
(``<joint>``, ``<link>``, ``<chain>``, ``<group>`` children), ``<group_state>``,
``<end_effector>``, ``<passive_joint>`` (top level only: one written inside a
``<group>`` is ignored, as srdfdom ignores it), ``<disable_collisions>`` (kept,
not used). Names are stripped of surrounding blanks, as srdfdom trims them.
Ignored: ``<link_sphere_approximation>``, ``<disable_default_collisions>``,
``<enable_collisions>``, ``<joint_property>``.

Like the URDF parsers, this is a format with a ``name`` and a
``might_handle`` score (ROS 2's ``urdf_parser_plugin`` contract); its
``parse`` needs the URDF's :class:`~urdf_state_py.core.model.Model` as well,
because an SRDF means nothing without it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
import math

from ._xml import decode, read_tree, root_start_tag
from .urdf_xml import _number
from ..errors import DescriptionError
from ..model import Model

#: An SRDF above this size is refused before it is parsed (real ones are < 100 kB).
MAX_SRDF_BYTES = 16 << 20
VIRTUAL_JOINT_TYPES = ('fixed', 'planar', 'floating')
#: Element counts above which an SRDF is refused: a group costs a pass over the
#: others when end effectors and subgroups are resolved, a chain a walk up the
#: tree (real robots: tens of each).
_MAX_ELEMENTS = {'group': 1000, 'chain': 1000, 'end_effector': 1000, 'group_state': 10_000,
                 'virtual_joint': 1000, 'passive_joint': 100_000,
                 'disable_collisions': 1_000_000}


@dataclass(frozen=True)
class VirtualJoint:
    """``<virtual_joint>``: how the URDF's root link is attached to ``parent_frame``."""

    name: str
    type: str  # noqa: A003 (the SRDF attribute's name)
    parent_frame: str
    child_link: str


@dataclass(frozen=True)
class Group:
    """``<group>`` as written: its joints, links, (base, tip) chains and subgroups."""

    name: str
    joints: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    chains: tuple[tuple[str, str], ...] = ()
    subgroups: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupState:
    """``<group_state>``: values per joint name (several for multi-DOF joints)."""

    name: str
    group: str
    values: tuple[tuple[str, tuple[float, ...]], ...]


@dataclass(frozen=True)
class EndEffector:
    """``<end_effector>``: ``group`` is the end effector, attached at ``parent_link``."""

    name: str
    group: str
    parent_link: str
    parent_group: str = ''


@dataclass(frozen=True)
class Semantic:
    """A validated SRDF (every name it uses exists in the URDF it was read against)."""

    name: str
    virtual_joints: tuple[VirtualJoint, ...] = ()
    groups: tuple[Group, ...] = ()
    group_states: tuple[GroupState, ...] = ()
    end_effectors: tuple[EndEffector, ...] = ()
    passive_joints: tuple[str, ...] = ()
    disabled_collisions: tuple[tuple[str, str, str], ...] = ()
    warnings: tuple[str, ...] = ()


class SrdfParser:
    """The SRDF format: ``<robot>`` whose children are SRDF elements."""

    name = 'srdf'
    _TAGS = ('<group', '<virtual_joint', '<group_state', '<end_effector', '<disable_collisions',
             '<passive_joint')

    def might_handle(self, data: str) -> int:
        """Position of the first SRDF element inside a ``<robot>`` root, else ``len(data)``."""
        root = root_start_tag(data)
        if root is None or root[0] != 'robot':
            return len(data)
        found = [pos for pos in (data.find(tag, root[2]) for tag in self._TAGS) if pos >= 0]
        return min(found, default=len(data))

    def parse(self, data: str | bytes, model: Model) -> Semantic:
        """Read the SRDF ``data`` against ``model``; DescriptionError naming what is wrong."""
        return check_semantic(self.read(data), model)

    def read(self, data: str | bytes) -> Semantic:
        """
        Return the SRDF ``data`` on its own: well-formed, its groups consistent.

        Names are not checked against a robot (that is :func:`check_semantic`'s job).
        """
        if len(data) > MAX_SRDF_BYTES:
            raise DescriptionError(f'the SRDF is {len(data)} bytes, more than the limit of '
                                   f'{MAX_SRDF_BYTES}', kind='size limit')
        root = read_tree(decode(data))
        if root.tag != 'robot':
            raise DescriptionError(f'SRDF root element is <{root.tag}>, expected <robot>')
        return _Reader().read(root)


class _Reader:

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def read(self, root) -> Semantic:
        name = (root.get('name') or '').strip()
        virtual = tuple(self._virtual_joint(e) for e in root.findall('virtual_joint'))
        for tag, limit in _MAX_ELEMENTS.items():
            count = sum(1 for _ in root.iter(tag)) if tag == 'chain' else len(root.findall(tag))
            if count > limit:
                raise DescriptionError(f'the SRDF has {count} <{tag}> elements, more than the '
                                       f'limit of {limit}', kind='size limit')
        groups = tuple(self._group(e) for e in root.findall('group'))
        seen: set[str] = set()
        for group in groups:
            if group.name in seen:
                raise DescriptionError(f"group name '{group.name}' is used twice")
            seen.add(group.name)
        _check_subgroups(groups)
        group_names = {g.name for g in groups}
        states = tuple(self._group_state(e, group_names) for e in root.findall('group_state'))
        effectors = tuple(self._end_effector(e, group_names)
                          for e in root.findall('end_effector'))
        passive = tuple(_attr(e, 'name', '<passive_joint>')
                        for e in root.findall('passive_joint'))
        collisions = tuple(self._collision(e) for e in root.findall('disable_collisions'))
        return Semantic(name, virtual, groups, states, effectors, passive, collisions,
                        tuple(self.warnings))

    def _virtual_joint(self, element) -> VirtualJoint:
        name = _attr(element, 'name', '<virtual_joint>')
        where = f"virtual joint '{name}'"
        joint_type = _attr(element, 'type', where).lower()
        if joint_type not in VIRTUAL_JOINT_TYPES:
            self.warnings.append(f"{where}: unknown type '{joint_type}', assuming 'fixed' "
                                 f"(known: {', '.join(VIRTUAL_JOINT_TYPES)})")
            joint_type = 'fixed'
        return VirtualJoint(name, joint_type, _attr(element, 'parent_frame', where),
                            _attr(element, 'child_link', where))

    def _group(self, element) -> Group:
        name = _attr(element, 'name', '<group>')
        where = f"group '{name}'"
        chains = []
        for chain in element.findall('chain'):
            chains.append((_attr(chain, 'base_link', f'{where} <chain>'),
                           _attr(chain, 'tip_link', f'{where} <chain>')))
        return Group(
            name,
            joints=tuple(_attr(e, 'name', f'{where} <joint>')
                         for e in element.findall('joint')),
            links=tuple(_attr(e, 'name', f'{where} <link>')
                        for e in element.findall('link')),
            chains=tuple(chains),
            subgroups=tuple(_attr(e, 'name', f'{where} <group>')
                            for e in element.findall('group')))

    def _group_state(self, element, groups: set[str]) -> GroupState:
        name = _attr(element, 'name', '<group_state>')
        group = _attr(element, 'group', f"group state '{name}'")
        where = f"group state '{group}/{name}'"
        if group not in groups:
            raise DescriptionError(f"{where}: unknown group '{group}'")
        values: dict[str, list[float]] = {}
        for joint in element.findall('joint'):
            joint_name = _attr(joint, 'name', f'{where} <joint>')
            text = _attr(joint, 'value', f"{where} joint '{joint_name}'")
            numbers = [_number(part, f"{where} joint '{joint_name}' value")
                       for part in text.split()]
            if not numbers:
                raise DescriptionError(f"{where} joint '{joint_name}' has an empty value")
            if not all(math.isfinite(n) for n in numbers):
                raise DescriptionError(f"{where} joint '{joint_name}': '{text}' is not finite")
            values.setdefault(joint_name, []).extend(numbers)
        return GroupState(name, group, tuple((k, tuple(v)) for k, v in sorted(values.items())))

    def _end_effector(self, element, groups: set[str]) -> EndEffector:
        name = _attr(element, 'name', '<end_effector>')
        where = f"end effector '{name}'"
        group = _attr(element, 'group', where)
        parent_group = (element.get('parent_group') or '').strip()
        for role, value in (('group', group), ('parent_group', parent_group)):
            if value and value not in groups:
                raise DescriptionError(f"{where}: unknown {role} '{value}'")
        return EndEffector(name, group, _attr(element, 'parent_link', where),
                           parent_group)

    def _collision(self, element) -> tuple[str, str, str]:
        where = '<disable_collisions>'
        return (_attr(element, 'link1', where), _attr(element, 'link2', where),
                element.get('reason') or '')


class _Names:
    """The robot's link and joint names (and the SRDF's virtual joints)."""

    def __init__(self, model: Model, semantic: Semantic) -> None:
        self.robot = model.name
        self.links = set(model.link_names)
        self.joints = set(model.joint_names) | {v.name for v in semantic.virtual_joints}

    def link(self, name: str, where: str) -> None:
        if name not in self.links:
            raise DescriptionError(f"{where}: unknown link '{name}' (not in robot "
                                   f"'{self.robot}')")

    def joint(self, name: str, where: str) -> None:
        if name not in self.joints:
            raise DescriptionError(f"{where}: unknown joint '{name}' (not in robot "
                                   f"'{self.robot}' nor a virtual joint)")


def check_semantic(semantic: Semantic, model: Model) -> Semantic:
    """
    Return ``semantic`` if every joint and link it names is in ``model``.

    Warns when it names another robot; raises DescriptionError naming the first unknown
    one otherwise.
    """
    names = _Names(model, semantic)
    for virtual in semantic.virtual_joints:
        names.link(virtual.child_link, f"virtual joint '{virtual.name}'")
        if virtual.name in model.joint_map:
            raise DescriptionError(f"virtual joint '{virtual.name}' has the name of a joint of "
                                   f"robot '{model.name}'")
    for group in semantic.groups:
        where = f"group '{group.name}'"
        for joint in group.joints:
            names.joint(joint, where)
        for link in group.links + tuple(end for chain in group.chains for end in chain):
            names.link(link, where)
    for state in semantic.group_states:
        for joint, _ in state.values:
            names.joint(joint, f"group state '{state.group}/{state.name}'")
    for eef in semantic.end_effectors:
        names.link(eef.parent_link, f"end effector '{eef.name}'")
    for joint in semantic.passive_joints:
        names.joint(joint, '<passive_joint>')
    for first, second, _ in semantic.disabled_collisions:
        names.link(first, '<disable_collisions>')
        names.link(second, '<disable_collisions>')
    if semantic.name and semantic.name != model.name:
        return replace(semantic, warnings=semantic.warnings + (
            f"the SRDF is for robot '{semantic.name}', the URDF for '{model.name}'",))
    return semantic


def _attr(element, attribute: str, where: str) -> str:
    value = element.get(attribute)
    if value is None or not value.strip():
        raise DescriptionError(f"{where} has no '{attribute}' attribute" if value is None
                               else f"{where} has an empty '{attribute}' attribute")
    return value.strip()


def _check_subgroups(groups: tuple[Group, ...]) -> None:
    """
    Every subgroup exists and no group contains itself (srdfdom drops such groups).

    Kahn's algorithm, not recursion: a hostile file may nest groups deeply.
    """
    by_name = {g.name: g for g in groups}
    for group in groups:
        for sub in group.subgroups:
            if sub not in by_name:
                raise DescriptionError(f"group '{group.name}': unknown subgroup '{sub}'")
    waiting = {name: len(set(g.subgroups)) for name, g in by_name.items()}
    users: dict[str, list[str]] = {}
    for name, group in by_name.items():
        for sub in set(group.subgroups):
            users.setdefault(sub, []).append(name)
    ready = [name for name, count in waiting.items() if count == 0]
    while ready:
        for user in users.get(ready.pop(), ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    cyclic = sorted(name for name, count in waiting.items() if count > 0)
    if cyclic:
        raise DescriptionError('groups contain each other as subgroups (a cycle): '
                               + ', '.join(repr(n) for n in cyclic))


def semantic_to_data(semantic: Semantic) -> dict:
    """``semantic`` as JSON-able data (how the parser process sends it back)."""
    return asdict(semantic)


def semantic_from_data(data: dict) -> Semantic:
    """Return the inverse of :func:`semantic_to_data`."""
    return Semantic(
        name=str(data['name']),
        virtual_joints=tuple(VirtualJoint(**v) for v in data['virtual_joints']),
        groups=tuple(Group(g['name'], tuple(g['joints']), tuple(g['links']),
                           tuple((b, t) for b, t in g['chains']), tuple(g['subgroups']))
                     for g in data['groups']),
        group_states=tuple(GroupState(s['name'], s['group'], tuple(
            (j, tuple(float(x) for x in v)) for j, v in s['values']))
            for s in data['group_states']),
        end_effectors=tuple(EndEffector(**e) for e in data['end_effectors']),
        passive_joints=tuple(data['passive_joints']),
        disabled_collisions=tuple((a, b, r) for a, b, r in data['disabled_collisions']),
        warnings=tuple(data['warnings']))
