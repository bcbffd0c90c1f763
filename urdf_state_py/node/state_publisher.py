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
from dataclasses import dataclass, replace
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from urdf_state_py.core.errors import DescriptionError
from .fast_path import FastPath
from .joint_state_input import JointStateInput
from .joint_states import JointStateMerger, WarnOnce
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Model
from urdf_state_py.core import parsers as _parsers
from .params import declare, float_range
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
}

_DESCRIPTION_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                              reliability=ReliabilityPolicy.RELIABLE,
                              durability=DurabilityPolicy.TRANSIENT_LOCAL)
_TF_STATIC_QOS = _DESCRIPTION_QOS


def _quiet_publisher_events():
    """Publisher event callbacks without rclpy's default handlers (None where unsupported).

    By default rclpy adds two QoS event handlers per publisher (incompatible
    QoS, incompatible type), each one more entity in the default executor's
    wait set, rebuilt on every wake-up (~7 us per entity and JointState). Our
    publishers offer the most permissive QoS of their topics (reliable;
    transient local for /tf_static and robot_description), so their handlers
    would have little to report; the joint_states subscription (QoS
    overridable by parameters) keeps its handlers.
    """
    try:
        from rclpy.event_handler import PublisherEventCallbacks
    except ImportError:  # Humble
        from rclpy.qos_event import PublisherEventCallbacks
    try:
        return PublisherEventCallbacks(use_default_callbacks=False)
    except TypeError:  # pragma: no cover - a release without the option: keep the defaults
        return None


_TF_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)

# While publish_default_positions holds and nothing else reached /tf for this
# long, the joints still at their defaults are re-sent (late TF listeners).
_DEFAULTS_PERIOD_S = 1.0


@dataclass
class _Loaded:
    """Everything derived from one accepted description; swapped as one reference."""

    description: str         # as published on robot_description (xacro: expanded)
    parser: str
    model: Model
    kinematics: Kinematics
    merger: JointStateMerger
    fixed: Any               # JointTransforms of the fixed joints (constant)
    moving: MovingTransforms
    clamp_warned: WarnOnce
    fast: FastPath           # the common case of a JointState, fused (see fast_path)

    def summary(self) -> str:
        m = self.model
        movable = len(m.movable_joint_names)
        return (f"Robot '{m.name}' loaded with parser '{self.parser}': {len(m.links)} links, "
                f'{len(m.joints)} joints ({movable} movable of which '
                f'{len(m.mimic_joint_names)} mimic, {len(m.joints) - movable} fixed), '
                f"root '{m.root}'")


class UrdfStateNode(Node):
    """robot_state_publisher's interface in Python; ``**kwargs`` go to :class:`rclpy.node.Node`."""

    def __init__(self, node_name: str = NODE_NAME, *, registry=None,
                 hot_path: bool | None = None, **kwargs) -> None:
        """``hot_path``: serve joint_states from a thread of its own (None: as
        ``URDF_STATE_HOT_PATH`` says, default on where rclpy allows; see hot_path)."""
        super().__init__(node_name, **kwargs)
        self._registry = registry if registry is not None else _parsers.default_registry()
        self._lock = threading.RLock()
        self._loaded: _Loaded | None = None
        self._topic_description: str | None = None

        # -- parameters ------------------------------------------------------
        self._use_topic = bool(declare(self, 'use_robot_description_topic',
                                       *PARAMETERS['use_robot_description_topic'],
                                       read_only=True))
        cfg: dict[str, Any] = {}
        for name, (default, text) in PARAMETERS.items():
            if name == 'use_robot_description_topic' or (
                    name == 'robot_description' and self._use_topic):
                continue
            rng = float_range(0.0, MAX_FREQUENCY) if name == 'publish_frequency' else None
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
        events = _quiet_publisher_events()
        self._tf_pub = self.create_publisher(TFMessage, '/tf', _TF_QOS, event_callbacks=events)
        self._tf_static_pub = self.create_publisher(TFMessage, '/tf_static', _TF_STATIC_QOS,
                                                    event_callbacks=events)
        self._description_pub = None
        if not self._use_topic:
            self._description_pub = self.create_publisher(String, 'robot_description',
                                                          _DESCRIPTION_QOS, event_callbacks=events)
        # joint_states -> /tf, on a thread of its own where possible (joint_state_input).
        self._input = JointStateInput(self, self._tf_pub, lambda: (self._loaded, self._cfg),
                                      hot_path=hot_path)
        self._description_sub = None
        if self._use_topic:
            self._description_sub = self.create_subscription(
                String, 'robot_description', self._on_description_topic, _DESCRIPTION_QOS)
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
                self.get_logger().error(f'Invalid robot_description: {err}; waiting for a '
                                        'valid one')
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self._input.start()

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

    def _build(self, description: str, cfg: Mapping[str, Any]) -> _Loaded:
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
        warned = WarnOnce()
        return _Loaded(description=published, parser=parser, model=model, kinematics=kin,
                       merger=merger, fixed=kin.fixed_transforms(), moving=moving,
                       clamp_warned=warned, fast=FastPath(merger, kin, moving, warned))

    @staticmethod
    def _with_prefix(loaded: _Loaded, frame_prefix: str) -> _Loaded:
        """``loaded`` publishing under ``frame_prefix``: swapped in as one reference, like a
        new model, so a JointState callback running meanwhile keeps a consistent whole.

        The merger (joint values, rate-limit marks) and the clamp warnings carry over;
        only what holds frame ids is new. The new fast path starts not ``clean``: the
        next JointState takes the general path, which re-establishes it.
        """
        moving = MovingTransforms(loaded.kinematics, frame_prefix)
        return replace(loaded, moving=moving,
                       fast=FastPath(loaded.merger, loaded.kinematics, moving,
                                     loaded.clamp_warned))

    def _install(self, loaded: _Loaded) -> None:
        """Swap in a fully built model, then announce it."""
        with self._input.lock:  # between two JointStates
            self._loaded = loaded
        self.get_logger().info(loaded.summary())
        if self._description_pub is not None:
            self._description_pub.publish(String(data=loaded.description))
        self._publish_static(loaded)
        if self._cfg['publish_default_positions']:
            self._publish_defaults(loaded)

    def destroy_node(self) -> None:
        """Stop the joint_states thread first: it must not outlive the node's entities."""
        self._input.stop()
        super().destroy_node()

    # -- publishing ------------------------------------------------------------------

    def _publish_static(self, loaded: _Loaded) -> None:
        stamp = self.get_clock().now().to_msg()
        self._tf_static_pub.publish(static_message(loaded.fixed, self._cfg['frame_prefix'], stamp))

    def _publish_defaults(self, loaded: _Loaded) -> None:
        with self._input.lock:
            self._input.publish_defaults(loaded, self._cfg['ignore_limits'])

    # -- callbacks ---------------------------------------------------------------------

    def _update_defaults_timer(self) -> None:
        """The re-send timer exists only while publish_default_positions holds.

        Fewer entities make every executor cheaper (a wait set to rebuild per
        wake-up; EventsExecutor keeps a timer thread).
        """
        wanted = bool(self._cfg['publish_default_positions'])
        if wanted and self._defaults_timer is None:
            self._defaults_timer = self.create_timer(_DEFAULTS_PERIOD_S, self._on_defaults_timer)
        elif not wanted and self._defaults_timer is not None:
            self.destroy_timer(self._defaults_timer)
            self._defaults_timer = None

    def _on_defaults_timer(self) -> None:
        loaded = self._loaded
        if loaded is None or not self._cfg['publish_default_positions']:
            return
        if self._input.now_ns() - self._input.last_tf_ns >= _DEFAULTS_PERIOD_S * _NS:
            self._publish_defaults(loaded)

    def _on_description_topic(self, msg: String) -> None:
        with self._lock:
            try:
                loaded = self._build(msg.data, self._cfg)
            except DescriptionError as err:
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
                    raise _Rejected('Empty robot_description is not allowed')
            if description.strip():
                try:
                    new_loaded = self._build(description, cfg)
                except DescriptionError as err:
                    self.get_logger().warning(f'Rejected the new settings: {err}')
                    raise _Rejected(str(err)) from None
        with self._input.lock:  # everything validated: apply, between two JointStates
            self._commit(cfg, changed, new_loaded)

    def _commit(self, cfg: dict[str, Any], changed: set[str], new_loaded: _Loaded | None) -> None:
        """Apply a validated batch of parameters (under the JointState lock)."""
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
                loaded = self._loaded = self._with_prefix(loaded, cfg['frame_prefix'])
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
