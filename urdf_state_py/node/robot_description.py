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
The robot description of :class:`~.state_publisher.UrdfStateNode`: loaded, swapped in, announced.

A mixin of the node, as its state is the node's (one lock, one configuration, one
model in effect, read by the JointState input on every message): the description
comes from the parameter at start-up or from the ``robot_description`` topic, is
built off the JointState lock, swapped in under it, then announced on
``robot_description``, ``/tf_static`` and (publish_default_positions) ``/tf``
outside it. :mod:`.parameter_changes` uses the same building and swapping.
"""

from __future__ import annotations

from collections.abc import Mapping
import contextlib
from typing import Any

from std_msgs.msg import String
from urdf_state_py.core.errors import DescriptionError

from .description_loader import Loaded, Source
from .process.shutdown_signals import on_shutdown_signal, shutdown_requested
from .tf_path.tf_publishing import static_message

__all__ = ['RobotDescriptionMixin']

_NS = 1_000_000_000

# While publish_default_positions holds and nothing else reached /tf for this
# long, the joints still at their defaults are re-sent (late TF listeners).
_DEFAULTS_PERIOD_S = 1.0


class RobotDescriptionMixin:
    """Loading, swapping and announcing the node's model (see the module docstring)."""

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
        # After the publications: a process's first rclpy log call costs ~20 ms (its caller
        # lookup, inspect.getframeinfo, scans every loaded module), which would delay the
        # first /tf_static at start-up.
        self.get_logger().info(loaded.summary())

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
