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
Small rotation helpers (numpy only, no ROS), vectorised over leading axes.

Conventions used throughout the package:

* quaternions are ``(x, y, z, w)`` -- the order of ``geometry_msgs/Quaternion``,
  so arrays go into TF messages without reshuffling;
* roll/pitch/yaw are URDF's fixed-axis angles: ``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``;
* homogeneous transforms are 4x4 with the translation in the last column;
* a pose is a ``(translation, rotation)`` pair: a vector (..., 3) and a unit
  quaternion (..., 4), mapping the child frame into its parent.

Every function accepts arrays with arbitrary leading (batch) axes; the last
axis (or the last two for matrices) holds the actual vector.

Single values on per-message paths use these functions too: the TF viewer
(one normalisation per received transform, pose composition per redraw) and
the joint sweeper (one rpy -> quaternion per floating joint per message).
numpy's per-call overhead makes each call ~10-40 us instead of ~1-5 us for
plain floats; at the demo's rates (~850 received transforms/s, 2 redraws/s
of a 58-frame tree) that is about 2 % of a core. Should the viewer watch a
much faster /tf, normalise each message's rotations in one call.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

# |sin(pitch)| at or above this counts as gimbal lock in the rpy extraction.
_GIMBAL_LOCK = 1.0 - 1e-12


def rpy_to_matrix(rpy: ArrayLike) -> np.ndarray:
    """Rotation matrix ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``; ``rpy`` has shape (..., 3)."""
    rpy = np.asarray(rpy, dtype=float)
    cr, cp, cy = np.cos(rpy[..., 0]), np.cos(rpy[..., 1]), np.cos(rpy[..., 2])
    sr, sp, sy = np.sin(rpy[..., 0]), np.sin(rpy[..., 1]), np.sin(rpy[..., 2])
    m = np.empty(rpy.shape[:-1] + (3, 3))
    m[..., 0, 0] = cy * cp
    m[..., 0, 1] = cy * sp * sr - sy * cr
    m[..., 0, 2] = cy * sp * cr + sy * sr
    m[..., 1, 0] = sy * cp
    m[..., 1, 1] = sy * sp * sr + cy * cr
    m[..., 1, 2] = sy * sp * cr - cy * sr
    m[..., 2, 0] = -sp
    m[..., 2, 1] = cp * sr
    m[..., 2, 2] = cp * cr
    return m


def rpy_to_quaternion(rpy: ArrayLike) -> np.ndarray:
    """Quaternion (x, y, z, w) of ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``; shape (..., 4)."""
    rpy = np.asarray(rpy, dtype=float)
    half = 0.5 * rpy
    cr, cp, cy = np.cos(half[..., 0]), np.cos(half[..., 1]), np.cos(half[..., 2])
    sr, sp, sy = np.sin(half[..., 0]), np.sin(half[..., 1]), np.sin(half[..., 2])
    return np.stack([
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
        cr * cp * cy + sr * sp * sy,
    ], axis=-1)


def quaternion_multiply(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """
    Hamilton product ``a ⊗ b`` of (x, y, z, w) quaternions.

    Rotation ``a`` then ``b`` in the body frame, i.e. ``R(a ⊗ b) = R(a) @ R(b)``.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ], axis=-1)


def quaternion_left_matrix(q: ArrayLike) -> np.ndarray:
    """
    Return the 4x4 matrix ``L(q)`` with ``q ⊗ p == L(q) @ p`` (x, y, z, w), shape (..., 4, 4).

    Lets a fixed left factor (a joint origin) be folded into precomputed
    per-joint constants, so the per-call product is a couple of multiply-adds.
    """
    q = np.asarray(q, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([w, -z, y, x], axis=-1),
        np.stack([z, w, -x, y], axis=-1),
        np.stack([-y, x, w, z], axis=-1),
        np.stack([-x, -y, -z, w], axis=-1),
    ], axis=-2)


def normalize_quaternion(q: ArrayLike, *, reject_nonfinite: bool = False) -> np.ndarray:
    """
    Normalize to a unit quaternion; a (near-)zero one becomes the identity (0, 0, 0, 1).

    With ``reject_nonfinite`` a quaternion whose norm is not finite (a NaN or
    infinite component, or an overflowing one) becomes the identity as well:
    for received rotations, where one bad value must not poison every pose
    composed below it. Without it such a quaternion stays non-finite.
    """
    q = np.array(q, dtype=float)
    # Received values may overflow when squared: that is a rejected rotation, not a warning.
    with np.errstate(**({'over': 'ignore', 'invalid': 'ignore'} if reject_nonfinite else {})):
        norm = np.sqrt(np.add.reduce(q * q, axis=-1, keepdims=True))   # np.linalg.norm's sum
    degenerate = norm < 1e-12
    if reject_nonfinite:
        degenerate |= ~np.isfinite(norm)
    q = q / np.where(degenerate, 1.0, norm)
    if degenerate.any():
        q[degenerate[..., 0]] = (0.0, 0.0, 0.0, 1.0)
    return q


def quaternion_rotate(q: ArrayLike, v: ArrayLike) -> np.ndarray:
    """Vectors (..., 3) rotated by unit quaternions (..., 4): ``R(q) @ v``, shape (..., 3)."""
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    vx, vy, vz = v[..., 0], v[..., 1], v[..., 2]
    # t = 2 * cross(q.xyz, v); v' = v + w * t + cross(q.xyz, t)
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return np.stack([vx + w * tx + (y * tz - z * ty),
                     vy + w * ty + (z * tx - x * tz),
                     vz + w * tz + (x * ty - y * tx)], axis=-1)


def compose_poses(translation_a: ArrayLike, rotation_a: ArrayLike,
                  translation_b: ArrayLike,
                  rotation_b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """
    Pose ``a * b`` as (translation (..., 3), unit quaternion (..., 4)): first ``b``, then ``a``.

    ``b`` maps a child frame into some frame F and ``a`` maps F into its
    parent, so the result maps the child frame into ``a``'s parent. The
    rotation is renormalised, so long chains do not drift off unit length.
    """
    translation = np.asarray(translation_a, dtype=float) + quaternion_rotate(rotation_a,
                                                                             translation_b)
    return translation, normalize_quaternion(quaternion_multiply(rotation_a, rotation_b))


def quaternion_to_matrix(q: ArrayLike) -> np.ndarray:
    """Rotation matrix of a unit quaternion (x, y, z, w); shape (..., 3, 3)."""
    q = np.asarray(q, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def matrix_to_quaternion(m: ArrayLike) -> np.ndarray:
    """
    Return the unit quaternion (x, y, z, w), w >= 0, of rotation matrices (..., 3, 3).

    Uses the largest-diagonal branch per element (Shepperd), so it is accurate
    for every rotation, including 180 degree ones.
    """
    m = np.asarray(m, dtype=float)[..., :3, :3]
    shape = m.shape[:-2]
    m = m.reshape(-1, 3, 3)
    q = np.empty((m.shape[0], 4))
    m00, m11, m22 = m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]
    trace = m00 + m11 + m22
    branch = np.argmax(np.stack([trace, m00, m11, m22], axis=-1), axis=-1)
    for k in range(4):
        sel = branch == k
        if not sel.any():
            continue
        r = m[sel]
        if k == 0:
            s = 2.0 * np.sqrt(1.0 + trace[sel])
            q[sel] = np.stack([(r[:, 2, 1] - r[:, 1, 2]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s,
                               (r[:, 1, 0] - r[:, 0, 1]) / s, 0.25 * s], axis=-1)
        elif k == 1:
            s = 2.0 * np.sqrt(1.0 + r[:, 0, 0] - r[:, 1, 1] - r[:, 2, 2])
            q[sel] = np.stack([0.25 * s, (r[:, 0, 1] + r[:, 1, 0]) / s,
                               (r[:, 0, 2] + r[:, 2, 0]) / s, (r[:, 2, 1] - r[:, 1, 2]) / s],
                              axis=-1)
        elif k == 2:
            s = 2.0 * np.sqrt(1.0 + r[:, 1, 1] - r[:, 0, 0] - r[:, 2, 2])
            q[sel] = np.stack([(r[:, 0, 1] + r[:, 1, 0]) / s, 0.25 * s,
                               (r[:, 1, 2] + r[:, 2, 1]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s],
                              axis=-1)
        else:
            s = 2.0 * np.sqrt(1.0 + r[:, 2, 2] - r[:, 0, 0] - r[:, 1, 1])
            q[sel] = np.stack([(r[:, 0, 2] + r[:, 2, 0]) / s, (r[:, 1, 2] + r[:, 2, 1]) / s,
                               0.25 * s, (r[:, 1, 0] - r[:, 0, 1]) / s], axis=-1)
    q[q[:, 3] < 0] *= -1.0
    return q.reshape(shape + (4,))


def _rpy_from_entries(sin_pitch: np.ndarray, m00: np.ndarray, m01: np.ndarray,
                      m10: np.ndarray, m11: np.ndarray, m21: np.ndarray,
                      m22: np.ndarray) -> np.ndarray:
    """Roll, pitch, yaw (..., 3) from ``sin(pitch) = -m20`` and the matrix entries they need."""
    sin_pitch = np.clip(sin_pitch, -1.0, 1.0)
    locked = ~(np.abs(sin_pitch) < _GIMBAL_LOCK)
    roll = np.where(locked, 0.0, np.arctan2(m21, m22))
    yaw = np.where(locked, np.arctan2(-m01, m11), np.arctan2(m10, m00))
    return np.stack([roll, np.arcsin(sin_pitch), yaw], axis=-1)


def matrix_to_rpy(m: ArrayLike) -> np.ndarray:
    """
    URDF roll/pitch/yaw (``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)``) of rotations; shape (..., 3).

    ``m`` is (..., 3, 3) or (..., 4, 4) (only the rotation block is read).
    Roll and yaw are in [-pi, pi], pitch in [-pi/2, pi/2]. At pitch = +-pi/2
    (gimbal lock) roll is reported as 0 and the whole rotation about z goes
    into yaw, so the triple still reproduces ``R`` through :func:`rpy_to_matrix`.
    """
    m = np.asarray(m, dtype=float)
    return _rpy_from_entries(-m[..., 2, 0], m[..., 0, 0], m[..., 0, 1], m[..., 1, 0],
                             m[..., 1, 1], m[..., 2, 1], m[..., 2, 2])


def quaternion_to_rpy(q: ArrayLike) -> np.ndarray:
    """
    URDF roll/pitch/yaw of unit quaternions (x, y, z, w); shape (..., 3).

    The inverse of :func:`rpy_to_quaternion` (up to the usual rpy ambiguity),
    with the same ranges and gimbal-lock rule as :func:`matrix_to_rpy`. Near
    pitch = +-pi/2 the pitch read from a quaternion is only good to ~1e-8 rad
    (its sine is flat there), so roll and yaw may split the rotation about z
    differently than :func:`matrix_to_rpy` would; the rotation is the same.
    """
    q = np.asarray(q, dtype=float)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    # The entries of quaternion_to_matrix(q) that the angles need.
    return _rpy_from_entries(2 * (w * y - z * x), 1 - 2 * (y * y + z * z), 2 * (x * y - z * w),
                             2 * (x * y + z * w), 1 - 2 * (x * x + z * z),
                             2 * (y * z + x * w), 1 - 2 * (x * x + y * y))


def skew(v: ArrayLike) -> np.ndarray:
    """Cross-product matrix ``[v]x`` of vectors (..., 3); shape (..., 3, 3)."""
    v = np.asarray(v, dtype=float)
    k = np.zeros(v.shape[:-1] + (3, 3))
    k[..., 0, 1], k[..., 0, 2] = -v[..., 2], v[..., 1]
    k[..., 1, 0], k[..., 1, 2] = v[..., 2], -v[..., 0]
    k[..., 2, 0], k[..., 2, 1] = -v[..., 1], v[..., 0]
    return k


def transform(translation: ArrayLike, rotation_matrix: ArrayLike) -> np.ndarray:
    """4x4 homogeneous transforms from translations (..., 3) and rotations (..., 3, 3)."""
    translation = np.asarray(translation, dtype=float)
    rotation_matrix = np.asarray(rotation_matrix, dtype=float)
    shape = np.broadcast_shapes(translation.shape[:-1], rotation_matrix.shape[:-2])
    t = np.zeros(shape + (4, 4))
    t[..., :3, :3] = rotation_matrix
    t[..., :3, 3] = translation
    t[..., 3, 3] = 1.0
    return t
