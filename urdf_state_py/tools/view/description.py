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
A robot description made ready for the page: its model, and its URDF with served mesh URLs.

The page never sees the description's own mesh URIs. Each ``<mesh filename>``
and ``<texture filename>`` is resolved (:class:`~.resolver.Resolver`): an
allowed file's URI is replaced by its ``/files/...`` URL, and a refused one's
``<visual>`` (or ``<texture>``) is dropped, its URI and the reason kept for
the page and the log. Collisions, inertials and everything outside links,
joints and materials are dropped too: the page draws visuals only.

Limits keep a hostile description cheap: at most :data:`MAX_DESCRIPTION_CHARS`
characters, :data:`MAX_LINKS` links and :data:`MAX_REFERENCES` resolved
mesh and texture references (the rest are refused unread, with one reason); the text is
parsed with the built-in URDF reader (defusedxml underneath: no entities, no
DTD) and never as xacro.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree import ElementTree
from xml.etree.ElementTree import Element

from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers import load_model
from urdf_state_py.core.parsers._xml import read_tree

from .resolver import Allowed, IMAGE_EXTENSIONS, MESH_EXTENSIONS, Refused, Resolver

__all__ = ['Prepared', 'prepare', 'MAX_DESCRIPTION_CHARS', 'MAX_LINKS', 'MAX_REFERENCES']

MAX_DESCRIPTION_CHARS = 16 * 1024 * 1024
MAX_LINKS = 5000
#: Mesh and texture references resolved; the rest are refused unread.
MAX_REFERENCES = 2000
#: Refusals listed one by one (the rest are counted).
MAX_LISTED_REFUSALS = 50
_KEPT = ('link', 'joint', 'material')


@dataclass(frozen=True)
class Prepared:
    """What the page gets for one description (``error``: why there is no model to show)."""

    version: int
    robot: str = ''
    root: str = ''
    links: tuple[tuple[str, str | None], ...] = ()   # (link, its parent link or None)
    urdf: str = ''
    files: dict[str, str] = field(default_factory=dict)   # URL path -> real path
    referenced: int = 0                                  # mesh references in visuals
    refused: tuple[tuple[str, str], ...] = ()            # (URI, reason), the first ones
    refused_count: int = 0
    error: str = ''

    def summary(self) -> dict:
        """Return the JSON the page reads (everything but the file table)."""
        return {'version': self.version, 'robot': self.robot, 'root': self.root,
                'links': [list(pair) for pair in self.links], 'urdf': self.urdf,
                'meshes': {'referenced': self.referenced, 'served': len(self.files),
                           'refused': [list(pair) for pair in self.refused],
                           'refusedCount': self.refused_count},
                'error': self.error}


class _Rewriter:
    """
    Resolve ``filename`` attributes in place.

    Each URI once, at most :data:`MAX_REFERENCES` of them, every refusal counted and the
    first :data:`MAX_LISTED_REFUSALS` kept with their reason.
    """

    def __init__(self, resolver: Resolver) -> None:
        self._resolver = resolver
        self._answers: dict[tuple[str, frozenset[str]], Allowed | Refused] = {}
        self.files: dict[str, str] = {}
        self.seen = 0
        self.refused: list[tuple[str, str]] = []
        self.refused_count = 0

    def point(self, element: Element, extensions: frozenset[str]) -> bool:
        """Set ``element``'s filename to its URL (True), or record why not (False)."""
        uri = element.get('filename', '')
        self.seen += 1
        if self.seen > MAX_REFERENCES:
            answer: Allowed | Refused = Refused(
                f'beyond the first {MAX_REFERENCES} mesh and texture references (not read)')
        else:
            answer = self._answers.get((uri, extensions))
            if answer is None:
                answer = self._answers[uri, extensions] = self._resolver.resolve(uri, extensions)
        if isinstance(answer, Allowed):
            element.set('filename', answer.href)
            self.files[answer.url] = answer.path
            return True
        self.refused_count += 1
        if len(self.refused) < MAX_LISTED_REFUSALS:
            self.refused.append((uri[:300], answer.reason))
        return False


def prepare(text: str, resolver: Resolver, version: int) -> Prepared:
    """``text`` (from the robot_description topic) as the page will load it, or why not."""
    if len(text) > MAX_DESCRIPTION_CHARS:
        return Prepared(version, error=f'description of {len(text)} characters, more than the '
                                       f'{MAX_DESCRIPTION_CHARS} the view reads')
    try:
        model = load_model(text, parser='urdf')
        root = read_tree(text)
    except DescriptionError as exc:
        return Prepared(version, error=f'invalid description: {exc}')
    if len(model.link_names) > MAX_LINKS:
        return Prepared(version, robot=model.name,
                        error=f'{len(model.link_names)} links, more than the {MAX_LINKS} '
                              'the view shows')
    for child in [c for c in root if c.tag not in _KEPT]:
        root.remove(child)
    rewriter = _Rewriter(resolver)
    referenced = _rewrite_meshes(root, rewriter)
    for material in root.iter('material'):
        for texture in material.findall('texture'):
            if texture.get('filename') and not rewriter.point(texture, IMAGE_EXTENSIONS):
                material.remove(texture)     # the material's colour stays
    parents = {joint.child: joint.parent for joint in model.joints}
    return Prepared(version, robot=model.name, root=model.root,
                    links=tuple((name, parents.get(name)) for name in model.link_names),
                    urdf=ElementTree.tostring(root, encoding='unicode'), files=rewriter.files,
                    referenced=referenced, refused=tuple(rewriter.refused),
                    refused_count=rewriter.refused_count)


def _rewrite_meshes(root: Element, rewriter: _Rewriter) -> int:
    """
    Point every visual mesh at its URL or drop the visual; returns the references seen.

    Everything else in a link (collisions, inertial) goes: the page draws visuals only.
    """
    referenced = 0
    for link in root.iter('link'):
        for child in list(link):
            if child.tag != 'visual':
                link.remove(child)
                continue
            mesh = child.find('geometry/mesh')
            if mesh is not None:
                referenced += 1
                if not rewriter.point(mesh, MESH_EXTENSIONS):
                    link.remove(child)
    return referenced
