"""Rotation helpers on plain tuples, for single poses on per-message paths (no numpy, no ROS).

The TF viewer composes a few poses per screen and the joint sweeper one
quaternion per message; at that size numpy's per-call overhead costs more than
the arithmetic, so these work on floats. :mod:`urdf_state_py.transforms` holds
the vectorised numpy versions used by the kinematics. Quaternions are
``(x, y, z, w)`` (ROS order); roll/pitch/yaw are URDF's fixed-axis angles.
"""

from __future__ import annotations

import math

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w (ROS order)
Pose = tuple[Vec3, Quat]

IDENTITY: Pose = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def quat_multiply(a: Quat, b: Quat) -> Quat:
    """Hamilton product a*b, both (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quat_normalize(q: Quat) -> Quat:
    """``q`` scaled to unit length; the identity when ``q`` is zero or not finite.

    Received rotations are not trusted to be unit length, and a degenerate one
    must not poison every pose composed below it.
    """
    n = math.sqrt(sum(c * c for c in q))
    if n < 1e-12 or not math.isfinite(n):
        return (0.0, 0.0, 0.0, 1.0)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def quat_rotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate vector ``v`` by unit quaternion ``q``."""
    x, y, z, w = q
    vx, vy, vz = v
    # t = 2 * cross(q.xyz, v); v' = v + w*t + cross(q.xyz, t)
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


def compose(a: Pose, b: Pose) -> Pose:
    """Transform a*b: first b, then a (a maps b's parent frame into a's parent)."""
    (ta, qa), (tb, qb) = a, b
    r = quat_rotate(qa, tb)
    return ((ta[0] + r[0], ta[1] + r[1], ta[2] + r[2]), quat_normalize(quat_multiply(qa, qb)))


def quat_to_rpy(q: Quat) -> Vec3:
    """Fixed-axis roll, pitch, yaw (URDF convention, R = Rz*Ry*Rx) of a unit quaternion."""
    x, y, z, w = q
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    sinp = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    pitch = math.asin(sinp)
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return (roll, pitch, yaw)


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> Quat:
    """Inverse of :func:`quat_to_rpy`."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy)
