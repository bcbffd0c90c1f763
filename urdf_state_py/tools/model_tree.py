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
A model's link/joint tree as text or as Graphviz, for the ``tree`` command.

urdfdom's ``check_urdf`` prints the tree and ``urdf_to_graphviz`` draws it;
both read only plain URDF through urdfdom. These render the model our parsers
built -- the one the node publishes -- so xacro, plugin formats and the
detail the node uses (joint type, mimic, limits) show up as the node sees them.
"""

from __future__ import annotations

import json

from urdf_state_py.core.model import Joint, Model


def _children(model: Model) -> dict[str, list[Joint]]:
    by_parent: dict[str, list[Joint]] = {}
    for joint in model.joints:
        by_parent.setdefault(joint.parent, []).append(joint)
    return by_parent


def joint_detail(joint: Joint, limits: bool = False) -> str:
    """``revolute, mimics a, [-1.57, 1.57]``: the type, then what changes its motion."""
    detail = joint.type.value
    if joint.is_mimic:
        detail += f', mimics {joint.mimic.joint}'
        if joint.mimic.multiplier != 1.0 or joint.mimic.offset != 0.0:
            detail += f' (x{joint.mimic.multiplier:g} {joint.mimic.offset:+g})'
    if limits and joint.limits is not None and (
            joint.limits.lower is not None or joint.limits.upper is not None):
        lower = '-inf' if joint.limits.lower is None else f'{joint.limits.lower:g}'
        upper = 'inf' if joint.limits.upper is None else f'{joint.limits.upper:g}'
        detail += f', [{lower}, {upper}]'
    return detail


def tree_lines(model: Model, limits: bool = False) -> list[str]:
    """
    Return the link tree, one indented line per link, each child naming its joint.

    Depth-first so a subtree reads contiguously (the model's own joint order is
    breadth-first, which scatters a limb across the listing).
    """
    by_parent = _children(model)
    lines = [f'  {model.root}']
    stack = [(joint, 2) for joint in reversed(by_parent.get(model.root, []))]
    while stack:
        joint, depth = stack.pop()
        lines.append(f"{'  ' * depth}{joint.child}  <- {joint.name} "
                     f'({joint_detail(joint, limits)})')
        stack.extend((child, depth + 1) for child in reversed(by_parent.get(joint.child, [])))
    return lines


def _quoted(text: str) -> str:
    r"""Return a Graphviz ID: JSON string quoting escapes what DOT's quoted IDs need (" and \)."""
    return json.dumps(text, ensure_ascii=False)


def dot_lines(model: Model) -> list[str]:
    """
    Return the tree as a Graphviz digraph.

    Links are boxes, joints labelled edges (with mimic and limits), mimic followers dashed.
    ``dot -Tpdf`` draws it.
    """
    lines = [f'digraph {_quoted(model.name)} {{', '  rankdir=TB;',
             '  node [shape=box, fontname="Helvetica"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    for link in model.link_names:
        lines.append(f'  {_quoted(link)};')
    for joint in model.joints:
        # json.dumps writes the newline as \\n, which is DOT's line break in a label.
        label = _quoted(f'{joint.name}\n{joint_detail(joint, limits=True)}')
        style = ', style=dashed' if joint.is_mimic else ''
        lines.append(f'  {_quoted(joint.parent)} -> {_quoted(joint.child)} '
                     f'[label={label}{style}];')
    lines.append('}')
    return lines
