"""The view's ROS side: robot_description, /tf and /tf_static in, as rviz's RobotModel and TF displays read them.

* ``robot_description``: std_msgs/String, reliable + transient local (depth
  1), so a description published before the view started arrives too; it is
  handed to the :class:`~.view_state.DescriptionLoader` (never parsed here).
* ``/tf``: reliable, volatile, depth 100 (tf2_ros's TransformListener QoS);
  ``/tf_static``: reliable, transient local, depth 100. Both raw: the bytes go
  straight into the :class:`~.tf_store.TfStore` (about 40 microseconds for a
  TALOS message), never through rclpy's message classes.
"""

from __future__ import annotations

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from .view_state import DescriptionLoader, ViewState

__all__ = ['ViewNode']


def _qos(depth: int, latched: bool) -> QoSProfile:
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST,
                      reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if latched
                      else DurabilityPolicy.VOLATILE)


class ViewNode(Node):
    """Subscribes what the page shows and feeds the :class:`ViewState`."""

    def __init__(self, state: ViewState, loader: DescriptionLoader,
                 description_topic: str = 'robot_description') -> None:
        super().__init__('urdf_view', start_parameter_services=False)
        state.logger = self.get_logger()
        self._loader = loader
        tf = state.tf
        self.create_subscription(String, description_topic, self._on_description,
                                 _qos(1, latched=True))
        self.create_subscription(TFMessage, '/tf', tf.ingest, _qos(100, latched=False), raw=True)
        self.create_subscription(TFMessage, '/tf_static', lambda data: tf.ingest(data, True),
                                 _qos(100, latched=True), raw=True)

    def _on_description(self, msg: String) -> None:
        self._loader.submit(msg.data)
