"""Everything the node derives from one accepted description, held as one swappable value."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model
from .fast_path import FastPath
from .health import ModelView
from .joint_states import JointStateMerger, WarnOnce
from .tf_publishing import MovingTransforms

__all__ = ['LoadedModel']

_NS = 1_000_000_000


@dataclass
class LoadedModel:
    """Everything derived from one accepted description; swapped as one reference."""

    description: str         # as published on robot_description (xacro: expanded)
    parser: str
    model: Model
    kinematics: Kinematics
    merger: JointStateMerger
    fixed: Any               # JointTransforms of the fixed joints (constant)
    moving: MovingTransforms
    clamp_warned: WarnOnce
    fast: FastPath           # the common case of a JointState, fused (see fast_path)

    def summary(self) -> str:
        m = self.model
        movable = len(m.movable_joint_names)
        return (f"Robot '{m.name}' loaded with parser '{self.parser}': {len(m.links)} links, "
                f'{len(m.joints)} joints ({movable} movable of which '
                f'{len(m.mimic_joint_names)} mimic, {len(m.joints) - movable} fixed), '
                f"root '{m.root}'")

    def with_prefix(self, frame_prefix: str) -> LoadedModel:
        """This model publishing under ``frame_prefix``: swapped in as one reference, like a
        new model, so a JointState callback running meanwhile keeps a consistent whole.

        The merger (joint values, rate-limit marks) and the clamp warnings carry over;
        only what holds frame ids is new. The new fast path starts not ``clean``: the
        next JointState takes the general path, which re-establishes it.
        """
        moving = MovingTransforms(self.kinematics, frame_prefix)
        return replace(self, moving=moving, fast=FastPath(self.merger, self.kinematics, moving))

    def view(self, now_ns: int, stale_after_s: float) -> ModelView:
        """The model and its joint state for /diagnostics (``stale_after_s`` 0: no staleness)."""
        m, merger = self.model, self.merger
        stale_ns = int(stale_after_s * _NS)
        return ModelView(robot=m.name, parser=self.parser, links=len(m.links),
                         joints=len(m.joints), movable=len(m.movable_joint_names),
                         never_received=merger.pending_joints(),
                         stale=merger.stale_joints(now_ns, stale_ns) if stale_ns else ())
