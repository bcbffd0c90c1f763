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
Declaring typed ROS parameters the same way on Humble..Kilted, with one set of rules.

A value given at start-up (``--ros-args -p``, a parameters file, a launch
file) is checked against the same rules as a ``ros2 param set`` later: a bad
one is reported in one error line and the default is used *and declared*, so
``ros2 param get`` shows the value in effect (rclpy would instead raise from
``declare_parameter`` and the node would die with a traceback).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.validate_topic_name import validate_topic_name

from .part_settings import parts_problem

__all__ = ['FILE_ROOTS', 'PARAMETERS', 'ParamSpec', 'declare', 'declare_spec', 'float_range',
           'node_parameters', 'parameter_type_of', 'start_up_parameters']

_TYPES = {
    bool: Parameter.Type.BOOL,
    int: Parameter.Type.INTEGER,
    float: Parameter.Type.DOUBLE,
    str: Parameter.Type.STRING,
    list: Parameter.Type.STRING_ARRAY,  # parser options: lists are list[str]
}


def parameter_type_of(default: Any) -> Parameter.Type:
    """Return the ROS parameter type standing for a Python default's type."""
    return _TYPES[type(default)]


def float_range(lower: float, upper: float, step: float = 0.0) -> FloatingPointRange:
    """Return an inclusive range for a double parameter's descriptor (step 0: continuous)."""
    return FloatingPointRange(from_value=float(lower), to_value=float(upper), step=float(step))


@dataclass(frozen=True)
class ParamSpec:
    """
    One parameter: its default (which fixes its type) and the rules for a value.

    ``bounds``: inclusive range of a number (put in the descriptor, so rclpy
    also enforces it at run time); ``check(value)``: a further rule, returning
    the problem or None.
    """

    name: str
    default: Any
    description: str = ''
    read_only: bool = False
    bounds: tuple[float, float] | None = None
    check: Callable[[Any], str | None] | None = None

    def problem(self, value: Any) -> str | None:
        """Return what is wrong with ``value`` for this parameter (None: it is valid)."""
        expected = type(self.default)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if expected is list:
            if not (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
                return f'expected a list of strings, got {_shown(value)}'
        elif type(value) is not expected:
            return f'expected {_type_name(expected)}, got {_shown(value)}'
        if self.bounds is not None:
            lower, upper = self.bounds
            if not (lower <= value <= upper):  # also NaN
                return f'{value!r} is outside [{lower:g}, {upper:g}]'
        return self.check(value) if self.check is not None else None


def _type_name(kind: type) -> str:
    return {float: 'a number', int: 'an integer', bool: 'true or false',
            str: 'a string'}.get(kind, kind.__name__)


def _shown(value: Any) -> str:
    text = repr(value)
    return f'{type(value).__name__} {text[:60]}{"..." if len(text) > 60 else ""}'


def start_up_parameters(node: Node, given: Iterable[Parameter] = ()) -> dict[str, Parameter]:
    """
    Return the values given to ``node`` at start-up, gathered as rclpy gathers them.

    Those of its ``--ros-args`` (``-p``, parameters files; the rcl node's, through the public
    ``Node.handle``), then ``given`` (the ``parameter_overrides`` it was constructed with).

    Read here so that a wrong type or an out-of-range number is caught before
    ``declare_parameter`` would raise; :func:`declare_spec` then declares the value in
    effect with ``ignore_override``.
    """
    with node.handle:
        found = dict(node.handle.get_parameters(Parameter))
    found.update({p.name: p for p in given})
    return found


def declare_spec(node: Node, spec: ParamSpec,
                 overrides: dict[str, Parameter] | None = None) -> Any:
    """
    Declare ``spec``; a start-up value breaking its rules is replaced by the default.

    ``overrides``: :func:`start_up_parameters` of the node (None: its ``--ros-args``
    ones). Returns the value in effect.
    """
    given = (start_up_parameters(node) if overrides is None else overrides).get(spec.name)
    value, ignore_override = spec.default, False
    if given is not None and given.type_ != Parameter.Type.NOT_SET:
        ignore_override = True
        problem = spec.problem(given.value)
        if problem is None:   # as declared (an int for a double, an untyped empty list)
            ptype = parameter_type_of(spec.default)
            value = float(given.value) if ptype == Parameter.Type.DOUBLE else \
                list(given.value) if ptype == Parameter.Type.STRING_ARRAY else given.value
        else:
            shown = spec.default if spec.default != '' else '""'
            node.get_logger().error(
                f"Parameter '{spec.name}': {problem}; using the default {shown!r} instead")
    descriptor_range = None
    if spec.bounds is not None and isinstance(spec.default, float):
        descriptor_range = float_range(*spec.bounds)
    return declare(node, spec.name, value, spec.description, read_only=spec.read_only,
                   floating_point_range=descriptor_range,
                   integer_range=spec.bounds if isinstance(spec.default, int)
                   and not isinstance(spec.default, bool) else None,
                   ignore_override=ignore_override)


def declare(node: Node, name: str, default: Any, description: str = '', *,
            read_only: bool = False, floating_point_range: FloatingPointRange | None = None,
            integer_range: tuple[float, float] | None = None,
            ignore_override: bool = False) -> Any:
    """
    Declare ``name`` statically typed after ``default`` and return its value.

    ``ignore_override``: ``default`` is the value, whatever was given at start-up.

    An empty list default cannot carry its type in rclpy (``[]`` infers as a
    byte array), so list parameters are declared by type and then set to the
    default when no override gave them a value.
    """
    ptype = parameter_type_of(default)
    descriptor = ParameterDescriptor(name=name, type=ptype.value, description=description,
                                     read_only=read_only)
    if floating_point_range is not None:
        descriptor.floating_point_range = [floating_point_range]
    if integer_range is not None:
        descriptor.integer_range = [IntegerRange(from_value=int(integer_range[0]),
                                                 to_value=int(integer_range[1]), step=0)]
    if isinstance(default, list):
        param = node.declare_parameter(name, ptype, descriptor, ignore_override)
        if param.type_ == Parameter.Type.NOT_SET:
            # Not read-only at this point unless asked: set the default before any callback.
            if read_only:
                raise ValueError(f'read-only list parameter {name} needs a value')
            node.set_parameters([Parameter(name, ptype, list(default))])
        value = node.get_parameter(name).value
        return list(value) if value is not None else list(default)
    return node.declare_parameter(name, default, descriptor, ignore_override).value


#: Highest publish_frequency [Hz].
MAX_FREQUENCY = 1000.0

#: name -> (default, description) of the fixed parameters (parser options come on top).
PARAMETERS: dict[str, tuple[Any, str]] = {
    'robot_description': ('', 'The robot description (URDF, xacro or any registered format).'),
    'use_robot_description_topic': (
        False, 'Read the description from the robot_description topic instead (read-only).'),
    'parser': ('auto', "Parser of the description: 'auto' or a registered parser name."),
    'publish_frequency': (
        20.0, 'Maximum rate [Hz] at which one joint is re-published on /tf; 0 = no limit.'),
    'ignore_timestamp': (False, 'Publish every JointState, whatever its stamp.'),
    'frame_prefix': ('', 'Prepended to every frame id (no separator added).'),
    'ignore_limits': (False, 'Publish joint values beyond their limits as given '
                             '(false: clamp them and warn once per joint).'),
    'publish_default_positions': (
        False, 'Publish joints that never received a state at their default position.'),
    'diagnostics.stale_after': (
        1.0, 'A joint not updated for this long [s] is reported stale on /diagnostics; 0 = off.'),
    # joint_state_publisher's parameters (see sources.py); zeros.<joint> and
    # dependent_joints.<joint>.* are declared from the start-up values (see joint_settings.py).
    'source_list': ([], 'Joint state topics to merge, instead of joint_states; non-empty: '
                        'the merged state is published on joint_states (set at start-up).'),
    'rate': (10.0, 'With source_list: /joint_states is re-published at least this often [Hz].'),
    'use_smallest_joint_limits': (
        False, 'Clamp to the <safety_controller> soft limits where they are narrower.'),
    'integrate_velocity': ([], 'Joints whose position is integrated from velocity-only '
                               'messages (wheels).'),
    # The robot's parts, in the order they attach; each has parts.<name>.* (see part_settings).
    'parts': ([], 'Names of the parts attached to the robot (parts.<name>.description, '
                  '.parent, .xyz, .rpy, .prefix), in the order they attach.'),
}

#: Parser options that say which files a run-time description may read: set by the operator.
FILE_ROOTS = ('xacro.base_dir', 'xacro.package_paths', 'mjcf.base_dir')

#: Bounds of rate [Hz] (joint_state_publisher divides by it).
RATE_BOUNDS = (0.1, 1000.0)


def topics_problem(topics: list[str]) -> str | None:
    """Why ``source_list`` cannot be subscribed (None: every entry is a valid topic name)."""
    for topic in topics:
        try:
            validate_topic_name(topic)
        except Exception as err:  # rclpy's InvalidTopicNameException and kin
            return f"'{topic}' is not a valid topic name: {str(err).splitlines()[0]}"
    return None


def _duplicates_problem(names: list[str]) -> str | None:
    repeated = sorted({n for n in names if names.count(n) > 1})
    return f"'{repeated[0]}' is listed twice" if repeated else None


def node_parameters(registry: Any, extra: Iterable[ParamSpec] = ()) -> dict[str, ParamSpec]:
    """
    Return every parameter of the node and its rules.

    :data:`PARAMETERS`, ``extra`` and one parameter per option of every parser of
    ``registry`` (``<parser>.<option>``).
    """
    names = list(registry.names())

    def parser_problem(parser: str) -> str | None:
        if parser == 'auto' or parser in names:
            return None
        return f"unknown parser '{parser}' (available: auto, {', '.join(names)})"

    checks = {'parser': parser_problem, 'source_list': topics_problem,
              'integrate_velocity': _duplicates_problem, 'parts': parts_problem}
    bounds = {'publish_frequency': (0.0, MAX_FREQUENCY), 'diagnostics.stale_after': (0.0, 3600.0),
              'rate': RATE_BOUNDS}
    specs = {name: ParamSpec(name, default, text,
                             read_only=name == 'use_robot_description_topic',
                             bounds=bounds.get(name), check=checks.get(name))
             for name, (default, text) in PARAMETERS.items()}
    specs.update((spec.name, spec) for spec in extra)
    for parser in registry:
        for option in parser.options:
            name = f'{parser.name}.{option.name}'
            specs[name] = ParamSpec(name, option.default,
                                    option.description or f'{parser.name} parser option')
    return specs
