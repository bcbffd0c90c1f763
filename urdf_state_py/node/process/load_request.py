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
A ``composition_interfaces/LoadNode`` request turned into a robot's node options, or refused.

LoadNode is a network service: anyone on the DDS domain can call it, as they
can call SetParameters. So every field is checked here before a node is built,
and a refusal names the field and the problem (rclcpp_components' container
answers some of these with a bare "not supported"):

* ``package_name`` / ``plugin_name``: only ``urdf_state_py`` /
  ``urdf_state_py::UrdfState`` (:data:`PLUGIN`);
* ``parameters``: each must convert to an rclpy parameter (a type byte out of
  range is refused, not raised), and the robot's own parameters must obey the
  rules of a start-up value (:mod:`urdf_state_py.node.params`);
* **trust**: unless the container's operator set ``load_node.trusted``, the
  description is a run-time one (restricted xacro, see docs/security.md), and a
  request may not widen what a run-time description may do: no
  ``description.runtime_xacro: full``, no ``xacro.base_dir`` /
  ``xacro.package_paths`` (which files xacro may read), no
  ``description.*`` limit above the container's;
* ``extra_arguments``: rclcpp's names, each a bool. ``forward_global_arguments``,
  ``enable_rosout`` and ``start_parameter_services`` act as in rclcpp;
  ``use_intra_process_comms``, ``enable_topic_statistics``,
  ``start_parameter_event_publisher``, ``use_clock_thread`` and
  ``enable_logger_service`` mean nothing for this node (rclpy has no
  intra-process transport or topic statistics, and the others are rclcpp's own
  switches): accepted and named in the log; any other name is refused;
* ``log_level``: 0 (unset) or a ``rcl_interfaces/Log`` level (10 .. 50);
* ``start_type_description_service`` is false unless the request sets it: rclpy
  (Jazzy, Kilted) never frees a node's ``~/get_type_description`` service when the
  node is destroyed (it stays on the graph and in memory; ros2/rclpy#1710), so an
  unloaded robot would leave it behind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rclpy.logging import LoggingSeverity
from rclpy.parameter import Parameter

from ..params import FILE_ROOTS, ParamSpec

__all__ = ['IGNORED_EXTRA_ARGUMENTS', 'LoadRefused', 'PACKAGE', 'PLUGIN', 'RobotOptions',
           'robot_options']

PACKAGE = 'urdf_state_py'
PLUGIN = 'urdf_state_py::UrdfState'

#: rclcpp's extra arguments that mean nothing for this node (accepted, logged).
IGNORED_EXTRA_ARGUMENTS = ('use_intra_process_comms', 'enable_topic_statistics',
                           'start_parameter_event_publisher', 'use_clock_thread',
                           'enable_logger_service')
#: rclcpp's extra arguments this container honours: name -> rclpy Node keyword.
_NODE_SWITCHES = {'forward_global_arguments': 'use_global_arguments',
                  'enable_rosout': 'enable_rosout',
                  'start_parameter_services': 'start_parameter_services'}
#: Limits a request may lower but not raise when LoadNode is not trusted.
_LIMITS = ('description.timeout', 'description.max_memory_mb', 'description.max_bytes')
_LEVELS = {int(level) for level in LoggingSeverity if int(level) > 0}
#: rclpy's switch of a node's ~/get_type_description service (see the module docstring).
_TYPE_DESCRIPTION = 'start_type_description_service'


class LoadRefused(Exception):
    """A LoadNode request that is refused; the message is the answer's ``error_message``."""


@dataclass
class RobotOptions:
    """What :class:`~urdf_state_py.node.state_publisher.UrdfStateNode` is built with."""

    node_name: str
    namespace: str
    parameters: list[Parameter]
    cli_args: list[str]
    node_kwargs: dict[str, Any] = field(default_factory=dict)
    log_level: int = 0
    ignored: list[str] = field(default_factory=list)   # extra arguments meaning nothing here


def robot_options(request: Any, specs: Mapping[str, ParamSpec], *, trusted: bool,
                  default_name: str) -> RobotOptions:
    """
    Return the node options of a LoadNode ``request``; raises :class:`LoadRefused` naming why.

    ``specs``: the robot node's parameters and their rules; ``trusted``: the
    container's ``load_node.trusted``.
    """
    if request.package_name != PACKAGE or request.plugin_name != PLUGIN:
        raise LoadRefused(f"this container loads only package '{PACKAGE}', plugin '{PLUGIN}' "
                          f"(asked: package '{request.package_name}', plugin "
                          f"'{request.plugin_name}')")
    parameters = [_parameter(msg, 'parameters') for msg in request.parameters]
    if not any(p.name == _TYPE_DESCRIPTION for p in parameters):
        parameters.append(Parameter(_TYPE_DESCRIPTION, Parameter.Type.BOOL, False))
    for param in parameters:
        spec = specs.get(param.name)
        if spec is not None and param.type_ != Parameter.Type.NOT_SET:
            problem = spec.problem(param.value)
            if problem:
                raise LoadRefused(f"parameter '{param.name}': {problem}")
        if not trusted:
            _check_untrusted(param, specs)
    options = RobotOptions(node_name=request.node_name or default_name,
                           namespace=request.node_namespace or '/', parameters=parameters,
                           cli_args=_remap_args(request.remap_rules),
                           node_kwargs={'use_global_arguments': False},
                           log_level=_log_level(request.log_level))
    for msg in request.extra_arguments:
        _extra_argument(_parameter(msg, 'extra_arguments'), options)
    return options


def _parameter(msg: Any, field_name: str) -> Parameter:
    """Return an rclpy Parameter from a message; a malformed one is refused, naming it."""
    try:
        return Parameter.from_parameter_msg(msg)
    except Exception as err:  # rclpy raises ValueError, TypeError, ... for types
        raise LoadRefused(f"{field_name}: '{getattr(msg, 'name', '?')}' is not a valid "
                          f'parameter ({type(err).__name__}: {err})') from None


def _check_untrusted(param: Parameter, specs: Mapping[str, ParamSpec]) -> None:
    """Apply the rules of trust (see the module docstring); raise LoadRefused."""
    why = ('LoadNode is not trusted by this container (load_node.trusted is false): '
           'a description it brings is a run-time one')
    if param.name == 'description.runtime_xacro' and param.value != 'restricted':
        raise LoadRefused(f"parameter 'description.runtime_xacro': only 'restricted' ({why})")
    if param.name in FILE_ROOTS:
        raise LoadRefused(f"parameter '{param.name}' is refused: it says which files xacro "
                          f'may read ({why})')
    if param.name in _LIMITS and param.value > specs[param.name].default:
        raise LoadRefused(f"parameter '{param.name}': {param.value!r} is above this "
                          f"container's limit {specs[param.name].default!r} ({why})")


def _remap_args(rules: Sequence[str]) -> list[str]:
    """Rcl arguments for the remap rules, as rclcpp_components passes them."""
    args = ['--ros-args']
    for rule in rules:
        args += ['-r', rule]
    return args if rules else []


def _log_level(level: int) -> int:
    if level and level not in _LEVELS:
        raise LoadRefused(f'log_level {level} is not a rcl_interfaces/Log level '
                          f'(0 = unset, or one of {sorted(_LEVELS)})')
    return level


def _extra_argument(arg: Parameter, options: RobotOptions) -> None:
    if arg.name not in _NODE_SWITCHES and arg.name not in IGNORED_EXTRA_ARGUMENTS:
        known = sorted((*_NODE_SWITCHES, *IGNORED_EXTRA_ARGUMENTS))
        raise LoadRefused(f"extra argument '{arg.name}' is not supported (known: "
                          f"{', '.join(known)})")
    if arg.type_ != Parameter.Type.BOOL:
        raise LoadRefused(f"extra argument '{arg.name}' must be a boolean")
    if arg.name in _NODE_SWITCHES:
        options.node_kwargs[_NODE_SWITCHES[arg.name]] = bool(arg.value)
    else:
        options.ignored.append(arg.name)
