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
Root-relative composition: the pose of every link in the root frame, for FK and batches.

:class:`LinkPoseComposer` turns a configuration (or a batch of them) into all
link poses with a fixed, short sequence of batched numpy operations, no Python
loop per joint. docs/kinematics.md explains the layout and its two schedules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..model import Joint, JointType, Model
from ..transforms import normalize_quaternion, quaternion_to_matrix, rpy_to_matrix, skew, transform

__all__ = ['LinkPoseComposer']

_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)


class LinkPoseComposer:
    """Root-relative 4x4 poses of every link of one model (immutable, thread-safe)."""

    # Batches at least this large compose level by level (fewest matrix products);
    # smaller ones use pointer jumping (fewest numpy calls). See docs/kinematics.md.
    LEVEL_SCHEDULE_MIN_BATCH = 8
    # Batches are processed this many configurations at a time (see poses).
    BATCH_CHUNK = 128

    def __init__(self, model: Model, movable: Sequence[Joint],
                 variable_index: Mapping[str, int]) -> None:
        """
        Lay out the slots, per-slot bases and composition schedules (docs/kinematics.md).

        ``movable``: the model's movable joints in topological order.
        """
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
        has_movable_below = {anchor[j.parent] for j in movable}
        constant = [link for link in model.link_names if anchor[link] == root and link != root]
        inner = sorted((j.child for j in movable if j.child in has_movable_below),
                       key=depth.__getitem__)                           # stable
        inner_set = set(inner)
        outer = [link for link in model.link_names
                 if anchor[link] != root and link not in inner_set]
        links = [root] + constant + inner + outer
        slot = {link: s for s, link in enumerate(links)}
        self._n_slots = len(links)
        start = 1 + len(constant)
        self._first_moving = start          # slots [start:] get a relative transform per call

        template = np.zeros((start, 4, 4))         # root and constant links
        template[0] = np.eye(4)
        for link in constant:
            template[slot[link]] = offset[link]
        self._template = template

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
        self._var = np.array(
            [variable_index[mover[link].variable_names[0]] for link in moving],
            dtype=np.intp)
        rev = np.array([mover[link].type in _REVOLUTE_LIKE for link in moving], dtype=float)
        pri = np.array([mover[link].type is JointType.PRISMATIC for link in moving], dtype=float)
        pri = pri if pri.any() else None
        self._basis = (f, b1, b2, rev, pri)      # (rows, 16) x3, (rows,), (rows,) or None
        self._basis_stack = np.stack([f, b1, b2], axis=1)          # (rows, 3, 16)

        def multi_dof(jtype):
            """Slots moved by planar / floating joints: relative = F @ M(q) @ C."""
            rows = [k for k, link in enumerate(moving) if mover[link].type is jtype]
            if not rows:
                return None
            f = np.array([offset[mover[moving[k]].parent] @ joint_origin[mover[moving[k]].name]
                          for k in rows])
            c = np.array([offset[moving[k]] for k in rows])
            rows = np.array(rows, dtype=np.intp)
            return rows + start, self._var[rows], f[:, None], c[:, None]

        self._planar = multi_dof(JointType.PLANAR)
        self._floating = multi_dof(JointType.FLOATING)

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
        self._jumps = tuple(jumps + tail)
        self._levels = tuple(levels + tail)
        self._output = np.array([slot[name] for name in model.link_names], dtype=np.intp)

    def poses(self, q: np.ndarray) -> np.ndarray:
        """
        Root-relative 4x4 pose of every link for an ALREADY-RESOLVED configuration.

        Shape ``(n_links, 4, 4)`` ordered as ``model.link_names``, or
        ``(N, n_links, 4, 4)`` for a batch ``(N, n_vars)``.
        """
        if q.ndim == 2 and q.shape[0] > self.BATCH_CHUNK:
            # Big batches go in chunks: the work arrays of a chunk stay in cache and
            # are recycled by the allocator, instead of a fresh multi-megabyte array
            # (page faults included) per pass -- about twice as fast per configuration.
            out = np.empty((q.shape[0], len(self._output), 4, 4))
            for first in range(0, q.shape[0], self.BATCH_CHUNK):
                chunk = q[first:first + self.BATCH_CHUNK]
                out[first:first + self.BATCH_CHUNK] = self._link_poses(chunk)
            return out
        return self._link_poses(q)

    def _link_poses(self, q: np.ndarray) -> np.ndarray:
        n_slots, start = self._n_slots, self._first_moving
        # Work array layout: (slot, 4, 4) for one configuration, (slot, batch, 4, 4)
        # for a batch, so a slot range is a view and gathering slots is indexing
        # the first axis either way. (One configuration skips the batch axis:
        # numpy iterates fewer dimensions, which is measurably cheaper.)
        f, b1, b2, rev, pri = self._basis
        if q.ndim == 1:
            batch = 0
            buf = np.empty((n_slots, 4, 4))
            buf[:start] = self._template
            qs = q[self._var]                                     # (rows,)
        else:
            batch = q.shape[0]
            buf = np.empty((n_slots, batch, 4, 4))
            buf[:start] = self._template[:, None]
            qs = q[:, self._var].T                                # (rows, B)
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
                np.matmul(coeff, self._basis_stack, out=relative)
            else:
                np.multiply(a1[:, None], b1, out=relative)
                relative += np.cos(theta)[:, None] * b2
                relative += f
            if self._planar is not None or self._floating is not None:
                self._multi_dof_relative(q if batch else q[None],
                                         buf if batch else buf[:, None])
        schedule = self._levels if batch >= self.LEVEL_SCHEDULE_MIN_BATCH else self._jumps
        # (ndarray.take rather than np.take or fancy indexing: several times less
        # call overhead, which is most of the cost of a step.)
        for first, last, ancestor in schedule:
            target = buf[first:last]
            target[...] = np.matmul(buf.take(ancestor, axis=0), target)
        if batch:
            return buf.transpose(1, 0, 2, 3)[:, self._output]
        return buf.take(self._output, axis=0)

    def _multi_dof_relative(self, q: np.ndarray, buf: np.ndarray) -> None:
        """Relative transforms moved by planar / floating joints (rare: a few vector ops)."""
        if self._planar is not None:
            slots, var, f, c = self._planar
            x, y, theta = q[:, var].T, q[:, var + 1].T, q[:, var + 2].T      # (k, B)
            motion = np.zeros(x.shape + (4, 4))
            cos, sin = np.cos(theta), np.sin(theta)
            motion[..., 0, 0], motion[..., 0, 1], motion[..., 0, 3] = cos, -sin, x
            motion[..., 1, 0], motion[..., 1, 1], motion[..., 1, 3] = sin, cos, y
            motion[..., 2, 2] = motion[..., 3, 3] = 1.0
            buf[slots] = f @ motion @ c
        if self._floating is not None:
            slots, var, f, c = self._floating
            trans = np.stack([q[:, var + k].T for k in range(3)], axis=-1)       # (k, B, 3)
            quat = normalize_quaternion(np.stack([q[:, var + k].T for k in range(3, 7)],
                                                 axis=-1))
            buf[slots] = f @ transform(trans, quaternion_to_matrix(quat)) @ c
