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

"""Rotation and pose helpers of ``core.transforms``: round trips, batches, edge cases."""

import math

import numpy as np
import pytest
from urdf_state_py.core.transforms import (compose_poses, matrix_to_quaternion, matrix_to_rpy,
                                           normalize_quaternion, quaternion_multiply,
                                           quaternion_rotate, quaternion_to_matrix,
                                           quaternion_to_rpy, rpy_to_matrix, rpy_to_quaternion,
                                           transform)

PI = math.pi


def axis_angle(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def same_rotation(qa, qb, atol=1e-12):
    """Quaternions equal up to sign."""
    qa, qb = np.asarray(qa), np.asarray(qb)
    return np.allclose(qa, qb, atol=atol) or np.allclose(qa, -qb, atol=atol)


def test_transform_helpers_round_trip():
    rng = np.random.default_rng(5)
    rpy = rng.uniform(-PI, PI, (200, 3))
    q = rpy_to_quaternion(rpy)
    m = rpy_to_matrix(rpy)
    np.testing.assert_allclose(quaternion_to_matrix(q), m, atol=1e-12)
    back = matrix_to_quaternion(m)
    assert all(same_rotation(a, b) for a, b in zip(back, q))
    # 180 degree rotations (the branch a naive trace formula gets wrong)
    for axis in np.eye(3):
        m = axis_angle(axis, PI)
        np.testing.assert_allclose(quaternion_to_matrix(matrix_to_quaternion(m)), m, atol=1e-12)
    a, b = q[:100], q[100:]
    np.testing.assert_allclose(quaternion_to_matrix(quaternion_multiply(a, b)),
                               quaternion_to_matrix(a) @ quaternion_to_matrix(b), atol=1e-12)


@pytest.mark.parametrize('rpy', [
    (0.1, -0.2, 0.3), (3.0, 1.2, -2.5), (0.0, math.pi / 2, 0.7), (0.0, -math.pi / 2, -0.4),
])
def test_matrix_to_rpy_round_trip(rpy):
    matrix = rpy_to_matrix(np.array(rpy))
    assert rpy_to_matrix(np.array(matrix_to_rpy(matrix))) == pytest.approx(matrix, abs=1e-9)
    # The quaternion route reproduces the rotation too; at pitch +-pi/2 a unit
    # quaternion pins the pitch only to ~1e-8 rad.
    rpy_of_quaternion = quaternion_to_rpy(rpy_to_quaternion(np.array(rpy)))
    assert rpy_to_matrix(rpy_of_quaternion) == pytest.approx(matrix, abs=1e-7)


def test_rpy_extraction_is_vectorised_and_reads_4x4_transforms():
    rng = np.random.default_rng(11)
    rpy = rng.uniform([-PI, -PI / 2, -PI], [PI, PI / 2, PI], (50, 3))
    np.testing.assert_allclose(matrix_to_rpy(rpy_to_matrix(rpy)), rpy, atol=1e-9)
    np.testing.assert_allclose(quaternion_to_rpy(rpy_to_quaternion(rpy)), rpy, atol=1e-9)
    homogeneous = np.zeros((50, 4, 4))
    homogeneous[:, :3, :3] = rpy_to_matrix(rpy)
    homogeneous[:, :3, 3] = 5.0
    np.testing.assert_allclose(matrix_to_rpy(homogeneous), rpy, atol=1e-9)


def test_compose_poses_matches_homogeneous_products():
    rng = np.random.default_rng(13)
    qa, qb = normalize_quaternion(rng.normal(size=(2, 20, 4)))
    ta, tb = rng.normal(size=(2, 20, 3))
    np.testing.assert_allclose(quaternion_rotate(qa, tb),
                               (quaternion_to_matrix(qa) @ tb[..., None])[..., 0], atol=1e-12)
    t, q = compose_poses(ta, qa, tb, qb)
    expected = transform(ta, quaternion_to_matrix(qa)) @ transform(tb, quaternion_to_matrix(qb))
    np.testing.assert_allclose(t, expected[:, :3, 3], atol=1e-12)
    np.testing.assert_allclose(quaternion_to_matrix(q), expected[:, :3, :3], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-15)


def test_normalize_quaternion_rejects_non_finite_only_when_asked():
    bad = np.array([[np.nan, 0, 0, 1], [np.inf, 0, 0, 1], [1e200, 1e200, 0, 0], [0, 0, 0, 0],
                    [0, 0, 0, 2]])
    np.testing.assert_array_equal(normalize_quaternion(bad, reject_nonfinite=True),
                                  [[0, 0, 0, 1]] * 5)
    with np.errstate(over='ignore', invalid='ignore'):
        kept = normalize_quaternion(bad)  # the kinematics' default: NaN stays NaN
    assert np.isnan(kept[0]).all() and (kept[3:] == [[0, 0, 0, 1]] * 2).all()
