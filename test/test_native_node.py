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
The node's joint_states served by the native loop over DDS, and the switch back to Python.

Real nodes, real DDS: the node under test with the native loop (where the
extension is built for this ROS 2) publishes /tf that equals the JointState step
byte for byte, mostly without handing messages to Python; its clamp counters and
/tf count reach /diagnostics' objects; the subscription is the node's (the graph
lists it under the node, with its QoS); ``URDF_STATE_NATIVE=off`` gives the
executor, a failed self-test the Python hot path, and the node says which path
serves joint_states and why.
"""
from contextlib import contextmanager
import time

from node_harness import NodeUnderTest, wait_until  # first: it skips the module without rclpy
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from test_node_hot_path import GeneralPath, RawSide, send_until_tf
from test_node_joint_states import TOY
from urdf_state_py.node.tf_path import native
from urdf_state_py.node.tf_path.hot_path import HotPath

pytestmark = pytest.mark.ros

PARAMS = {'robot_description': TOY, 'publish_frequency': 0.0, 'ignore_timestamp': True}


@pytest.fixture(scope='module')
def side():
    s = RawSide()
    yield s
    s.close()


@pytest.fixture
def switch(monkeypatch):
    """native.status() decided again under the test's environment, then restored."""
    native.status.cache_clear()
    yield monkeypatch
    native.status.cache_clear()


@contextmanager
def native_node(side, switch, name):
    """
    Start the node under test with the native loop on.

    The node under test with the native loop on (skips where it cannot run), and a
    JointState publisher it has matched.
    """
    switch.delenv('URDF_STATE_NATIVE', raising=False)
    status = native.status()
    if status.module is None:
        pytest.skip(f'the native loop cannot run here: {status.reason}')
    node = NodeUnderTest(f'urdf_state_{name}', PARAMS, namespace=f'/{name}')
    pub = side.node.create_publisher(JointState, f'/{name}/joint_states', 100)
    try:
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing')
        yield node, pub
    finally:
        side.node.destroy_publisher(pub)
        node.close()


def test_the_native_loop_serves_joint_states_byte_for_byte(side, switch):
    with native_node(side, switch, 'native_loop') as (node, pub):
        joint_input = node.node.joint_input
        assert joint_input.hot_path.sync is not None and joint_input.hot_path.running
        assert any(line.startswith('joint_states path: native loop (C) (built for rcl ')
                   for line in node.logs('info')), node.logs('info')
        # The extension's subscription is the node's, with the sensor-data QoS, as rclpy's was.
        # The endpoint can be discovered before its participant's node names (the graph
        # shows _NODE_NAME_UNKNOWN_ until then): wait for the name, then compare.

        def named():
            infos = side.node.get_subscriptions_info_by_topic('/native_loop/joint_states')
            return infos if infos and all(
                i.node_name != '_NODE_NAME_UNKNOWN_' for i in infos) else None

        infos = wait_until(named, what="the subscription's node name in the graph")
        assert [(i.node_name, i.node_namespace) for i in infos] == \
            [('urdf_state_native_loop', '/native_loop')], infos
        assert (infos[0].qos_profile.reliability, infos[0].qos_profile.durability) == \
            (ReliabilityPolicy.BEST_EFFORT, DurabilityPolicy.VOLATILE)
        assert infos[0].topic_type == 'sensor_msgs/msg/JointState'
        assert joint_input.subscription is None and not any(
            sub.topic_name == '/native_loop/joint_states' for sub in node.node.subscriptions)
        reference = GeneralPath(TOY)
        rng = np.random.default_rng(3)
        stamp = time.time_ns()
        for k in range(60):
            values = [rng.uniform(-1, 1)]
            stamp += 1_000_000
            got = send_until_tf(side, pub, ['a'], values, stamp)
            assert got == reference.payload(['a'], values, stamp), f'message {k}'
        with joint_input.lock:   # pauses the loop and brings its counters over
            health = node.node._health
            published, handed = health.tf_published, dict(health.joint_states_handed)
            served = health.native_loop_served
            assert joint_input.last_tf_ns > 0
        assert published >= 60 and sum(handed.values()) < 10 and served > 50, \
            (published, handed, served)
    assert not joint_input.hot_path.running


def test_clamping_in_the_native_loop_warns_once_and_counts(side, switch):
    with native_node(side, switch, 'native_clamp') as (node, pub):
        joint_input = node.node.joint_input
        reference = GeneralPath(TOY)
        stamp = time.time_ns()
        for k in range(30):   # 'a' beyond its limit: warned about once, then clamped natively
            stamp += 1_000_000
            values = [1.5 + 0.01 * k]
            got = send_until_tf(side, pub, ['a'], values, stamp)
            assert got == reference.payload(['a'], values, stamp), f'message {k}'
        with joint_input.lock:
            counts = joint_input.hot_path.sync.counts()
            plans = node.node.description.loaded.plans
            assert plans.clamps >= 20 and set(plans.last_clamped) == {'a'}, (plans.clamps, counts)
        warnings = [line for line in node.logs('warning') if "Joint 'a' is beyond" in line]
        assert len(warnings) == 1, warnings


def test_switched_off_the_executor_serves_and_says_why(switch):
    switch.setenv('URDF_STATE_NATIVE', 'off')
    node = NodeUnderTest('urdf_state_native_off', PARAMS, namespace='/native_off')
    try:
        assert node.node.joint_input.hot_path is None
        line = 'joint_states path: executor (URDF_STATE_NATIVE=off)'
        assert line in node.logs('info')
        assert node.node._health.joint_states_path == line
    finally:
        node.close()


def test_a_failed_self_test_leaves_python_to_serve_and_says_why(side, switch):
    """
    Check a failed self-test leaves Python to serve and says why.

    A node started where the C plan and the Python specification disagree (faked):
    the extension waits and decodes, every message takes the Python path, and the log
    and /diagnostics say which check failed.
    """
    switch.delenv('URDF_STATE_NATIVE', raising=False)
    switch.setattr(native, '_specification', lambda *args, **kwargs: b'other bytes')
    status = native.status()
    if status.module is None:
        pytest.skip(f'the native extension cannot run here: {status.reason}')
    assert status.loop_refused.startswith('the native loop failed its self-test: ')
    node = NodeUnderTest('urdf_state_native_refused', PARAMS, namespace='/native_refused')
    pub = side.node.create_publisher(JointState, '/native_refused/joint_states', 100)
    try:
        line = f'joint_states path: Python hot path ({status.loop_refused})'
        assert line in node.logs('info') and node.node._health.joint_states_path == line
        hot = node.node.joint_input.hot_path
        assert type(hot) is HotPath and hot.sync is None and hot.running
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing')
        stamp = time.time_ns()
        assert send_until_tf(side, pub, ['a'], [0.2], stamp) == \
            GeneralPath(TOY).payload(['a'], [0.2], stamp)
    finally:
        side.node.destroy_publisher(pub)
        node.close()


def test_the_native_loop_hands_every_subscription_without_a_plan_to_its_handler(switch):
    """
    Check the native loop hands every subscription without a plan to its handler.

    Several subscriptions in one native wait set (the source_list case): with no plan
    installed, each message reaches its own subscription's handler, bytes unchanged.
    """
    import rclpy
    from rclpy.qos import qos_profile_sensor_data
    from tf2_msgs.msg import TFMessage
    from urdf_state_py.node.health import Health
    from urdf_state_py.node.tf_path.hot_path import MessageErrors
    from urdf_state_py.node.tf_path.native_loop import LoopSync

    switch.delenv('URDF_STATE_NATIVE', raising=False)
    status = native.status()
    if status.module is None:
        pytest.skip(f'the native loop cannot run here: {status.reason}')
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('native_subscriptions', context=context)
    try:
        got = {'r0': [], 'r1': []}
        subscriptions = [(node.create_subscription(JointState, topic, lambda _: None,
                                                   qos_profile_sensor_data, raw=True), topic,
                          got[topic].append) for topic in ('r0', 'r1')]
        errors = MessageErrors(node.get_logger())
        sync = LoopSync(status.module, lambda: (None, {}), Health(), None, errors)
        hot = HotPath.attach(node, status.module, subscriptions, errors,
                             tf_publisher=node.create_publisher(TFMessage, '/tf', 10), sync=sync)
        hot.start()
        pubs = {t: node.create_publisher(JointState, t, 10) for t in got}
        sent = {t: serialize_message(JointState(name=[t], position=[1.0])) for t in got}
        for topic, pub in pubs.items():
            wait_until(lambda: pub.get_subscription_count() > 0, what=f'{topic} matched')
        deadline = time.monotonic() + 15.0
        while not all(got.values()):
            assert time.monotonic() < deadline, {t: len(v) for t, v in got.items()}
            for topic, pub in pubs.items():   # best effort: re-send until both arrived
                pub.publish(sent[topic])
            retry = time.monotonic() + 0.2
            while not all(got.values()) and time.monotonic() < retry:
                time.sleep(0.002)
        assert all(data == sent[t] for t, received in got.items() for data in received)
        hot.stop()
        assert not hot.running and errors.count == 0
        sync.loop.pause()
        try:
            assert sync.counts()['no plan'] >= 2
        finally:
            sync.loop.resume()
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def test_diagnostics_shows_the_messages_handed_to_python_by_reason(side, switch):
    """
    Check /diagnostics shows the messages handed to Python by reason.

    With a plan installed, every malformed message is handed to Python ('malformed'):
    /diagnostics, read over DDS, counts exactly as many as Python rejected.
    """
    from test_hostile_inputs import DiagnosticsRecorder
    from test_node_hot_path import joint_state_bytes

    with native_node(side, switch, 'native_diag') as (node, pub):
        recorder = DiagnosticsRecorder(side, 'native_diag/urdf_state_native_diag: robot state')
        health = node.node._health
        key = 'joint_states handed to Python: malformed'
        stamp = time.time_ns()
        for _ in range(2):   # the first installs the plan for ['a'], the second runs on it
            stamp += 1_000_000
            send_until_tf(side, pub, ['a'], [0.1], stamp)
        truncated = joint_state_bytes(['a'], [0.1], stamp)[:30]
        sent = 5
        for _ in range(sent):   # best effort: re-sent until Python has rejected one more
            with node.node.joint_input.lock:
                before = health.rejected_messages['truncated']
            wait_until(lambda: pub.publish(truncated) or _rejected(node, 'truncated') > before,
                       what='the truncated message rejected')
        values, _ = recorder.wait(
            lambda v, s: (int(v.get(key, 0)) >= sent
                          and v['rejected messages: truncated'] == v[key]),
            max(0, recorder.count() - 1), what='the handed-over messages counted')
        assert values['joint_states handed to Python: other names'] == '0', values
        assert values['native loop errors (rcl)'] == '0'
        assert values['joint_states path'].startswith('joint_states path: native loop (C)')


def _rejected(node, reason: str) -> int:
    with node.node.joint_input.lock:
        return node.node._health.rejected_messages[reason]


@pytest.mark.parametrize('source_list', [False, True], ids=['joint_states', 'source_list'])
def test_a_remapped_topic_is_remapped_once(side, switch, source_list):
    """
    Check a topic the node subscribes is remapped once, as rclpy remaps it.

    Rules ``joint_states:=js_a`` and ``js_a:=js_b`` (or ``src:=js_a`` for a
    ``source_list`` entry ``src``): rcl applies the first rule to the name as given and
    subscribes ``js_a``. Subscribing the resolved name again would remap it to ``js_b``.
    """
    switch.delenv('URDF_STATE_NATIVE', raising=False)
    name = 'remap_' + ('sources' if source_list else 'plain')
    given = 'src' if source_list else 'joint_states'
    params = dict(PARAMS, source_list=[given]) if source_list else PARAMS
    node = NodeUnderTest(f'urdf_state_{name}', params, namespace=f'/{name}',
                         cli_args=['--ros-args', '-r', f'{given}:=js_a', '-r', 'js_a:=js_b'])
    pub = side.node.create_publisher(JointState, f'/{name}/js_a', 100)
    try:
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing js_a')
        assert not side.node.get_subscriptions_info_by_topic(f'/{name}/js_b')
        values, stamp = [0.25], time.time_ns()
        assert send_until_tf(side, pub, ['a'], values, stamp) == \
            GeneralPath(TOY).payload(['a'], values, stamp)
    finally:
        side.node.destroy_publisher(pub)
        node.close()
