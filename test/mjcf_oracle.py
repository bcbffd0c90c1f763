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
MuJoCo as the reference for the ``mjcf`` parser: its body poses, and an independent URDF FK.

:func:`compile_model` compiles an MJCF file with ``fusestatic`` off, so that
MuJoCo keeps every body written in the file as the parser does.
:func:`random_qpos` draws a configuration inside the joint ranges (mimic
followers set from their leader, since ``mj_kinematics`` does not enforce
equalities); :func:`joint_values` is the same configuration as JointState
values; :func:`mujoco_poses` is each body's pose in the world body;
:func:`urdf_poses` reads a URDF with urdf_parser_py and composes its joints
with plain numpy, sharing no code with the package's kinematics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

mujoco = pytest.importorskip('mujoco', reason='needs MuJoCo (pip install mujoco, the oracle '
                             'of the mjcf parser; ./dev.sh installs it)')

_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3


def compile_model(path: str):
    """Return MuJoCo's compiled model of the file ``path``, every body kept."""
    spec = mujoco.MjSpec.from_file(str(path))
    spec.compiler.fusestatic = False
    return spec.compile()


def body_names(mj_model) -> list[str]:
    """Return the parser's name of each MuJoCo body (``body_<id>`` when unnamed)."""
    return [mujoco.mj_id2name(mj_model, mujoco.mjtObj.mjOBJ_BODY, i) or f'body_{i}'
            for i in range(mj_model.nbody)]


def joint_names(mj_model) -> list[str]:
    """Return the parser's name of each MuJoCo joint (``<body>_joint<k>`` when unnamed)."""
    bodies = body_names(mj_model)
    names = []
    for j in range(mj_model.njnt):
        body = mj_model.jnt_bodyid[j]
        name = mujoco.mj_id2name(mj_model, mujoco.mjtObj.mjOBJ_JOINT, j)
        names.append(name or f'{bodies[body]}_joint{j - mj_model.body_jntadr[body]}')
    return names


def random_qpos(mj_model, model, rng: np.random.Generator) -> np.ndarray:
    """
    Return a qpos inside the ranges, mimic followers following the parser's rule.

    Drawn again while a follower lands outside its range (the package clamps
    it there; a simulation's equality would not have let it go).
    """
    for _ in range(1000):
        qpos = _draw(mj_model, model, rng)
        followers = [j for j, name in enumerate(joint_names(mj_model))
                     if model.joint_map[name].mimic is not None and mj_model.jnt_limited[j]]
        if all(mj_model.jnt_range[j][0] <= qpos[mj_model.jnt_qposadr[j]]
               <= mj_model.jnt_range[j][1] for j in followers):
            return qpos
    raise AssertionError('no configuration with the mimic joints inside their ranges')


def _draw(mj_model, model, rng: np.random.Generator) -> np.ndarray:
    qpos = mj_model.qpos0.copy()
    names = joint_names(mj_model)
    for j in range(mj_model.njnt):
        adr = mj_model.jnt_qposadr[j]
        kind = mj_model.jnt_type[j]
        if kind == _FREE:
            qpos[adr:adr + 3] = rng.uniform(-2.0, 2.0, 3)
            quat = rng.normal(size=4)
            qpos[adr + 3:adr + 7] = quat / np.linalg.norm(quat)
        elif mj_model.jnt_limited[j]:
            qpos[adr] = rng.uniform(*mj_model.jnt_range[j])
        else:
            qpos[adr] = rng.uniform(-math.pi, math.pi)
    for j, name in enumerate(names):
        joint = model.joint_map[name]
        if joint.mimic is not None:
            leader = names.index(joint.mimic.joint)
            qpos[mj_model.jnt_qposadr[j]] = (joint.mimic.multiplier
                                             * qpos[mj_model.jnt_qposadr[leader]]
                                             + joint.mimic.offset)
    return qpos


def joint_values(mj_model, qpos: np.ndarray) -> dict[str, float]:
    """Return ``qpos`` as JointState values (a free joint's ``j/trans_x`` ... ``j/rot_w``)."""
    values = {}
    for j, name in enumerate(joint_names(mj_model)):
        adr = mj_model.jnt_qposadr[j]
        if mj_model.jnt_type[j] == _FREE:
            x, y, z, w, qx, qy, qz = qpos[adr:adr + 7]
            values.update({f'{name}/trans_x': x, f'{name}/trans_y': y, f'{name}/trans_z': z,
                           f'{name}/rot_x': qx, f'{name}/rot_y': qy, f'{name}/rot_z': qz,
                           f'{name}/rot_w': w})
        else:
            values[name] = qpos[adr]
    return {name: float(value) for name, value in values.items()}


def mujoco_poses(mj_model, qpos: np.ndarray) -> dict[str, np.ndarray]:
    """Return every body's 4x4 pose in the world body after ``mj_kinematics``."""
    data = mujoco.MjData(mj_model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(mj_model, data)
    poses = {}
    for i, name in enumerate(body_names(mj_model)):
        pose = np.eye(4)
        matrix = np.zeros(9)
        mujoco.mju_quat2Mat(matrix, data.xquat[i])
        pose[:3, :3] = matrix.reshape(3, 3)
        pose[:3, 3] = data.xpos[i]
        poses[name] = pose
    return poses


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def _origin(origin) -> np.ndarray:
    pose = np.eye(4)
    if origin is None:
        return pose
    roll, pitch, yaw = origin.rpy if origin.rpy is not None else (0.0, 0.0, 0.0)
    pose[:3, :3] = (_rotation(np.array([0.0, 0, 1]), yaw) @ _rotation(np.array([0.0, 1, 0]), pitch)
                    @ _rotation(np.array([1.0, 0, 0]), roll))
    pose[:3, 3] = origin.xyz if origin.xyz is not None else (0.0, 0.0, 0.0)
    return pose


def urdf_poses(urdf: str, values: dict[str, float]) -> dict[str, np.ndarray]:
    """Return every link's pose in the root: urdf_parser_py's reading, numpy's products."""
    from urdf_parser_py.urdf import URDF

    robot = URDF.from_xml_string(urdf.encode('utf-8'))
    by_child = {joint.child: joint for joint in robot.joints}
    poses: dict[str, np.ndarray] = {}

    def value(joint) -> float:
        if joint.mimic is not None:
            leader = next(j for j in robot.joints if j.name == joint.mimic.joint)
            return (joint.mimic.multiplier or 1.0) * value(leader) + (joint.mimic.offset or 0.0)
        return values[joint.name]

    def pose(link: str) -> np.ndarray:
        if link in poses:
            return poses[link]
        joint = by_child.get(link)
        if joint is None:
            poses[link] = np.eye(4)
            return poses[link]
        motion = np.eye(4)
        axis = np.array(joint.axis if joint.axis is not None else (1.0, 0.0, 0.0))
        if joint.type in ('revolute', 'continuous'):
            motion[:3, :3] = _rotation(axis, value(joint))
        elif joint.type == 'prismatic':
            motion[:3, 3] = axis / np.linalg.norm(axis) * value(joint)
        elif joint.type == 'floating':
            name = joint.name
            w, x, y, z = (values[f'{name}/rot_{c}'] for c in 'wxyz')
            motion[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                              [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                              [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
            motion[:3, 3] = [values[f'{name}/trans_{c}'] for c in 'xyz']
        poses[link] = pose(joint.parent) @ _origin(joint.origin) @ motion
        return poses[link]

    for link in robot.links:
        pose(link.name)
    return poses
