"""Forward kinematics of a :class:`~urdf_state_py.core.model.Model`, vectorised with numpy.

Design (after pinocchio's model/data split): :class:`Kinematics` precomputes,
once, every constant a call needs -- index arrays, joint origins as 4x4
matrices and quaternions, per-joint "basis" matrices -- so that a call is a
fixed, short sequence of numpy operations over *all* joints at once, with no
Python loop per joint. For one configuration the cost is dominated by
numpy's per-call overhead (~0.5-1 us per operation), not by arithmetic, so the
code minimises the number of numpy calls; for big batches the arithmetic
(and memory traffic) dominates and a different composition schedule is used.

* **Joint motion** of revolute, continuous and prismatic joints is one
  formula, linear in two coefficients per joint (Rodrigues)::

      T(origin) @ T(motion) = F + a1 F K + a2 F K^2     (a1, a2) = (sin q, 1 - cos q)
                            = F + a1 P                  prismatic: a1 = q, P = R_F axis

  with ``K = [axis]x``; the bases are precomputed, so all local transforms
  are three elementwise numpy operations (one batched matmul for a batch). Planar and floating joints (rare)
  are evaluated afterwards as their own small vectorised groups.
* **Root-relative composition.** Fixed joints are folded away (their
  constant offsets are multiplied into the bases), so only movable joints
  are composed. Links with movable joints below them are composed by
  pointer jumping (``ceil(log2 depth)`` batched matmuls -- 4 for TALOS instead
  of ~10 depth levels) for single configurations, or level by level (one 4x4
  product per joint) for big batches; every other link then needs one last
  batched matmul. See :meth:`Kinematics._init_link_poses`.
* **Parent-relative transforms** (what TF needs) are computed directly as
  quaternions: ``q_origin ⊗ (axis sin(q/2), cos(q/2))`` is linear in
  ``(cos(q/2), sin(q/2))``, i.e. the real part of ``exp(i q/2)`` times a
  precomputed complex 4-vector, so one exp, one multiply, never a rotation
  matrix built and converted. Revolute joints do not translate, so their
  translations are the precomputed origins.
* **Mimic joints and limits** are resolved with index arrays: mimic joints are
  grouped into "levels" by the length of their mimic chain, so each level is
  one gather-multiply-add-clip-scatter whatever the declaration order.

Batches: every per-call method accepts a leading batch axis (``(N, n_vars)``)
and runs the same code on it, so N configurations cost far less than N calls;
big batches go through link_poses in cache-sized chunks.

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
  quaternion ``(rot_x, rot_y, rot_z, rot_w)``, normalised here (a zero
  quaternion means identity);
* limits: revolute and prismatic joints with both bounds are clamped into
  ``[lower, upper]`` unless ``ignore_limits``; continuous, planar and floating
  joints never are;
* mimic: ``value = multiplier * master + offset`` using the master's
  *effective* value (after its own mimic rule and clamping), chains resolved in
  any declaration order, then the mimic joint's own limits apply. A mimic rule
  whose master is a fixed joint uses 0 for the master (a fixed joint never
  moves); fixed joints never move even when they carry ``<mimic>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from .errors import DescriptionError
from .model import Joint, JointType, Model
from .transforms import (normalize_quaternion, quaternion_left_matrix, quaternion_multiply,
                         quaternion_to_matrix, rpy_to_matrix, rpy_to_quaternion, skew,
                         transform)

_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)
_MULTI_DOF = (JointType.PLANAR, JointType.FLOATING)


@dataclass(frozen=True, slots=True)
class JointTransforms:
    """Parent-relative transforms of a set of joints, ready for TF messages.

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
class _Selection:
    """Everything ``moving_transforms`` needs for one ordered subset of movable joints."""

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


class Kinematics:
    """Precomputed forward kinematics of one :class:`Model` (immutable, thread-safe).

    ``q`` arguments are full variable vectors ordered as :attr:`variable_names`
    (build them with :meth:`positions`), optionally with a leading batch axis.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self.variable_names: tuple[str, ...] = tuple(model.variable_names)
        self.variable_index: Mapping[str, int] = MappingProxyType(
            {name: i for i, name in enumerate(self.variable_names)})
        self.n_variables = len(self.variable_names)
        self._movable: tuple[Joint, ...] = tuple(j for j in model.joints if j.is_movable)
        self.movable_joint_names: tuple[str, ...] = tuple(j.name for j in self._movable)
        self._movable_index = {j.name: i for i, j in enumerate(self._movable)}
        self.link_names: tuple[str, ...] = tuple(model.link_names)
        self._link_index = {name: i for i, name in enumerate(self.link_names)}
        self._first_var = np.array(
            [self.variable_index[j.variable_names[0]] for j in self._movable], dtype=np.intp)

        defaults = model.default_positions()
        self._defaults = np.array([defaults[n] for n in self.variable_names], dtype=float)
        self._defaults.setflags(write=False)

        self._init_resolve()
        self._init_local()
        self._init_link_poses()
        self._selections: dict[bytes, _Selection] = {}
        self._all = self._make_selection(np.arange(len(self._movable), dtype=np.intp))
        self._fixed = self._make_fixed_transforms()

    # ------------------------------------------------------------------ vectors

    def default_positions(self) -> np.ndarray:
        """The default variable vector (0, or the mid-point of the bounds when 0 is outside)."""
        return self._defaults.copy()

    def positions(self, values: Mapping[str, float], base: np.ndarray | None = None) -> np.ndarray:
        """A full variable vector: ``base`` (default: the defaults) overwritten by ``values``.

        Raises KeyError naming every unknown variable.
        """
        q = np.array(self._defaults if base is None else base, dtype=float)
        if q.shape != (self.n_variables,):
            raise ValueError(f'base has shape {q.shape}, expected ({self.n_variables},)')
        index = self.variable_index
        unknown = [name for name in values if name not in index]
        if unknown:
            raise KeyError(f"unknown variable(s) for robot '{self.model.name}': "
                           + ', '.join(repr(n) for n in unknown))
        for name, value in values.items():
            q[index[name]] = value
        return q

    def _as_q(self, q) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        if q.ndim not in (1, 2) or q.shape[-1] != self.n_variables:
            raise ValueError(f'configuration has shape {q.shape}, expected '
                             f'({self.n_variables},) or (N, {self.n_variables})')
        return q

    # ------------------------------------------------------------ mimic + limits

    def _init_resolve(self) -> None:
        """Precompute the clamp of independent joints and one record per mimic level."""
        joint_map = self.model.joint_map
        level: dict[str, int] = {}

        def level_of(joint: Joint) -> int:
            """0: independent; k: k-th in a mimic chain; -1: constant (ends at a fixed joint)."""
            if joint.name in level:
                return level[joint.name]
            if joint.type is JointType.FIXED:
                result = -1
            elif not joint.is_mimic:
                result = 0
            else:
                master = joint_map[joint.mimic.joint]
                if master.type in _MULTI_DOF:
                    raise DescriptionError(
                        f"joint '{joint.name}' mimics {master.type.value} joint "
                        f"'{master.name}', which has no single value to follow")
                up = level_of(master)
                result = -1 if up == -1 else up + 1
            level[joint.name] = result
            return result

        def bounds(joint: Joint) -> tuple[float, float]:
            if joint.is_bounded:
                return joint.limits.lower, joint.limits.upper
            return -math.inf, math.inf

        def constant(joint: Joint, ignore_limits: bool) -> float:
            """Value of a joint whose mimic chain ends at a fixed joint (fixed = 0)."""
            if joint.type is JointType.FIXED:
                return 0.0
            value = (joint.mimic.multiplier * constant(joint_map[joint.mimic.joint], ignore_limits)
                     + joint.mimic.offset)
            if not ignore_limits:
                lower, upper = bounds(joint)
                value = min(max(value, lower), upper)
            return value

        for joint in self._movable:
            level_of(joint)

        # Level 0: independent bounded joints are clamped in place.
        free = [j for j in self._movable if level[j.name] == 0 and j.is_bounded]
        self._clamp = (
            np.array([self.variable_index[j.name] for j in free], dtype=np.intp),
            np.array([j.limits.lower for j in free], dtype=float),
            np.array([j.limits.upper for j in free], dtype=float),
            tuple(j.name for j in free),
        )
        # Levels 1..: value = multiplier * master + offset, then the joint's own bounds.
        self._mimic_levels = []
        top = max([v for v in level.values()] + [0])
        for k in range(1, top + 1):
            group = [j for j in self._movable if level[j.name] == k]
            lows, highs = zip(*(bounds(j) for j in group))
            self._mimic_levels.append((
                np.array([self.variable_index[j.name] for j in group], dtype=np.intp),
                np.array([self.variable_index[j.mimic.joint] for j in group], dtype=np.intp),
                np.array([j.mimic.multiplier for j in group], dtype=float),
                np.array([j.mimic.offset for j in group], dtype=float),
                np.array(lows, dtype=float),
                np.array(highs, dtype=float),
                tuple(j.name for j in group),
            ))
        # Constant mimic joints (chain ends at a fixed joint).
        const = [j for j in self._movable if level[j.name] == -1]
        self._constants = None
        if const:
            raw = np.array([constant(j, True) for j in const], dtype=float)
            clamped = np.array([constant(j, False) for j in const], dtype=float)
            self._constants = (
                np.array([self.variable_index[j.name] for j in const], dtype=np.intp),
                raw, clamped,
                tuple(j.name for j, r, c in zip(const, raw, clamped) if r != c),
            )

    def resolve(self, q: np.ndarray, ignore_limits: bool = False
                ) -> tuple[np.ndarray, tuple[str, ...]]:
        """Effective configuration: mimic rules applied and bounded joints clamped.

        Returns a new array (``q`` is not modified) and the names of the joints
        whose value was clamped (for a batch: clamped in any configuration),
        in topological order, so a caller can warn once per joint.
        """
        q = np.array(self._as_q(q), dtype=float)   # private copy
        hit = self._resolve_inplace(q, ignore_limits)
        return q, hit

    def _resolve_inplace(self, q: np.ndarray, ignore_limits: bool) -> tuple[str, ...]:
        """Apply limits and mimic rules to ``q`` (n_vars,) or (N, n_vars) in place.

        The common case -- nothing out of bounds -- is detected by comparing the
        raw bytes of the values before and after clipping (one cheap call
        instead of an elementwise compare plus a reduction); only when they
        differ are the clamped joints worked out.
        """
        batch = q.ndim == 2
        pre = (slice(None),) if batch else ()
        hit: list[str] = []
        index, lower, upper, names = self._clamp
        if not ignore_limits and names:
            raw = q[pre + (index,)]
            clipped = np.minimum(np.maximum(raw, lower), upper)
            if raw.tobytes() != clipped.tobytes():
                q[pre + (index,)] = clipped
                _collect_clamped(raw, clipped, lower, upper, names, hit)
        for target, source, multiplier, offset, lower, upper, names in self._mimic_levels:
            raw = q[pre + (source,)] * multiplier
            raw += offset
            if ignore_limits:
                q[pre + (target,)] = raw
                continue
            clipped = np.minimum(np.maximum(raw, lower), upper)
            q[pre + (target,)] = clipped
            if raw.tobytes() != clipped.tobytes():
                _collect_clamped(raw, clipped, lower, upper, names, hit)
        if self._constants is not None:
            index, raw, clipped, names = self._constants
            q[pre + (index,)] = raw if ignore_limits else clipped
            if not ignore_limits:
                hit.extend(names)
        if len(hit) > 1:
            hit.sort(key=self._movable_index.__getitem__)
        return tuple(hit)

    # ------------------------------------------------------- local (per joint) data

    def _init_local(self) -> None:
        """Per movable joint: origin as matrix / quaternion, axis, type masks."""
        mov = self._movable
        n = len(mov)
        self._origin_t = np.array([j.origin.xyz for j in mov], dtype=float).reshape(n, 3)
        rpy = np.array([j.origin.rpy for j in mov], dtype=float).reshape(n, 3)
        self._origin_r = rpy_to_matrix(rpy)
        self._origin_q = rpy_to_quaternion(rpy)
        self._axis = np.array([j.axis for j in mov], dtype=float).reshape(n, 3)
        self._is_rev = np.array([j.type in _REVOLUTE_LIKE for j in mov], dtype=float)
        self._is_pri = np.array([j.type is JointType.PRISMATIC for j in mov], dtype=float)
        self._is_planar = np.array([j.type is JointType.PLANAR for j in mov], dtype=bool)
        self._is_floating = np.array([j.type is JointType.FLOATING for j in mov], dtype=bool)

    # ----------------------------------------------------- parent-relative (TF)

    def joint_index(self, names: Sequence[str]) -> np.ndarray:
        """Indices (into :attr:`movable_joint_names`) of the named movable joints, in order.

        Pass the result to :meth:`moving_transforms` as ``joints``: an index
        array skips the name look-up and hits a cache of everything else the
        subset needs, which is what a node publishing the same subset many
        times a second wants. KeyError names unknown / non-movable joints.
        """
        if isinstance(names, str):
            names = (names,)
        index = self._movable_index
        missing = [n for n in names if n not in index]
        if missing:
            fixed = [n for n in missing if n in self.model.joint_map]
            unknown = [n for n in missing if n not in self.model.joint_map]
            parts = []
            if unknown:
                parts.append('unknown joint(s) ' + ', '.join(repr(n) for n in unknown))
            if fixed:
                parts.append('fixed joint(s) ' + ', '.join(repr(n) for n in fixed))
            raise KeyError(f"robot '{self.model.name}': " + '; '.join(parts))
        return np.array([index[n] for n in names], dtype=np.intp)

    def selection(self, joints) -> _Selection:
        """The precomputed constants :meth:`moving_transforms` uses for ``joints`` (cached;
        read-only). For callers fusing that computation into their own (the node's fast path).
        """
        return self._selection(joints)

    def _selection(self, joints) -> _Selection:
        if joints is None:
            return self._all
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
            if len(self._selections) >= 256:   # bounded: callers normally reuse a few subsets
                self._selections.clear()
            self._selections[key] = sel
        return sel

    def _make_selection(self, idx: np.ndarray) -> _Selection:
        """Precompute the constants of :meth:`moving_transforms` for the joints ``idx``.

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

        prismatic = rows_of(self._is_pri.astype(bool))
        if prismatic is not None:
            prismatic = (prismatic, var[prismatic],
                         np.einsum('nij,nj->ni', r0[prismatic], axis[prismatic]))
        planar = rows_of(self._is_planar)
        if planar is not None:
            planar = (planar, var[planar], r0[planar], q0[planar])
        floating = rows_of(self._is_floating)
        if floating is not None:
            floating = (floating, var[floating], r0[floating], q0[floating])
        return _Selection(
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

    def moving_transforms(self, q_effective: np.ndarray,
                          joints: Sequence[str] | np.ndarray | None = None) -> JointTransforms:
        """Parent-relative transforms of the movable joints for a RESOLVED configuration.

        ``joints``: None for all movable joints (topological order), a sequence of
        names, or an index array from :meth:`joint_index` (fastest). Mimic rules
        and limits are NOT applied here -- call :meth:`resolve` first.

        When no joint of the subset translates (no prismatic, planar or floating
        joint), ``translations`` is the precomputed, read-only array of joint
        origins (broadcast over a batch) -- treat the result as read-only.
        """
        sel = self._selection(joints)
        q = self._as_q(q_effective)
        qs = q.take(sel.var_index, axis=-1)
        rotations = (np.exp(qs * sel.half_gain)[..., None] * sel.rotation_basis).real
        translations = sel.translation
        if q.ndim == 2:
            translations = np.broadcast_to(translations, qs.shape + (3,))
        if sel.prismatic is not None or sel.planar is not None or sel.floating is not None:
            translations = translations.copy()
            self._translating_rows(q, sel, translations, rotations)
        return JointTransforms(sel.joint_names, sel.parents, sel.children,
                               translations, rotations)

    @staticmethod
    def _translating_rows(q: np.ndarray, sel: _Selection, translations: np.ndarray,
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

    def _make_fixed_transforms(self) -> JointTransforms:
        fixed = [j for j in self.model.joints if not j.is_movable]
        n = len(fixed)
        trans = np.array([j.origin.xyz for j in fixed], dtype=float).reshape(n, 3)
        rot = rpy_to_quaternion(np.array([j.origin.rpy for j in fixed], dtype=float).reshape(n, 3))
        trans.setflags(write=False)
        rot.setflags(write=False)
        return JointTransforms(tuple(j.name for j in fixed), tuple(j.parent for j in fixed),
                               tuple(j.child for j in fixed), trans, rot)

    def fixed_transforms(self) -> JointTransforms:
        """Transforms of every fixed joint (topological order); constant, computed once."""
        return self._fixed

    # ------------------------------------------------------------ root-relative

    # Batches at least this large compose level by level (fewest matrix products);
    # smaller ones use pointer jumping (fewest numpy calls). See _init_link_poses.
    LEVEL_SCHEDULE_MIN_BATCH = 8
    # Batches are processed this many configurations at a time (see link_poses_resolved).
    BATCH_CHUNK = 128

    def _init_link_poses(self) -> None:
        """Lay out the slots, per-slot bases and composition schedules of link_poses.

        Every link gets a *slot* in a ``(slots, batch, 4, 4)`` work array, in
        this order (each group contiguous)::

            root | fixed links whose chain to the root has no movable joint (constant)
                 | inner links: children of movable joints that have movable
                   joints below them, sorted by movable depth
                 | outer links: all other links

        Fixed joints are folded away: a link's *anchor* is the child of the
        nearest movable joint at or above it, and its constant offset C in the
        anchor is precomputed. Each slot first receives its transform
        *relative to the anchor of its joint's parent*: ``F @ M(q) @ C`` where
        F is the movable joint's origin folded with the fixed joints above it,
        M the joint motion. For 1-DOF joints that is linear in two per-joint
        coefficients (Rodrigues), ``F C + a1 F K C + a2 F K^2 C`` with
        ``(a1, a2) = (sin q, 1 - cos q)`` for revolute-like joints, ``K = [axis]x``,
        and ``a1 = q`` with the translation ``R_F axis`` for prismatic ones; so
        all relative transforms come from precomputed ``(rows, 16)`` bases in
        three elementwise operations (one configuration) or one small GEMM per
        row (a batch).

        A *step* ``(start, stop, ancestors)`` then does
        ``pose[start:stop] = pose[ancestors] @ pose[start:stop]`` -- a contiguous
        target (a view), no scatter. Inner links need the tree composition, for
        which two schedules are precomputed:

        * pointer jumping -- step k joins every inner slot deeper than ``2**k``
          with the product ending at its ``2**k``-th ancestor: ``ceil(log2 depth)``
          steps but ~2-3x more 4x4 products. Best for one configuration, where
          each numpy call costs far more than its arithmetic;
        * depth levels -- one step per depth, one product per joint; best for
          big batches, where the arithmetic dominates.

        Outer links hang off an inner link (or the root) whose pose is final by
        then, so they all take ONE last step.
        """
        model = self.model
        root = model.root
        anchor = {root: root}            # link -> child of the nearest movable joint above
        offset = {root: np.eye(4)}       # link -> constant pose in its anchor
        joint_origin = {}
        for j in model.joints:
            joint_origin[j.name] = transform(j.origin.xyz, rpy_to_matrix(j.origin.rpy))
            if j.is_movable:
                anchor[j.child] = j.child
                offset[j.child] = np.eye(4)
            else:
                anchor[j.child] = anchor[j.parent]
                offset[j.child] = offset[j.parent] @ joint_origin[j.name]
        depth = {root: 0}
        for j in model.joints:   # topological: parents first
            if j.is_movable:
                depth[j.child] = depth[anchor[j.parent]] + 1
        parent_joint = model.parent_joint
        # The movable joint that moves each non-constant link.
        mover = {link: parent_joint[a] for link, a in anchor.items() if a != root}
        has_movable_below = {anchor[j.parent] for j in self._movable}
        constant = [link for link in model.link_names if anchor[link] == root and link != root]
        inner = sorted((j.child for j in self._movable if j.child in has_movable_below),
                       key=depth.__getitem__)                           # stable
        inner_set = set(inner)
        outer = [link for link in model.link_names
                 if anchor[link] != root and link not in inner_set]
        links = [root] + constant + inner + outer
        slot = {link: s for s, link in enumerate(links)}
        self._n_slots = len(links)
        start = 1 + len(constant)
        self._fk_moving = start          # slots [start:] get a relative transform per call

        template = np.zeros((start, 4, 4))         # root and constant links
        template[0] = np.eye(4)
        for link in constant:
            template[slot[link]] = offset[link]
        self._fk_template = template

        moving = links[start:]
        n = len(moving)
        basis = np.zeros((3, n, 1, 4, 4))          # (F C, F K C, F K^2 C) per slot
        for k, link in enumerate(moving):
            j = mover[link]
            f = offset[j.parent] @ joint_origin[j.name]
            c = offset[link]
            basis[0, k, 0] = f @ c
            if j.type in _REVOLUTE_LIKE:
                kk = np.zeros((4, 4))
                kk[:3, :3] = skew(j.axis)
                basis[1, k, 0] = f @ kk @ c
                basis[2, k, 0] = f @ kk @ kk @ c
            elif j.type is JointType.PRISMATIC:
                basis[1, k, 0, :3, 3] = f[:3, :3] @ np.asarray(j.axis)
        f, b1, b2 = basis.reshape(3, n, 16)
        # F + a1 B1 + (1 - cos q) B2 == (F + B2) + a1 B1 + cos q (-B2): saves an operation.
        f, b2 = f + b2, -b2
        self._fk_var = np.array(
            [self.variable_index[mover[link].variable_names[0]] for link in moving],
            dtype=np.intp)
        rev = np.array([mover[link].type in _REVOLUTE_LIKE for link in moving], dtype=float)
        pri = np.array([mover[link].type is JointType.PRISMATIC for link in moving], dtype=float)
        pri = pri if pri.any() else None
        self._fk_basis = (f, b1, b2, rev, pri)      # (rows, 16) x3, (rows,), (rows,) or None
        self._fk_basis_stack = np.stack([f, b1, b2], axis=1)          # (rows, 3, 16)

        def multi_dof(jtype):
            """Slots moved by planar / floating joints: relative = F @ M(q) @ C."""
            rows = [k for k, link in enumerate(moving) if mover[link].type is jtype]
            if not rows:
                return None
            f = np.array([offset[mover[moving[k]].parent] @ joint_origin[mover[moving[k]].name]
                          for k in rows])
            c = np.array([offset[moving[k]] for k in rows])
            rows = np.array(rows, dtype=np.intp)
            return rows + start, self._fk_var[rows], f[:, None], c[:, None]

        self._fk_planar = multi_dof(JointType.PLANAR)
        self._fk_floating = multi_dof(JointType.FLOATING)

        # ancestor[s]: the slot whose final pose slot s is composed onto (the anchor
        # of the parent link of the joint that moves s); the root for constant slots.
        ancestor = np.zeros(len(links), dtype=np.intp)
        for link in moving:
            ancestor[slot[link]] = slot[anchor[mover[link].parent]]
        stop = start + len(inner)
        inner_depth = np.array([depth[link] for link in inner], dtype=np.intp)
        max_depth = int(inner_depth.max()) if inner else 0
        jumps, levels = [], []
        jump = ancestor.copy()            # 2**k-th inner ancestor of every slot (root stays 0)
        span = 1
        while span < max_depth:
            first = start + int(np.searchsorted(inner_depth, span, side='right'))
            jumps.append((first, stop, jump[first:stop].copy()))
            jump = jump[jump]
            span *= 2
        for d in range(2, max_depth + 1):   # depth-1 slots hang off the root: already final
            lo = start + int(np.searchsorted(inner_depth, d, side='left'))
            hi = start + int(np.searchsorted(inner_depth, d, side='right'))
            levels.append((lo, hi, ancestor[lo:hi].copy()))
        tail = [(stop, len(links), ancestor[stop:].copy())] if outer else []
        self._fk_jumps = tuple(jumps + tail)
        self._fk_levels = tuple(levels + tail)
        self._fk_output = np.array([slot[name] for name in self.link_names], dtype=np.intp)

    def link_poses_resolved(self, q_effective: np.ndarray) -> np.ndarray:
        """Root-relative 4x4 pose of every link for an ALREADY-RESOLVED configuration.

        Shape ``(n_links, 4, 4)`` ordered as ``model.link_names``, or
        ``(N, n_links, 4, 4)`` for a batch ``(N, n_vars)``.
        """
        q = self._as_q(q_effective)
        if q.ndim == 2 and q.shape[0] > self.BATCH_CHUNK:
            # Big batches go in chunks: the work arrays of a chunk stay in cache and
            # are recycled by the allocator, instead of a fresh multi-megabyte array
            # (page faults included) per pass -- about twice as fast per configuration.
            out = np.empty((q.shape[0], len(self.link_names), 4, 4))
            for first in range(0, q.shape[0], self.BATCH_CHUNK):
                chunk = q[first:first + self.BATCH_CHUNK]
                out[first:first + self.BATCH_CHUNK] = self._link_poses(chunk)
            return out
        return self._link_poses(q)

    def _link_poses(self, q: np.ndarray) -> np.ndarray:
        n_slots, start = self._n_slots, self._fk_moving
        # Work array layout: (slot, 4, 4) for one configuration, (slot, batch, 4, 4)
        # for a batch, so a slot range is a view and gathering slots is indexing
        # the first axis either way. (One configuration skips the batch axis:
        # numpy iterates fewer dimensions, which is measurably cheaper.)
        f, b1, b2, rev, pri = self._fk_basis
        if q.ndim == 1:
            batch = 0
            buf = np.empty((n_slots, 4, 4))
            buf[:start] = self._fk_template
            qs = q[self._fk_var]                                     # (rows,)
        else:
            batch = q.shape[0]
            buf = np.empty((n_slots, batch, 4, 4))
            buf[:start] = self._fk_template[:, None]
            qs = q[:, self._fk_var].T                                # (rows, B)
            rev = rev[:, None]
            pri = None if pri is None else pri[:, None]
        if start < n_slots:
            theta = qs * rev
            a1 = np.sin(theta)
            if pri is not None:
                a1 += qs * pri
            relative = buf[start:].reshape(f.shape[:1] + qs.shape[1:] + (16,))   # a view
            if batch:
                # (rows, B, 3) @ (rows, 3, 16): one small GEMM per row -- elementwise
                # broadcasting would run a 16-long inner loop per (row, config).
                coeff = np.empty(qs.shape + (3,))
                coeff[..., 0] = 1.0
                coeff[..., 1] = a1
                coeff[..., 2] = np.cos(theta)
                np.matmul(coeff, self._fk_basis_stack, out=relative)
            else:
                np.multiply(a1[:, None], b1, out=relative)
                relative += np.cos(theta)[:, None] * b2
                relative += f
            if self._fk_planar is not None or self._fk_floating is not None:
                self._multi_dof_relative(q if batch else q[None],
                                         buf if batch else buf[:, None])
        schedule = self._fk_levels if batch >= self.LEVEL_SCHEDULE_MIN_BATCH else self._fk_jumps
        # (ndarray.take rather than np.take or fancy indexing: several times less
        # call overhead, which is most of the cost of a step.)
        for first, last, ancestor in schedule:
            target = buf[first:last]
            target[...] = np.matmul(buf.take(ancestor, axis=0), target)
        if batch:
            return buf.transpose(1, 0, 2, 3)[:, self._fk_output]
        return buf.take(self._fk_output, axis=0)

    def _multi_dof_relative(self, q: np.ndarray, buf: np.ndarray) -> None:
        """Relative transforms moved by planar / floating joints (rare: a few vector ops)."""
        if self._fk_planar is not None:
            slots, var, f, c = self._fk_planar
            x, y, theta = q[:, var].T, q[:, var + 1].T, q[:, var + 2].T      # (k, B)
            motion = np.zeros(x.shape + (4, 4))
            cos, sin = np.cos(theta), np.sin(theta)
            motion[..., 0, 0], motion[..., 0, 1], motion[..., 0, 3] = cos, -sin, x
            motion[..., 1, 0], motion[..., 1, 1], motion[..., 1, 3] = sin, cos, y
            motion[..., 2, 2] = motion[..., 3, 3] = 1.0
            buf[slots] = f @ motion @ c
        if self._fk_floating is not None:
            slots, var, f, c = self._fk_floating
            trans = np.stack([q[:, var + k].T for k in range(3)], axis=-1)       # (k, B, 3)
            quat = normalize_quaternion(np.stack([q[:, var + k].T for k in range(3, 7)],
                                                 axis=-1))
            buf[slots] = f @ transform(trans, quaternion_to_matrix(quat)) @ c

    def link_poses(self, q: np.ndarray, ignore_limits: bool = False) -> np.ndarray:
        """Root-relative 4x4 pose of every link (mimic rules and limits applied).

        ``q`` is a full variable vector ``(n_vars,)`` -> ``(n_links, 4, 4)``, or a
        batch ``(N, n_vars)`` -> ``(N, n_links, 4, 4)``; links ordered as
        ``model.link_names``.
        """
        q_effective, _ = self.resolve(q, ignore_limits)
        return self.link_poses_resolved(q_effective)

    def link_pose(self, q: np.ndarray, link: str, ignore_limits: bool = False) -> np.ndarray:
        """Root-relative 4x4 pose of one link (``(N, 4, 4)`` for a batch)."""
        try:
            i = self._link_index[link]
        except KeyError:
            raise KeyError(f"no link '{link}' in robot '{self.model.name}'") from None
        return self.link_poses(q, ignore_limits)[..., i, :, :]


def _collect_clamped(raw: np.ndarray, clipped: np.ndarray, lower: np.ndarray,
                     upper: np.ndarray, names: tuple[str, ...], hit: list[str]) -> None:
    """Append the names of the values outside their bounds (in any batch row; NaN is not)."""
    if raw.ndim == 1:                # the node's hot path: one compare, then Python on the few
        for i in (raw != clipped).nonzero()[0].tolist():
            if raw[i] == raw[i]:
                hit.append(names[i])
        return
    outside = ((raw < lower) | (raw > upper)).any(axis=0)
    hit.extend(names[i] for i in outside.nonzero()[0].tolist())
