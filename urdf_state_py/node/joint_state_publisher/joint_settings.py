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
joint_state_publisher's per-joint parameters and model checks.

The parameters are ``zeros.<joint>`` and
``dependent_joints.<joint>.parent|factor|offset``; the checks those of
``use_smallest_joint_limits`` and ``integrate_velocity``.

rclpy has no map parameters, so joint_state_publisher lets
``automatically_declare_parameters_from_overrides`` declare whatever the
launch file gives. The node does not (any typo would become a parameter):
:func:`declare_joint_parameters` declares exactly the ``zeros.*`` and
``dependent_joints.*`` names given at start-up, each checked for its type (a
bad one: one error line, not declared). At run time these can then be changed
(``ros2 param set``); a name not given at start-up is refused by rclpy as
undeclared.

Whether a value suits the model (a movable joint, within its limits, not a
mimic joint; a parent that exists; no cycle) is checked against each model:
:meth:`JointSettings.shape` when a model is built (a rule it cannot take is
logged and left out), :meth:`JointSettings.problem` for a change at run time
(refused with the reason, nothing changed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from urdf_state_py.core.joint_overrides import (apply_overrides, DEPENDENT_FIELDS,
                                                dependent_joints_from, zero_problem)
from urdf_state_py.core.model import Model

from ..params import declare

__all__ = ['JointSettings', 'declare_joint_parameters', 'integrate_problem', 'integrated_joints',
           'is_joint_parameter']

_PREFIXES = ('zeros.', 'dependent_joints.')


def is_joint_parameter(name: str) -> bool:
    """Whether ``name`` is one of the per-joint parameters handled here."""
    return name.startswith(_PREFIXES)


def _type_problem(name: str, value: Any) -> str | None:
    if name.startswith('dependent_joints.') and name.endswith('.parent'):
        return None if isinstance(value, str) and value else 'expected a joint name'
    if name.startswith('zeros.') or name.rpartition('.')[2] in DEPENDENT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f'expected a number, got {type(value).__name__} {value!r}'
        return None
    return 'expected dependent_joints.<joint>.parent, .factor or .offset'


class JointSettings:
    """The values of the per-joint parameters in effect (immutable: :meth:`changed` copies)."""

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self.values: dict[str, Any] = dict(values or {})
        self.zeros = {k[len('zeros.'):]: float(v) for k, v in self.values.items()
                      if k.startswith('zeros.')}
        self.dependent = dependent_joints_from(
            {k[len('dependent_joints.'):]: v for k, v in self.values.items()
             if k.startswith('dependent_joints.')})   # ValueError: see changed()

    def changed(self, updates: Mapping[str, Any]) -> JointSettings:
        """Return a copy with ``updates``; raises ValueError naming the parameter at fault."""
        for name, value in updates.items():
            problem = _type_problem(name, value)
            if problem:
                raise ValueError(f"parameter '{name}': {problem}")
        return JointSettings({**self.values, **updates})

    def problem(self, parsed: Model, cfg: Mapping[str, Any]) -> str | None:
        """Why these settings cannot apply to the parsed model ``parsed`` (None: they can)."""
        try:
            model, _ = apply_overrides(parsed, self.dependent, cfg['use_smallest_joint_limits'])
        except ValueError as err:
            return str(err)
        for joint, value in self.zeros.items():
            problem = zero_problem(model, joint, value)
            if problem:
                return problem
        return integrate_problem(model, cfg['integrate_velocity'])

    def shape(self, parsed: Model, cfg: Mapping[str, Any], logger
              ) -> tuple[Model, Callable[[Mapping[str, int], np.ndarray], None] | None]:
        """
        Return the model to use and a function writing the zeros into a default vector.

        What the model cannot take is logged as an error and left out.
        """
        smallest = cfg['use_smallest_joint_limits']
        try:
            model, warnings = apply_overrides(parsed, self.dependent, smallest)
        except ValueError as err:
            logger.error(f'{err}; the dependent_joints rules are ignored for this model')
            model, warnings = apply_overrides(parsed, {}, smallest)
        for warning in warnings:
            logger.warning(warning)
        zeros = {}
        for joint, value in self.zeros.items():
            problem = zero_problem(model, joint, value)
            if problem:
                logger.error(f'{problem}; ignored')
            else:
                zeros[joint] = value
        problem = integrate_problem(model, cfg['integrate_velocity'])
        if problem:
            logger.error(f'{problem}; ignored')
        if not zeros:
            return model, None

        def write(index: Mapping[str, int], defaults: np.ndarray) -> None:
            for joint, value in zeros.items():
                defaults[index[joint]] = value
        return model, write


def integrate_problem(model: Model, joints: list[str]) -> str | None:
    """Why ``integrate_velocity: joints`` cannot apply to ``model`` (None: it can)."""
    for name in joints:
        joint = model.joint_map.get(name)
        if joint is None or not joint.is_movable or joint.is_mimic \
                or len(joint.variable_names) != 1:
            return (f"parameter 'integrate_velocity': '{name}' is not a movable 1-DOF joint "
                    f"of robot '{model.name}' that is not a mimic joint")
    return None


def integrated_joints(model: Model, joints: list[str]) -> list[str]:
    """Return the entries of ``integrate_velocity`` that ``model`` can integrate."""
    return [name for name in joints if integrate_problem(model, [name]) is None]


def declare_joint_parameters(node, overrides: Mapping) -> JointSettings:
    """
    Declare the per-joint parameters given at start-up.

    Declare the ``zeros.*`` / ``dependent_joints.*`` parameters given at start-up
    (``overrides``: the node's :func:`~..params.start_up_parameters`).
    """
    values = {}
    for name in sorted(n for n in overrides if is_joint_parameter(n)):
        value = overrides[name].value
        problem = _type_problem(name, value)
        if problem:
            node.get_logger().error(f"Parameter '{name}': {problem}; ignored")
            continue
        if not isinstance(value, str):
            value = float(value)
        values[name] = declare(node, name, value, 'joint_state_publisher setting (see docs)',
                               ignore_override=True)
    try:
        return JointSettings(values)
    except ValueError as err:
        node.get_logger().error(f'{err}; the dependent_joints parameters are ignored')
        return JointSettings({k: v for k, v in values.items() if k.startswith('zeros.')})
