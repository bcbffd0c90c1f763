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
The naive baseline: urdf_parser_py + a per-joint numpy loop.

What a careful newcomer would write in an afternoon: parse with
urdf_parser_py, precompute each joint's static origin as a 4x4 (that part is
obvious enough that not doing it would be a straw man), then per call walk the
joints in topological order, build the joint motion as a 4x4 with numpy
(Rodrigues for revolute/continuous, a translation for prismatic) and compose
with the parent link's pose. Mimic joints follow their leader. Planar and
floating joints are held at identity (none of the benchmark robots use them
as moving joints).
"""

from __future__ import annotations

import math

import numpy as np
from urdf_state_py.core.model import topological_order


def _quiet_urdf_parser():
    from urdf_parser_py.xml_reflection import core
    core.on_error = lambda *_args, **_kw: None


def _rpy_matrix(rpy) -> np.ndarray:
    r, p, y = rpy
    cr, sr = math.cos(r), math.sin(r)
    cp, sp = math.cos(p), math.sin(p)
    cy, sy = math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _kinematic_only(urdf: str) -> str:
    """Return the URDF without visual/collision/inertial/material/gazebo/transmission elements."""
    import xml.etree.ElementTree as ET
    root = ET.fromstring(urdf)
    for parent in [root] + list(root):
        for child in list(parent):
            if child.tag in ('visual', 'collision', 'inertial', 'material', 'gazebo',
                             'transmission'):
                parent.remove(child)
    return ET.tostring(root, encoding='unicode')


class NaiveFK:
    """Link poses (root frame) from urdf_parser_py data, one numpy 4x4 per joint per call."""

    def __init__(self, urdf: str):
        _quiet_urdf_parser()
        from urdf_parser_py.urdf import URDF
        self.note = ''
        try:
            robot = URDF.from_xml_string(urdf)
        except Exception:  # e.g. h1_2: <material> without a name
            robot = URDF.from_xml_string(_kinematic_only(urdf))
            self.note = 'geometry stripped for urdf_parser_py'
        self.root = robot.get_root()
        order = topological_order(self.root, robot.joints)
        self.joints = []
        for joint in order:
            origin = np.eye(4)
            if joint.origin is not None:
                origin[:3, :3] = _rpy_matrix(joint.origin.rpy or (0.0, 0.0, 0.0))
                origin[:3, 3] = joint.origin.xyz or (0.0, 0.0, 0.0)
            axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0), float)
            norm = np.linalg.norm(axis)
            if norm > 0:
                axis = axis / norm
            mimic = (joint.mimic.joint,
                     joint.mimic.multiplier if joint.mimic.multiplier is not None else 1.0,
                     joint.mimic.offset or 0.0) if joint.mimic is not None else None
            self.joints.append((joint.name, joint.type, joint.parent, joint.child, origin, axis,
                                mimic))
        self.active = [j[0] for j in self.joints
                       if j[1] in ('revolute', 'continuous', 'prismatic') and j[6] is None]
        self.link_names = [self.root] + [j[3] for j in self.joints]

    def full_values(self, q: dict[str, float]) -> dict[str, float]:
        """Active joint values plus the mimic joints' values (for other libraries)."""
        values = dict(q)
        for name, jtype, _parent, _child, _origin, _axis, mimic in self.joints:
            if mimic is not None and jtype in ('revolute', 'continuous', 'prismatic'):
                values[name] = values.get(mimic[0], 0.0) * mimic[1] + mimic[2]
        return values

    def link_poses(self, q: dict[str, float], mimic: bool = True) -> dict[str, np.ndarray]:
        """
        ``q``: joint name -> position for the active joints. Returns link name -> 4x4.

        ``mimic=False``: take mimic joints' values from ``q`` too (cross-checks).
        """
        poses = {self.root: np.eye(4)}
        values = dict(q)
        mimic_rule_off = not mimic
        for name, jtype, parent, child, origin, axis, mimic in self.joints:
            local = origin
            if jtype in ('revolute', 'continuous', 'prismatic'):
                if mimic is not None and (not mimic_rule_off or name not in values):
                    value = values.get(mimic[0], 0.0) * mimic[1] + mimic[2]
                    values[name] = value
                else:
                    value = values.get(name, 0.0)
                motion = np.eye(4)
                if jtype == 'prismatic':
                    motion[:3, 3] = axis * value
                else:
                    c, s = math.cos(value), math.sin(value)
                    x, y, z = axis
                    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
                    motion[:3, :3] = np.eye(3) + s * k + (1.0 - c) * (k @ k)
                local = origin @ motion
            poses[child] = poses[parent] @ local
        return poses
