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
The :class:`Kinematics` façade: one object per model, the public API over the three parts.

Read this first: ``Kinematics(model)`` precomputes everything once (after
pinocchio's model/data split) and then answers, for full variable vectors
ordered as :attr:`Kinematics.variable_names`, optionally with a leading batch
axis ``(N, n_vars)``:

* :meth:`~Kinematics.resolve` -- mimic rules and limits
  (:mod:`.state`);
* :meth:`~Kinematics.moving_transforms` / :meth:`~Kinematics.fixed_transforms`
  -- parent-relative transforms for TF (:mod:`.joint_transforms`);
* :meth:`~Kinematics.link_poses` -- root-relative poses (:mod:`.link_poses`).

It owns only the variable bookkeeping (names, indices, defaults, shape checks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

from .joint_transforms import JointFrames, JointTransforms, Selection
from .link_poses import LinkPoseComposer
from .state import StateResolver
from ..model import Joint, Model

__all__ = ['Kinematics']


class Kinematics:
    """
    Precomputed forward kinematics of one :class:`Model` (immutable, thread-safe).

    ``q`` arguments are full variable vectors ordered as :attr:`variable_names`
    (build them with :meth:`positions`), optionally with a leading batch axis.
    """

    def __init__(self, model: Model) -> None:
        self.model = model
        self.variable_names: tuple[str, ...] = tuple(model.variable_names)
        self.variable_index: Mapping[str, int] = MappingProxyType(
            {name: i for i, name in enumerate(self.variable_names)})
        self.n_variables = len(self.variable_names)
        movable: tuple[Joint, ...] = tuple(j for j in model.joints if j.is_movable)
        self.movable_joint_names: tuple[str, ...] = tuple(j.name for j in movable)
        self.link_names: tuple[str, ...] = tuple(model.link_names)
        self._link_index = {name: i for i, name in enumerate(self.link_names)}

        defaults = model.default_positions()
        self._defaults = np.array([defaults[n] for n in self.variable_names], dtype=float)
        self._defaults.setflags(write=False)

        self._state = StateResolver(model, movable, self.variable_index)
        self._frames = JointFrames(model, movable, self.variable_index)
        self._composer = LinkPoseComposer(model, movable, self.variable_index)

    # ------------------------------------------------------------------ vectors

    def default_positions(self) -> np.ndarray:
        """Return the default variable vector (0, or the bounds' mid-point when 0 is outside)."""
        return self._defaults.copy()

    def positions(self, values: Mapping[str, float], base: np.ndarray | None = None) -> np.ndarray:
        """
        Return a full variable vector: ``base`` (default: the defaults) overwritten by ``values``.

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

    def resolve(self, q: np.ndarray, ignore_limits: bool = False
                ) -> tuple[np.ndarray, tuple[str, ...]]:
        """
        Effective configuration: mimic rules applied and bounded joints clamped.

        Returns a new array (``q`` is not modified) and the names of the joints
        whose value was clamped (for a batch: clamped in any configuration),
        in topological order, so a caller can warn once per joint.
        """
        q = np.array(self._as_q(q), dtype=float)   # private copy
        return q, self._state.apply(q, ignore_limits)

    # ----------------------------------------------------- parent-relative (TF)

    def joint_index(self, names: Sequence[str]) -> np.ndarray:
        """
        Indicate (into :attr:`movable_joint_names`) of the named movable joints, in order.

        Pass the result to :meth:`moving_transforms` as ``joints``: an index
        array skips the name look-up and hits a cache of everything else the
        subset needs, which is what a node publishing the same subset many
        times a second wants. KeyError names unknown / non-movable joints.
        """
        return self._frames.joint_index(names)

    def selection(self, joints) -> Selection:
        """
        Return the precomputed constants :meth:`moving_transforms` uses for ``joints``.

        Cached and read-only. For callers fusing that computation into their own (the node's
        fast path).
        """
        return self._frames.selection(joints)

    def moving_transforms(self, q_effective: np.ndarray,
                          joints: Sequence[str] | np.ndarray | None = None) -> JointTransforms:
        """
        Parent-relative transforms of the movable joints for a RESOLVED configuration.

        ``joints``: None for all movable joints (topological order), a sequence of
        names, or an index array from :meth:`joint_index` (fastest). Mimic rules
        and limits are NOT applied here -- call :meth:`resolve` first.

        When no joint of the subset translates (no prismatic, planar or floating
        joint), ``translations`` is the precomputed, read-only array of joint
        origins (broadcast over a batch) -- treat the result as read-only.
        """
        return self._frames.transforms(self._as_q(q_effective), joints)

    def fixed_transforms(self) -> JointTransforms:
        """Transform of every fixed joint (topological order); constant, computed once."""
        return self._frames.fixed

    # ------------------------------------------------------------ root-relative

    def link_poses_resolved(self, q_effective: np.ndarray) -> np.ndarray:
        """
        Root-relative 4x4 pose of every link for an ALREADY-RESOLVED configuration.

        Shape ``(n_links, 4, 4)`` ordered as ``model.link_names``, or
        ``(N, n_links, 4, 4)`` for a batch ``(N, n_vars)``.
        """
        return self._composer.poses(self._as_q(q_effective))

    def link_poses(self, q: np.ndarray, ignore_limits: bool = False) -> np.ndarray:
        """
        Root-relative 4x4 pose of every link (mimic rules and limits applied).

        ``q`` is a full variable vector ``(n_vars,)`` -> ``(n_links, 4, 4)``, or a
        batch ``(N, n_vars)`` -> ``(N, n_links, 4, 4)``; links ordered as
        ``model.link_names``.
        """
        q_effective, _ = self.resolve(q, ignore_limits)
        return self._composer.poses(q_effective)

    def link_pose(self, q: np.ndarray, link: str, ignore_limits: bool = False) -> np.ndarray:
        """Root-relative 4x4 pose of one link (``(N, 4, 4)`` for a batch)."""
        try:
            i = self._link_index[link]
        except KeyError:
            raise KeyError(f"no link '{link}' in robot '{self.model.name}'") from None
        return self.link_poses(q, ignore_limits)[..., i, :, :]
