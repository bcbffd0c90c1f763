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
A robot made of parts: a base model and named parts attached to its links, as one Model.

Each part is a model of its own (a gripper, a camera bracket, an arm on a mobile
base) whose root link becomes the child of a fixed joint from a ``parent`` link of
the base or of a part earlier in the list, at a fixed ``xyz``/``rpy``. A
``prefix`` is prepended to every link and joint name of the part, so one
description can be attached twice. The result is an ordinary :class:`~.model.Model`:
everything that serves a robot serves a composed one. A composition that cannot
be made raises :class:`~.errors.DescriptionError` naming the part and, for a name
taken twice, both owners.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
import math
import re

from .errors import DescriptionError
from .model import Joint, JointType, Link, Model, Origin, Vector3

__all__ = ['Part', 'compose', 'mount_joint_name', 'part_name_problem']

_NAME = re.compile(r'[A-Za-z0-9_]{1,64}')


@dataclass(frozen=True)
class Part:
    """Where a part attaches: its parent link, the transform to its root link, its prefix."""

    name: str
    parent: str = ''
    xyz: Vector3 = (0.0, 0.0, 0.0)
    rpy: Vector3 = (0.0, 0.0, 0.0)
    prefix: str = ''


def part_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a part (None: it can): it becomes a parameter name segment."""
    if not _NAME.fullmatch(name):
        return (f"part name '{name[:80]}' must be 1 to 64 letters, digits and underscores "
                '(it names the parameters parts.<name>.*)')
    return None


def mount_joint_name(part: Part) -> str:
    """Return the name of the fixed joint that attaches ``part`` to its parent link."""
    return f'{part.name}_mount'


def compose(base: Model, parts: Sequence[tuple[Part, Model]]) -> Model:
    """
    Return ``base`` with each ``(part, model)`` attached, in order, as one Model.

    Raises DescriptionError for a name that two owners give after prefixing, a
    parent link that is in neither the base nor an earlier part, or a parent in
    the part itself or in a later part (a cycle).
    """
    owners: dict[str, str] = {}   # link or joint name -> who gave it
    links: list[Link] = []
    joints: list[Joint] = []
    _take(owners, links, joints, base.links, base.joints, 'the base')
    later = {part.name: {part.prefix + name for name in model.link_names}
             for part, model in parts}
    for index, (part, model) in enumerate(parts):
        owner = f"part '{part.name}'"
        for x in part.xyz + part.rpy:
            if not math.isfinite(x):
                raise DescriptionError(f'{owner}: xyz/rpy has a non-finite value ({x!r})')
        if part.parent not in {link.name for link in links}:
            raise DescriptionError(_parent_problem(part, parts[index:], later))
        renamed = _prefixed(model, part.prefix)
        _take(owners, links, joints, renamed.links, renamed.joints, owner)
        mount = Joint(mount_joint_name(part), JointType.FIXED, part.parent, renamed.root,
                      Origin(tuple(map(float, part.xyz)), tuple(map(float, part.rpy))))
        _take(owners, links, joints, (), (mount,), f'{owner} (its mounting joint)')
    return Model(base.name, tuple(links), tuple(joints))


def _parent_problem(part: Part, rest: Sequence[tuple[Part, Model]],
                    later: dict[str, set[str]]) -> str:
    owner = f"part '{part.name}'"
    if part.parent in later[part.name]:
        return (f"{owner}: parent link '{part.parent}' is a link of the part itself "
                '(it would make a cycle)')
    for other, _ in rest[1:]:
        if part.parent in later[other.name]:
            return (f"{owner}: parent link '{part.parent}' is a link of part "
                    f"'{other.name}', which comes later in parts (list the parent first; "
                    'two parts on each other would make a cycle)')
    if not part.parent:
        return f'{owner}: no parent link given (parts.{part.name}.parent)'
    return (f"{owner}: parent link '{part.parent}' is in neither the base nor an "
            'earlier part')


def _prefixed(model: Model, prefix: str) -> Model:
    """Return ``model`` with ``prefix`` before every link and joint name (and mimic reference)."""
    if not prefix:
        return model
    joints = []
    for joint in model.joints:
        mimic = joint.mimic
        if mimic is not None:
            mimic = replace(mimic, joint=prefix + mimic.joint)
        joints.append(replace(joint, name=prefix + joint.name, parent=prefix + joint.parent,
                              child=prefix + joint.child, mimic=mimic))
    return Model(model.name, tuple(Link(prefix + link.name) for link in model.links),
                 tuple(joints))


def _take(owners: dict[str, str], links: list[Link], joints: list[Joint],
          new_links: Sequence[Link], new_joints: Sequence[Joint], owner: str) -> None:
    """Add ``owner``'s links and joints; DescriptionError naming both owners of a name."""
    for kind, items, into in (('link', new_links, links), ('joint', new_joints, joints)):
        for item in items:
            key = f'{kind} {item.name}'
            if key in owners:
                raise DescriptionError(f"{kind} '{item.name}' of {owner} is also a {kind} of "
                                       f'{owners[key]} (set a prefix, parts.<name>.prefix)')
            owners[key] = owner
            into.append(item)
