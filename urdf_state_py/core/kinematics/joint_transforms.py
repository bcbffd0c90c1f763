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
Per-joint local transforms: each child link's pose in its parent link, what TF needs.

Read this first: :class:`JointFrames` answers "where is each joint's child in
its parent" for a resolved configuration, as translations and quaternions
(xyzw), never building a rotation matrix. Everything a call needs for one
subset of joints is precomputed once into a :class:`Selection` (cached by the
subset's index array), so a node publishing the same joints many times a
second pays for a few numpy operations only.

* Revolute-like joints: ``q_origin ⊗ (axis sin(q/2), cos(q/2))`` is linear in
  ``(cos(q/2), sin(q/2))``, i.e. the real part of ``exp(i q/2)`` times a
  precomputed complex 4-vector: one exp, one multiply. They do not translate,
  so their translations are the (read-only) precomputed origins.
* Prismatic, planar and floating joints (rarer) are filled in afterwards,
  vectorised per type. Planar: translation ``(x, y, 0)`` then rotation by
  ``theta`` about z, in the joint frame (MoveIt / pinocchio; the URDF axis is
  ignored). Floating: translation plus the normalised quaternion
  ``(rot_x, rot_y, rot_z, rot_w)`` (a zero quaternion means identity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..model import Joint, JointType, Model
from ..transforms import (normalize_quaternion, quaternion_left_matrix, quaternion_multiply,
                          rpy_to_matrix, rpy_to_quaternion)

__all__ = ['JointFrames', 'JointTransforms', 'Selection']

_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)
_SELECTION_CACHE_SIZE = 256   # bounded: callers normally reuse a few subsets


@dataclass(frozen=True, slots=True)
class JointTransforms:
    """
    Parent-relative transforms of a set of joints, ready for TF messages.

    Row ``i`` is the pose of ``children[i]`` in ``parents[i]``. With a batch of
    configurations the arrays get a leading axis: ``(N, n, 3)`` / ``(N, n, 4)``.
    """

    joint_names: tuple[str, ...]
    parents: tuple[str, ...]      # parent link names (TF frame_id)
    children: tuple[str, ...]     # child link names (TF child_frame_id)
    translations: np.ndarray      # (n, 3)
    rotations: np.ndarray         # (n, 4) quaternions x, y, z, w (ROS order); sign not normalised

    def __len__(self) -> int:
        return len(self.joint_names)


@dataclass(frozen=True, slots=True)
class Selection:
    """
    Everything ``moving_transforms`` needs for one ordered subset of movable joints.

    Read-only; the node's fast path reads ``half_gain`` and ``rotation_basis``
    to fuse the rotation formula into its own buffers.
    """

    joint_names: tuple[str, ...]
    parents: tuple[str, ...]
    children: tuple[str, ...]
    var_index: np.ndarray         # (m,) first variable of each joint
    half_gain: np.ndarray         # (m,) 0.5j for revolute-like joints, else 0 (complex)
    rotation_basis: np.ndarray    # (m, 4) complex: q0 - i * (q0 ⊗ (axis, 0))
    translation: np.ndarray       # (m, 3) origin translations (read-only)
    prismatic: tuple | None       # (rows, var_index, R0 @ axis (k, 3)) or None
    planar: tuple | None          # (rows, var_index, R0 (k,3,3), Q0 (k,4)) or None
    floating: tuple | None        # same layout as planar


class JointFrames:
    """
    Parent-relative transforms of one model's joints.

    Thread-safe: the selection cache is a dict changed only by whole entries; a lost race
    just computes a selection twice.
    """

    def __init__(self, model: Model, movable: Sequence[Joint],
                 variable_index: Mapping[str, int]) -> None:
        """``movable``: the model's movable joints in topological order."""
        self._model = model
        self._movable = tuple(movable)
        self._movable_index = {j.name: i for i, j in enumerate(movable)}
        n = len(movable)
        self._first_var = np.array(
            [variable_index[j.variable_names[0]] for j in movable], dtype=np.intp)
        self._origin_t = np.array([j.origin.xyz for j in movable], dtype=float).reshape(n, 3)
        rpy = np.array([j.origin.rpy for j in movable], dtype=float).reshape(n, 3)
        self._origin_r = rpy_to_matrix(rpy)
        self._origin_q = rpy_to_quaternion(rpy)
        self._axis = np.array([j.axis for j in movable], dtype=float).reshape(n, 3)
        self._is_rev = np.array([j.type in _REVOLUTE_LIKE for j in movable], dtype=float)
        self._is_pri = np.array([j.type is JointType.PRISMATIC for j in movable], dtype=bool)
        self._is_planar = np.array([j.type is JointType.PLANAR for j in movable], dtype=bool)
        self._is_floating = np.array([j.type is JointType.FLOATING for j in movable], dtype=bool)
        self._selections: dict[bytes, Selection] = {}
        self.all_movable = self._make_selection(np.arange(n, dtype=np.intp))
        self.fixed = _fixed_transforms(model)

    def joint_index(self, names: Sequence[str]) -> np.ndarray:
        """
        Indicate (into the movable joints) of the named movable joints, in order.

        KeyError names unknown and fixed joints.
        """
        if isinstance(names, str):
            names = (names,)
        index = self._movable_index
        missing = [n for n in names if n not in index]
        if missing:
            joint_map = self._model.joint_map
            fixed = [n for n in missing if n in joint_map]
            unknown = [n for n in missing if n not in joint_map]
            parts = []
            if unknown:
                parts.append('unknown joint(s) ' + ', '.join(repr(n) for n in unknown))
            if fixed:
                parts.append('fixed joint(s) ' + ', '.join(repr(n) for n in fixed))
            raise KeyError(f"robot '{self._model.name}': " + '; '.join(parts))
        return np.array([index[n] for n in names], dtype=np.intp)

    def selection(self, joints) -> Selection:
        """Return the cached :class:`Selection` of ``joints``: None (all), names or indices."""
        if joints is None:
            return self.all_movable
        if isinstance(joints, np.ndarray) and joints.dtype.kind in 'iu':
            idx = joints.astype(np.intp, copy=False)
        else:
            idx = self.joint_index(joints)
        key = idx.tobytes()
        sel = self._selections.get(key)
        if sel is None:
            if idx.size and (idx.min() < 0 or idx.max() >= len(self._movable)):
                raise IndexError(f'movable joint index out of range 0..{len(self._movable) - 1}')
            sel = self._make_selection(idx)
            if len(self._selections) >= _SELECTION_CACHE_SIZE:
                self._selections.clear()
            self._selections[key] = sel
        return sel

    def _make_selection(self, idx: np.ndarray) -> Selection:
        """
        Precompute the constants of :meth:`transforms` for the joints ``idx``.

        For a revolute-like joint the child's orientation is
        ``q0 ⊗ (axis sin(q/2), cos(q/2)) = cos(q/2) q0 + sin(q/2) (q0 ⊗ (axis, 0))``,
        which is ``Re(exp(i q/2) * (q0 - i (q0 ⊗ (axis, 0))))``: storing the
        complex basis turns the whole rotation into exp, multiply, real part.
        Other joints get a zero gain, so the expression yields ``q0`` for them.
        """
        mov = self._movable
        t0, r0, q0 = self._origin_t[idx], self._origin_r[idx], self._origin_q[idx]
        axis = self._axis[idx]
        rev = self._is_rev[idx]
        q_axis = np.einsum('nij,nj->ni', quaternion_left_matrix(q0)[:, :, :3], axis)
        var = self._first_var[idx]
        t0 = t0.copy()
        t0.setflags(write=False)

        def rows_of(mask):
            rows = np.flatnonzero(mask[idx])
            return None if rows.size == 0 else rows

        prismatic = rows_of(self._is_pri)
        if prismatic is not None:
            prismatic = (prismatic, var[prismatic],
                         np.einsum('nij,nj->ni', r0[prismatic], axis[prismatic]))
        planar = rows_of(self._is_planar)
        if planar is not None:
            planar = (planar, var[planar], r0[planar], q0[planar])
        floating = rows_of(self._is_floating)
        if floating is not None:
            floating = (floating, var[floating], r0[floating], q0[floating])
        return Selection(
            joint_names=tuple(mov[i].name for i in idx),
            parents=tuple(mov[i].parent for i in idx),
            children=tuple(mov[i].child for i in idx),
            var_index=var,
            half_gain=0.5j * rev,
            rotation_basis=q0 - 1j * (rev[:, None] * q_axis),
            translation=t0,
            prismatic=prismatic,
            planar=planar,
            floating=floating,
        )

    def transforms(self, q: np.ndarray, joints) -> JointTransforms:
        """
        Transform of ``joints`` (see :meth:`selection`) for a RESOLVED ``q``.

        ``q`` is (n_vars,) or (N, n_vars).

        When no joint of the subset translates, ``translations`` is the
        precomputed, read-only array of joint origins (broadcast over a batch).
        """
        sel = self.selection(joints)
        qs = q.take(sel.var_index, axis=-1)
        rotations = (np.exp(qs * sel.half_gain)[..., None] * sel.rotation_basis).real
        translations = sel.translation
        if q.ndim == 2:
            translations = np.broadcast_to(translations, qs.shape + (3,))
        if sel.prismatic is not None or sel.planar is not None or sel.floating is not None:
            translations = translations.copy()
            _translating_rows(q, sel, translations, rotations)
        return JointTransforms(sel.joint_names, sel.parents, sel.children,
                               translations, rotations)


def _translating_rows(q: np.ndarray, sel: Selection, translations: np.ndarray,
                      rotations: np.ndarray) -> None:
    """Fill in the prismatic, planar and floating rows (vectorised per type)."""
    def var(index):                      # (..., k) values of variables `index`
        return q[..., index]

    if sel.prismatic is not None:
        rows, index, direction = sel.prismatic
        translations[..., rows, :] += var(index)[..., None] * direction
    if sel.planar is not None:
        rows, index, r0, q0 = sel.planar
        x, y, theta = var(index), var(index + 1), var(index + 2)
        translations[..., rows, :] += r0[:, :, 0] * x[..., None] + r0[:, :, 1] * y[..., None]
        zero = np.zeros_like(theta)
        rotations[..., rows, :] = quaternion_multiply(
            q0, np.stack([zero, zero, np.sin(0.5 * theta), np.cos(0.5 * theta)], axis=-1))
    if sel.floating is not None:
        rows, index, r0, q0 = sel.floating
        trans = np.stack([var(index + k) for k in range(3)], axis=-1)
        quat = normalize_quaternion(np.stack([var(index + k) for k in range(3, 7)], axis=-1))
        translations[..., rows, :] += np.einsum('kij,...kj->...ki', r0, trans)
        rotations[..., rows, :] = quaternion_multiply(q0, quat)


def _fixed_transforms(model: Model) -> JointTransforms:
    """Transform of every fixed joint (topological order): constants, read-only."""
    fixed = [j for j in model.joints if not j.is_movable]
    n = len(fixed)
    trans = np.array([j.origin.xyz for j in fixed], dtype=float).reshape(n, 3)
    rot = rpy_to_quaternion(np.array([j.origin.rpy for j in fixed], dtype=float).reshape(n, 3))
    trans.setflags(write=False)
    rot.setflags(write=False)
    return JointTransforms(tuple(j.name for j in fixed), tuple(j.parent for j in fixed),
                           tuple(j.child for j in fixed), trans, rot)
