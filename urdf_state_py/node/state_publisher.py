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
The ``urdf_state`` node: a drop-in replacement for robot_state_publisher.

The node is plumbing only: parameters, topics, a timer. Parsing lives in
:mod:`urdf_state_py.core.parsers`, the maths in :mod:`urdf_state_py.core.kinematics`,
joint-state merging/validation/rate limiting in
:mod:`urdf_state_py.node.tf_path.joint_state_merger` and message building in
:mod:`urdf_state_py.node.tf_path.tf_publishing`.

Topics (as robot_state_publisher):

* publishes ``robot_description`` (std_msgs/String, reliable, transient local,
  depth 1) at start and after each accepted change (not in topic mode);
* publishes ``/tf_static`` (reliable, transient local, depth 1): all fixed
  joints in one TFMessage, stamped now, re-sent on every model or prefix change;
* publishes ``/tf`` (reliable, volatile, depth 100): moving joints, stamped with
  the JointState's stamp;
* subscribes ``joint_states`` (sensor data QoS, overridable) and, with
  ``use_robot_description_topic``, ``robot_description``;
* with ``source_list`` (joint_state_publisher's job, see :mod:`.joint_state_publisher.sources`):
  subscribes the listed topics instead of ``joint_states`` and publishes the
  merged state on ``joint_states``.

Parameters: see :data:`urdf_state_py.node.params.PARAMETERS` and the README.
"""

from __future__ import annotations

from typing import Any

from rclpy.node import Node
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from urdf_state_py.core import parsers as _parsers
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model

from .description_loader import DescriptionLoader, LOADER_PARAMETERS, Source
from .diagnostics import DiagnosticsBoard, RobotStatus
from .guards import CallbackGuard
from .health import Health
from .joint_state_publisher.joint_settings import declare_joint_parameters
from .joint_state_publisher.sources import source_topics, SourceInput
from .param_services import ParameterServices
from .parameter_changes import ParameterChanges
from .params import declare_spec, node_parameters, PARAMETERS, start_up_parameters
from .part_settings import declare_part, declare_part_parameters
from .process.address_space import limit_address_space
from .process.runtime import Runtime
from .process.shutdown_signals import shutdown_requested
from .process.spin import make_executor, spin_until_shutdown
from .qos import DESCRIPTION_QOS, quiet_publisher_events, TF_QOS
from .robot_description import RobotDescription
from .semantic import SEMANTIC_PARAMETERS, SemanticInput
from .tf_path.joint_state_input import JointStateInput

__all__ = ['UrdfStateNode', 'main', 'PARAMETERS', 'NODE_NAME']  # PARAMETERS: re-exported

NODE_NAME = 'urdf_state'


class UrdfStateNode(Node):
    """
    robot_state_publisher's interface in Python; ``**kwargs`` go to :class:`rclpy.node.Node`.

    Its description in effect is a :class:`~.robot_description.RobotDescription`, its
    run-time parameter changes a :class:`~.parameter_changes.ParameterChanges`; this
    class builds them and the rest.
    """

    def __init__(self, node_name: str = NODE_NAME, *, registry=None,
                 hot_path: bool | None = None, runtime: Runtime | None = None,
                 trusted_start: bool = True, require_model: bool = False, **kwargs) -> None:
        """
        Start the node: parameters, topics, the first model.

        ``hot_path``: serve joint_states from a thread of its own (None: as
        ``URDF_STATE_HOT_PATH`` says, default on where rclpy allows; see hot_path).

        ``runtime``: what the process's robots share (None: this node's own, closed with
        it). ``trusted_start``: the start-up description is the operator's (all of xacro)
        rather than a run-time one. ``require_model``: an invalid start-up description
        raises :class:`DescriptionError` (the node is destroyed) instead of waiting.
        """
        # The parameter services run on a thread of their own (see param_services).
        serve_parameters = kwargs.pop('start_parameter_services', True)
        given = list(kwargs.get('parameter_overrides') or ())
        super().__init__(node_name, start_parameter_services=False, **kwargs)
        self._start_up = start_up_parameters(self, given)
        self._runtime = runtime if runtime is not None else Runtime()
        self._owns_runtime = runtime is None
        try:
            self._set_up(registry, hot_path, serve_parameters, trusted_start, require_model)
        except BaseException:
            # A failure (rclpy's own signal handler may have shut the context down
            # under us): nobody gets this node to destroy, and a thread of it left
            # running aborts the process as it exits (see threads). Every component
            # is held before its thread starts, so this stops all that started.
            self.destroy_node()
            raise

    def _set_up(self, registry, hot_path: bool | None, serve_parameters: bool,
                trusted_start: bool, require_model: bool) -> None:
        """Everything after rclpy's Node: parameters, topics, threads, the start-up model."""
        self._registry = registry if registry is not None else _parsers.default_registry()
        clock = self.get_clock().handle      # rcl clock: get_now() in every release
        self._now_ns = lambda: clock.get_now().nanoseconds
        self._health = Health()
        self._guard = CallbackGuard(self.get_logger, self._health, self._now_ns)

        # -- parameters (start-up values obey the run-time rules: see params.py) ------
        specs = node_parameters(self._registry, LOADER_PARAMETERS + SEMANTIC_PARAMETERS)
        use_topic = bool(declare_spec(self, specs['use_robot_description_topic'],
                                      self._start_up))
        cfg: dict[str, Any] = {}
        for name, spec in specs.items():
            if name == 'use_robot_description_topic' or (
                    name == 'robot_description' and use_topic):
                continue
            cfg[name] = declare_spec(self, spec, self._start_up)
        option_params: dict[str, tuple[str, str]] = {
            f'{p.name}.{o.name}': (p.name, o.name) for p in self._registry for o in p.options}
        cfg['joint_settings'] = declare_joint_parameters(self, self._start_up)  # zeros.* ...
        cfg['part_settings'] = declare_part_parameters(self, self._start_up, cfg['parts'],
                                                       trusted_start)
        self._loader = DescriptionLoader(self._registry, cfg, self.get_logger(),
                                         self._runtime.parsers)
        self._loader.on_rejected = lambda kind, reason: self._health.reject_description(
            kind, f'robot_description: {reason}', self._now_ns())
        startup_text = '' if use_topic else cfg['robot_description']
        # The start-up parse does not wait for a process to start (plain URDF: parsed
        # here, the worker started after it so as not to compete for the CPU; else
        # trusted: its process is replaced after it), nor does the next one.
        startup = Source(startup_text, trusted=trusted_start)
        here = bool(startup_text.strip()) and self._loader.parses_here(startup, cfg['parser'])
        if not here or cfg['robot_description_semantic'].strip():
            self._loader.prestart(trusted_first=trusted_start and bool(startup_text.strip())
                                  and not here)

        # -- topics ------------------------------------------------------------
        events = quiet_publisher_events()
        tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS, event_callbacks=events)
        self._description = description = RobotDescription(
            self, self._loader, cfg, health=self._health, guard=self._guard,
            now_ns=self._now_ns, option_params=option_params, publish_description=not use_topic,
            events=events)
        # (on_topic: called from the loader thread, once the node is built)
        semantic = SemanticInput(self, self._loader, self._guard, description.parsed,
                                 lambda: description.cfg['robot_description_semantic'],
                                 lambda setting: self._changes.on_semantic_topic(setting),
                                 self._health, self._now_ns)
        cfg['semantic'] = semantic.startup(cfg['robot_description_semantic'])   # in effect
        # The start-up model goes out before the rest is built (the JointState input's
        # native self-test among it): its /tf_static is what listeners wait for.
        description.load_start_up(startup, use_topic, require_model)
        self._loader.prestart()   # (started already unless the start-up parse was here)
        # joint_states -> /tf, on a thread of its own where possible (joint_state_input);
        # with source_list: the listed topics -> /tf and joint_states (sources).
        topics, warnings = source_topics(self, cfg['source_list'])
        for warning in warnings:
            self.get_logger().warning(warning)
        if cfg['source_list'] and not topics:
            self.get_logger().warning('source_list names no other topic than the output: '
                                      'reading joint_states, publishing no joint states')
        # integrate_velocity without source_list: joint_states through the merging path.
        integrate_plain = not topics and bool(cfg['integrate_velocity'])
        self._input = JointStateInput(self, tf_pub, description.current, self._guard,
                                      self._health, hot_path=hot_path,
                                      subscribe=not topics and not integrate_plain)
        description.attach(self._input)
        self._sources = None
        if topics or integrate_plain:
            self._sources = SourceInput(
                self, topics or [('joint_states', self.resolve_topic_name('joint_states'))],
                self._input,
                description.current, self._guard, hot_path=hot_path, output=not integrate_plain)
        # raw: a malformed description payload fails in our guard, not inside rclpy.
        self._description_sub = None
        if use_topic:
            self._description_sub = self.create_subscription(
                String, 'robot_description', self._guard.wrap(description.topic(),
                                                              description.on_raw),
                DESCRIPTION_QOS, raw=True)
        # /diagnostics: the process's board (the container's), else one of this node's own.
        self._status = RobotStatus(
            self, self._health, self._guard, self._now_ns, loaded=lambda: description.loaded,
            joint_input=self._input,
            stale_after_s=lambda: description.cfg['diagnostics.stale_after'])
        self._own_board = None if self._runtime.diagnostics is not None else \
            DiagnosticsBoard(self, self._runtime.ticker, self._guard, events)
        self._board = self._own_board if self._own_board is not None \
            else self._runtime.diagnostics
        self._board.add(self._status)
        description.update_defaults_timer()
        self._changes = ParameterChanges(description, self._input, self._sources, semantic,
                                         self._loader, specs, option_params, self._health,
                                         self._now_ns, self.get_logger(),
                                         lambda name: declare_part(self, name))
        self.add_on_set_parameters_callback(self._changes.on_set_parameters)
        self._parameter_services = None

        if description.loaded is not None and cfg['publish_default_positions']:
            description.publish_defaults(description.loaded)   # now that the input exists
        self._input.start()
        if self._sources is not None:
            self._sources.start(cfg['rate'])
        # The parameter services come last, as robot_state_publisher answers only once its
        # constructor has parsed: a client that sets a description as soon as they appear
        # is answered in that description's parse time, never after the start-up parse
        # or a parser process start (see docs/design.md, Start-up). Not once a signal has
        # come (rclpy's handler may have shut the context down: building them would fail,
        # and the node be destroyed, as quietly but later; see spin.MultiThreadedExecutor).
        if serve_parameters and self.context.ok() and not shutdown_requested():
            self._loader.wait_ready()
            self._parameter_services = ParameterServices(
                self, self._guard, own_thread=not self._runtime.shared_executor)
            self._parameter_services.start()

    def destroy_node(self) -> None:
        """
        Stop the node's threads, then the parameter services.

        In order: the diagnostics' and joint_states' threads, the loader (a parse in
        progress ends at once), then the parameter services.
        """
        board = getattr(self, '_board', None)   # None: __init__ failed early
        if board is not None:
            board.remove(self._status)
            if self._own_board is not None:
                self._own_board.close()
        for serving in (getattr(self, '_input', None), getattr(self, '_sources', None)):
            if serving is not None:
                serving.stop()
        loader = getattr(self, '_loader', None)
        if loader is not None:
            loader.close()
        services = getattr(self, '_parameter_services', None)
        self._parameter_services = None
        if services is not None:
            services.close()
        super().destroy_node()
        if self._owns_runtime:
            self._runtime.close()

    # -- public helpers -----------------------------------------------------------

    @property
    def description(self) -> RobotDescription:
        """Return the robot description in effect (its model, settings and lock)."""
        return self._description

    @property
    def joint_input(self) -> JointStateInput:
        """Return the JointState input: joint_states (or the sources' merge) -> /tf."""
        return self._input

    @property
    def model(self) -> Model | None:
        """Return the current model, or None while waiting for a description."""
        loaded = self._description.loaded
        return loaded.model if loaded else None

    @property
    def kinematics(self) -> Kinematics | None:
        """Return the current kinematics, or None while waiting for a description."""
        loaded = self._description.loaded
        return loaded.kinematics if loaded else None


def main(args: list[str] | None = None) -> None:
    """
    Entry point of ``ros2 run urdf_state_py urdf_state``.

    The address space gets its ceiling first (see address_space: rmw's service requests), outside
    the start-up that a Ctrl-C may interrupt; it is logged once the node has started (a
    process's first rclpy log call costs ~20 ms, which would delay the first /tf_static).
    """
    ceiling = limit_address_space()[1]

    def make_node() -> UrdfStateNode:
        node = UrdfStateNode()
        node.get_logger().info(ceiling)
        return node

    spin_until_shutdown(make_node, args=args, executor=make_executor)


if __name__ == '__main__':
    main()
