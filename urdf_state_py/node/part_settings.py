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
The parameters of a robot's parts: ``parts.<name>.description|parent|xyz|rpy|prefix``.

``parts`` (a string array, see :mod:`.params`) lists the attached parts; each
name has five parameters. rclpy has no map parameters and the node does not
declare whatever a launch file gives, so :func:`declare_part_parameters`
declares, at start-up, the five parameters of every name listed in ``parts``
or given as a flat dotted key (``parts.gripper.parent: tool0``), each value
checked for its type (a bad one: one error line, the default). At run time a
new name in ``parts`` gets its five parameters declared once the change is
applied (:func:`declare_part`); they stay declared when the name leaves
``parts``, so a part detached and attached again keeps its settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
import math
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from urdf_state_py.core.robot_parts import Part, part_name_problem

__all__ = ['PartSettings', 'declare_part', 'declare_part_parameters', 'default_part',
           'is_part_parameter', 'parts_problem']

_FIELDS = {
    'description': ('', "The part's description (URDF, xacro or any registered format); "
                        'empty: the part contributes nothing.'),
    'parent': ('', 'The link the part attaches to (of the base or of an earlier part).'),
    'xyz': ([0.0, 0.0, 0.0], 'Translation from the parent link to the part root [m].'),
    'rpy': ([0.0, 0.0, 0.0], 'Rotation from the parent link to the part root [rad].'),
    'prefix': ('', 'Prepended to every link and joint name of the part.'),
}


def is_part_parameter(name: str) -> bool:
    """Whether ``name`` is one of the per-part parameters ``parts.<name>.<field>``."""
    return name.startswith('parts.')


#: Most parts a robot may have (each declares five parameters).
MAX_PARTS = 64


def parts_problem(names: list[str]) -> str | None:
    """Why ``names`` cannot be the value of ``parts`` (None: it can)."""
    if len(names) > MAX_PARTS:
        return f'{len(names)} parts: at most {MAX_PARTS}'
    for name in names:
        problem = part_name_problem(name)
        if problem:
            return problem
    repeated = sorted({n for n in names if names.count(n) > 1})
    return f"'{repeated[0]}' is listed twice" if repeated else None


def _split(name: str) -> tuple[str, str] | None:
    """``parts.<part>.<field>`` -> (part, field); None when it is not one."""
    part, _, field = name[len('parts.'):].rpartition('.')
    return (part, field) if part and field in _FIELDS else None


def _value_problem(field: str, value: Any) -> str | None:
    if field in ('xyz', 'rpy'):
        if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 3 or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                for v in value):
            shown = list(value) if isinstance(value, Sequence) else value
            return f'expected 3 finite numbers, got {shown!r}'[:120]
        return None
    return None if isinstance(value, str) else \
        f'expected a string, got {type(value).__name__}'


class PartSettings:
    """
    The values of the per-part parameters in effect (immutable: :meth:`changed` copies).

    ``trusted``: the parts whose description is still the operator's start-up one
    (expanded with all of xacro, as the start-up robot_description).
    """

    def __init__(self, values: Mapping[str, Any] | None = None,
                 trusted: Iterable[str] = ()) -> None:
        self.values: dict[str, Any] = dict(values or {})
        self.trusted = frozenset(trusted)

    def names(self) -> set[str]:
        """Return the parts whose parameters are declared."""
        return {_split(name)[0] for name in self.values}

    def changed(self, updates: Mapping[str, Any]) -> PartSettings:
        """Return a copy with ``updates``; raises ValueError naming the parameter at fault."""
        values = dict(self.values)
        trusted = set(self.trusted)
        for name, value in updates.items():
            split = _split(name)
            if split is None:
                raise ValueError(f"parameter '{name}': expected parts.<name>."
                                 f"{'|'.join(_FIELDS)}")
            problem = _value_problem(split[1], value)
            if problem:
                raise ValueError(f"parameter '{name}': {problem}")
            values[name] = [float(v) for v in value] if split[1] in ('xyz', 'rpy') else value
            if split[1] == 'description':
                trusted.discard(split[0])
        return PartSettings(values, trusted)

    def attached(self, names: Iterable[str]) -> list[tuple[Part, str, bool]]:
        """Return ``(part, description, trusted)`` of each listed part that has a description."""
        found = []
        for name in names:
            text = self.values.get(f'parts.{name}.description', '')
            if not text.strip():
                continue
            field = {f: self.values.get(f'parts.{name}.{f}', default)
                     for f, (default, _) in _FIELDS.items()}
            part = Part(name, field['parent'], tuple(field['xyz']), tuple(field['rpy']),
                        field['prefix'])
            found.append((part, text, name in self.trusted))
        return found


def default_part(name: str) -> list[tuple[str, Any]]:
    """Return the parameters of part ``name`` at their defaults, as ``(name, value)``."""
    return [(f'parts.{name}.{field}', default) for field, (default, _) in _FIELDS.items()]


def declare_part(node: Node, name: str, given: Mapping[str, Parameter] | None = None) -> dict:
    """
    Declare the five parameters of part ``name``; return their values in effect.

    ``given``: start-up values (by parameter name), each used if its type is right.
    """
    values = {}
    for field, (default, text) in _FIELDS.items():
        pname = f'parts.{name}.{field}'
        value = default
        param = (given or {}).get(pname)
        if param is not None and param.type_ != Parameter.Type.NOT_SET:
            problem = _value_problem(field, param.value)
            if problem:
                node.get_logger().error(f"Parameter '{pname}': {problem}; using the default")
            else:
                value = list(map(float, param.value)) if isinstance(default, list) \
                    else param.value
        # xyz/rpy: typed at run time by the callback (ros2 param set gives [0, 0, 1] as ints).
        descriptor = ParameterDescriptor(name=pname, description=text,
                                         dynamic_typing=isinstance(default, list))
        values[pname] = node.declare_parameter(pname, value, descriptor,
                                               ignore_override=True).value
        if isinstance(default, list):
            values[pname] = [float(v) for v in values[pname]]
    return values


def declare_part_parameters(node: Node, overrides: Mapping[str, Parameter],
                            listed: list[str], trusted: bool) -> PartSettings:
    """
    Declare the parameters of every part listed in ``parts`` or given at start-up.

    ``overrides``: the node's :func:`~.params.start_up_parameters`; ``trusted``: the
    start-up descriptions are the operator's.
    """
    names = set(listed)
    for key in overrides:
        split = _split(key) if is_part_parameter(key) else None
        if split is None:
            if is_part_parameter(key):
                node.get_logger().error(f"Parameter '{key}': expected parts.<name>."
                                        f"{'|'.join(_FIELDS)}; ignored")
            continue
        problem = part_name_problem(split[0])
        if problem:
            node.get_logger().error(f"Parameter '{key}': {problem}; ignored")
            continue
        names.add(split[0])
    values = {}
    for name in sorted(names):
        values.update(declare_part(node, name, overrides))
    return PartSettings(values, names if trusted else ())
