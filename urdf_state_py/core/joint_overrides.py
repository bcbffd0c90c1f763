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
joint_state_publisher's model settings, applied to a :class:`Model`: no ROS in here.

joint_state_publisher lets a launch file say what a URDF does not:

* ``dependent_joints.<joint>.parent|factor|offset``: mimic rules for a URDF
  without ``<mimic>`` tags. They are turned into :class:`Mimic` entries of a new
  model, so everything downstream (kinematics, merging, clamping, the fast
  path) treats them exactly like URDF mimic joints, and the model's own
  validation (unknown parent, cycles; chains resolved in topological order)
  applies to them as to the URDF's.
* ``use_smallest_joint_limits``: clamp to the ``<safety_controller>`` soft
  limits where they are narrower than the hard ones (a new model, again).
* ``zeros.<joint>``: the value of a joint until a source gives one
  (:func:`zero_problem` says whether a value is acceptable for a model).

Each function returns a problem as text naming the parameter, so the node can
log it at start-up or return it as the SetParameters reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
import math

from .errors import DescriptionError
from .model import Limits, Mimic, Model

__all__ = ['DEPENDENT_FIELDS', 'DependentJoint', 'apply_overrides', 'dependent_joints_from',
           'zero_problem']

#: The keys of one dependent joint, as joint_state_publisher names them.
DEPENDENT_FIELDS = ('parent', 'factor', 'offset')


@dataclass(frozen=True)
class DependentJoint:
    """``value(joint) = factor * value(parent) + offset`` (joint_state_publisher's names)."""

    parent: str
    factor: float = 1.0
    offset: float = 0.0


def dependent_joints_from(flat: Mapping[str, object]) -> dict[str, DependentJoint]:
    """
    ``{'<joint>.parent': 'a', '<joint>.factor': 2.0, ...}`` as rules; raises ValueError.

    The keys are those of the ``dependent_joints.`` parameters without that prefix.
    """
    fields: dict[str, dict[str, object]] = {}
    for key, value in flat.items():
        joint, _, field_name = key.rpartition('.')
        if not joint or field_name not in DEPENDENT_FIELDS:
            raise ValueError(f"parameter 'dependent_joints.{key}': expected "
                             'dependent_joints.<joint>.parent, .factor or .offset')
        if field_name == 'parent':
            if not isinstance(value, str) or not value:
                raise ValueError(f"parameter 'dependent_joints.{key}': expected a joint name")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            raise ValueError(f"parameter 'dependent_joints.{key}': expected a finite number, "
                             f'got {value!r}')
        fields.setdefault(joint, {})[field_name] = value
    rules = {}
    for joint, given in fields.items():
        if 'parent' not in given:
            raise ValueError(f"parameter 'dependent_joints.{joint}': has no parent "
                             f'(set dependent_joints.{joint}.parent)')
        rules[joint] = DependentJoint(str(given['parent']), float(given.get('factor', 1.0)),
                                      float(given.get('offset', 0.0)))
    return rules


def apply_overrides(model: Model, dependent: Mapping[str, DependentJoint],
                    use_smallest_joint_limits: bool) -> tuple[Model, list[str]]:
    """
    ``model`` with the dependent joints as mimic rules and, on request, the soft limits.

    Returns the model (``model`` itself when nothing changes: the default
    settings cost nothing) and warnings to log once. Raises ValueError naming the
    parameter for a rule the model cannot take (unknown or fixed joint, unknown
    parent, a cycle).
    """
    warnings = []
    joints = list(model.joints)
    changed = False
    for i, joint in enumerate(joints):
        rule = dependent.get(joint.name)
        if rule is not None:
            where = f"parameter 'dependent_joints.{joint.name}'"
            master = model.joint_map.get(rule.parent)
            if master is None:
                raise ValueError(f"{where}: parent '{rule.parent}' is not a joint of robot "
                                 f"'{model.name}'")
            if not joint.is_movable or not master.is_movable:
                fixed = joint.name if not joint.is_movable else rule.parent
                raise ValueError(f"{where}: joint '{fixed}' is fixed")
            if len(joint.variable_names) != 1 or len(master.variable_names) != 1:
                raise ValueError(f'{where}: only 1-DOF joints can depend on one another')
            if joint.is_mimic:
                warnings.append(f"{where} replaces the URDF's <mimic> of joint '{joint.name}'")
            try:
                joint = replace(joint, mimic=Mimic(rule.parent, rule.factor, rule.offset))
            except DescriptionError as err:   # e.g. a joint depending on itself
                raise ValueError(f'{where}: {err}') from None
            changed = True
        if use_smallest_joint_limits and joint.is_bounded and joint.safety is not None:
            lower = max(joint.limits.lower, joint.safety.soft_lower_limit)
            upper = min(joint.limits.upper, joint.safety.soft_upper_limit)
            if (lower, upper) != (joint.limits.lower, joint.limits.upper) and lower <= upper:
                joint = replace(joint, limits=replace(joint.limits, lower=lower, upper=upper))
                changed = True
        joints[i] = joint
    unknown = sorted(set(dependent) - set(model.joint_map))
    if unknown:
        raise ValueError(f"parameter 'dependent_joints.{unknown[0]}': '{unknown[0]}' is not a "
                         f"joint of robot '{model.name}'")
    if not changed:
        return model, warnings
    try:
        return Model(model.name, model.links, tuple(joints)), warnings
    except DescriptionError as err:   # a cycle through the rules
        raise ValueError(f'parameter dependent_joints: {err}') from None


def zero_problem(model: Model, joint_name: str, value: float) -> str | None:
    """Why ``zeros.<joint_name>: value`` cannot apply to ``model`` (None: it can)."""
    where = f"parameter 'zeros.{joint_name}'"
    joint = model.joint_map.get(joint_name)
    if joint is None or not joint.is_movable:
        return f"{where}: '{joint_name}' is not a movable joint of robot '{model.name}'"
    if joint.is_mimic:
        return f"{where}: '{joint_name}' is a mimic joint (it follows '{joint.mimic.joint}')"
    if len(joint.variable_names) != 1:
        return f"{where}: '{joint_name}' is a {joint.type.value} joint (several variables)"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return f'{where}: expected a finite number, got {value!r}'
    if joint.is_bounded and not joint.limits.lower <= value <= joint.limits.upper:
        limits: Limits = joint.limits
        return (f"{where}: {value:g} is outside the joint's limits "
                f'[{limits.lower:g}, {limits.upper:g}]')
    return None
