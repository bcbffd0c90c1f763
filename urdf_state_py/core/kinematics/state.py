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
State resolution: a raw variable vector -> the effective one (mimic rules, limits).

Read this first: :class:`StateResolver` turns the values a JointState gives
into the values the kinematics uses, in place, with index arrays precomputed
per model -- no Python loop over joints per call.

* Independent revolute and prismatic joints with both bounds are clamped into
  ``[lower, upper]`` unless ``ignore_limits``; continuous, planar and floating
  joints never are.
* Mimic joints: ``value = multiplier * master + offset`` using the master's
  *effective* value (after its own mimic rule and clamping), then the mimic
  joint's own limits. Mimic joints are grouped into "levels" by the length of
  their mimic chain, so each level is one gather-multiply-add-clip-scatter,
  whatever the declaration order.
* A mimic chain that ends at a fixed joint uses 0 for the fixed joint (it
  never moves): those values are constants, computed once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import math

import numpy as np

from ..errors import DescriptionError
from ..model import Joint, JointType, Model

__all__ = ['StateResolver']

_MULTI_DOF = (JointType.PLANAR, JointType.FLOATING)


class StateResolver:
    """Applies the limits and mimic rules of one model to variable vectors (immutable)."""

    def __init__(self, model: Model, movable: Sequence[Joint],
                 variable_index: Mapping[str, int]) -> None:
        """``movable``: the model's movable joints in topological order."""
        self._movable_index = {j.name: i for i, j in enumerate(movable)}
        joint_map = model.joint_map
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

        for joint in movable:
            level_of(joint)

        # Level 0: independent bounded joints are clamped in place.
        free = [j for j in movable if level[j.name] == 0 and j.is_bounded]
        self._clamp = (
            np.array([variable_index[j.name] for j in free], dtype=np.intp),
            np.array([j.limits.lower for j in free], dtype=float),
            np.array([j.limits.upper for j in free], dtype=float),
            tuple(j.name for j in free),
        )
        # Levels 1..: value = multiplier * master + offset, then the joint's own bounds.
        self._mimic_levels = []
        top = max(list(level.values()) + [0])
        for k in range(1, top + 1):
            group = [j for j in movable if level[j.name] == k]
            lows, highs = zip(*(bounds(j) for j in group))
            self._mimic_levels.append((
                np.array([variable_index[j.name] for j in group], dtype=np.intp),
                np.array([variable_index[j.mimic.joint] for j in group], dtype=np.intp),
                np.array([j.mimic.multiplier for j in group], dtype=float),
                np.array([j.mimic.offset for j in group], dtype=float),
                np.array(lows, dtype=float),
                np.array(highs, dtype=float),
                tuple(j.name for j in group),
            ))
        # Constant mimic joints (chain ends at a fixed joint).
        const = [j for j in movable if level[j.name] == -1]
        self._constants = None
        if const:
            raw = np.array([constant(j, True) for j in const], dtype=float)
            clamped = np.array([constant(j, False) for j in const], dtype=float)
            self._constants = (
                np.array([variable_index[j.name] for j in const], dtype=np.intp),
                raw, clamped,
                tuple(j.name for j, r, c in zip(const, raw, clamped) if r != c),
            )

    def apply(self, q: np.ndarray, ignore_limits: bool) -> tuple[str, ...]:
        """
        Apply limits and mimic rules to ``q`` (n_vars,) or (N, n_vars) in place.

        Returns the names of the clamped joints (for a batch: clamped in any
        configuration) in topological order. The common case -- nothing out of
        bounds -- is detected by comparing the raw bytes of the values before
        and after clipping (one cheap call instead of an elementwise compare
        plus a reduction); only when they differ are the clamped joints worked out.
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
