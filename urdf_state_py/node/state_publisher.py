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

from collections.abc import Callable, Mapping
import contextlib
import threading
from typing import Any

from rcl_interfaces.msg import SetParametersResult
import rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from urdf_state_py.core import parsers as _parsers
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers.xacro_sandbox import arg_value_problem, TRUSTED

from .description_loader import DescriptionLoader, Loaded, LOADER_PARAMETERS, Source
from .diagnostics import DiagnosticsBoard, RobotStatus
from .guards import CallbackGuard, INTERNAL_ERROR
from .health import Health
from .joint_state_publisher.joint_settings import declare_joint_parameters, is_joint_parameter
from .joint_state_publisher.sources import source_topics, SourceInput
from .param_services import ParameterServices
from .params import declare_spec, node_parameters, PARAMETERS, start_up_parameters
from .process.address_space import limit_address_space
from .process.runtime import Runtime
from .process.shutdown_signals import on_shutdown_signal, shutdown_requested
from .process.spin import make_executor, spin_until_shutdown
from .qos import DESCRIPTION_QOS, quiet_publisher_events, TF_QOS, TF_STATIC_QOS
from .semantic import SEMANTIC_PARAMETERS, SemanticInput, SemanticSetting
from .tf_path.joint_state_input import JointStateInput
from .tf_path.tf_publishing import static_message

__all__ = ['UrdfStateNode', 'main', 'PARAMETERS', 'NODE_NAME']  # PARAMETERS: re-exported

NODE_NAME = 'urdf_state'
_NS = 1_000_000_000

# While publish_default_positions holds and nothing else reached /tf for this
# long, the joints still at their defaults are re-sent (late TF listeners).
_DEFAULTS_PERIOD_S = 1.0


#: Parser options that say which files a run-time description may read: set at launch.
_FILE_ROOTS = ('xacro.base_dir', 'xacro.package_paths')


class UrdfStateNode(Node):
    """robot_state_publisher's interface in Python; ``**kwargs`` go to :class:`rclpy.node.Node`."""

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
        self._lock = threading.RLock()
        self._loaded: Loaded | None = None
        self._source: Source | None = None   # the description in effect (or being waited on)
        clock = self.get_clock().handle      # rcl clock: get_now() in every release
        self._now_ns = lambda: clock.get_now().nanoseconds
        self._health = Health()
        self._guard = CallbackGuard(self.get_logger, self._health, self._now_ns)

        # -- parameters (start-up values obey the run-time rules: see params.py) ------
        self._specs = node_parameters(self._registry, LOADER_PARAMETERS + SEMANTIC_PARAMETERS)
        self._use_topic = bool(declare_spec(self, self._specs['use_robot_description_topic'],
                                            self._start_up))
        cfg: dict[str, Any] = {}
        for name, spec in self._specs.items():
            if name == 'use_robot_description_topic' or (
                    name == 'robot_description' and self._use_topic):
                continue
            cfg[name] = declare_spec(self, spec, self._start_up)
        self._option_params: dict[str, tuple[str, str]] = {
            f'{p.name}.{o.name}': (p.name, o.name) for p in self._registry for o in p.options}
        cfg['joint_settings'] = declare_joint_parameters(self, self._start_up)  # zeros.* ...
        self._cfg = cfg
        self._loader = DescriptionLoader(self._registry, cfg, self.get_logger(),
                                         self._runtime.parsers)
        self._loader.on_rejected = lambda kind, reason: self._health.reject_description(
            kind, f'robot_description: {reason}', self._now_ns())
        startup_text = '' if self._use_topic else cfg['robot_description']
        # The start-up parse does not wait for a process to start (plain URDF: parsed
        # here, the worker started after it so as not to compete for the CPU; else
        # trusted: its process is replaced after it), nor does the next one.
        startup = Source(startup_text, trusted=trusted_start)
        here = bool(startup_text.strip()) and self._loader.parses_here(startup, cfg['parser'])
        if not here or cfg['robot_description_semantic'].strip():
            self._loader.prestart(trusted_first=trusted_start and bool(startup_text.strip())
                                  and not here)
        self._semantic = SemanticInput(self, self._loader, self._guard,
                                       lambda: self._loaded and self._loaded.parsed,
                                       lambda: self._cfg['robot_description_semantic'],
                                       self._on_semantic_topic, self._health, self._now_ns)
        cfg['semantic'] = self._semantic.startup(cfg['robot_description_semantic'])

        # -- topics ------------------------------------------------------------
        events = quiet_publisher_events()
        self._tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS, event_callbacks=events)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS,
                                                    event_callbacks=events)
        self._description_pub = None
        if not self._use_topic:
            self._description_pub = self.create_publisher(String, 'robot_description',
                                                          DESCRIPTION_QOS, event_callbacks=events)
        # The start-up model goes out before the rest is built (the JointState input's
        # native self-test among it): its /tf_static is what listeners wait for.
        self._input: JointStateInput | None = None
        self._load_start_up(startup, require_model)
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
        current = lambda: (self._loaded, self._cfg)   # noqa: E731 - read on every JointState
        self._input = JointStateInput(self, self._tf_pub, current, self._guard, self._health,
                                      hot_path=hot_path, subscribe=not topics and not
                                      integrate_plain)
        self._sources = None
        if topics or integrate_plain:
            self._sources = SourceInput(
                self, topics or [('joint_states', self.resolve_topic_name('joint_states'))],
                self._input,
                current, self._guard, hot_path=hot_path, output=not integrate_plain)
        # raw: a malformed description payload fails in our guard, not inside rclpy.
        self._description_sub = None
        if self._use_topic:
            self._description_sub = self.create_subscription(
                String, 'robot_description',
                self._guard.wrap(self._description_topic(), self._on_description_raw),
                DESCRIPTION_QOS, raw=True)
        # /diagnostics: the process's board (the container's), else one of this node's own.
        self._status = RobotStatus(
            self, self._health, self._guard, self._now_ns, loaded=lambda: self._loaded,
            joint_input=self._input, stale_after_s=lambda: self._cfg['diagnostics.stale_after'])
        self._own_board = None if self._runtime.diagnostics is not None else \
            DiagnosticsBoard(self, self._runtime.ticker, self._guard, events)
        self._board = self._own_board if self._own_board is not None \
            else self._runtime.diagnostics
        self._board.add(self._status)
        self._defaults_timer = None
        self._update_defaults_timer()
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._parameter_services = None

        if self._loaded is not None and cfg['publish_default_positions']:
            self._publish_defaults(self._loaded)   # now that the JointState input exists
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

    def _load_start_up(self, startup: Source, require_model: bool) -> None:
        """
        Load and announce the first model (the operator's: trusted).

        Without one, say what the node waits for.
        """
        if self._use_topic:
            self.get_logger().info(
                f"Waiting for the robot description on topic '{self._description_topic()}'")
        elif not startup.text.strip():
            self.get_logger().warning(
                "Parameter 'robot_description' is empty: waiting for a robot description "
                f'(set it, e.g. ros2 param set {self.get_fully_qualified_name()} '
                'robot_description "$(cat robot.urdf)")')
        else:
            # Ctrl-C while it parses (a large description takes seconds) ends the parse.
            with self._lock, on_shutdown_signal(self._loader.cancel):
                self._source = startup
                try:
                    self._install(self._build(self._source, self._cfg))
                except DescriptionError as err:
                    if not shutdown_requested():
                        self._loader.rejected('the start-up parameter', err,
                                              keeping=False, waiting=not require_model)
                    if require_model:
                        raise

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
    def model(self) -> Model | None:
        """Return the current model, or None while waiting for a description."""
        loaded = self._loaded
        return loaded.model if loaded else None

    @property
    def kinematics(self) -> Kinematics | None:
        """Return the current kinematics, or None while waiting for a description."""
        loaded = self._loaded
        return loaded.kinematics if loaded else None

    # -- building / installing a model ------------------------------------------

    def _description_topic(self) -> str:
        return self.resolve_topic_name('robot_description') \
            if hasattr(self, 'resolve_topic_name') else 'robot_description'

    def _parser_options(self, cfg: Mapping[str, Any], parser: str) -> dict[str, Any]:
        return {option: cfg[param] for param, (pname, option) in self._option_params.items()
                if pname == parser}

    def _build(self, source: Source, cfg: Mapping[str, Any]) -> Loaded:
        """Parse and precompute everything for ``source``; raises DescriptionError."""
        return self._loader.build(source, cfg, lambda parser: self._parser_options(cfg, parser))

    def _install(self, loaded: Loaded) -> None:
        """
        Swap in a fully built model as one reference, then announce it.

        The announcing is not under the JointState lock: see :meth:`_swap` and
        :meth:`_announce`.
        """
        self._swap(loaded)
        self._announce(loaded)

    def _swap(self, loaded: Loaded) -> None:
        """
        Replace the loaded model by ``loaded``, fully built, under the JointState lock.

        So it happens between two JointStates: no /tf mixes two models.
        """
        self.get_logger().info(loaded.summary())
        # at start-up no JointState input exists yet: nothing to pause
        with self._input.lock if self._input is not None else contextlib.nullcontext():
            self._health.new_model()
            old, self._loaded = self._loaded, loaded
        self._loader.release_memory(old, loaded)

    def _announce(self, loaded: Loaded) -> None:
        """
        Publish the description, /tf_static and default positions of ``loaded``.

        This comes after its swap and outside the JointState lock: publishing a description
        of up to 64 MB and a /tf_static of thousands of transforms takes long enough that /tf
        would stop meanwhile (a /tf of the new model may thus precede its /tf_static).
        """
        if self._description_pub is not None:
            self._description_pub.publish(String(data=loaded.description))
        self._publish_static(loaded)
        if self._cfg['publish_default_positions'] and self._input is not None:
            self._publish_defaults(loaded)

    # -- publishing ------------------------------------------------------------------

    def _publish_static(self, loaded: Loaded) -> None:
        stamp = self.get_clock().now().to_msg()
        self._tf_static_pub.publish(static_message(loaded.fixed, self._cfg['frame_prefix'], stamp))

    def _publish_defaults(self, loaded: Loaded) -> None:
        with self._input.lock:
            self._input.publish_defaults(loaded, self._cfg['ignore_limits'])

    # -- callbacks ---------------------------------------------------------------------

    def _update_defaults_timer(self) -> None:
        """
        Keep the re-send timer only while publish_default_positions holds.

        Fewer entities make every executor cheaper (a wait set to rebuild per
        wake-up; EventsExecutor keeps a timer thread).
        """
        wanted = bool(self._cfg['publish_default_positions'])
        if wanted and self._defaults_timer is None:
            self._defaults_timer = self.create_timer(
                _DEFAULTS_PERIOD_S, self._guard.wrap('defaults timer', self._on_defaults_timer))
        elif not wanted and self._defaults_timer is not None:
            self.destroy_timer(self._defaults_timer)
            self._defaults_timer = None

    def _on_defaults_timer(self) -> None:
        loaded = self._loaded
        if loaded is None or not self._cfg['publish_default_positions']:
            return
        if self._input.now_ns() - self._input.last_tf_ns >= _DEFAULTS_PERIOD_S * _NS:
            self._publish_defaults(loaded)

    def _on_description_raw(self, data: bytes) -> None:
        """Handle a serialised std_msgs/String on the description topic (malformed: dropped)."""
        msg = self._guard.deserialize(self._description_topic(), data, String)
        if msg is not None:
            self._on_description_topic(msg)

    def _on_description_topic(self, msg: String) -> None:
        """Load a description from the topic on the loader thread, never on this one."""
        source = Source(msg.data, trusted=False)
        self._loader.submit(lambda: self._load_from_topic(source))

    def _load_from_topic(self, source: Source) -> None:
        with self._lock:
            try:
                loaded = self._build(source, self._cfg)
            except DescriptionError as err:
                self._loader.rejected(f"topic '{self._description_topic()}'", err,
                                      keeping=self._loaded is not None)
                return
            self._source = source
            self._install(loaded)

    def _on_semantic_topic(self, setting: SemanticSetting) -> None:
        """Apply an SRDF from the topic that fits the model, as a parameter change is."""
        with self._lock:
            cfg = dict(self._cfg, semantic=setting)
            loaded = self._loaded
            new_loaded = None if loaded is None or loaded.parsed is None else \
                self._loader.assemble(loaded.source, loaded.description, loaded.parser,
                                      loaded.parsed, cfg)
            with self._input.lock:
                if new_loaded is not None:
                    new_loaded.merger.adopt(loaded.merger)
                announce = self._commit(cfg, {'semantic'}, self._source, new_loaded)
            if announce is not None:
                announce()

    def _on_set_parameters(self, params: list[Parameter]) -> SetParametersResult:
        """Run on the parameter services' thread (see param_services), never on the executor's."""
        with self._lock:
            try:
                self._apply(params)
            except _Rejected as rejected:
                return SetParametersResult(successful=False, reason=str(rejected))
            except Exception as exc:  # noqa: BLE001 (a bug must not end the parameter services)
                reason = f'internal error while applying the change: {type(exc).__name__}: {exc}'
                self.get_logger().error(reason)
                self._health.reject_message(INTERNAL_ERROR, f'set_parameters: {reason}',
                                            self._now_ns())
                return SetParametersResult(successful=False, reason=reason)
            return SetParametersResult(successful=True)

    def _check_change(self, name: str, value: Any) -> None:
        """Check the rules for a value set at run time; raise _Rejected naming the problem."""
        problem = self._specs[name].problem(value)
        if problem:
            raise _Rejected(f"parameter '{name}': {problem}")
        if name == 'source_list':   # not read-only for rclpy: an empty list has no type
            raise _Rejected("parameter 'source_list' is set at start-up: the subscriptions "
                            'and the joint_states output are made once')
        if name == 'integrate_velocity' and value and self._sources is None:
            raise _Rejected("parameter 'integrate_velocity': with source_list empty, give it at "
                            'start-up (joint_states is then read by the path that integrates)')
        if name in _FILE_ROOTS and self._loader.runtime_policy != TRUSTED:
            raise _Rejected(f"parameter '{name}' is set at launch: it declares which files a "
                            'description set at run time may read (description.runtime_xacro'
                            ': full allows changing it)')
        if name == 'xacro.args':
            for item in value:
                problem = arg_value_problem(item)
                if problem:
                    raise _Rejected(problem)

    def _apply(self, params: list[Parameter]) -> None:
        """Validate the whole batch, then apply it; raises _Rejected naming the problem."""
        cfg = dict(self._cfg)
        changed = set()
        joint_updates = {}
        for param in params:
            if is_joint_parameter(param.name) and param.type_ != Parameter.Type.NOT_SET:
                joint_updates[param.name] = param.value
                continue
            if param.name not in cfg:
                continue  # not ours (e.g. use_sim_time)
            if param.type_ == Parameter.Type.NOT_SET:
                raise _Rejected(f"parameter '{param.name}' cannot be undeclared")
            value = param.value
            if isinstance(cfg[param.name], list):
                value = list(value)
            self._check_change(param.name, value)
            cfg[param.name] = value
            changed.add(param.name)
        semantic_names = sorted(changed & {'robot_description_semantic', 'initial_group_states'})
        if semantic_names:
            try:
                cfg['semantic'] = self._semantic.setting(cfg['robot_description_semantic'],
                                                         cfg['initial_group_states'])
            except DescriptionError as err:
                reason = f"parameter '{semantic_names[0]}': {err}"
                self._health.reject_description(err.kind, reason, self._now_ns())
                raise _Rejected(reason) from None
            changed.add('semantic')
        if joint_updates:
            try:
                cfg['joint_settings'] = cfg['joint_settings'].changed(joint_updates)
            except ValueError as err:
                raise _Rejected(str(err)) from None
            changed.add('joint_settings')
        if not changed:
            return
        reshaped = changed & _JOINT_SETTINGS
        loaded = self._loaded
        if reshaped and loaded is not None and loaded.parsed is not None:
            problem = cfg['joint_settings'].problem(loaded.parsed, cfg)
            if problem:
                raise _Rejected(problem)
        new_loaded = adopted = None
        source = self._source
        if changed & ({'robot_description', 'parser'} | set(self._option_params)):
            if 'robot_description' in changed:
                if not cfg['robot_description'].strip():
                    self._health.reject_description('empty', 'robot_description: empty',
                                                    self._now_ns())
                    raise _Rejected('Empty robot_description is not allowed')
                source = Source(cfg['robot_description'], trusted=False)
            if source is not None and source.text.strip():
                try:
                    new_loaded = self._build(source, cfg)
                except DescriptionError as err:
                    raise _Rejected(self._loader.rejected(
                        'a parameter change', err, keeping=self._loaded is not None)) from None
        elif reshaped - {'integrate_velocity'} and loaded is not None and \
                loaded.parsed is not None:
            new_loaded = self._loader.assemble(loaded.source, loaded.description, loaded.parser,
                                               loaded.parsed, cfg)
            adopted = loaded.merger
        with self._input.lock:  # everything validated: apply, between two JointStates
            if adopted is not None:   # the values received so far, none changing meanwhile
                new_loaded.merger.adopt(adopted)
            announce = self._commit(cfg, changed, source, new_loaded)
        if announce is not None:
            announce()

    def _commit(self, cfg: dict[str, Any], changed: set[str], source: Source | None,
                new_loaded: Loaded | None) -> Callable[[], None] | None:
        """
        Apply a validated batch of parameters (under the JointState lock).

        Return what to publish once the lock is released, if anything.
        """
        self._cfg = cfg
        self._source = source
        if 'publish_default_positions' in changed:
            self._update_defaults_timer()
        if 'rate' in changed and self._sources is not None:
            self._sources.set_rate(cfg['rate'])
        if new_loaded is not None:
            self._swap(new_loaded)
            return lambda: self._announce(new_loaded)
        loaded = self._loaded
        if loaded is None:
            return None
        throttle = loaded.merger.throttle
        throttle.frequency = cfg['publish_frequency']
        throttle.ignore_timestamp = cfg['ignore_timestamp']
        republish = 'frame_prefix' in changed or (
            'publish_default_positions' in changed and cfg['publish_default_positions'])
        announce = None
        if republish:
            # Fresh /tf buffers (and frame ids): written here, then swapped in.
            loaded = loaded.with_prefix(cfg['frame_prefix'])
            if cfg['publish_default_positions']:
                self._publish_defaults(loaded)
            self._loaded = loaded
            if 'frame_prefix' in changed:
                announce = lambda: self._publish_static(loaded)  # noqa: E731 - run unlocked
        if 'ignore_limits' in changed:
            loaded.clamp_warned.reset()
        return announce


#: Settings that shape the model or its defaults (checked against it, see joint_settings).
_JOINT_SETTINGS = frozenset({'joint_settings', 'use_smallest_joint_limits', 'integrate_velocity',
                             'semantic'})


class _Rejected(Exception):
    """A parameter change that must be refused; the message is the reason shown to the user."""


def main(args: list[str] | None = None) -> None:
    """
    Entry point of ``ros2 run urdf_state_py urdf_state``.

    The address space gets its ceiling first (see address_space: rmw's service requests), outside
    the start-up that a Ctrl-C may interrupt.
    """
    rclpy.logging.get_logger('urdf_state').info(limit_address_space()[1])
    spin_until_shutdown(UrdfStateNode, args=args, executor=make_executor)


if __name__ == '__main__':
    main()
