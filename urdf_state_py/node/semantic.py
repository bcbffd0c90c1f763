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
The robot's SRDF in the node: MoveIt's default positions, named group states, passive joints.

* ``robot_description_semantic`` (parameter): the SRDF text. Empty: the node
  reads the ``robot_description_semantic`` topic instead (std_msgs/String,
  transient local, as ``move_group`` publishes it).
* ``initial_group_states`` (parameter): ``GROUP/STATE`` names applied in order
  over MoveIt's default positions, for what is published before any
  JointState (with ``publish_default_positions``).

An SRDF is read in the parser process (as a description is: time, memory and
size limits, no XML entities), then checked against the robot: one that
names a joint, link or group the robot does not have is refused with that
name, and the one in effect stays. Its passive joints (unsensed: nothing will
ever publish them) are left out of the joints /diagnostics reports as never
received. Only URDF joints get defaults (the virtual joint's transform, world
to robot, belongs to localization, not to this node).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TYPE_CHECKING

import numpy as np
from std_msgs.msg import String
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers.srdf import check_semantic, Semantic

from .params import ParamSpec
from .qos import DESCRIPTION_QOS

if TYPE_CHECKING:
    from urdf_state_py.core.robot_model import RobotModel

__all__ = ['SEMANTIC_PARAMETERS', 'SEMANTIC_TOPIC', 'SemanticInput', 'SemanticSetting',
           'apply_semantic', 'group_states_problem']

SEMANTIC_TOPIC = 'robot_description_semantic'


def group_states_problem(names: list[str]) -> str | None:
    """Why ``initial_group_states`` is malformed (each entry is ``GROUP/STATE``)."""
    for name in names:
        group, _, state = name.partition('/')
        if not group or not state:
            return f"'{name}' is not GROUP/STATE (e.g. 'arm/ready')"
    return None


SEMANTIC_PARAMETERS = (
    ParamSpec('robot_description_semantic', '',
              'The SRDF (MoveIt semantic description); empty: read the '
              'robot_description_semantic topic.'),
    ParamSpec('initial_group_states', [],
              "SRDF group states ('GROUP/STATE') applied in order over MoveIt's default "
              'positions, for the joints that never received a state.',
              check=group_states_problem),
)


@dataclass(frozen=True)
class SemanticSetting:
    """The SRDF in effect: where it came from and what it says (not yet tied to a model)."""

    origin: str          # 'parameter' or 'topic'
    semantic: Semantic

    def robot_model(self, model: Model) -> RobotModel:
        """
        Return MoveIt's model of ``model`` with this SRDF.

        Raises DescriptionError naming a mismatch.
        """
        from urdf_state_py.core.robot_model import RobotModel  # noqa: PLC0415 (see _group_states)
        return RobotModel(model, check_semantic(self.semantic, model))


def _group_states(robot: RobotModel, names: Sequence[str]) -> dict[str, float]:
    """
    Call :func:`~urdf_state_py.core.robot_model.group_state_positions`, imported on first use.

    A node without an SRDF never builds MoveIt's model, nor imports it at start-up.
    """
    from urdf_state_py.core.robot_model import group_state_positions  # noqa: PLC0415 - see above
    return group_state_positions(robot, names)


def apply_semantic(setting: SemanticSetting | None, parsed: Model,
                   variable_index: Mapping[str, int], defaults: np.ndarray,
                   group_states: Sequence[str], logger: Any) -> frozenset[str]:
    """
    Write the SRDF's initial positions into ``defaults``; the passive joints' names.

    A model the SRDF does not fit (a new URDF without its names) keeps the
    URDF's defaults and is logged: the description stays in force. A group
    state the SRDF lacks (one from the topic, checked only here) is logged and
    MoveIt's defaults apply without the states.
    """
    if setting is None:
        return frozenset()
    try:
        robot = setting.robot_model(parsed)
    except DescriptionError as err:
        logger.error(f'The SRDF (from the {setting.origin}) does not fit this robot, '
                     f'ignored: {err}')
        return frozenset()
    try:
        values = _group_states(robot, group_states)
    except DescriptionError as err:
        logger.error(f'initial_group_states not applied: {err}')
        values = _group_states(robot, ())
    for variable, value in values.items():
        if variable in variable_index:
            defaults[variable_index[variable]] = value
    return frozenset(robot.passive_joint_names)


class SemanticInput:
    """
    Where the SRDF comes from: the parameter, else the topic (read in the parser process).

    ``on_topic(setting)`` is called on the loader thread with an SRDF from the
    topic that is read and fits the current model (``parsed()``); the node
    then applies it as it applies a parameter.
    """

    def __init__(self, node: Any, loader: Any, guard: Any, parsed: Callable[[], Model | None],
                 parameter: Callable[[], str], on_topic: Callable[[SemanticSetting], None],
                 health: Any, now_ns: Callable[[], int]) -> None:
        """
        Subscribe to the SRDF topic of ``node``.

        ``parameter()``: the robot_description_semantic parameter in effect; ``health``
        counts a refused SRDF from the topic (as a refused description).
        """
        self._node, self._loader, self._guard = node, loader, guard
        self._health, self._now_ns = health, now_ns
        self._parsed = parsed
        self._parameter = parameter
        self._on_topic = on_topic
        self.from_topic: SemanticSetting | None = None
        self.topic = node.resolve_topic_name(SEMANTIC_TOPIC)
        self._subscription = node.create_subscription(
            String, SEMANTIC_TOPIC, guard.wrap(self.topic, self._on_raw), DESCRIPTION_QOS,
            raw=True)

    def setting(self, text: str, group_states: Sequence[str]) -> SemanticSetting | None:
        """
        Return the SRDF in effect once the parameter is ``text`` (empty: the topic's).

        It is checked against the current model; raises DescriptionError naming what does
        not fit.
        """
        if not text.strip():
            setting = self.from_topic
        else:
            setting = SemanticSetting('parameter', self._loader.read_semantic(text))
        parsed = self._parsed()
        if setting is not None and parsed is not None:
            _group_states(setting.robot_model(parsed), group_states)
        return setting

    def startup(self, text: str) -> SemanticSetting | None:
        """
        Return the start-up parameter's SRDF (checked once the model is built).

        A bad one is logged and ignored: the node still starts.
        """
        try:
            return self.setting(text, ())
        except DescriptionError as err:
            self._node.get_logger().error(f"Parameter 'robot_description_semantic' ignored: "
                                          f'{err}')
            return None

    def _on_raw(self, data: bytes) -> None:
        msg = self._guard.deserialize(self.topic, data, String)
        if msg is not None:
            self._loader.submit(lambda: self._load(msg.data))

    def _load(self, text: str) -> None:
        logger = self._node.get_logger()
        try:
            setting = SemanticSetting('topic', self._loader.read_semantic(text))
            parsed = self._parsed()
            if parsed is not None:
                setting.robot_model(parsed)
        except DescriptionError as err:
            reason = f"SRDF from topic '{self.topic}' refused: {err}"
            logger.error(reason)
            self._health.reject_description(err.kind, reason, self._now_ns())
            return
        self.from_topic = setting
        if self._parameter().strip():
            logger.info(f"SRDF from topic '{self.topic}' kept for later: parameter "
                        "'robot_description_semantic' is set and takes precedence")
            return
        self._on_topic(setting)
