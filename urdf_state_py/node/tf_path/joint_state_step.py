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
One JointState -> /tf: what the node publishes for a message, computed without ROS.

This is the specification of the path: the node's Python path reports and
publishes what :func:`joint_state_step` returns, and the native loop's plans
must compute the same bytes (checked at start-up by :mod:`.native` and in the
tests). docs/design.md walks a JointState through it in both modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TYPE_CHECKING

import numpy as np

from .joint_state_merger import JointStateMerger, Update

if TYPE_CHECKING:   # types only: the step imports no ROS
    from urdf_state_py.core.kinematics import Kinematics

    from .native_loop import NativePlans
    from .tf_publishing import MovingTransforms

__all__ = ['ModelState', 'Step', 'joint_state_step', 'tf_step']

_NS = 1_000_000_000


class ModelState(Protocol):
    """The per-model state a step reads and changes (the node's ``Loaded`` is one)."""

    merger: JointStateMerger
    kinematics: Kinematics
    moving: MovingTransforms
    plans: NativePlans


@dataclass(slots=True)
class Step:
    """
    What one JointState (or the default positions) publishes, and what to report.

    ``update``: what the merge did (warnings, a rejection, unknown names, the rate
    limit's decision); ``payload``: the /tf message, serialised where possible (None:
    nothing to publish); ``q``: the configuration it shows (limits and mimic joints
    applied); ``clamped``: the joints beyond their limits; ``newly_clamped``: those
    of them clamped for the first time (warned about once).
    """

    update: Update | None
    payload: bytes | Any | None = None
    q: np.ndarray | None = None
    clamped: Sequence[str] = ()
    newly_clamped: Sequence[str] = ()


def joint_state_step(state: ModelState, names: Sequence[str], positions: Sequence[float],
                     sec: int, nanosec: int, now_ns: int, *,
                     publish_default_positions: bool = False,
                     ignore_limits: bool = False) -> Step:
    """
    Merge one JointState's fields into ``state`` and return what goes on /tf.

    ``sec``/``nanosec``: the message's stamp as sent; ``now_ns``: the node clock.
    The native loop's next plan is the one of ``names`` (``plans.last_names``).
    """
    state.plans.last_names = names
    update = state.merger.update(names, positions, sec * _NS + nanosec, now_ns,
                                 publish_default_positions)
    if not (update.publish and update.joints):
        return Step(update)
    return tf_step(state, update.joints, sec, nanosec, ignore_limits, update)


def tf_step(state: ModelState, joints: tuple[str, ...], sec: int, nanosec: int,
            ignore_limits: bool, update: Update | None = None) -> Step:
    """Return the /tf of ``joints`` at the merged state, stamped ``sec``/``nanosec``."""
    q, clamped = state.kinematics.resolve(state.merger.q, ignore_limits)
    newly_clamped = state.plans.resolved(clamped, ignore_limits)
    return Step(update, state.moving.payload_at(joints, q, sec, nanosec), q, clamped,
                newly_clamped)
