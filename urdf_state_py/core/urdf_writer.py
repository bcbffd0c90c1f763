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
Model -> URDF XML: the ``robot_description`` of a robot read from another format.

rviz's RobotModel, MoveIt and ``ros2 urdf view`` read URDF; a parser of
another format (MJCF) publishes this text instead of its input. Numbers are
written with ``repr`` (the shortest text that reads back to the same float),
so the URDF's kinematics is the model's exactly. Visuals, collisions and
inertials are not part of the kinematic :class:`~.model.Model`; the caller passes
them per link as XML elements (:func:`visual_element` makes one from a
:class:`Visual`), and top-level elements (materials, ``<ros2_control>``) as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import copy
from dataclasses import dataclass
from xml.etree import ElementTree

from .model import Joint, JointType, Model, Origin

#: URDF cannot leave a prismatic joint unbounded: these bounds (metres) stand for "none".
PRISMATIC_UNBOUNDED = 1e9


@dataclass(frozen=True)
class Visual:
    """One URDF ``<visual>``: a box, sphere, cylinder or mesh ``geometry`` and its attributes."""

    origin: Origin
    geometry: str
    attributes: tuple[tuple[str, str], ...]
    rgba: tuple[float, float, float, float] | None = None


def urdf_text(model: Model,
              links: Mapping[str, Sequence[ElementTree.Element]] | None = None,
              materials: Sequence[ElementTree.Element] = (),
              others: Sequence[ElementTree.Element] = ()) -> str:
    """
    Return the URDF document of ``model``.

    ``links``: link name -> the elements written into that ``<link>`` (visual,
    collision, inertial); ``materials`` are written before the links, ``others``
    after the joints. The elements are copied, never changed.
    """
    links = links or {}
    robot = ElementTree.Element('robot', name=model.name)
    robot.extend(copy.deepcopy(list(materials)))
    for link in model.links:
        element = ElementTree.SubElement(robot, 'link', name=link.name)
        element.extend(copy.deepcopy(list(links.get(link.name, ()))))
    for joint in model.joints:
        _joint(robot, joint)
    robot.extend(copy.deepcopy(list(others)))
    ElementTree.indent(robot)
    return '<?xml version="1.0"?>\n' + ElementTree.tostring(robot, encoding='unicode') + '\n'


def _numbers(values: Sequence[float]) -> str:
    return ' '.join(repr(float(value)) for value in values)


def _origin(parent: ElementTree.Element, origin: Origin) -> None:
    ElementTree.SubElement(parent, 'origin', xyz=_numbers(origin.xyz), rpy=_numbers(origin.rpy))


def visual_element(visual: Visual) -> ElementTree.Element:
    """Return the ``<visual>`` element of ``visual``."""
    element = ElementTree.Element('visual')
    _origin(element, visual.origin)
    geometry = ElementTree.SubElement(element, 'geometry')
    ElementTree.SubElement(geometry, visual.geometry, dict(visual.attributes))
    if visual.rgba is not None:
        name = 'rgba ' + _numbers(visual.rgba)
        material = ElementTree.SubElement(element, 'material', name=name)
        ElementTree.SubElement(material, 'color', rgba=_numbers(visual.rgba))
    return element


def _joint(robot: ElementTree.Element, joint: Joint) -> None:
    element = ElementTree.SubElement(robot, 'joint', name=joint.name, type=joint.type.value)
    _origin(element, joint.origin)
    ElementTree.SubElement(element, 'parent', link=joint.parent)
    ElementTree.SubElement(element, 'child', link=joint.child)
    if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC,
                      JointType.PLANAR):
        ElementTree.SubElement(element, 'axis', xyz=_numbers(joint.axis))
    limits = joint.limits
    if limits is not None or joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
        effort = limits.effort if limits is not None else 0.0
        velocity = limits.velocity if limits is not None else 0.0
        attributes = {'effort': repr(effort), 'velocity': repr(velocity)}
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            lower = limits.lower if limits is not None else None
            upper = limits.upper if limits is not None else None
            attributes['lower'] = repr(-PRISMATIC_UNBOUNDED if lower is None else lower)
            attributes['upper'] = repr(PRISMATIC_UNBOUNDED if upper is None else upper)
        ElementTree.SubElement(element, 'limit', attributes)
    if joint.mimic is not None:
        ElementTree.SubElement(element, 'mimic', joint=joint.mimic.joint,
                               multiplier=repr(joint.mimic.multiplier),
                               offset=repr(joint.mimic.offset))
    if joint.safety is not None:
        safety = joint.safety
        ElementTree.SubElement(element, 'safety_controller',
                               soft_lower_limit=repr(safety.soft_lower_limit),
                               soft_upper_limit=repr(safety.soft_upper_limit),
                               k_position=repr(safety.k_position),
                               k_velocity=repr(safety.k_velocity))
