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
What the joint sweeper publishes: every active variable of a model on its own sinusoid.

:class:`SweepPlan` turns a model into the list of variables to publish and
their values at a time ``t``; :mod:`urdf_state_py.tools.demo.sweep` is the ROS node that
publishes them. Kept apart so the plan is testable without ROS. Each variable
follows a sinusoid with its own phase:

- bounded revolute/prismatic joints: around the middle of their limits, over
  ``amplitude`` (default 0.9) of the half range -- narrowed, when the joint
  drives mimic joints, to the values that keep those within their limits too;
- unbounded revolute (continuous) joints: +-pi; unbounded prismatic: +-0.5 m;
- planar joints (``j/x``, ``j/y``, ``j/theta``): a 0.3 m circle and +-pi yaw;
- floating joints (``j/trans_x`` .. ``j/rot_w``): +-0.2 m along each axis and
  a gentle +-0.3 rad roll/pitch/yaw wobble, published as a unit quaternion.

Mimic joints are left out, as a real robot driver would leave them to the
state publisher.
"""

from __future__ import annotations

from dataclasses import dataclass
import math

from urdf_state_py.core.model import Model
from urdf_state_py.core.transforms import rpy_to_quaternion

__all__ = ['SweepPlan', 'SweepVariable']

GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))   # spreads phases evenly
UNBOUNDED_REVOLUTE = math.pi
UNBOUNDED_PRISMATIC = 0.5
PLANAR_RADIUS = 0.3
FLOATING_TRANSLATION = 0.2
FLOATING_ANGLE = 0.3


@dataclass(frozen=True)
class SweepVariable:
    """value(t) = center + amplitude * sin(2*pi*frequency*t + phase)."""

    name: str
    center: float
    amplitude: float
    phase: float

    def value(self, t: float, frequency: float) -> float:
        return self.center + self.amplitude * math.sin(2.0 * math.pi * frequency * t + self.phase)


@dataclass(frozen=True)
class _Floating:
    """A floating joint: translation sinusoids and an rpy wobble turned into a quaternion."""

    prefix: str
    phase: float

    def values(self, t: float, frequency: float) -> list[float]:
        w = 2.0 * math.pi * frequency * t + self.phase
        tx = FLOATING_TRANSLATION * math.sin(w)
        ty = FLOATING_TRANSLATION * math.sin(w + 2.0 * math.pi / 3)
        tz = FLOATING_TRANSLATION * math.sin(w + 4.0 * math.pi / 3)
        rpy = [FLOATING_ANGLE * math.sin(w + 0.5), FLOATING_ANGLE * math.sin(w + 1.5),
               FLOATING_ANGLE * math.sin(w + 2.5)]
        return [tx, ty, tz, *rpy_to_quaternion(rpy).tolist()]


class SweepPlan:
    """
    Which variables to publish and how each one moves; no ROS involved.

    ``names`` are the active (non-mimic) variables of ``model`` in its
    topological order (MoveIt names for planar/floating joints);
    :meth:`positions` gives their values at time ``t`` (seconds).
    """

    def __init__(self, model: Model, *, frequency: float = 0.2, amplitude: float = 0.9) -> None:
        if not 0.0 <= amplitude <= 1.0:
            raise ValueError(f'amplitude must be within [0, 1], got {amplitude}')
        self.frequency = float(frequency)
        self.names: list[str] = []
        self._parts: list[SweepVariable | _Floating] = []
        index = 0
        follower_bounds = _follower_bounds(model)
        for joint in model.joints:
            if not joint.is_movable or joint.is_mimic:
                continue
            phase = (index * GOLDEN_ANGLE) % (2.0 * math.pi)
            index += 1
            kind = getattr(joint.type, 'value', joint.type)
            names = list(joint.variable_names)
            if kind == 'floating':
                self.names.extend(names)
                self._parts.append(_Floating(joint.name, phase))
                continue
            if kind == 'planar':
                x, y, theta = names
                self.names.extend(names)
                self._parts.append(SweepVariable(x, 0.0, PLANAR_RADIUS, phase + math.pi / 2))
                self._parts.append(SweepVariable(y, 0.0, PLANAR_RADIUS, phase))
                self._parts.append(SweepVariable(theta, 0.0, math.pi * amplitude, phase))
                continue
            (name,) = names
            lower, upper = joint.variable_bounds()[name]
            # Keep the mimic joints that follow this one within their own limits too.
            f_lower, f_upper = follower_bounds.get(joint.name, (lower, upper))
            if max(lower, f_lower) <= min(upper, f_upper):
                lower, upper = max(lower, f_lower), min(upper, f_upper)
            if math.isfinite(lower) and math.isfinite(upper):
                center = 0.5 * (lower + upper)
                amp = 0.5 * (upper - lower) * amplitude
            else:
                center = 0.0
                amp = UNBOUNDED_PRISMATIC if kind == 'prismatic' else UNBOUNDED_REVOLUTE
                if math.isfinite(lower):        # half-bounded: stay on the allowed side
                    center = lower + amp
                elif math.isfinite(upper):
                    center = upper - amp
            self.names.append(name)
            self._parts.append(SweepVariable(name, center, amp, phase))

    def positions(self, t: float) -> list[float]:
        """Values of :attr:`names` at time ``t``."""
        out: list[float] = []
        for part in self._parts:
            if isinstance(part, _Floating):
                out.extend(part.values(t, self.frequency))
            else:
                out.append(part.value(t, self.frequency))
        return out


def _follower_bounds(model: Model) -> dict[str, tuple[float, float]]:
    """
    Per driving joint: the values that keep its bounded mimic followers within limits.

    A follower ``f = multiplier * x + offset`` bounded by [lo, hi] allows ``x``
    in [(lo - offset) / m, (hi - offset) / m] (swapped for m < 0); the
    intersection over all direct followers is returned (-inf/inf when free).
    """
    out: dict[str, tuple[float, float]] = {}
    for joint in model.joints:
        mimic = getattr(joint, 'mimic', None)
        if not joint.is_mimic or mimic is None or mimic.multiplier == 0.0:
            continue
        (name,) = joint.variable_names
        lo, hi = joint.variable_bounds()[name]
        a = (lo - mimic.offset) / mimic.multiplier
        b = (hi - mimic.offset) / mimic.multiplier
        a, b = min(a, b), max(a, b)
        cur = out.get(mimic.joint, (-math.inf, math.inf))
        out[mimic.joint] = (max(cur[0], a), min(cur[1], b))
    return out
