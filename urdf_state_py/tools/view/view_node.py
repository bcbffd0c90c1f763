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
The view's ROS side.

robot_description, /tf and /tf_static in, as rviz's RobotModel and TF displays read them.

* ``robot_description`` (``<namespace>/robot_description`` for each robot of
  ``--namespace``): std_msgs/String, reliable + transient local (depth 1), so
  a description published before the view started arrives too; it is handed
  to that robot's :class:`~.view_state.DescriptionLoader` (never parsed here).
* a namespaced robot's frame prefix: the ``frame_prefix`` parameter of the
  node that publishes its description (``urdf_state`` and
  ``robot_state_publisher`` both have it), asked once a second until it
  answers: with several identical robots, the frames alone cannot tell which
  prefix is whose.
* ``/tf``: reliable, volatile, depth 100 (tf2_ros's TransformListener QoS);
  ``/tf_static``: reliable, transient local, depth 100. Both raw: the bytes go
  straight into the :class:`~.tf_store.TfStore` (about 40 microseconds for a
  TALOS message), never through rclpy's message classes.
"""

from __future__ import annotations

from collections.abc import Sequence

from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from .view_state import DescriptionLoader, RobotView, ViewState

__all__ = ['ViewNode']

#: Seconds between two asks for a robot's frame_prefix.
PREFIX_RETRY_S = 1.0


def _qos(depth: int, latched: bool) -> QoSProfile:
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
                      else DurabilityPolicy.VOLATILE)


class ViewNode(Node):
    """Subscribes what the page shows and feeds the :class:`ViewState`."""

    def __init__(self, state: ViewState, loaders: Sequence[DescriptionLoader]) -> None:
        super().__init__('urdf_view', start_parameter_services=False)
        state.logger = self.get_logger()
        for robot, loader in zip(state.robots, loaders):
            self.create_subscription(String, robot.topic, lambda msg, k=loader: k.submit(msg.data),
                                     _qos(1, latched=True))
            if robot.namespace and robot.frame_prefix is None:
                _PrefixQuery(self, robot)
        tf = state.tf
        self.create_subscription(TFMessage, '/tf', tf.ingest, _qos(100, latched=False), raw=True)
        self.create_subscription(TFMessage, '/tf_static', lambda data: tf.ingest(data, True),
                                 _qos(100, latched=True), raw=True)


class _PrefixQuery:
    """Asks the node publishing ``robot``'s description for its frame_prefix, until it answers."""

    def __init__(self, node: Node, robot: RobotView) -> None:
        self._node = node
        self._robot = robot
        self._client = None
        self._future = None
        self._timer = node.create_timer(PREFIX_RETRY_S, self._tick)

    def _tick(self) -> None:
        if self._future is not None and not self._future.done():
            return
        if self._future is not None and self._answered(self._future.result()):
            self._node.destroy_timer(self._timer)
            self._node.destroy_client(self._client)
            return
        owner = self._owner(self._node.get_publishers_info_by_topic(self._robot.topic))
        if owner is None:
            return
        service = f"{owner.node_namespace.rstrip('/')}/{owner.node_name}/get_parameters"
        if self._client is None or self._client.srv_name != service:
            if self._client is not None:
                self._node.destroy_client(self._client)
            self._client = self._node.create_client(GetParameters, service)
        self._future = (self._client.call_async(GetParameters.Request(names=['frame_prefix']))
                        if self._client.service_is_ready() else None)

    def _owner(self, publishers):
        """
        Return the publisher whose node to ask, or None until the graph names it.

        A publisher in the robot's own namespace wins (the node that publishes
        ``robot_description`` relative to it). Nodes that share a process share a DDS
        participant, and while discovery completes the graph may name none of its nodes
        (``_NODE_NAME_UNKNOWN_``) or another of them (seen with Kilted's Fast DDS, the
        /r1 description listed under /r2's node): such an answer is not taken.
        """
        known = [p for p in publishers if p.node_name != '_NODE_NAME_UNKNOWN_']
        own = [p for p in known if p.node_namespace == self._robot.namespace]
        if own:
            return own[0]
        return known[0] if len(known) == 1 and len(publishers) == 1 else None

    def _answered(self, answer) -> bool:
        values = getattr(answer, 'values', None)
        if not values or values[0].type != ParameterType.PARAMETER_STRING:
            return False
        self._robot.set_frame_prefix(values[0].string_value)
        return True
