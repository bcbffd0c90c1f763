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
Rigid transforms of MJCF: MuJoCo's orientation forms, poses as (position, quaternion).

MuJoCo writes every orientation as one of ``quat`` (w x y z), ``axisangle``,
``euler`` (in the order of ``<compiler eulerseq>``), ``xyaxes`` or ``zaxis``,
with angles in the unit of ``<compiler angle>``. Poses are composed here as
MuJoCo's compiler does (quaternions), and turned into URDF's fixed-axis
roll-pitch-yaw only at the end, by :func:`rpy`.
"""

from __future__ import annotations

import math

from ..errors import DescriptionError

Vector = tuple[float, float, float]
Quaternion = tuple[float, float, float, float]
Pose = tuple[Vector, Quaternion]

IDENTITY: Quaternion = (1.0, 0.0, 0.0, 0.0)
ORIGIN: Pose = ((0.0, 0.0, 0.0), IDENTITY)
#: The attributes that set an orientation, with their number of values.
FORMS = {'quat': 4, 'axisangle': 4, 'euler': 3, 'xyaxes': 6, 'zaxis': 3}
_AXES = {'x': (1.0, 0.0, 0.0), 'y': (0.0, 1.0, 0.0), 'z': (0.0, 0.0, 1.0)}
# Below this cos(pitch), roll and yaw are taken apart from their well-conditioned
# sum or difference (see rpy); above it the plain formulas lose less than 1e-11.
_GIMBAL = 1e-5


def multiply(a: Quaternion, b: Quaternion) -> Quaternion:
    """Return the Hamilton product ``a * b``."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def rotate(q: Quaternion, v: Vector) -> Vector:
    """Return ``v`` rotated by the unit quaternion ``q``."""
    w, x, y, z = q
    # t = 2 * (q.xyz x v); v' = v + w t + q.xyz x t
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + y * tz - z * ty,
            v[1] + w * ty + z * tx - x * tz,
            v[2] + w * tz + x * ty - y * tx)


def compose(a: Pose, b: Pose) -> Pose:
    """Return the pose ``b`` expressed in ``a``'s parent: ``a * b``."""
    moved = rotate(a[1], b[0])
    return ((a[0][0] + moved[0], a[0][1] + moved[1], a[0][2] + moved[2]),
            normalized(multiply(a[1], b[1])))


def normalized(q: Quaternion) -> Quaternion:
    """Return ``q`` scaled to length 1 (a zero quaternion is the caller's error)."""
    norm = math.sqrt(sum(c * c for c in q))
    return (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)


def axis_angle(axis: Vector, angle: float) -> Quaternion:
    """Return the rotation by ``angle`` (radians) about the unit vector ``axis``."""
    half = 0.5 * angle
    s = math.sin(half)
    return (math.cos(half), axis[0] * s, axis[1] * s, axis[2] * s)


def unit(v: Vector, what: str) -> Vector:
    """``v`` scaled to length 1; DescriptionError naming ``what`` when it is zero."""
    norm = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if not norm > 1e-14 or not math.isfinite(norm):
        raise DescriptionError(f'{what} must be a non-zero finite vector, not {v}')
    return (v[0] / norm, v[1] / norm, v[2] / norm)


def orientation(form: str, values: list[float], degrees: bool, eulerseq: str,
                what: str) -> Quaternion:
    """Return the unit quaternion of one MJCF orientation attribute ``form``."""
    scale = math.pi / 180.0 if degrees else 1.0
    if form == 'quat':
        if not math.sqrt(sum(c * c for c in values)) > 1e-14:
            raise DescriptionError(f'{what} quat is zero')
        return normalized((values[0], values[1], values[2], values[3]))
    if form == 'axisangle':
        axis = unit((values[0], values[1], values[2]), f'{what} axisangle axis')
        return axis_angle(axis, values[3] * scale)
    if form == 'euler':
        q = IDENTITY
        for letter, angle in zip(eulerseq, values):
            step = axis_angle(_AXES[letter.lower()], angle * scale)
            q = multiply(q, step) if letter.islower() else multiply(step, q)
        return q
    if form == 'xyaxes':
        x = unit((values[0], values[1], values[2]), f'{what} xyaxes x')
        d = sum(a * b for a, b in zip(x, values[3:6]))
        y = unit((values[3] - d * x[0], values[4] - d * x[1], values[5] - d * x[2]),
                 f'{what} xyaxes y (orthogonal to x)')
        z = (x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0])
        return _matrix_quaternion(x, y, z)
    z = unit((values[0], values[1], values[2]), f'{what} zaxis')
    axis = (-z[1], z[0], 0.0)
    sine = math.sqrt(axis[0] * axis[0] + axis[1] * axis[1])
    if sine < 1e-10:
        axis, sine = (1.0, 0.0, 0.0), 0.0
    else:
        axis = (axis[0] / sine, axis[1] / sine, 0.0)
    return axis_angle(axis, math.atan2(sine, z[2]))


def _matrix_quaternion(x: Vector, y: Vector, z: Vector) -> Quaternion:
    """Return the quaternion of the rotation whose columns are ``x``, ``y``, ``z``."""
    m00, m10, m20 = x
    m01, m11, m21 = y
    m02, m12, m22 = z
    trace = m00 + m11 + m22
    if trace > 0.0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = (0.25 * s, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s)
    elif m00 >= m11 and m00 >= m22:
        s = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = ((m21 - m12) / s, 0.25 * s, (m01 + m10) / s, (m02 + m20) / s)
    elif m11 >= m22:
        s = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((m02 - m20) / s, (m01 + m10) / s, 0.25 * s, (m12 + m21) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, 0.25 * s)
    return normalized(q)


def rpy(q: Quaternion) -> Vector:
    """
    Return URDF's (roll, pitch, yaw) of ``q``: R = Rz(yaw) Ry(pitch) Rx(roll).

    At pitch near +-pi/2 roll and yaw are each ill-conditioned while only
    their difference (pitch +pi/2) or sum (-pi/2) matters; that one is then
    read from the well-conditioned matrix entries, so the rotation rebuilt
    from the angles stays within a few ulps of ``q`` at any pitch.
    """
    w, x, y, z = q
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
