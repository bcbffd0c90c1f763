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
The robot description in effect of a node: loaded, swapped in, announced.

It owns what the JointState input reads on every message (the model and the
settings in effect) and the lock that orders description and parameter changes.
A description is built off the JointState lock, swapped in under it, then
announced on ``robot_description``, ``/tf_static`` and (publish_default_positions)
``/tf`` outside it. :mod:`.parameter_changes` applies its batches through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import contextlib
import threading
from typing import Any

from rclpy.node import Node
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.model import Model

from .description_loader import DescriptionLoader, Loaded, Source
from .guards import CallbackGuard
from .health import Health
from .process.shutdown_signals import on_shutdown_signal, shutdown_requested
from .qos import DESCRIPTION_QOS, TF_STATIC_QOS
from .tf_path.joint_state_input import JointStateInput
from .tf_path.tf_publishing import static_message

__all__ = ['RobotDescription']

_NS = 1_000_000_000

# While publish_default_positions holds and nothing else reached /tf for this
# long, the joints still at their defaults are re-sent (late TF listeners).
_DEFAULTS_PERIOD_S = 1.0


class RobotDescription:
    """
    The model and settings in effect of ``node``, and their announcing.

    ``cfg``: the parameters in effect (replaced whole by :meth:`apply`);
    ``option_params``: ``'<parser>.<option>'`` -> (parser, option) for the parsers'
    own parameters; ``publish_description``: announce on ``robot_description``
    (not when the description comes from that topic).
    """

    def __init__(self, node: Node, loader: DescriptionLoader, cfg: dict[str, Any], *,
                 health: Health, guard: CallbackGuard, now_ns: Callable[[], int],
                 option_params: Mapping[str, tuple[str, str]], publish_description: bool,
                 events: Any) -> None:
        """Create the /tf_static and (``publish_description``) robot_description publishers."""
        self._node, self._loader, self._health, self._guard = node, loader, health, guard
        self._now_ns = now_ns
        self._option_params = option_params
        self.lock = threading.RLock()   # one description or parameter change at a time
        self._cfg = cfg
        self._loaded: Loaded | None = None
        self._source: Source | None = None   # the description in effect (or being waited on)
        self._input: JointStateInput | None = None   # none yet at start-up
        self._tf_static_pub = node.create_publisher(TFMessage, '/tf_static', TF_STATIC_QOS,
                                                    event_callbacks=events)
        self._description_pub = None
        if publish_description:
            self._description_pub = node.create_publisher(
                String, 'robot_description', DESCRIPTION_QOS, event_callbacks=events)
        self._defaults_timer = None

    # -- what is in effect -------------------------------------------------------------

    @property
    def cfg(self) -> Mapping[str, Any]:
        """Return the parameters in effect."""
        return self._cfg

    @property
    def loaded(self) -> Loaded | None:
        """Return the model in effect, or None while waiting for a description."""
        return self._loaded

    @property
    def source(self) -> Source | None:
        """Return the description in effect (or waited on): what a parser change re-parses."""
        return self._source

    def current(self) -> tuple[Loaded | None, Mapping[str, Any]]:
        """Return ``(loaded, cfg)``, read by the JointState input on every message."""
        return self._loaded, self._cfg

    def parsed(self) -> Model | None:
        """Return the model in effect as parsed, before the joint settings (None: none)."""
        loaded = self._loaded
        return loaded.parsed if loaded else None

    def attach(self, joint_input: JointStateInput) -> None:
        """Pause ``joint_input`` for each swap and publish default positions through it."""
        self._input = joint_input

    def topic(self) -> str:
        """Return the resolved name of the ``robot_description`` topic."""
        return self._node.resolve_topic_name('robot_description')

    # -- loading -----------------------------------------------------------------------

    def load_start_up(self, startup: Source, use_topic: bool, require_model: bool) -> None:
        """
        Load and announce the first model (the operator's: trusted).

        Without one, say what the node waits for.
        """
        logger = self._node.get_logger()
        if use_topic:
            logger.info(f"Waiting for the robot description on topic '{self.topic()}'")
        elif not startup.text.strip():
            logger.warning(
                "Parameter 'robot_description' is empty: waiting for a robot description "
                f'(set it, e.g. ros2 param set {self._node.get_fully_qualified_name()} '
                'robot_description "$(cat robot.urdf)")')
        else:
            # Ctrl-C while it parses (a large description takes seconds) ends the parse.
            with self.lock, on_shutdown_signal(self._loader.cancel):
                self._source = startup
                try:
                    self._install(self.build(startup, self._cfg))
                except DescriptionError as err:
                    if not shutdown_requested():
                        self._loader.rejected('the start-up parameter', err,
                                              keeping=False, waiting=not require_model)
                    if require_model:
                        raise

    def build(self, source: Source, cfg: Mapping[str, Any]) -> Loaded:
        """Parse and precompute everything for ``source``; raises DescriptionError."""
        return self._loader.build(source, cfg, lambda parser: self._parser_options(cfg, parser))

    def recompose(self, loaded: Loaded, cfg: Mapping[str, Any]) -> Loaded:
        """Return ``loaded``'s base with the parts of ``cfg``; raises DescriptionError."""
        return self._loader.recompose(loaded, cfg,
                                      lambda parser: self._parser_options(cfg, parser))

    def _parser_options(self, cfg: Mapping[str, Any], parser: str) -> dict[str, Any]:
        return {option: cfg[param] for param, (pname, option) in self._option_params.items()
                if pname == parser}

    def on_raw(self, data: bytes) -> None:
        """Handle a serialised std_msgs/String on the description topic (malformed: dropped)."""
        msg = self._guard.deserialize(self.topic(), data, String)
        if msg is not None:
            source = Source(msg.data, trusted=False)   # loaded on the loader thread
            self._loader.submit(lambda: self._load_from_topic(source))

    def _load_from_topic(self, source: Source) -> None:
        with self.lock:
            try:
                loaded = self.build(source, self._cfg)
            except DescriptionError as err:
                self._loader.rejected(f"topic '{self.topic()}'", err,
                                      keeping=self._loaded is not None)
                return
            self._source = source
            self._install(loaded)

    # -- swapping and announcing ---------------------------------------------------------

    def _install(self, loaded: Loaded) -> None:
        """Swap in a fully built model as one reference, then announce it (unlocked)."""
        self._swap(loaded)
        self._announce(loaded)

    def _swap(self, loaded: Loaded) -> None:
        """
        Replace the loaded model by ``loaded``, fully built, under the JointState lock.

        So it happens between two JointStates: no /tf mixes two models.
        """
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
            self.publish_defaults(loaded)
        # After the publications: a process's first rclpy log call costs ~20 ms (its caller
        # lookup, inspect.getframeinfo, scans every loaded module), which would delay the
        # first /tf_static at start-up.
        self._node.get_logger().info(loaded.summary())

    def apply(self, cfg: dict[str, Any], changed: set[str], source: Source | None,
              new_loaded: Loaded | None) -> Callable[[], None] | None:
        """
        Put a validated batch of parameters in effect (under the JointState lock).

        ``new_loaded``: the model it built, if any. Return what to publish once the lock
        is released, if anything.
        """
        self._cfg = cfg
        self._source = source
        if 'publish_default_positions' in changed:
            self.update_defaults_timer()
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
                self.publish_defaults(loaded)
            self._loaded = loaded
            if 'frame_prefix' in changed:
                announce = lambda: self._publish_static(loaded)  # noqa: E731 - run unlocked
        if 'ignore_limits' in changed:
            loaded.clamp_warned.reset()
        return announce

    def _publish_static(self, loaded: Loaded) -> None:
        stamp = self._node.get_clock().now().to_msg()
        self._tf_static_pub.publish(static_message(loaded.fixed, self._cfg['frame_prefix'], stamp))

    def publish_defaults(self, loaded: Loaded) -> None:
        """Publish the default positions of ``loaded`` on /tf (between two JointStates)."""
        with self._input.lock:
            self._input.publish_defaults(loaded, self._cfg['ignore_limits'])

    # -- re-sending the defaults -----------------------------------------------------------

    def update_defaults_timer(self) -> None:
        """
        Keep the re-send timer only while publish_default_positions holds.

        Fewer entities make every executor cheaper (a wait set to rebuild per
        wake-up; EventsExecutor keeps a timer thread).
        """
        wanted = bool(self._cfg['publish_default_positions'])
        if wanted and self._defaults_timer is None:
            self._defaults_timer = self._node.create_timer(
                _DEFAULTS_PERIOD_S, self._guard.wrap('defaults timer', self._on_defaults_timer))
        elif not wanted and self._defaults_timer is not None:
            self._node.destroy_timer(self._defaults_timer)
            self._defaults_timer = None

    def _on_defaults_timer(self) -> None:
        loaded = self._loaded
        if loaded is None or not self._cfg['publish_default_positions']:
            return
        if self._input.now_ns() - self._input.last_tf_ns >= _DEFAULTS_PERIOD_S * _NS:
            self.publish_defaults(loaded)
