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
Forward kinematics of a :class:`~urdf_state_py.core.model.Model`, vectorised with numpy.

``Kinematics(model)`` precomputes, once, every constant a call needs (index
arrays, joint origins as matrices and quaternions, per-joint bases), so that a
call is a fixed, short sequence of numpy operations over *all* joints at once,
with no Python loop per joint. Every per-call method accepts a leading batch
axis ``(N, n_vars)``. The package follows the three steps of an update:

=====================  ======================================================
``state``              raw values -> effective values: limits, mimic levels
``joint_transforms``   each child link in its parent (translation +
                       quaternion): what TF needs
``link_poses``         every link in the root frame (FK, batches)
``facade``             :class:`Kinematics`, the public API over the three
=====================  ======================================================

Semantics (URDF / robot_state_publisher / MoveIt):

* origin rotation ``R = Rz(yaw) Ry(pitch) Rx(roll)``; the child link's pose in
  the parent link is ``T(origin) @ T(joint motion)``;
* revolute and continuous: rotation by ``q`` about the (unit) axis; prismatic:
  translation ``q * axis``;
* planar: MoveIt / pinocchio semantics -- translation ``(x, y, 0)`` then
  rotation by ``theta`` about z, both in the joint frame; **the URDF axis is
  ignored** (URDF says it is the plane normal, but neither MoveIt nor
  pinocchio use it, and robot_state_publisher cannot move planar joints);
* floating: translation ``(trans_x, trans_y, trans_z)`` and rotation by the
  quaternion ``(rot_x, rot_y, rot_z, rot_w)``, normalised (zero = identity);
* limits and mimic rules: see :mod:`.state`.
"""

from .facade import Kinematics
from .joint_transforms import JointTransforms

__all__ = ['JointTransforms', 'Kinematics']
