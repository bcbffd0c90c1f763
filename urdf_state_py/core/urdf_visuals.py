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
The ``<visual>`` elements of a URDF document, per link, for :func:`~.urdf_writer.urdf_text`.

The kinematic :class:`~.model.Model` carries no geometry; a robot composed of
parts is written as a URDF from its model, and its links keep their looks
(meshes, boxes, colours) through these. Read with defusedxml (no DTD, no
entity); what is not a URDF or not understood is left out, never raised: the
kinematics are what the node must publish.
"""

from __future__ import annotations

from collections.abc import Sequence
import math
from xml.etree.ElementTree import Element

from defusedxml import ElementTree

from .model import Origin
from .urdf_writer import Visual

__all__ = ['MAX_CHARS', 'visuals_of']

_GEOMETRIES = ('box', 'cylinder', 'sphere', 'mesh')

#: Longer descriptions are not read for visuals (their tree would take ~10x in memory).
MAX_CHARS = 16 << 20


def visuals_of(text: str, prefix: str = '') -> dict[str, tuple[Visual, ...]]:
    """
    Return the visuals of each link of the URDF ``text``, link names after ``prefix``.

    None for a text of more than :data:`MAX_CHARS` characters.
    """
    if len(text) > MAX_CHARS:
        return {}
    try:
        robot = ElementTree.fromstring(text)
    except Exception:  # noqa: BLE001 - not XML, or refused by defusedxml: no visuals
        return {}
    if robot.tag != 'robot':
        return {}
    colours = {m.get('name'): _rgba(m) for m in robot.findall('material')}
    found = {}
    for link in robot.findall('link'):
        visuals = tuple(v for v in (_visual(e, colours) for e in link.findall('visual')) if v)
        if visuals and link.get('name'):
            found[prefix + link.get('name')] = visuals
    return found


def _visual(element: Element, colours: dict) -> Visual | None:
    geometry = element.find('geometry')
    shape = next((g for g in geometry if g.tag in _GEOMETRIES), None) \
        if geometry is not None else None
    origin = _origin(element.find('origin'))
    if shape is None or origin is None:
        return None
    material = element.find('material')
    rgba = None
    if material is not None:
        rgba = _rgba(material) or colours.get(material.get('name'))
    return Visual(origin, shape.tag, tuple(sorted(shape.attrib.items())), rgba)


def _origin(element: Element | None) -> Origin | None:
    if element is None:
        return Origin()
    xyz, rpy = _numbers(element.get('xyz', '0 0 0')), _numbers(element.get('rpy', '0 0 0'))
    return Origin(tuple(xyz), tuple(rpy)) if len(xyz) == 3 and len(rpy) == 3 else None


def _rgba(material: Element) -> tuple[float, float, float, float] | None:
    colour = material.find('color')
    values = _numbers(colour.get('rgba', '')) if colour is not None else []
    return tuple(values) if len(values) == 4 else None


def _numbers(text: str) -> Sequence[float]:
    try:
        values = [float(x) for x in text.split()]
    except ValueError:
        return []
    return values if all(math.isfinite(v) for v in values) else []
