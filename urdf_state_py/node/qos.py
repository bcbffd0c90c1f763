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

"""The QoS profiles and publisher options of the node's topics (robot_state_publisher's)."""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

__all__ = ['DESCRIPTION_QOS', 'TF_QOS', 'TF_STATIC_QOS', 'quiet_publisher_events']

DESCRIPTION_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                             reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF_STATIC_QOS = DESCRIPTION_QOS


def quiet_publisher_events():
    """
    Publish event callbacks without rclpy's default handlers (None where unsupported).

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
    except TypeError:  # pragma: no cover - rclpy before Humble lacks the option: keep the defaults
        return None


TF_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                    reliability=ReliabilityPolicy.RELIABLE,
                    durability=DurabilityPolicy.VOLATILE)
