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
The fully qualified name a node will get, worked out before the node is built.

A LoadNode for a name that is taken must be refused before anything of the new
node exists: building it registers a second ``/rosout`` publisher under that
name (rcl then logs "Publisher already registered for node name", and once the
duplicate is destroyed the loaded node's logs no longer reach ``/rosout``), and
the robot node parses and publishes its description as it starts. So the name
is computed here from the same inputs rcl uses, by rcl's rules
(``rcl_remap_node_name`` / ``rcl_remap_node_namespace``): the node's own
(local) rules first, then the process's global ones when the node uses them;
the first ``__node`` (alias ``__name``) and the first ``__ns`` rule that apply
win; a rule ``other:__node:=x`` applies only to a node first named ``other``.
rclcpp_components' ComponentManager builds first and never compares names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rclpy.utilities import remove_ros_args
from rclpy.validate_namespace import validate_namespace
from rclpy.validate_node_name import validate_node_name

__all__ = ['check_rules', 'fully_qualified_name', 'remap_rules']

#: rcl's ``--ros-args`` flags that take a value (the value is skipped).
_VALUE_FLAGS = {'-p', '--param', '--params-file', '-e', '--enclave', '--log-level',
                '--log-config-file'}
_REMAP_FLAGS = {'-r', '--remap'}


def remap_rules(args: Sequence[str]) -> list[str]:
    """Return the remap rules of a command line (every ``--ros-args`` section, up to ``--``)."""
    rules: list[str] = []
    in_ros, take = False, None
    for arg in args:
        if take is not None:
            if take:
                rules.append(arg)
            take = None
        elif arg == '--ros-args':
            in_ros = True
        elif arg == '--':
            in_ros = False
        elif in_ros and (arg in _REMAP_FLAGS or arg in _VALUE_FLAGS):
            take = arg in _REMAP_FLAGS
    return rules


def check_rules(rules: Sequence[str]) -> None:
    """Raise (rclpy's RCLInvalidROSArgsError, naming the rule) when rcl cannot parse one."""
    args = ['node', '--ros-args']
    for rule in rules:
        args += ['-r', rule]
    remove_ros_args(args)


def _first(rules: Iterable[str], what: str, node_name: str) -> str | None:
    for rule in rules:
        target, sep, replacement = rule.partition(':=')
        if not sep:
            continue
        owner, colon, match = target.rpartition(':')
        if colon and owner != node_name:
            continue
        if match in ((what,) if what == '__ns' else ('__node', '__name')):
            return replacement
    return None


def fully_qualified_name(name: str, namespace: str, rules: Sequence[str]) -> str:
    """
    Return ``/namespace/name`` after ``rules`` (local first, then global).

    Raises rclpy's InvalidNodeNameException / InvalidNamespaceException for what rcl
    would refuse.
    """
    new_name = _first(rules, '__node', name) or name
    new_namespace = _first(rules, '__ns', name) or namespace or '/'
    if not new_namespace.startswith('/'):
        new_namespace = '/' + new_namespace
    validate_node_name(new_name)
    validate_namespace(new_namespace)
    return new_namespace.rstrip('/') + '/' + new_name
