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
MJCF geoms -> URDF visuals.

Which geoms: a geom is visual when it has ``contype="0" conaffinity="0"``
or is in group 1 or 2 (MuJoCo Menagerie's "visual" classes); a body shows its
visual geoms, or all its geoms when it has none marked so. Shapes: ``box``
(MuJoCo's size is half extents), ``sphere``, ``cylinder`` (radius,
half-length), ``capsule`` (a cylinder and two spheres), ``mesh`` (the asset's
file under ``<compiler meshdir>``/``assetdir``, made absolute against
``base_dir`` as ``file://``; ``package://`` names are kept; the asset's
``scale``; a mesh given inline by its vertices is left out); ``fromto``
is read for capsules, cylinders and boxes. ``plane``, ``ellipsoid``,
``hfield`` and ``sdf`` have no URDF form and are left out. Colour: the geom's
``rgba``, else its material's.
"""

from __future__ import annotations

import math
import os
from xml.etree.ElementTree import Element

from .mjcf_document import Document, MAIN_CLASS, numbers
from .mjcf_orientation import compose, IDENTITY, orientation, origin, Pose
from ..errors import DescriptionError
from ..urdf_writer import Visual

#: A geom to read: the element, the pose of its frame in the body, its class.
Geom = tuple[Element, Pose, str]
_FROMTO_SHAPES = ('capsule', 'cylinder', 'box')


class GeomReader:
    """The mesh and material assets of a document, and its geoms made visuals."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.meshes: dict[str, tuple[str, str] | None] = {}   # None: no file (inline)
        self.materials: dict[str, tuple[float, ...]] = {}
        for asset in document.root.findall('asset'):
            for element in asset:
                attributes = document.attributes(element, MAIN_CLASS)
                if element.tag == 'mesh' and not attributes.get('file'):
                    self.meshes[attributes.get('name', '')] = None
                elif element.tag == 'mesh':
                    file = attributes['file']
                    name = attributes.get('name') or os.path.splitext(os.path.basename(file))[0]
                    scale = numbers(attributes.get('scale'), f"mesh '{name}' scale", 3,
                                    (1.0, 1.0, 1.0))
                    self.meshes[name] = (self._path(file), ' '.join(map(repr, scale)))
                elif element.tag == 'material' and attributes.get('name'):
                    self.materials[attributes['name']] = numbers(
                        attributes.get('rgba'), f"material '{attributes['name']}' rgba", 4,
                        (1.0, 1.0, 1.0, 1.0))

    def _path(self, file: str) -> str:
        if file.startswith(('package://', 'file://')):
            return file
        folder = self.document.compiler.meshdir
        path = file if os.path.isabs(file) else os.path.join(self.document.base_dir, folder, file)
        return 'file://' + os.path.normpath(path)

    def visuals(self, geoms: list[Geom], link: str) -> list[Visual]:
        """Return the URDF visuals of the geoms of ``link`` (see the module's rule)."""
        read = [(self.document.attributes(element, childclass), frame)
                for element, frame, childclass in geoms]
        marked = [(a, f) for a, f in read if _is_visual(a)]
        result = []
        for index, (attributes, frame) in enumerate(marked or read):
            result.extend(self._shapes(attributes, frame, f"geom #{index + 1} of '{link}'"))
        return result

    def _shapes(self, attributes: dict[str, str], frame: Pose, what: str) -> list[Visual]:
        kind = attributes.get('type', 'sphere')
        size = numbers(attributes.get('size'), f'{what} size', None, (0.0, 0.0, 0.0))
        size = size + (0.0,) * (3 - len(size))
        if 'fromto' in attributes and kind in _FROMTO_SHAPES:
            ends = numbers(attributes['fromto'], f'{what} fromto', 6)
            direction = [ends[3 + i] - ends[i] for i in range(3)]
            half = 0.5 * math.sqrt(sum(d * d for d in direction))
            pose = ((0.5 * (ends[0] + ends[3]), 0.5 * (ends[1] + ends[4]),
                     0.5 * (ends[2] + ends[5])),
                    orientation('zaxis', direction, False, 'xyz', f'{what} fromto'))
            size = (size[0], half, half) if kind != 'box' else (size[0], size[1], half)
        else:
            pose = self.document.pose(attributes, what)
        pose = compose(frame, pose)
        rgba = self._rgba(attributes, what)
        if kind == 'sphere':
            return [_visual(pose, 'sphere', rgba, radius=size[0])]
        if kind == 'box':
            return [_visual(pose, 'box', rgba,
                            size=' '.join(repr(2.0 * s) for s in size[:3]))]
        if kind in ('cylinder', 'capsule'):
            shapes = [_visual(pose, 'cylinder', rgba, radius=size[0], length=2.0 * size[1])]
            if kind == 'capsule':
                shapes += [_visual(compose(pose, ((0.0, 0.0, end), IDENTITY)), 'sphere', rgba,
                                   radius=size[0]) for end in (-size[1], size[1])]
            return shapes
        if kind == 'mesh':
            name = attributes.get('mesh')
            if name not in self.meshes:
                raise DescriptionError(f"{what} uses mesh '{name}', which no <asset><mesh> "
                                       'declares')
            if self.meshes[name] is None:
                return []
            path, scale = self.meshes[name]
            return [_visual(pose, 'mesh', rgba, filename=path, scale=scale)]
        return []

    def _rgba(self, attributes: dict[str, str], what: str) -> tuple[float, ...] | None:
        if 'rgba' in attributes:
            return numbers(attributes['rgba'], f'{what} rgba', 4)
        return self.materials.get(attributes.get('material', ''))


def _is_visual(attributes: dict[str, str]) -> bool:
    collides = attributes.get('contype', '1') != '0' or attributes.get('conaffinity', '1') != '0'
    return not collides or attributes.get('group', '0') in ('1', '2')


def _visual(pose: Pose, geometry: str, rgba: tuple[float, ...] | None, **values) -> Visual:
    attributes = tuple((key, value if isinstance(value, str) else repr(float(value)))
                       for key, value in values.items())
    return Visual(origin(pose), geometry, attributes,
                  tuple(rgba) if rgba is not None else None)
