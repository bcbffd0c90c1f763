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
``urdf_state_container``: many robots' state publishers in one process, loaded as components.

rclpy has no component container, so no Python node can be composed with
``ros2 component load`` or launch_ros' ``ComposableNodeContainer``. This node
serves the standard composition services of ``composition_interfaces``, as
rclcpp_components' ComponentManager does (``~/_container/load_node``,
``~/_container/unload_node``, ``~/_container/list_nodes``), for one plugin:
``urdf_state_py::UrdfState``, the standalone ``urdf_state`` node itself. Each
loaded robot is a :class:`~urdf_state_py.node.state_publisher.UrdfStateNode`
with its own name, namespace, parameters and topics; what can be shared per
process is (:class:`~.runtime.Runtime`): the parser processes, the 1 Hz
diagnostics thread and the one ``/diagnostics`` array that carries every robot's
status (sent by the container node), and the executor, which serves every robot's
parameter services from its threads (``thread_num``).

LoadNode and UnloadNode run one at a time (one callback group); ListNodes
answers at once, also while a robot loads. A LoadNode that cannot be honoured
is answered ``success: false`` with the reason (see :mod:`.load_request`), and
leaves nothing loaded: an invalid start-up ``robot_description`` is refused with
the parser's message; an empty one loads and waits, as the standalone node does.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import sys
import threading
from typing import Any

from composition_interfaces.srv import ListNodes, LoadNode, UnloadNode
import rclpy
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import qos_profile_services_default, QoSProfile
from rclpy.utilities import remove_ros_args
from urdf_state_py.core import parsers as _parsers
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers.parser_pool import ParserPool

from .address_space import limit_address_space
from .fleet_file import FleetError, load_requests
from .load_request import IGNORED_EXTRA_ARGUMENTS, LoadRefused, PLUGIN, robot_options, RobotOptions
from .middleware_memory import lean_endpoints
from .remapping import check_rules, fully_qualified_name, remap_rules
from .runtime import Runtime
from .spin import MultiThreadedExecutor, spin_until_shutdown
from ..description_loader import LOADER_PARAMETERS
from ..diagnostics import DiagnosticsBoard
from ..guards import CallbackGuard
from ..health import Health
from ..params import declare_spec, node_parameters, ParamSpec
from ..qos import quiet_publisher_events
from ..state_publisher import NODE_NAME, UrdfStateNode

__all__ = ['CONTAINER_NAME', 'CONTAINER_PARAMETERS', 'UrdfStateContainer', 'main']

CONTAINER_NAME = 'urdf_state_container'
#: Parses running at once in the container's parser processes (see ParserPool).
PARSES_AT_ONCE = 2
#: Longest the executor waits before checking whether rclpy is still up [s].
SPIN_WINDOW_S = 5.0

CONTAINER_PARAMETERS = (
    ParamSpec('load_node.trusted', False,
              "A description that comes with a LoadNode request is the operator's (all of "
              'xacro, and the request may set description.* and xacro file roots); false: '
              'a run-time description, as one set with ros2 param set (read-only)',
              read_only=True),
    ParamSpec('load_node.max_robots', 64,
              'Most robots loaded at once; a LoadNode beyond it is refused (read-only)',
              read_only=True, bounds=(1, 10_000)),
    ParamSpec('fleet', '',
              'Fleet file whose robots are loaded before the composition services are '
              'offered (config/fleet.example.yaml); a bad entry ends the container (read-only)',
              read_only=True),
    ParamSpec('thread_num', 4,
              "Executor threads serving the robots' parameter services and the container's "
              '(read-only)', read_only=True, bounds=(2, 64)),
)


class UrdfStateContainer(Node):
    """The component container node (see the module docstring)."""

    def __init__(self, node_name: str = CONTAINER_NAME, *, global_args: Sequence[str] = (),
                 **kwargs: Any) -> None:
        """
        Build the container node.

        ``global_args``: the process's command line, whose remap rules a robot loaded
        with ``forward_global_arguments`` gets too (see :mod:`.remapping`).
        """
        super().__init__(node_name, **kwargs)
        settings = {spec.name: declare_spec(self, spec) for spec in CONTAINER_PARAMETERS}
        self.trusted: bool = settings['load_node.trusted']
        self.max_robots: int = settings['load_node.max_robots']
        self.thread_num: int = settings['thread_num']
        self._global_rules = remap_rules(global_args)
        self._registry = _parsers.default_registry()
        self._specs = node_parameters(self._registry, LOADER_PARAMETERS)
        self._robots: dict[int, UrdfStateNode] = {}
        self._robots_lock = threading.Lock()   # ListNodes reads while a load runs
        self._next_id = 1
        self._guard = CallbackGuard(self.get_logger, Health(),
                                    lambda: self.get_clock().now().nanoseconds)
        self.runtime = Runtime(parsers=ParserPool(size=PARSES_AT_ONCE), shared_executor=True)
        # Every robot's /diagnostics status in one array a second, from this node.
        self.runtime.diagnostics = DiagnosticsBoard(self, self.runtime.ticker, self._guard,
                                                    quiet_publisher_events())
        if settings['fleet']:
            try:
                self._load_fleet(settings['fleet'])
            except BaseException:
                self.destroy_node()   # unloads what the fleet loaded
                raise
        loading = MutuallyExclusiveCallbackGroup()
        queue = QoSProfile(depth=200, reliability=qos_profile_services_default.reliability,
                           durability=qos_profile_services_default.durability)
        self.create_service(LoadNode, '~/_container/load_node', self._answer(self._on_load),
                            qos_profile=queue, callback_group=loading)
        self.create_service(UnloadNode, '~/_container/unload_node',
                            self._answer(self._on_unload), qos_profile=queue,
                            callback_group=loading)
        self.create_service(ListNodes, '~/_container/list_nodes', self._answer(self._on_list),
                            callback_group=ReentrantCallbackGroup())
        self.get_logger().info(
            f"Component container for '{PLUGIN}': LoadNode "
            + ("trusted (load_node.trusted: descriptions are the operator's)" if self.trusted
               else 'not trusted (descriptions are run-time ones, see load_node.trusted)')
            + f', at most {self.max_robots} robots')

    # -- services ----------------------------------------------------------------------

    def _answer(self, handler):
        """
        Wrap ``handler`` to answer whatever it raises with ``success: false`` and the reason.

        A request from the network must never end the container.
        """
        def serve(request: Any, response: Any) -> Any:
            try:
                return handler(request, response)
            except Exception as err:  # see above
                reason = f'internal error: {type(err).__name__}: {err}'
                self._guard.report('_container', 'internal error', reason)
                if hasattr(response, 'success'):
                    response.success = False
                    response.error_message = reason
                return response
        return serve

    def _on_load(self, request: LoadNode.Request, response: LoadNode.Response):
        try:
            robot = self._load(request)
        except LoadRefused as refused:
            self.get_logger().error(f'LoadNode refused: {refused}')
            response.success, response.error_message = False, str(refused)
            return response
        unique_id, node = robot
        response.success = True
        response.full_node_name = node.get_fully_qualified_name()
        response.unique_id = unique_id
        return response

    def _load(self, request: LoadNode.Request) -> tuple[int, UrdfStateNode]:
        """
        Check every refusal first, then build the node.

        The refusals: the request, the name after remapping, the count. A refused request
        builds, registers and publishes nothing.
        """
        options = robot_options(request, self._specs, trusted=self.trusted,
                                default_name=NODE_NAME)
        name = self._free_name(options)
        with self._robots_lock:
            if len(self._robots) >= self.max_robots:
                raise LoadRefused(f'{len(self._robots)} robots are loaded, the most this '
                                  f'container takes (load_node.max_robots={self.max_robots})')
        try:
            node = UrdfStateNode(
                options.node_name, namespace=options.namespace, context=self.context,
                cli_args=options.cli_args, parameter_overrides=options.parameters,
                registry=self._registry, runtime=self.runtime, trusted_start=self.trusted,
                require_model=True, **options.node_kwargs)
        except DescriptionError as err:
            raise LoadRefused(f'robot_description: {err}') from None
        except Exception as err:  # what rcl refuses and remapping missed
            raise LoadRefused(f'{type(err).__name__}: {err}') from None
        if node.get_fully_qualified_name() != name:   # remapping's rules are rcl's
            node.destroy_node()
            raise LoadRefused(f'internal error: the node is named '
                              f"'{node.get_fully_qualified_name()}', not '{name}'")
        with self._robots_lock:
            unique_id, self._next_id = self._next_id, self._next_id + 1
            self._robots[unique_id] = node
        if options.log_level:
            node.get_logger().set_level(options.log_level)
        if options.ignored:
            node.get_logger().info(f'extra arguments that mean nothing for this node: '
                                   f"{', '.join(options.ignored)} (of "
                                   f"{', '.join(IGNORED_EXTRA_ARGUMENTS)})")
        if self.executor is not None:   # else: main adds it with the container
            self.executor.add_node(node)
        self.get_logger().info(f"Loaded '{name}' (unique_id {unique_id})")
        return unique_id, node

    def _load_fleet(self, path: str) -> None:
        """
        Load every robot of the fleet file, or none.

        Each entry is checked (its keys, its model, its request) before the first robot is
        built; raises :class:`FleetError`.
        """
        requests = load_requests(path, self.trusted, NODE_NAME)
        if len(requests) > self.max_robots:
            raise FleetError(f'{path}: {len(requests)} robots, more than this container '
                             f'takes (load_node.max_robots={self.max_robots})')
        for robot, request in requests:
            try:
                robot_options(request, self._specs, trusted=self.trusted, default_name=NODE_NAME)
            except LoadRefused as refused:
                raise FleetError(f"{path}: robot '{robot.namespace}': {refused}") from None
        for robot, request in requests:
            try:
                self._load(request)
            except LoadRefused as refused:
                raise FleetError(f"{path}: robot '{robot.namespace}': {refused}") from None

    def _free_name(self, options: RobotOptions) -> str:
        """
        Return the robot's fully qualified name after remapping (see :mod:`.remapping`).

        Refused when invalid, or taken by a loaded robot or by the container.
        """
        rules = remap_rules(options.cli_args)
        if options.node_kwargs.get('use_global_arguments'):
            rules += self._global_rules
        try:
            check_rules(rules)
            name = fully_qualified_name(options.node_name, options.namespace, rules)
        except Exception as err:  # rclpy's invalid name / rule exceptions
            raise LoadRefused(f'{type(err).__name__}: {err}') from None
        if name == self.get_fully_qualified_name():
            raise LoadRefused(f"'{name}' is the name of this container")
        with self._robots_lock:
            taken = next((i for i, n in self._robots.items()
                          if n.get_fully_qualified_name() == name), None)
        if taken is not None:
            raise LoadRefused(f"a node named '{name}' is loaded already (unique_id {taken})")
        return name

    def _on_unload(self, request: UnloadNode.Request, response: UnloadNode.Response):
        with self._robots_lock:
            node = self._robots.pop(request.unique_id, None)
        if node is None:
            response.success = False
            response.error_message = f'No node found with unique_id: {request.unique_id}'
            self.get_logger().warning(response.error_message)
            return response
        name = node.get_fully_qualified_name()
        self._remove(node)
        self.get_logger().info(f"Unloaded '{name}' (unique_id {request.unique_id})")
        response.success = True
        return response

    def _on_list(self, request: ListNodes.Request, response: ListNodes.Response):
        with self._robots_lock:
            robots = sorted(self._robots.items())
        response.unique_ids = [unique_id for unique_id, _ in robots]
        response.full_node_names = [node.get_fully_qualified_name() for _, node in robots]
        return response

    # -- robots ------------------------------------------------------------------------

    @property
    def robots(self) -> dict[int, UrdfStateNode]:
        """Return the loaded robots by unique id (a copy)."""
        with self._robots_lock:
            return dict(self._robots)

    def _remove(self, node: UrdfStateNode) -> None:
        """Take ``node`` out of the executor, then destroy it (its threads, services, topics)."""
        executor = self.executor
        if executor is not None:
            executor.remove_node(node)
        node.destroy_node()

    def destroy_node(self) -> None:
        """Unload every robot (newest first), then the shared resources, then the container."""
        self.runtime.stop_parsing()
        with self._robots_lock:
            robots = sorted(self._robots.items(), reverse=True)
            self._robots.clear()
        for _, node in robots:
            self._remove(node)
        self.runtime.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> None:
    """Entry point of ``ros2 run urdf_state_py urdf_state_container``."""
    argv = list(sys.argv if args is None else args)
    _help().parse_args(remove_ros_args(argv)[1:])   # --help: prints it, exits 0
    logger = rclpy.logging.get_logger(CONTAINER_NAME)
    logger.info(lean_endpoints())
    logger.info(limit_address_space()[1])
    built: list[UrdfStateContainer] = []

    def make_node() -> UrdfStateContainer:
        built.append(UrdfStateContainer(global_args=argv))
        return built[0]

    def make_executor() -> MultiThreadedExecutor:
        executor = MultiThreadedExecutor(num_threads=built[0].thread_num)
        for robot in built[0].robots.values():   # the fleet file's, loaded before it
            executor.add_node(robot)
        return executor

    # Long spin windows: an idle container's executor rebuilds the wait set of every robot
    # at the end of each window (~1.5 ms for 20 robots); a signal wakes it at once anyway.
    try:
        spin_until_shutdown(make_node, args=argv, step=lambda: SPIN_WINDOW_S,
                            executor=make_executor)
    except FleetError as err:
        logger.fatal(f'{err}; nothing loaded')
        raise SystemExit(1) from None


def _help() -> argparse.ArgumentParser:
    lines = [f'  {spec.name} (default {spec.default!r}): {spec.description}'
             for spec in CONTAINER_PARAMETERS]
    return argparse.ArgumentParser(
        prog=CONTAINER_NAME, usage=f'{CONTAINER_NAME} [-h] [--ros-args -p NAME:=VALUE ...]',
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"A component container for '{PLUGIN}' robots: many robots' state "
                    'publishers in one process, loaded with ros2 component load, launch_ros '
                    'or a fleet file. Serves ~/_container/load_node, unload_node and '
                    'list_nodes.',
        epilog='parameters:\n' + '\n'.join(lines) + '\n\nexample:\n'
               '  urdf_state_container --ros-args -p fleet:=config/fleet.example.yaml')


if __name__ == '__main__':
    main()
