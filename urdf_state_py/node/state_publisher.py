"""The ``urdf_state`` node: a drop-in replacement for robot_state_publisher.

The node is plumbing only: parameters, topics, a timer. Parsing lives in
:mod:`urdf_state_py.core.parsers`, the maths in :mod:`urdf_state_py.core.kinematics`,
joint-state merging/validation/rate limiting in :mod:`urdf_state_py.node.joint_states`
and message building in :mod:`urdf_state_py.node.tf_publishing`.

Topics (as robot_state_publisher):

* publishes ``robot_description`` (std_msgs/String, reliable, transient local,
  depth 1) at start and after each accepted change (not in topic mode);
* publishes ``/tf_static`` (reliable, transient local, depth 1): all fixed
  joints in one TFMessage, stamped now, re-sent on every model or prefix change;
* publishes ``/tf`` (reliable, volatile, depth 100): moving joints, stamped with
  the JointState's stamp;
* subscribes ``joint_states`` (sensor data QoS, overridable) and, with
  ``use_robot_description_topic``, ``robot_description``.

Parameters: see :data:`PARAMETERS` and the README.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import qos_profile_sensor_data
from rclpy.qos_overriding_options import QoSOverridingOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from urdf_state_py.core.errors import DescriptionError
from .diagnostics import DiagnosticsPublisher
from .fast_path import FastPath
from .guards import INTERNAL_ERROR, CallbackGuard
from .health import Health
from .joint_state_cdr import JointStateReader, MalformedJointState
from .joint_states import JointStateMerger, WarnOnce
from .loaded_model import LoadedModel
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model
from urdf_state_py.core import parsers as _parsers
from .params import declare, float_range
from .qos import DESCRIPTION_QOS, TF_QOS, TF_STATIC_QOS, quiet_publisher_events
from .spin import make_executor, spin_until_shutdown
from .tf_publishing import MovingTransforms, static_message

__all__ = ['UrdfStateNode', 'main', 'PARAMETERS', 'NODE_NAME']

NODE_NAME = 'urdf_state'
MAX_FREQUENCY = 1000.0
_NS = 1_000_000_000

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
}

# While publish_default_positions holds and nothing else reached /tf for this
# long, the joints still at their defaults are re-sent (late TF listeners).
_DEFAULTS_PERIOD_S = 1.0


class UrdfStateNode(Node):
    """robot_state_publisher's interface in Python; ``**kwargs`` go to :class:`rclpy.node.Node`."""

    def __init__(self, node_name: str = NODE_NAME, *, registry=None, **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self._registry = registry if registry is not None else _parsers.default_registry()
        self._lock = threading.RLock()
        self._loaded: LoadedModel | None = None
        self._topic_description: str | None = None
        self._last_tf_ns = 0
        self._clock_handle = self.get_clock().handle   # rcl clock: get_now() in every release
        self._health = Health()
        self._guard = CallbackGuard(self.get_logger, self._health, self._now_ns)

        # -- parameters ------------------------------------------------------
        self._use_topic = bool(declare(self, 'use_robot_description_topic',
                                       *PARAMETERS['use_robot_description_topic'],
                                       read_only=True))
        cfg: dict[str, Any] = {}
        for name, (default, text) in PARAMETERS.items():
            if name == 'use_robot_description_topic' or (
                    name == 'robot_description' and self._use_topic):
                continue
            rng = {'publish_frequency': float_range(0.0, MAX_FREQUENCY),
                   'diagnostics.stale_after': float_range(0.0, 3600.0)}.get(name)
            cfg[name] = declare(self, name, default, text, floating_point_range=rng)
        self._option_params: dict[str, tuple[str, str]] = {}  # param -> (parser, option)
        for pname in self._registry.names():
            for option in self._registry.get(pname).options:
                param = f'{pname}.{option.name}'
                cfg[param] = declare(self, param, option.default,
                                     option.description or f'{pname} parser option')
                self._option_params[param] = (pname, option.name)
        self._cfg = cfg
        problem = self._check_parser(cfg['parser'])
        if problem:
            self.get_logger().error(f"{problem}; using 'auto'")
            cfg['parser'] = 'auto'

        # -- topics ------------------------------------------------------------
        events = quiet_publisher_events()
        self._tf_pub = self.create_publisher(TFMessage, '/tf', TF_QOS, event_callbacks=events)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS,
                                                    event_callbacks=events)
        self._description_pub = None
        if not self._use_topic:
            self._description_pub = self.create_publisher(String, 'robot_description',
                                                          DESCRIPTION_QOS, event_callbacks=events)
        # raw: the callback gets the CDR bytes and reads what it needs (joint_state_cdr);
        # the description too, so that a malformed payload fails in our guard, not in rclpy.
        self._joint_state_reader = JointStateReader()
        self._joint_state_sub = self.create_subscription(
            JointState, 'joint_states', self._on_joint_state_raw, qos_profile_sensor_data,
            qos_overriding_options=QoSOverridingOptions.with_default_policies(), raw=True)
        self._joint_states_topic = self._joint_state_sub.topic_name
        self._description_sub = None
        if self._use_topic:
            self._description_sub = self.create_subscription(
                String, 'robot_description',
                self._guard.wrap(self._description_topic(), self._on_description_raw),
                DESCRIPTION_QOS, raw=True)
        self._diagnostics = DiagnosticsPublisher(
            self, self._health, self._guard, self._now_ns, events,
            view=lambda now_ns, stale_s: self._loaded and self._loaded.view(now_ns, stale_s),
            stale_after_s=lambda: self._cfg['diagnostics.stale_after'])
        self._defaults_timer = None
        self._update_defaults_timer()

        # -- first model ---------------------------------------------------------
        if self._use_topic:
            self.get_logger().info(
                f"Waiting for the robot description on topic '{self._description_topic()}'")
        elif not cfg['robot_description'].strip():
            self.get_logger().warning(
                "Parameter 'robot_description' is empty: waiting for a robot description "
                f"(set it, e.g. ros2 param set {self.get_fully_qualified_name()} "
                'robot_description "$(cat robot.urdf)")')
        else:
            try:
                self._install(self._build(cfg['robot_description'], cfg))
            except DescriptionError as err:
                self._rejected_description(err)
                self.get_logger().error(f'Invalid robot_description: {err}; waiting for a '
                                        'valid one')
        self.add_on_set_parameters_callback(self._guard.wrap(
            f'{self.get_fully_qualified_name()}/set_parameters', self._on_set_parameters,
            lambda err: SetParametersResult(successful=False, reason=f'{INTERNAL_ERROR}: {err}')))

    # -- public helpers -----------------------------------------------------------

    @property
    def model(self) -> Model | None:
        """The current model (None while waiting for a description)."""
        loaded = self._loaded
        return loaded.model if loaded else None

    @property
    def kinematics(self) -> Kinematics | None:
        """The current kinematics (None while waiting for a description)."""
        loaded = self._loaded
        return loaded.kinematics if loaded else None

    # -- building / installing a model ------------------------------------------

    def _description_topic(self) -> str:
        return self.resolve_topic_name('robot_description') \
            if hasattr(self, 'resolve_topic_name') else 'robot_description'

    def _parser_options(self, cfg: Mapping[str, Any], parser: str) -> dict[str, Any]:
        return {option: cfg[param] for param, (pname, option) in self._option_params.items()
                if pname == parser}

    def _build(self, description: str, cfg: Mapping[str, Any]) -> LoadedModel:
        """Parse and precompute everything for ``description``; raises DescriptionError."""
        parser = cfg['parser']
        if parser == 'auto':
            parser = self._registry.select(description)  # falls back to 'urdf'
        # published: what robot_description consumers read (xacro: the expanded URDF)
        model, published = self._registry.parse_published(
            description, parser, self._parser_options(cfg, parser))
        kin = Kinematics(model)
        merger = JointStateMerger(model, kin.variable_index, kin.default_positions(),
                                  frequency=cfg['publish_frequency'],
                                  ignore_timestamp=cfg['ignore_timestamp'])
        moving = MovingTransforms(kin, cfg['frame_prefix'])
        return LoadedModel(description=published, parser=parser, model=model, kinematics=kin,
                           merger=merger, fixed=kin.fixed_transforms(), moving=moving,
                           clamp_warned=WarnOnce(), fast=FastPath(merger, kin, moving))

    def _install(self, loaded: LoadedModel) -> None:
        """Swap in a fully built model, then announce it."""
        self._loaded = loaded
        self._joint_state_reader.max_names = loaded.merger.max_names
        self._health.new_model()
        self.get_logger().info(loaded.summary())
        if self._description_pub is not None:
            self._description_pub.publish(String(data=loaded.description))
        self._publish_static(loaded)
        if self._cfg['publish_default_positions']:
            self._publish_defaults(loaded)

    # -- publishing ------------------------------------------------------------------

    def _publish_static(self, loaded: LoadedModel) -> None:
        stamp = self.get_clock().now().to_msg()
        self._tf_static_pub.publish(static_message(loaded.fixed, self._cfg['frame_prefix'], stamp))

    def _publish_moving(self, loaded: LoadedModel, joints: tuple[str, ...], sec: int,
                        nanosec: int, now_ns: int, ignore_limits: bool) -> None:
        """Publish ``joints`` stamped ``sec``/``nanosec``; ``now_ns``: the node clock now."""
        q_eff, clamped = loaded.kinematics.resolve(loaded.merger.q, ignore_limits)
        loaded.fast.clean = not ignore_limits and not clamped
        if len(clamped):
            self._health.clamp(clamped, now_ns)
            self._warn_clamped(loaded, clamped)
        self._tf_pub.publish(loaded.moving.payload_at(joints, q_eff, sec, nanosec))
        self._last_tf_ns = now_ns
        self._health.tf_published += 1

    def _publish_defaults(self, loaded: LoadedModel) -> None:
        pending = loaded.merger.pending_joints()
        if pending:
            now_ns = self._now_ns()
            self._publish_moving(loaded, pending, now_ns // _NS, now_ns % _NS, now_ns,
                                 self._cfg['ignore_limits'])

    def _warn_clamped(self, loaded: LoadedModel, clamped) -> None:
        for name in loaded.clamp_warned.new(clamped):
            joint = loaded.model.joint_map[name]
            lim = joint.limits
            if joint.is_mimic:
                got = f"as mimic of '{joint.mimic.joint}'"
            else:
                index = loaded.kinematics.variable_index[joint.variable_names[0]]
                got = f'got {loaded.merger.q[index]:g}'
            self.get_logger().warning(
                f"Joint '{name}' is beyond its limits [{lim.lower:g}, {lim.upper:g}] "
                f'({got}): clamped (reported once per joint; set ignore_limits '
                'to publish values as given)')

    # -- callbacks ---------------------------------------------------------------------

    def _on_joint_state_raw(self, data: bytes) -> None:
        """The joint_states subscription's callback: a serialised JointState.

        ``loaded`` and ``cfg`` are read once, so one message sees one model
        and one configuration even if a parameter change swaps them meanwhile.
        A message that cannot be read (or fails in any way) is dropped and
        reported (see guards); the node keeps its state.
        """
        loaded = self._loaded
        if loaded is None:
            return
        cfg = self._cfg
        now_ns = self._now_ns()
        try:
            names, positions, sec, nanosec = self._joint_state_reader.read(data)
            if not cfg['publish_default_positions']:
                payload = loaded.fast.update(names, positions, sec * _NS + nanosec, now_ns,
                                             sec, nanosec, cfg['ignore_limits'])
                if payload is not None:  # handled (b'': rate-limited)
                    if payload:
                        self._tf_pub.publish(payload)
                        self._last_tf_ns = now_ns
                        self._health.tf_published += 1
                    return
            self._on_joint_state_fields(loaded, cfg, names, positions, sec, nanosec, now_ns)
        except MalformedJointState as err:
            self._guard.report(self._joint_states_topic, err.reason, str(err))
        except Exception as err:  # noqa: BLE001 - no message may end the node
            self._guard.report(self._joint_states_topic, INTERNAL_ERROR,
                               f'{type(err).__name__}: {err}')

    def _on_joint_state_fields(self, loaded: LoadedModel, cfg: Mapping[str, Any], names, positions,
                               sec: int, nanosec: int, now_ns: int) -> None:
        """The general path of a JointState (the raw callback tries the fast path first)."""
        update = loaded.merger.update(names, positions, sec * _NS + nanosec, now_ns,
                                      cfg['publish_default_positions'])
        for warning in update.warnings:
            self.get_logger().warning(warning)
        if update.error:
            self._guard.report(self._joint_states_topic, update.reason, update.error)
        if update.ignored:
            self._health.messages_with_unknown_names += 1
            self._guard.log(self._joint_states_topic, 'unknown names', update.ignored, now_ns)
        self._health.non_finite_values += update.non_finite
        if update.publish and update.joints:
            self._publish_moving(loaded, update.joints, sec, nanosec, now_ns,
                                 cfg['ignore_limits'])

    def _now_ns(self) -> int:
        """The node clock now, in ns (``get_clock().now()`` without building a Time)."""
        return self._clock_handle.get_now().nanoseconds

    def _update_defaults_timer(self) -> None:
        """The re-send timer exists only while publish_default_positions holds.

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
        if self._now_ns() - self._last_tf_ns >= _DEFAULTS_PERIOD_S * _NS:
            self._publish_defaults(loaded)

    def _rejected_description(self, err: DescriptionError) -> None:
        parser = getattr(err, 'parser', None)
        self._health.reject_description(f'{parser} parser' if parser else 'invalid',
                                        f'robot_description: {err}', self._now_ns())

    def _on_description_raw(self, data: bytes) -> None:
        """A serialised std_msgs/String on the description topic (malformed: dropped)."""
        msg = self._guard.deserialize(self._description_topic(), data, String)
        if msg is not None:
            self._on_description_topic(msg)

    def _on_description_topic(self, msg: String) -> None:
        with self._lock:
            try:
                loaded = self._build(msg.data, self._cfg)
            except DescriptionError as err:
                self._rejected_description(err)
                self.get_logger().error(
                    f'Failed to parse robot description from topic: {err} (keeping the '
                    + ('previous model)' if self._loaded else 'waiting for a valid one)'))
                return
            self._topic_description = msg.data
            self._install(loaded)

    def _check_parser(self, parser: str) -> str | None:
        names = list(self._registry.names())
        if parser == 'auto' or parser in names:
            return None
        return f"unknown parser '{parser}' (available: auto, {', '.join(names)})"

    def _on_set_parameters(self, params: list[Parameter]) -> SetParametersResult:
        with self._lock:
            try:
                self._apply(params)
            except _Rejected as rejected:
                return SetParametersResult(successful=False, reason=str(rejected))
            return SetParametersResult(successful=True)

    def _apply(self, params: list[Parameter]) -> None:
        """Validate the whole batch, then apply it; raises _Rejected naming the problem."""
        cfg = dict(self._cfg)
        changed = set()
        for param in params:
            if param.name not in cfg:
                continue  # not ours (e.g. use_sim_time)
            if param.type_ == Parameter.Type.NOT_SET:
                raise _Rejected(f"parameter '{param.name}' cannot be undeclared")
            value = param.value
            if isinstance(cfg[param.name], list):
                value = list(value)
            cfg[param.name] = value
            changed.add(param.name)
        if not changed:
            return
        if 'parser' in changed:
            problem = self._check_parser(cfg['parser'])
            if problem:
                raise _Rejected(problem)
        if 'publish_frequency' in changed and not 0.0 <= cfg['publish_frequency'] <= MAX_FREQUENCY:
            raise _Rejected(f'publish_frequency must be between 0.0 and {MAX_FREQUENCY} '
                            '(0 = no limit)')
        new_loaded = None
        if changed & ({'robot_description', 'parser'} | set(self._option_params)):
            if self._use_topic:
                description = self._topic_description or ''
            else:
                description = cfg['robot_description']
                if 'robot_description' in changed and not description.strip():
                    self._health.reject_description('empty', 'robot_description: empty',
                                                    self._now_ns())
                    raise _Rejected('Empty robot_description is not allowed')
            if description.strip():
                try:
                    new_loaded = self._build(description, cfg)
                except DescriptionError as err:
                    self._rejected_description(err)
                    self.get_logger().warning(f'Rejected the new settings: {err}')
                    raise _Rejected(str(err)) from None
        # Everything validated: apply.
        self._cfg = cfg
        if 'publish_default_positions' in changed:
            self._update_defaults_timer()
        if new_loaded is not None:
            self._install(new_loaded)
            return
        loaded = self._loaded
        if loaded is None:
            return
        throttle = loaded.merger.throttle
        throttle.frequency = cfg['publish_frequency']
        throttle.ignore_timestamp = cfg['ignore_timestamp']
        if 'frame_prefix' in changed:
            if cfg['frame_prefix'] != loaded.moving.frame_prefix:
                loaded = self._loaded = loaded.with_prefix(cfg['frame_prefix'])
            self._publish_static(loaded)
            if cfg['publish_default_positions']:
                self._publish_defaults(loaded)
        elif 'publish_default_positions' in changed and cfg['publish_default_positions']:
            self._publish_defaults(loaded)
        if 'ignore_limits' in changed:
            loaded.clamp_warned.reset()


class _Rejected(Exception):
    """A parameter change that must be refused; the message is the reason shown to the user."""


def main(args: list[str] | None = None) -> None:
    """Entry point of ``ros2 run urdf_state_py urdf_state``."""
    spin_until_shutdown(UrdfStateNode, args=args, executor=make_executor)


if __name__ == '__main__':
    main()
