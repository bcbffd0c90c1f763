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
URDF XML -> :class:`~urdf_state_py.core.model.Model`: the built-in ``urdf`` parser.

A small, strict reader of what kinematics needs (links, joints, origin, axis, limit,
safety_controller, mimic), with urdfdom's rules where they are sane, on ``defusedxml``'s
expat reader (:func:`._xml.read_tree`: no entity declarations, no external entities, no
network). Why not urdf_parser_py, and every rule: docs/parsers.md ("The built-in urdf
parser"). Structural rules (unique names, one tree, mimic targets) are the model's.
"""

from __future__ import annotations

from collections.abc import Mapping
import math
import re
from typing import Any
from xml.etree.ElementTree import Element

from ._xml import read_tree, root_span
from .base import Parser
from ..errors import DescriptionError
from ..model import Joint, JointType, Limits, Link, Mimic, Model, Origin, SafetyController

_NUMBER = re.compile(r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?'
                     r'|[+-]?(?:nan|inf|infinity)', re.IGNORECASE)
_JOINT_TYPES = {t.value: t for t in JointType}
_AXIS_TYPES = {JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.PLANAR}
_BOUNDED_TYPES = {JointType.REVOLUTE, JointType.PRISMATIC}
# Geometry shapes urdfdom knows, with their required attributes.
_SHAPES = {
    'box': ('size',),
    'cylinder': ('radius', 'length'),
    'sphere': ('radius',),
    'mesh': ('filename',),
}


class UrdfXmlParser(Parser):
    """URDF XML (the format of ``robot_description``)."""

    name = 'urdf'
    options = ()

    def might_handle(self, data: str) -> int:
        """
        Just past the root start tag when it is ``<robot ...>``, else ``len(data)``.

        ROS 2's URDF plugin answers with the position of ``<robot``; this one
        waits for the end of that start tag, so that a format recognisable
        *inside* it (xacro's ``xmlns:xacro`` attribute) scores lower and wins.
        On plain URDF nobody else is confident, so the result is the same.
        """
        span = root_span(data, 'robot')
        return len(data) if span is None else span[1]

    def parse(self, data: str | bytes, options: Mapping[str, Any] | None = None) -> Model:
        """Return the model of the URDF document ``data`` (str or bytes)."""
        self.resolve_options(options)
        root = read_tree(data)
        if root.tag != 'robot':
            raise DescriptionError(f'root element is <{root.tag}>, expected <robot>')
        name = _name(root, '<robot>')
        children = list(root)
        links = [_link(element, index) for index, element in
                 enumerate(e for e in children if e.tag == 'link')]
        joints = [_joint(element, index) for index, element in
                  enumerate(e for e in children if e.tag == 'joint')]
        return Model(name, tuple(links), tuple(joints))


# -- links --------------------------------------------------------------------

def _link(element: Element, index: int) -> Link:
    name = _name(element, f'link #{index + 1}')
    what = f"link '{name}'"
    for part in ('visual', 'collision'):
        for number, body in enumerate(c for c in element if c.tag == part):
            where = f'{what} <{part}> #{number + 1}'
            _origin(body, where)
            _geometry(body, where)
    inertial = element.find('inertial')
    if inertial is not None:
        _origin(inertial, f'{what} <inertial>')
    return Link(name)


def _geometry(body: Element, where: str) -> None:
    geometry = body.find('geometry')
    if geometry is None:
        raise DescriptionError(f'{where} has no <geometry>')
    shapes = list(geometry)
    if not shapes:
        raise DescriptionError(f'{where}: <geometry> is empty')
    shape = shapes[0]
    if shape.tag not in _SHAPES:
        raise DescriptionError(f"{where}: unknown geometry type '{shape.tag}' "
                               f"(known: {', '.join(sorted(_SHAPES))})")
    for attribute in _SHAPES[shape.tag]:
        if shape.get(attribute) is None:
            raise DescriptionError(f"{where}: <{shape.tag}> has no '{attribute}' attribute")
    if shape.tag == 'box':
        _vector(shape.get('size'), f'{where} box size')
    elif shape.tag == 'mesh':
        if shape.get('scale') is not None:
            _vector(shape.get('scale'), f'{where} mesh scale')
    else:
        for attribute in _SHAPES[shape.tag]:
            _number(shape.get(attribute), f'{where} {shape.tag} {attribute}')


# -- joints -------------------------------------------------------------------

def _joint(element: Element, index: int) -> Joint:
    name = _name(element, f'joint #{index + 1}')
    what = f"joint '{name}'"
    type_name = element.get('type')
    if type_name is None:
        raise DescriptionError(f'{what} has no type attribute')
    joint_type = _JOINT_TYPES.get(type_name)
    if joint_type is None:
        raise DescriptionError(f"{what} has unknown type '{type_name}' "
                               f"(known: {', '.join(_JOINT_TYPES)})")
    origin = _origin(element, what)
    parent = _link_ref(element, 'parent', what)
    child = _link_ref(element, 'child', what)

    axis = (1.0, 0.0, 0.0)
    axis_element = element.find('axis')
    if joint_type in _AXIS_TYPES and axis_element is not None \
            and axis_element.get('xyz') is not None:
        axis = _vector(axis_element.get('xyz'), f'{what} axis xyz')

    limits = None
    limit_element = element.find('limit')
    if limit_element is not None:
        limits = _limits(limit_element, joint_type, what)
    elif joint_type in _BOUNDED_TYPES:
        raise DescriptionError(f'{what} is {joint_type.value} but has no <limit> element '
                               f'(required for revolute and prismatic joints)')

    safety = None
    safety_element = element.find('safety_controller')
    if safety_element is not None:
        where = f'{what} <safety_controller>'
        safety = SafetyController(
            soft_lower_limit=_optional(safety_element, 'soft_lower_limit', 0.0, where),
            soft_upper_limit=_optional(safety_element, 'soft_upper_limit', 0.0, where),
            k_position=_optional(safety_element, 'k_position', 0.0, where),
            k_velocity=_required(safety_element, 'k_velocity', where))

    mimic = None
    mimic_element = element.find('mimic')
    if mimic_element is not None:
        where = f'{what} <mimic>'
        target = mimic_element.get('joint')
        if not target:
            raise DescriptionError(f"{where} has no 'joint' attribute")
        mimic = Mimic(target,
                      multiplier=_optional(mimic_element, 'multiplier', 1.0, where),
                      offset=_optional(mimic_element, 'offset', 0.0, where))

    for tag, attributes in (('dynamics', ('damping', 'friction')),
                            ('calibration', ('rising', 'falling', 'reference_position'))):
        extra = element.find(tag)
        if extra is not None:
            for attribute in attributes:
                _optional(extra, attribute, 0.0, f'{what} <{tag}>')

    return Joint(name=name, type=joint_type, parent=parent, child=child, origin=origin,
                 axis=axis, limits=limits, safety=safety, mimic=mimic)


def _link_ref(element: Element, role: str, what: str) -> str:
    ref = element.find(role)
    if ref is None:
        raise DescriptionError(f'{what} has no <{role}> element')
    link = ref.get('link')
    if not link:
        raise DescriptionError(f"{what}: <{role}> has no 'link' attribute" if link is None
                               else f"{what}: <{role}> has an empty 'link' attribute")
    return link


def _limits(element: Element, joint_type: JointType, what: str) -> Limits:
    where = f'{what} <limit>'
    lower = _optional(element, 'lower', 0.0, where)
    upper = _optional(element, 'upper', 0.0, where)
    effort = _required(element, 'effort', where)
    velocity = _required(element, 'velocity', where)
    if joint_type not in _BOUNDED_TYPES:
        lower = upper = None
    return Limits(lower=lower, upper=upper, effort=effort, velocity=velocity)


# -- values -------------------------------------------------------------------

def _name(element: Element, what: str) -> str:
    """
    Return the ``name`` of the robot, a link or a joint, which the model cannot do without.

    A missing and an empty name get different messages, so the user knows
    whether the attribute has to be added or filled in.
    """
    name = element.get('name')
    if not name:
        raise DescriptionError(f'{what} has no name attribute' if name is None
                               else f'{what} has an empty name')
    return name


def _origin(element: Element, what: str) -> Origin:
    origin = element.find('origin')
    if origin is None:
        return Origin()
    xyz, rpy = origin.get('xyz'), origin.get('rpy')
    return Origin(
        xyz=(0.0, 0.0, 0.0) if xyz is None else _vector(xyz, f'{what} origin xyz'),
        rpy=(0.0, 0.0, 0.0) if rpy is None else _vector(rpy, f'{what} origin rpy'))


def _vector(text: str, what: str) -> tuple[float, float, float]:
    values = [_number(part, what) for part in text.split()]
    if len(values) != 3:
        raise DescriptionError(f"{what} must be 3 numbers, found {len(values)} in '{text}'")
    return (values[0], values[1], values[2])


def _number(text: str, what: str) -> float:
    token = text.strip()
    if not _NUMBER.fullmatch(token):
        raise DescriptionError(f"{what}: '{token}' is not a number")
    value = float(token)
    if math.isinf(value) and 'inf' not in token.lower():
        raise DescriptionError(f"{what}: '{token}' is out of range")
    return value


def _optional(element: Element, attribute: str, default: float, where: str) -> float:
    text = element.get(attribute)
    return default if text is None else _number(text, f'{where} {attribute}')


def _required(element: Element, attribute: str, where: str) -> float:
    text = element.get(attribute)
    if text is None:
        raise DescriptionError(f"{where} has no '{attribute}' attribute")
    return _number(text, f'{where} {attribute}')
