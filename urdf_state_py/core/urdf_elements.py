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
What a URDF document says beside its kinematics, for :func:`~.urdf_writer.urdf_text`.

The kinematic :class:`~.model.Model` carries no geometry; a robot composed of
parts is written as a URDF from its model, and its links keep their
``<visual>``, ``<collision>`` and ``<inertial>`` elements (MoveIt and simulators
need them) through these, as the source wrote them. Read with defusedxml (no
DTD, no entity); what is not a URDF is left out, never raised: the kinematics
are what the node must publish.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from defusedxml import ElementTree

__all__ = ['MAX_CHARS', 'MAX_DEPTH', 'UrdfElements', 'elements_of']

#: The elements of a link that are carried over.
LINK_TAGS = ('visual', 'collision', 'inertial')

#: Longer descriptions are not read (their tree would take ~10x in memory).
MAX_CHARS = 16 << 20

#: Elements nested deeper are left out (writing XML recurses once per level).
MAX_DEPTH = 32


@dataclass(frozen=True)
class UrdfElements:
    """
    The carried elements of one URDF document.

    ``links``: link name -> its visual, collision and inertial elements, in
    document order; ``materials``: the top-level ``<material>`` definitions by
    name; ``others``: the other top-level elements (``<transmission>``,
    ``<ros2_control>``, ``<gazebo>``...), which name the document's links and joints.
    """

    links: Mapping[str, tuple[Element, ...]] = field(default_factory=dict)
    materials: Mapping[str, Element] = field(default_factory=dict)
    others: tuple[Element, ...] = ()

    def of_part(self, prefix: str, tag: str) -> dict[str, tuple[Element, ...]]:
        """
        Return the link elements with ``prefix`` before each link name, for a part.

        Material references are made inline (the definition copied in) and renamed
        ``<tag>/<name>``: materials are global in a URDF, and two parts may give one
        name different colours. A definition is a top-level ``<material>`` or, as
        urdfdom reads it, one inside a visual; a reference to none is left out.
        """
        defined = dict(self.materials)
        for elements in self.links.values():
            for material in (m for e in elements for m in e.iter('material') if len(m)):
                defined.setdefault(material.get('name', ''), material)
        return {prefix + name: tuple(_own_materials(e, tag, defined) for e in elements)
                for name, elements in self.links.items()}


def _own_materials(element: Element, tag: str, defined: Mapping[str, Element]) -> Element:
    """Return a copy of ``element`` whose materials are inline and named ``<tag>/<name>``."""
    element = copy.deepcopy(element)
    for parent in element.iter('visual'):
        for material in parent.findall('material'):
            name = material.get('name', '')
            if len(material) == 0:
                if name not in defined:
                    parent.remove(material)
                    continue
                material.extend(copy.deepcopy(list(defined[name])))
            material.set('name', f'{tag}/{name}')
    return element


def elements_of(text: str) -> UrdfElements:
    """Return the carried elements of the URDF ``text`` (none over :data:`MAX_CHARS` chars)."""
    if len(text) > MAX_CHARS:
        return UrdfElements()
    try:
        robot = ElementTree.fromstring(text)
    except Exception:  # noqa: BLE001 - not XML, or refused by defusedxml: nothing carried
        return UrdfElements()
    if robot.tag != 'robot':
        return UrdfElements()
    links, materials, others = {}, {}, []
    for child in robot:
        if not isinstance(child.tag, str) or _too_deep(child):
            continue
        if child.tag == 'link' and child.get('name'):
            carried = tuple(e for e in child if e.tag in LINK_TAGS)
            if carried:
                links[child.get('name')] = carried
        elif child.tag == 'material' and child.get('name'):
            materials[child.get('name')] = child
        elif child.tag not in ('link', 'joint'):
            others.append(child)
    return UrdfElements(links, materials, tuple(others))


def _too_deep(element: Element) -> bool:
    """Whether ``element`` nests more than :data:`MAX_DEPTH` levels (walked without recursion)."""
    level = [element]
    for _ in range(MAX_DEPTH):
        level = [child for parent in level for child in parent]
        if not level:
            return False
    return True
