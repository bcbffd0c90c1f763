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
MoveIt's common root of two joints (``RobotModel::getCommonRoot``), computed as it does.

moveit_core fills a table once: every pair starts at the root joint; for two
sibling joints (children of one link) every pair of their descendants gets the
joint above that link; then each joint is its own root and the root of each of
its descendants. "Descendants" there include the joints that *mimic* a joint
(and their subtrees), found in one depth-first walk that visits each joint
once -- so a mimic joint's common root with its source is the source. The
order of the writes is MoveIt's, so later writes win where it lets them win.
"""

from __future__ import annotations

from collections.abc import Sequence

from .joint_model import JointModel


def descendants(joints: Sequence[JointModel]) -> dict[int, list[int]]:
    """Joint index -> indices of its descendant joints (``computeDescendantsHelper``)."""
    children: dict[str, list[JointModel]] = {}
    mimics: dict[str, list[JointModel]] = {}
    for joint in joints[1:]:
        children.setdefault(joint.parent_link_model_name, []).append(joint)
    for joint in joints:
        if joint.mimic is not None:
            mimics.setdefault(joint.mimic, []).append(joint)
    found: dict[int, set[int]] = {j.joint_index: set() for j in joints}
    seen: set[int] = set()
    parents: list[int] = []
    # Iterative form of the recursion: ('enter', joint) / ('leave', None).
    work: list[tuple[str, JointModel | None]] = [('enter', joints[0])]
    while work:
        action, joint = work.pop()
        if action == 'leave':
            parents.pop()
            continue
        if joint.joint_index in seen:
            continue
        seen.add(joint.joint_index)
        for parent in parents:
            found[parent].add(joint.joint_index)
        parents.append(joint.joint_index)
        work.append(('leave', None))
        nxt = children.get(joint.child_link_model_name, []) + mimics.get(joint.name, [])
        work.extend(('enter', j) for j in reversed(nxt))
    return {index: sorted(values) for index, values in found.items()}


def common_roots(joints: Sequence[JointModel]) -> dict[tuple[int, int], int]:
    """(joint index, joint index) -> common root's joint index; pairs absent: the root (0)."""
    desc = descendants(joints)
    table: dict[tuple[int, int], int] = {}

    def put(a: int, b: int, root: int) -> None:
        table[(a, b)] = table[(b, a)] = root

    children: dict[str, list[JointModel]] = {}
    for joint in joints[1:]:
        children.setdefault(joint.parent_link_model_name, []).append(joint)
    # computeCommonRootsHelper, recursion unrolled: (joint, i) = "do child i of joint's link":
    # its pairs with the later siblings, then its whole subtree, then child i + 1.
    work = [(joints[0], 0)]
    while work:
        joint, i = work.pop()
        kids = children.get(joint.child_link_model_name, [])
        if i >= len(kids):
            continue
        first = kids[i]
        for second in kids[i + 1:]:
            for m in desc[second.joint_index]:
                put(first.joint_index, m, joint.joint_index)
            for k in desc[first.joint_index]:
                put(k, second.joint_index, joint.joint_index)
                for m in desc[second.joint_index]:
                    put(k, m, joint.joint_index)
        work.append((joint, i + 1))
        work.append((first, 0))
    for joint in joints:
        put(joint.joint_index, joint.joint_index, joint.joint_index)
        for d in desc[joint.joint_index]:
            put(d, joint.joint_index, joint.joint_index)
    return table
