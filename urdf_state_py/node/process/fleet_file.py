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
A fleet file: the robots one ``urdf_state_container`` serves.

Read by ``fleet.launch.py`` (which loads each robot over LoadNode) and by the
container itself when started with ``-p fleet:=FILE`` (:func:`load_requests`).

A YAML file, one entry per robot::

    robots:
      - namespace: left                  # required; the node is /left/urdf_state
        model: arms/arm.urdf.xacro       # required; relative to this file's folder
        xacro_args: [prefix:=left_]      # optional; a list, or one "a:=1 b:=2" string
        frame_prefix: left/              # optional; default "<namespace>/", "" for none
        parameters:                      # optional; any other parameter of the node
          publish_frequency: 50.0
          xacro.package_paths: [arm_description=/opt/arms]   # for $(find arm_description)
        parts:                           # optional; attached in this order
          - name: gripper                # required; parts.gripper.* of the node
            model: grippers/2f85.urdf    # required; relative to this file's folder
            parent: tool0                # required; a link of the model or an earlier part
            xyz: [0.0, 0.0, 0.01]        # optional; rpy too; default zeros
            prefix: left_gripper_        # optional

Every mistake is reported at once, with the entry and the key at fault, before
anything starts (:class:`FleetError`). Each entry becomes the ``parameters`` of
one ``urdf_state_py::UrdfState`` component (:func:`component_parameters`): the
model is read and, for xacro, expanded here, by the operator's launch process
with all of xacro (the node's own xacro reader, so errors name the element at
fault), and the component gets plain URDF (an MJCF model too: its URDF, includes
and meshes resolved against the model's folder). The container can then keep
LoadNode untrusted (``load_node.trusted: false``): a description loaded over
the network is never expanded with all of xacro. With ``trusted: true`` the
model file goes as it is, with ``xacro.base_dir`` (``mjcf.base_dir``) and ``xacro.args``, so a
later ``ros2 param set .../urdf_state xacro.args`` re-expands it (the container
must then trust LoadNode).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import os
from pathlib import Path
import re
import shlex
from typing import Any

from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.robot_parts import part_name_problem
import yaml

__all__ = ['FleetError', 'FleetRobot', 'component_parameters', 'load_requests', 'read_fleet']

_KEYS = {'namespace', 'model', 'xacro_args', 'frame_prefix', 'parameters', 'parts'}
_PART_KEYS = {'name', 'model', 'parent', 'xyz', 'rpy', 'prefix'}
#: Parameters an entry sets through its own keys (or that the fleet sets).
_OWN = {'robot_description', 'frame_prefix', 'xacro.args', 'xacro.base_dir', 'mjcf.base_dir',
        'parts'}
_NAMESPACE = re.compile(r'^/?[A-Za-z][A-Za-z0-9_]*(/[A-Za-z][A-Za-z0-9_]*)*$')


class FleetError(ValueError):
    """A fleet file that cannot be used; the message names the entry and the problem."""


@dataclass(frozen=True)
class FleetRobot:
    """One robot of the fleet, checked."""

    namespace: str
    model: Path
    xacro_args: tuple[str, ...] = ()
    frame_prefix: str = ''
    parameters: dict[str, Any] = field(default_factory=dict)
    #: name -> (model file, the other parts.<name>.* parameters), in the order they attach
    parts: dict[str, tuple[Path, dict[str, Any]]] = field(default_factory=dict)


def read_fleet(path: str | os.PathLike) -> list[FleetRobot]:
    """
    Return the robots of the fleet file ``path``.

    Raises :class:`FleetError` naming the problem.
    """
    path = Path(path)
    try:
        doc = yaml.safe_load(path.read_text(encoding='utf-8'))
    except (OSError, yaml.YAMLError) as err:
        raise FleetError(f'{path}: {err}') from None
    if not isinstance(doc, dict) or set(doc) != {'robots'} or not isinstance(doc['robots'], list) \
            or not doc['robots']:
        raise FleetError(f"{path}: expected 'robots:' and a list of robots under it")
    robots = [_robot(entry, path, index) for index, entry in enumerate(doc['robots'], 1)]
    seen: dict[str, int] = {}
    for index, robot in enumerate(robots, 1):
        if robot.namespace in seen:
            raise FleetError(f'{path}: robots #{seen[robot.namespace]} and #{index} share the '
                             f"namespace '{robot.namespace}'")
        seen[robot.namespace] = index
    return robots


def _robot(entry: Any, path: Path, index: int) -> FleetRobot:
    where = f'{path}: robot #{index}'
    if not isinstance(entry, dict):
        raise FleetError(f'{where}: expected keys {sorted(_KEYS)}, got {entry!r}')
    unknown = set(entry) - _KEYS
    if unknown:
        raise FleetError(f'{where}: unknown key(s) {sorted(unknown)} (known: {sorted(_KEYS)})')
    for key in ('namespace', 'model'):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise FleetError(f"{where}: '{key}' is required (a string)")
    namespace = '/' + entry['namespace'].strip().strip('/')
    if not _NAMESPACE.match(namespace):
        raise FleetError(f"{where}: '{entry['namespace']}' is not a valid namespace")
    model = (path.parent / os.path.expanduser(entry['model'])).resolve()
    if not model.is_file():
        raise FleetError(f"{where}: model file '{model}' does not exist")
    args = entry.get('xacro_args', [])
    if isinstance(args, str):
        args = shlex.split(args)
    if not isinstance(args, list) or not all(isinstance(a, str) and ':=' in a for a in args):
        raise FleetError(f"{where}: 'xacro_args' must be name:=value strings, got {args!r}")
    prefix = entry.get('frame_prefix', namespace.lstrip('/') + '/')
    if not isinstance(prefix, str):
        raise FleetError(f"{where}: 'frame_prefix' must be a string, got {prefix!r}")
    parameters = entry.get('parameters', {})
    if not isinstance(parameters, dict) or not all(isinstance(k, str) for k in parameters):
        raise FleetError(f"{where}: 'parameters' must map parameter names to values")
    own = sorted(_OWN & set(parameters))
    if own:
        raise FleetError(f"{where}: set {own} through the entry's own keys (model, "
                         'xacro_args, frame_prefix), not under parameters')
    if any(key.startswith('parts.') for key in parameters):
        raise FleetError(f"{where}: give parts under the entry's own key 'parts', "
                         'not under parameters')
    parts = _parts(entry.get('parts', []), path, where)
    return FleetRobot(namespace=namespace, model=model, xacro_args=tuple(args),
                      frame_prefix=prefix, parameters=dict(parameters), parts=parts)


def _parts(entries: Any, path: Path, where: str) -> dict[str, tuple[Path, dict[str, Any]]]:
    """Return the checked ``parts`` of a robot entry; FleetError naming the part at fault."""
    if not isinstance(entries, list):
        raise FleetError(f"{where}: 'parts' must be a list of parts")
    parts = {}
    for index, entry in enumerate(entries, 1):
        at = f'{where}: part #{index}'
        if not isinstance(entry, dict) or set(entry) - _PART_KEYS:
            raise FleetError(f'{at}: expected keys {sorted(_PART_KEYS)}, got {entry!r}')
        for key in ('name', 'model', 'parent'):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise FleetError(f"{at}: '{key}' is required (a string)")
        problem = part_name_problem(entry['name']) or (
            f"'{entry['name']}' is listed twice" if entry['name'] in parts else None)
        if problem:
            raise FleetError(f'{at}: {problem}')
        model = (path.parent / os.path.expanduser(entry['model'])).resolve()
        if not model.is_file():
            raise FleetError(f"{at}: model file '{model}' does not exist")
        values = {key: entry[key] for key in ('parent', 'xyz', 'rpy', 'prefix') if key in entry}
        for key in ('xyz', 'rpy'):
            if key in values:
                if not isinstance(values[key], list) or len(values[key]) != 3 or not all(
                        isinstance(v, (int, float)) and not isinstance(v, bool)
                        for v in values[key]):
                    raise FleetError(f"{at}: '{key}' must be 3 numbers, got {values[key]!r}")
                values[key] = [float(v) for v in values[key]]
        parts[entry['name']] = (model, values)
    return parts


def _part_parameters(robot: FleetRobot) -> dict[str, Any]:
    """Return ``parts`` and the ``parts.<name>.*`` parameters of ``robot``."""
    parameters: dict[str, Any] = {}
    if robot.parts:
        parameters['parts'] = list(robot.parts)
    for name, (model, values) in robot.parts.items():
        # Expanded here whatever LoadNode's trust: the node's xacro settings are the model's.
        parameters[f'parts.{name}.description'] = _description(
            model, {'base_dir': str(model.parent)}, trusted=False)
        parameters.update((f'parts.{name}.{key}', value) for key, value in values.items())
    return parameters


def _description(model: Path, options: dict[str, Any], trusted: bool) -> str:
    """Return the text of ``model`` for the component: as it is (trusted) or expanded here."""
    text = model.read_text(encoding='utf-8')
    if trusted:
        return text
    registry = default_registry()
    parser = registry.select(text)
    declared = {option.name for option in registry.get(parser).options}
    try:
        _, published = registry.parse_published(
            text, parser, {k: v for k, v in options.items() if k in declared})
    except DescriptionError as err:
        raise FleetError(f'{model}: {err}') from None
    return published


def component_parameters(robot: FleetRobot, trusted: bool) -> dict[str, Any]:
    """
    Return the component's parameters for ``robot`` (see the module docstring).

    Raises :class:`FleetError` when its model does not parse.
    """
    parameters = dict(robot.parameters, frame_prefix=robot.frame_prefix)
    options = {'args': list(robot.xacro_args), 'base_dir': str(robot.model.parent),
               'package_paths': list(parameters.get('xacro.package_paths', []))}
    parameters['robot_description'] = _description(robot.model, options, trusted)
    parameters.update(_part_parameters(robot))
    if trusted:
        parameters.update({'xacro.base_dir': options['base_dir'],
                           'mjcf.base_dir': options['base_dir']})
        if robot.xacro_args:
            parameters['xacro.args'] = list(robot.xacro_args)
        return parameters
    parameters.pop('xacro.package_paths', None)   # used here; a file root LoadNode refuses
    return parameters


def load_requests(path: str | os.PathLike, trusted: bool,
                  node_name: str) -> list[tuple[FleetRobot, Any]]:
    """
    Return one ``composition_interfaces/LoadNode`` request per robot of the fleet file.

    For the fleet file ``path``, as ``fleet.launch.py`` sends them; raises
    :class:`FleetError` naming the robot and the key at fault. (ROS imported here: reading
    a fleet file needs none.)
    """
    from composition_interfaces.srv import LoadNode
    from rclpy.parameter import Parameter

    from .load_request import PACKAGE, PLUGIN  # imports rclpy
    requests = []
    for robot in read_fleet(path):
        parameters = []
        for name, value in component_parameters(robot, trusted).items():
            try:
                parameters.append(Parameter(name, value=value).to_parameter_msg())
            except Exception as err:  # rclpy: TypeError, ValueError, ...
                raise FleetError(f"{path}: robot '{robot.namespace}': parameter '{name}': "
                                 f'{value!r} is not a parameter value ({err})') from None
        requests.append((robot, LoadNode.Request(
            package_name=PACKAGE, plugin_name=PLUGIN, node_name=node_name,
            node_namespace=robot.namespace, parameters=parameters)))
    return requests
