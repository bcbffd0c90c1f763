"""SRDF (MoveIt's Semantic Robot Description Format): the reader, checked against the URDF.

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

from dataclasses import dataclass

from ..errors import DescriptionError
from ..model import Model
from ._xml import decode, read_tree, root_start_tag
from .urdf_xml import _number

#: An SRDF above this size is refused before it is parsed (real ones are < 100 kB).
MAX_SRDF_BYTES = 16 << 20
VIRTUAL_JOINT_TYPES = ('fixed', 'planar', 'floating')
#: Element counts above which an SRDF is refused: a group costs a pass over the
#: others when end effectors and subgroups are resolved (real robots: tens).
_MAX_ELEMENTS = {'group': 1000, 'end_effector': 1000, 'group_state': 10_000,
                 'virtual_joint': 1000, 'passive_joint': 100_000,
                 'disable_collisions': 1_000_000}


@dataclass(frozen=True)
class VirtualJoint:
    """``<virtual_joint>``: how the URDF's root link is attached to ``parent_frame``."""

    name: str
    type: str
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
        """The SRDF ``data`` read against ``model``; DescriptionError naming what is wrong."""
        if len(data) > MAX_SRDF_BYTES:
            raise DescriptionError(f'the SRDF is {len(data)} bytes, more than the limit of '
                                   f'{MAX_SRDF_BYTES}', kind='size limit')
        root = read_tree(decode(data))
        if root.tag != 'robot':
            raise DescriptionError(f'SRDF root element is <{root.tag}>, expected <robot>')
        return _Reader(model).read(root)


class _Reader:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.links = set(model.link_names)
        self.joints = set(model.joint_names)
        self.warnings: list[str] = []

    def read(self, root) -> Semantic:
        name = (root.get('name') or '').strip()
        if name and name != self.model.name:
            self.warnings.append(f"the SRDF is for robot '{name}', the URDF for "
                                 f"'{self.model.name}'")
        virtual = tuple(self._virtual_joint(e) for e in root.findall('virtual_joint'))
        self.joints |= {v.name for v in virtual}
        for tag, limit in _MAX_ELEMENTS.items():
            count = len(root.findall(tag))
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
        passive = tuple(self._joint(_attr(e, 'name', '<passive_joint>'), '<passive_joint>')
                        for e in root.findall('passive_joint'))
        collisions = tuple(self._collision(e) for e in root.findall('disable_collisions'))
        return Semantic(name, virtual, groups, states, effectors, passive, collisions,
                        tuple(self.warnings))

    def _link(self, name: str, where: str) -> str:
        if name not in self.links:
            raise DescriptionError(f"{where}: unknown link '{name}' (not in robot "
                                   f"'{self.model.name}')")
        return name

    def _joint(self, name: str, where: str) -> str:
        if name not in self.joints:
            raise DescriptionError(f"{where}: unknown joint '{name}' (not in robot "
                                   f"'{self.model.name}' nor a virtual joint)")
        return name

    def _virtual_joint(self, element) -> VirtualJoint:
        name = _attr(element, 'name', '<virtual_joint>')
        where = f"virtual joint '{name}'"
        joint_type = _attr(element, 'type', where).lower()
        if joint_type not in VIRTUAL_JOINT_TYPES:
            self.warnings.append(f"{where}: unknown type '{joint_type}', assuming 'fixed' "
                                 f"(known: {', '.join(VIRTUAL_JOINT_TYPES)})")
            joint_type = 'fixed'
        return VirtualJoint(name, joint_type, _attr(element, 'parent_frame', where),
                            self._link(_attr(element, 'child_link', where), where))

    def _group(self, element) -> Group:
        name = _attr(element, 'name', '<group>')
        where = f"group '{name}'"
        chains = []
        for chain in element.findall('chain'):
            chains.append((self._link(_attr(chain, 'base_link', f'{where} <chain>'), where),
                           self._link(_attr(chain, 'tip_link', f'{where} <chain>'), where)))
        return Group(
            name,
            joints=tuple(self._joint(_attr(e, 'name', f'{where} <joint>'), where)
                         for e in element.findall('joint')),
            links=tuple(self._link(_attr(e, 'name', f'{where} <link>'), where)
                        for e in element.findall('link')),
            chains=tuple(chains),
            subgroups=tuple(_attr(e, 'name', f'{where} <group>') for e in element.findall('group')))

    def _group_state(self, element, groups: set[str]) -> GroupState:
        name = _attr(element, 'name', '<group_state>')
        group = _attr(element, 'group', f"group state '{name}'")
        where = f"group state '{group}/{name}'"
        if group not in groups:
            raise DescriptionError(f"{where}: unknown group '{group}'")
        values: dict[str, list[float]] = {}
        for joint in element.findall('joint'):
            joint_name = self._joint(_attr(joint, 'name', f'{where} <joint>'), where)
            text = _attr(joint, 'value', f"{where} joint '{joint_name}'")
            numbers = [_number(part, f"{where} joint '{joint_name}' value")
                       for part in text.split()]
            if not numbers:
                raise DescriptionError(f"{where} joint '{joint_name}' has an empty value")
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
        return EndEffector(name, group, self._link(_attr(element, 'parent_link', where), where),
                           parent_group)

    def _collision(self, element) -> tuple[str, str, str]:
        where = '<disable_collisions>'
        return (self._link(_attr(element, 'link1', where), where),
                self._link(_attr(element, 'link2', where), where),
                element.get('reason') or '')


def _attr(element, attribute: str, where: str) -> str:
    value = element.get(attribute)
    if value is None or not value.strip():
        raise DescriptionError(f"{where} has no '{attribute}' attribute" if value is None
                               else f"{where} has an empty '{attribute}' attribute")
    return value.strip()


def _check_subgroups(groups: tuple[Group, ...]) -> None:
    """Every subgroup exists and no group contains itself (srdfdom drops such groups).

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


def load_semantic(data: str | bytes, model: Model) -> Semantic:
    """The SRDF text ``data`` read against ``model`` (see :class:`SrdfParser`)."""
    return SrdfParser().parse(data, model)
