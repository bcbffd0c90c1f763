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
The TF frame forest rebuilt from received transforms (no ROS).

:class:`FrameTree` keeps the latest transform per child frame, as tf2 does,
and answers what the TF viewer shows: roots, depths, root-relative poses and
the tree drawn as text; :func:`pick_frames` chooses the frames whose poses are
worth watching. Kept apart from :mod:`urdf_state_py.tools.tf_view` (the ROS node)
so it can be tested without ROS.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import time

import numpy as np
from urdf_state_py.core.transforms import compose_poses, normalize_quaternion

__all__ = ['Edge', 'FrameTree', 'MOVING_MARK', 'STATIC_MARK', 'pick_frames']

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w (ROS order)

STATIC_MARK = '='
MOVING_MARK = '~'


@dataclass
class Edge:
    """The latest transform received for one child frame."""

    parent: str
    child: str
    translation: Vec3
    rotation: Quat
    static: bool
    stamp: float = 0.0       # header stamp, seconds
    received: float = 0.0    # local monotonic time of arrival
    updates: int = 0


class FrameTree:
    """
    Latest transform per child frame, and the frame forest they compose.

    Frame ids are normalised (a leading ``/`` is dropped, as tf2 does). A
    child that later arrives with another parent is re-parented (latest
    wins, as in tf2). Cycles are tolerated: the affected frames are reported
    as their own roots rather than looping forever.
    """

    def __init__(self) -> None:
        self.edges: dict[str, Edge] = {}

    @staticmethod
    def _norm(frame: str) -> str:
        return frame[1:] if frame.startswith('/') else frame

    def update(self, parent: str, child: str, translation: Sequence[float],
               rotation: Sequence[float], static: bool = False, stamp: float = 0.0,
               received: float | None = None) -> None:
        parent, child = self._norm(parent), self._norm(child)
        if not child or not parent or child == parent:
            return
        previous = self.edges.get(child)
        # Received rotations are not trusted to be unit length (or finite).
        unit = normalize_quaternion(rotation, reject_nonfinite=True).tolist()
        edge = Edge(parent, child, tuple(float(c) for c in translation), tuple(unit),
                    static, stamp, time.monotonic() if received is None else received,
                    (previous.updates if previous else 0) + 1)
        # A frame once seen moving stays "moving" even if a static copy arrives.
        if previous is not None and not previous.static and previous.parent == parent:
            edge.static = edge.static and previous.static
        self.edges[child] = edge

    # -- structure ------------------------------------------------------------

    @property
    def frames(self) -> set[str]:
        """Every frame id seen, as a child or as a parent."""
        out = set(self.edges)
        out.update(e.parent for e in self.edges.values())
        return out

    def children(self) -> dict[str, list[str]]:
        """Child frames per parent, sorted by name."""
        kids: dict[str, list[str]] = {}
        for edge in self.edges.values():
            kids.setdefault(edge.parent, []).append(edge.child)
        for names in kids.values():
            names.sort()
        return kids

    def _ancestors(self, frame: str) -> list[str]:
        """Parents of ``frame`` up to its root (excluded ``frame``); stops at a cycle."""
        chain, seen = [], {frame}
        while frame in self.edges:
            frame = self.edges[frame].parent
            if frame in seen:
                break
            chain.append(frame)
            seen.add(frame)
        return chain

    def depth(self, frame: str) -> int:
        """Return number of transforms between ``frame`` and its root."""
        return len(self._ancestors(frame))

    def roots(self) -> list[str]:
        """Frames with no parent (one per tree), plus one frame per parent cycle."""
        frames = self.frames
        kids = self.children()
        reached: set[str] = set()

        def reach(start: str) -> None:
            stack = [start]
            while stack:
                f = stack.pop()
                if f not in reached:
                    reached.add(f)
                    stack.extend(kids.get(f, ()))

        roots = sorted(f for f in frames if f not in self.edges)
        for root in roots:
            reach(root)
        for f in sorted(frames - reached):     # frames on a cycle
            if f not in reached:
                roots.append(f)
                reach(f)
        return roots

    def leaves(self) -> list[str]:
        kids = self.children()
        return sorted(f for f in self.frames if f not in kids)

    def is_static(self, frame: str) -> bool | None:
        """Return None for roots (no transform of their own)."""
        edge = self.edges.get(frame)
        return None if edge is None else edge.static

    def pose(self, frame: str) -> tuple[str, Vec3, Quat]:
        """(root, translation, rotation) of ``frame`` relative to the root of its tree."""
        chain = [frame] + self._ancestors(frame)
        root = chain[-1]
        translation, rotation = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
        # Compose from the root down: T_root_f = T_root_a * T_a_b * ... * T_x_f.
        for f in reversed(chain[:-1]):
            edge = self.edges[f]
            translation, rotation = compose_poses(translation, rotation,
                                                  edge.translation, edge.rotation)
        return root, tuple(map(float, translation)), tuple(map(float, rotation))

    # -- presentation ---------------------------------------------------------

    def _walk(self) -> Iterable[tuple[str, str, int, bool]]:
        """(frame, prefix, depth, is_last) in depth-first order, roots first."""
        kids = self.children()
        visited: set[str] = set()
        for root in self.roots():
            stack = [(root, '', 0, True, True)]
            while stack:
                frame, prefix, depth, last, is_root = stack.pop()
                if frame in visited:
                    continue
                visited.add(frame)
                yield frame, ('' if is_root else prefix + ('└─ ' if last else '├─ ')), depth, last
                below = [c for c in kids.get(frame, ()) if c not in visited]
                child_prefix = '' if is_root else prefix + ('   ' if last else '│  ')
                for i, child in reversed(list(enumerate(below))):
                    stack.append((child, child_prefix, depth + 1, i == len(below) - 1, False))

    def mark(self, frame: str) -> str:
        static = self.is_static(frame)
        return '' if static is None else (STATIC_MARK if static else MOVING_MARK)

    def tree_lines(self) -> list[str]:
        """One frame per line, indented with box-drawing characters."""
        return [f'{prefix}{frame} {self.mark(frame)}'.rstrip() for frame, prefix, _, _ in self._walk()]

    def compact_lines(self, width: int = 100) -> list[str]:
        """
        Chains of only children joined on one line: ``a > b > c``, wrapped at ``width``.

        Each line starts at a frame with siblings (or a root) and is indented
        by its branching depth, so a humanoid fits a normal terminal.
        """
        kids = self.children()
        lines: list[str] = []
        visited: set[str] = set()

        def emit(start: str, level: int) -> None:
            chain, frame = [], start
            while True:
                visited.add(frame)
                chain.append(f'{frame}{self.mark(frame)}')
                below = [c for c in kids.get(frame, ()) if c not in visited]
                if len(below) != 1:
                    break
                frame = below[0]
            indent = '  ' * level
            text = indent + ' > '.join(chain)
            while len(text) > width > len(indent) + 20:
                cut = text.rfind(' > ', 0, width)
                if cut <= len(indent):
                    break
                lines.append(text[:cut] + ' >')
                text = indent + '    ' + text[cut + 3:]
            lines.append(text)
            for child in below:
                if child not in visited:
                    emit(child, level + 1)

        for root in self.roots():
            if root not in visited:
                emit(root, 0)
        return lines


def pick_frames(tree: FrameTree, count: int = 6) -> list[str]:
    """
    Leaves with the deepest chains, at most ``count``, spread over the tree.

    Deepest first; a first pass over the leaves at least a third as deep as the
    deepest takes at most one leaf per branch (grandparent frame), so a hand's
    fingers do not crowd out the feet; a second pass fills up by depth.
    """
    leaves = [f for f in tree.leaves() if f in tree.edges]
    leaves.sort(key=lambda f: (-tree.depth(f), f))
    picked: list[str] = []
    parents: set[str] = set()
    branch_of = {}
    for f in leaves:
        anc = tree._ancestors(f)
        branch_of[f] = anc[1] if len(anc) > 1 else (anc[0] if anc else f)
    deep = -(-tree.depth(leaves[0]) // 3) if leaves else 0    # ceil(max depth / 3)
    for f in leaves:
        if len(picked) >= count or tree.depth(f) < deep:
            break
        if branch_of[f] not in parents:
            picked.append(f)
            parents.add(branch_of[f])
    for f in leaves:
        if len(picked) >= count:
            break
        if f not in picked:
            picked.append(f)
    picked.sort(key=lambda f: (-tree.depth(f), f))
    return picked
