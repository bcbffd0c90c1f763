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
MuJoCo's orientation forms as quaternions, and poses made URDF origins.

MuJoCo writes an orientation as one of ``quat`` (w x y z), ``axisangle``,
``euler`` (in the order of ``<compiler eulerseq>``), ``xyaxes`` or ``zaxis``,
with angles in the unit of ``<compiler angle>``. Here they become the
package's (x, y, z, w) quaternions; poses are ``(translation, quaternion)``
pairs composed with :mod:`urdf_state_py.core.transforms`, as MuJoCo's
compiler composes them, and turned into URDF's roll-pitch-yaw only at the end
(:func:`origin`).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DescriptionError
from ..model import Origin
from ..transforms import (compose_poses, matrix_to_quaternion, normalize_quaternion,
                          quaternion_multiply)

Vector = tuple[float, float, float]
#: (translation, unit quaternion (x, y, z, w)), anything numpy reads as such.
Pose = tuple

IDENTITY = (0.0, 0.0, 0.0, 1.0)
ORIGIN: Pose = ((0.0, 0.0, 0.0), IDENTITY)
#: The attributes that set an orientation, with their number of values.
FORMS = {'quat': 4, 'axisangle': 4, 'euler': 3, 'xyaxes': 6, 'zaxis': 3}
_AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}
# Below this cos(pitch), roll and yaw are taken apart from their well-conditioned
# sum or difference (see _rpy); above it the plain formulas lose less than 1e-11.
_GIMBAL = 1e-5


def compose(a: Pose, b: Pose) -> Pose:
    """Return the pose ``b`` expressed in ``a``'s parent: ``a * b``."""
    return compose_poses(a[0], a[1], b[0], b[1])


def axis_angle(axis: Vector, angle: float) -> tuple[float, float, float, float]:
    """Return the rotation by ``angle`` (radians) about the unit vector ``axis``."""
    s = math.sin(0.5 * angle)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(0.5 * angle))


def unit(v: Vector, what: str) -> Vector:
    """``v`` scaled to length 1; DescriptionError naming ``what`` when it is zero."""
    norm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if not norm > 1e-14 or not math.isfinite(norm):
        raise DescriptionError(f'{what} must be a non-zero finite vector, not {v}')
    return (v[0] / norm, v[1] / norm, v[2] / norm)


def orientation(form: str, values: list[float], degrees: bool, eulerseq: str,
                what: str) -> np.ndarray:
    """Return the unit quaternion (x, y, z, w) of one MJCF orientation attribute ``form``."""
    scale = math.pi / 180.0 if degrees else 1.0
    if form == 'quat':
        if not math.sqrt(sum(c * c for c in values)) > 1e-14:
            raise DescriptionError(f'{what} quat is zero')
        return normalize_quaternion((values[1], values[2], values[3], values[0]))
    if form == 'axisangle':
        axis = unit((values[0], values[1], values[2]), f'{what} axisangle axis')
        return np.array(axis_angle(axis, values[3] * scale))
    if form == 'euler':
        q = np.array(IDENTITY)
        for letter, angle in zip(eulerseq, values):
            step = axis_angle(_AXES[letter.lower()], angle * scale)
            q = quaternion_multiply(q, step) if letter.islower() else quaternion_multiply(step, q)
        return q
    if form == 'xyaxes':
        x = unit((values[0], values[1], values[2]), f'{what} xyaxes x')
        d = sum(a * b for a, b in zip(x, values[3:6]))
        y = unit((values[3] - d * x[0], values[4] - d * x[1], values[5] - d * x[2]),
                 f'{what} xyaxes y (orthogonal to x)')
        return normalize_quaternion(matrix_to_quaternion(np.column_stack([x, y, np.cross(x, y)])))
    z = unit((values[0], values[1], values[2]), f'{what} zaxis')
    sine = math.hypot(z[0], z[1])
    axis = (1.0, 0.0, 0.0) if sine < 1e-10 else (-z[1] / sine, z[0] / sine, 0.0)
    return np.array(axis_angle(axis, math.atan2(sine, z[2])))


def origin(pose: Pose) -> Origin:
    """Return ``pose`` as URDF has it: translation and roll-pitch-yaw."""
    return Origin(xyz=tuple(float(c) for c in pose[0]), rpy=_rpy(pose[1]))


def _rpy(q) -> Vector:
    """
    Return URDF's (roll, pitch, yaw) of ``q``: R = Rz(yaw) Ry(pitch) Rx(roll).

    Unlike :func:`~urdf_state_py.core.transforms.quaternion_to_rpy`, whose
    pitch (an arcsine) is good to ~1e-8 rad near +-pi/2, the rotation rebuilt
    from these angles stays within 1e-10 of ``q`` at every pitch (poses must
    equal MuJoCo's to 1e-9): pitch is an arctangent, and near +-pi/2, where
    roll and yaw are each ill-conditioned while only their difference (pitch
    +pi/2) or sum (-pi/2) matters, that one is read from the well-conditioned
    matrix entries.
    """
    x, y, z, w = (float(c) for c in q)
    r00 = 1.0 - 2.0 * (y * y + z * z)
    r10 = 2.0 * (x * y + w * z)
    r20 = 2.0 * (x * z - w * y)
    r21 = 2.0 * (y * z + w * x)
    r22 = 1.0 - 2.0 * (x * x + y * y)
    cos_pitch = math.hypot(r00, r10)
    pitch = math.atan2(-r20, cos_pitch)
    roll = math.atan2(r21, r22)
    yaw = math.atan2(r10, r00)
    if cos_pitch < _GIMBAL:
        r11 = 1.0 - 2.0 * (x * x + z * z)
        r12 = 2.0 * (y * z - w * x)
        sign = 1.0 if r20 < 0.0 else -1.0      # pitch +pi/2: roll - yaw; -pi/2: roll + yaw
        exact = math.atan2(-r12, r11)
        rough = roll - sign * yaw
        exact += 2.0 * math.pi * round((rough - exact) / (2.0 * math.pi))
        total = roll + sign * yaw
        roll = 0.5 * (total + exact)
        yaw = sign * 0.5 * (total - exact)
    return (roll, pitch, yaw)
