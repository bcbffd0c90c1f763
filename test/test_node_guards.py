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
The guards around the node's other callbacks.

The guards around the node's other callbacks: the description topic and parameter
changes (failures inside the executor itself: test_ros_spin.py).
"""

from node_harness import LATCHED, NodeUnderTest, wait_until
import pytest
from std_msgs.msg import String
from test_hostile_inputs import TOY

pytestmark = pytest.mark.ros  # needs rclpy and DDS


@pytest.fixture(scope='module')
def topic_node():
    node = NodeUnderTest('urdf_state_guards', {'use_robot_description_topic': True,
                                               'frame_prefix': 'gd/'})
    yield node
    node.close()


def test_a_malformed_description_message_is_dropped_and_a_good_one_still_loads(probe, topic_node):
    pub = probe.node.create_publisher(String, 'robot_description', LATCHED)
    try:
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node on robot_description')
        pub.publish(b'\x00\x01\x00\x00\xff\xff\xff\x7fjunk')   # a string longer than the payload
        wait_until(lambda: topic_node.node._health.rejected_messages['malformed'] == 1,
                   what='the malformed description counted')
        assert any("Dropped a message on '/robot_description': not a String message" in line
                   for line in topic_node.logs('warning'))
        assert topic_node.node.model is None
        pub.publish(String(data=TOY))
        wait_until(lambda: topic_node.node.model is not None, what='the good description loaded')
        assert topic_node.node.model.name == 'toy'
    finally:
        probe.node.destroy_publisher(pub)


def test_a_failing_parameter_change_is_refused_with_the_reason(probe, topic_node, monkeypatch):
    def broken(*args):
        raise RuntimeError('boom')
    monkeypatch.setattr(topic_node.node.description, 'apply', broken)
    result, = probe.set_parameters(topic_node.name, frame_prefix='x/')
    assert not result.successful
    assert result.reason == 'internal error while applying the change: RuntimeError: boom'
    assert topic_node.node._health.rejected_messages['internal error'] == 1
    monkeypatch.undo()
    assert probe.set_parameters(topic_node.name, frame_prefix='gd2/')[0].successful


def test_a_parameter_of_no_type_is_refused_and_serving_goes_on(probe, topic_node):
    """
    Check a parameter of no type is refused and serving goes on.

    A well-formed SetParameters whose value names no parameter type (``type: 99``):
    rclpy's callback raised ValueError out of the executor and the caller got no answer.
    """
    from rcl_interfaces.msg import Parameter, ParameterValue
    from rcl_interfaces.srv import SetParameters, SetParametersAtomically
    for srv_type, service in ((SetParameters, 'set_parameters'),
                              (SetParametersAtomically, 'set_parameters_atomically')):
        client = probe.node.create_client(srv_type, f'{topic_node.name}/{service}')
        try:
            wait_until(client.service_is_ready, what='the service')
            bad = Parameter(name='frame_prefix', value=ParameterValue(type=99))
            future = client.call_async(srv_type.Request(parameters=[bad]))
            wait_until(future.done, what='an answer to the malformed request')
            answer = future.result()
            result, = answer.results if srv_type is SetParameters else [answer.result]
            assert not result.successful
            assert result.reason.startswith('malformed request: ValueError: 99')
        finally:
            probe.node.destroy_client(client)
    assert topic_node.node._health.rejected_messages['malformed request'] == 2
    assert probe.set_parameters(topic_node.name, frame_prefix='gd3/')[0].successful
