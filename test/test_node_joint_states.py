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
JointState handling over DDS.

JointState handling over DDS: rate limit, timestamps, merging, bad messages,
default positions, planar/floating joints, frame_prefix, description topic.

Nodes publishing on the shared /tf are told apart by their frame prefixes.
"""
import math

from node_harness import compose_poses, LATCHED, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model

pytestmark = pytest.mark.ros  # needs rclpy and DDS

MS = 1_000_000
S = 1_000_000_000

# a: revolute [-1, 1]; m: mimic of a (x2); b: prismatic; f: fixed.
TOY = """<robot name="toy">
  <link name="base"/><link name="la"/><link name="lm"/><link name="lb"/><link name="lf"/>
  <joint name="a" type="revolute"><parent link="base"/><child link="la"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <joint name="m" type="revolute"><parent link="la"/><child link="lm"/>
    <origin xyz="0 1 0"/><axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="a" multiplier="2" offset="0"/>
  </joint>
  <joint name="b" type="prismatic"><parent link="base"/><child link="lb"/>
    <origin xyz="0 0 1"/><axis xyz="1 0 0"/><limit lower="0" upper="2" effort="1" velocity="1"/>
  </joint>
  <joint name="f" type="fixed"><parent link="lb"/><child link="lf"/><origin xyz="0 0 0.5"/></joint>
</robot>"""

MULTI_DOF = """<robot name="multi_dof">
  <link name="world"/><link name="cart"/><link name="drone"/>
  <joint name="plane" type="planar"><parent link="world"/><child link="cart"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.3"/><axis xyz="0 0 1"/></joint>
  <joint name="fly" type="floating"><parent link="cart"/><child link="drone"/>
    <origin xyz="0 0 1"/></joint>
</robot>"""


@pytest.fixture(scope='module')
def node():
    n = NodeUnderTest('urdf_state_js', {'robot_description': TOY, 'frame_prefix': 'js/'})
    yield n
    n.close()


@pytest.fixture
def toy(probe, node):
    """Return a fresh TOY model (reloading resets the merged state and the rate limiter)."""
    set_ok(probe, node, robot_description=TOY.replace('name="toy"', 'name="toy2"'))
    set_ok(probe, node, robot_description=TOY, publish_frequency=20.0, ignore_timestamp=False,
           frame_prefix='js/', ignore_limits=False)
    node.clear_logs()
    return node


def set_ok(probe, node, **values):
    results = probe.set_parameters(node.name, **values)
    assert all(r.successful for r in results), [r.reason for r in results]


def children(msg):
    return {t.child_frame_id for t in msg.transforms}


def stamps_of(msgs, frame):
    return [t.header.stamp.sec * S + t.header.stamp.nanosec
            for m in msgs for t in m.transforms if t.child_frame_id == frame]


def warnings_with(node, text):
    return [line for line in node.logs('warning') if text in line]


def test_tf_for_named_joints_plus_mimic_followers(probe, toy):
    since, stamp = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['a'], [0.5], stamp)
    msg = probe.wait_tf_stamp(stamp, since)
    assert children(msg) == {'js/la', 'js/lm'}
    tf = transform_map(msg)
    assert tf['js/lm'][0] == 'js/la'
    # m = 2 * a = 1.0 rad about z
    assert math.atan2(tf['js/lm'][1][1, 0], tf['js/lm'][1][0, 0]) == pytest.approx(1.0)


def test_rate_limit(probe, toy):
    set_ok(probe, toy, publish_frequency=10.0)  # 100 ms
    # Stamps in the past: upstream never counts a last publication later than "now".
    since, t0 = probe.mark(), probe.now_ns() - 10 * S
    for dt in (0, 50, 100, 150, 200):  # a burst of <= 5: the sensor-data QoS keeps 5
        probe.publish_joint_state(['a'], [0.1], t0 + dt * MS)
    probe.wait_tf_stamp(t0 + 200 * MS, since)
    assert stamps_of(probe.tf_since(since), 'js/la') == [t0, t0 + 100 * MS, t0 + 200 * MS]


def test_rate_limit_takes_oldest_joint_of_the_message(probe, toy):
    set_ok(probe, toy, publish_frequency=10.0)
    since, t0 = probe.mark(), probe.now_ns() - 10 * S
    probe.publish_joint_state(['a'], [0.1], t0)
    probe.publish_joint_state(['a', 'b'], [0.1, 0.5], t0 + 10 * MS)  # b never published
    probe.publish_joint_state(['b'], [0.6], t0 + 20 * MS)            # b: 10 ms ago -> dropped
    probe.publish_joint_state(['b'], [0.7], t0 + 110 * MS)
    probe.wait_tf_stamp(t0 + 110 * MS, since)
    got = probe.tf_since(since)
    assert stamps_of(got, 'js/la') == [t0, t0 + 10 * MS]
    assert stamps_of(got, 'js/lb') == [t0 + 10 * MS, t0 + 110 * MS]


def test_frequency_zero_means_no_limit(probe, toy):
    set_ok(probe, toy, publish_frequency=0.0)
    since, t0 = probe.mark(), probe.now_ns()
    for dt in range(5):
        probe.publish_joint_state(['a'], [0.1], t0 + dt * MS)
    probe.wait_tf_stamp(t0 + 4 * MS, since)
    assert stamps_of(probe.tf_since(since), 'js/la') == [t0 + dt * MS for dt in range(5)]


def test_ignore_timestamp(probe, toy):
    set_ok(probe, toy, ignore_timestamp=True)
    since, t0 = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['a'], [0.1], t0)
    probe.publish_joint_state(['a'], [0.2], t0)
    probe.publish_joint_state(['a'], [0.3], t0 + MS)
    probe.wait_tf_stamp(t0 + MS, since)
    assert stamps_of(probe.tf_since(since), 'js/la') == [t0, t0, t0 + MS]


def test_zero_stamp_dropped_as_upstream(probe, toy):
    since = probe.mark()
    probe.publish_joint_state(['a'], [0.1], 0)
    t1 = probe.now_ns()
    probe.publish_joint_state(['b'], [0.1], t1)
    probe.wait_tf_stamp(t1, since)
    assert stamps_of(probe.tf_since(since), 'js/la') == []


def test_time_going_backwards_resets_and_publishes(probe, toy):
    since, t0 = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['a', 'b'], [0.1, 0.1], t0)
    back = t0 - 10 * S  # a bag starting over
    probe.publish_joint_state(['a'], [0.2], back)
    probe.publish_joint_state(['b'], [0.2], back + MS)  # b's time was reset as well
    probe.wait_tf_stamp(back + MS, since)
    got = probe.tf_since(since)
    assert stamps_of(got, 'js/la') == [t0, back]
    assert stamps_of(got, 'js/lb') == [t0, back + MS]
    assert warnings_with(toy, 'backwards')


def test_time_going_backwards_again_and_again_logs_throttled(probe, toy):
    # a publisher (a looping bag, or a hostile one) can send time backwards with every
    # other message: each is still published, the log line comes once per 5 s
    logged = len(warnings_with(toy, 'backwards'))
    since, t0 = probe.mark(), probe.now_ns()
    stamps = [t0 + (k % 2) * S + k * MS for k in range(20)]   # backwards every 2nd one
    for stamp in stamps:   # one by one: the subscription keeps the last 5 (sensor data QoS)
        probe.publish_joint_state(['a'], [0.3], stamp)
        probe.wait_tf_stamp(stamp, since)
    assert stamps_of(probe.tf_since(since), 'js/la') == stamps
    assert len(warnings_with(toy, 'backwards')) - logged <= 1


def test_two_sources_merge(probe, toy):
    node = toy.node
    since, t0 = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['a'], [0.4], t0)
    probe.publish_joint_state(['b'], [1.5], t0 + MS, topic='joint_states')
    probe.wait_tf_stamp(t0 + MS, since)
    merger = node.description.loaded.merger
    index = node.kinematics.variable_index
    assert merger.q[index['a']] == 0.4 and merger.q[index['b']] == 1.5
    got = probe.tf_since(since)
    assert children(got[0]) == {'js/la', 'js/lm'} and children(got[1]) == {'js/lb'}


def test_bad_joint_states(probe, toy):
    since = probe.mark()
    t0 = probe.now_ns()
    probe.publish_joint_state(['a', 'b'], [0.1], t0)              # length mismatch
    probe.publish_joint_state(['a', 'ghost'], [0.2, 1.0], t0 + MS)  # unknown name
    probe.publish_joint_state(['a', 'ghost'], [0.3, 1.0], t0 + 60 * MS)
    probe.wait_tf_stamp(t0 + 60 * MS, since)  # bursts of <= 5 (sensor-data QoS depth)
    probe.publish_joint_state(['a', 'b'], [math.nan, 0.5], t0 + 120 * MS)  # NaN for a
    probe.publish_joint_state(['m', 'b'], [2.0, 0.6], t0 + 180 * MS)  # value for a mimic
    probe.publish_joint_state(['f', 'b'], [2.0, 0.7], t0 + 240 * MS)  # a fixed joint
    msg = probe.wait_tf_stamp(t0 + 240 * MS, since)
    assert children(msg) == {'js/lb'}
    got = probe.tf_since(since)
    assert stamps_of(got, 'js/la') == [t0 + MS, t0 + 60 * MS]
    assert stamps_of(got, 'js/lb') == [t0 + 120 * MS, t0 + 180 * MS, t0 + 240 * MS]
    assert len(warnings_with(toy, '2 names but 1 positions')) == 1
    assert len(warnings_with(toy, "'ghost'")) == 1
    assert len(warnings_with(toy, "non-finite position for joint 'a'")) == 1
    assert len(warnings_with(toy, "mimic joint 'm'")) == 1
    assert len(warnings_with(toy, "fixed joint 'f'")) == 1


def test_clamping_and_ignore_limits(probe, toy):
    since, t0 = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['a'], [1.5], t0)
    tf = transform_map(probe.wait_tf_stamp(t0, since))
    assert math.atan2(tf['js/la'][1][1, 0], tf['js/la'][1][0, 0]) == pytest.approx(1.0)
    assert len(warnings_with(toy, "Joint 'a' is beyond its limits")) == 1
    set_ok(probe, toy, ignore_limits=True)
    since, t1 = probe.mark(), t0 + 100 * MS
    probe.publish_joint_state(['a'], [1.5], t1)
    tf = transform_map(probe.wait_tf_stamp(t1, since))
    assert math.atan2(tf['js/la'][1][1, 0], tf['js/la'][1][0, 0]) == pytest.approx(1.5)


def test_frame_prefix_change_republishes_static(probe, toy):
    set_ok(probe, toy, frame_prefix='other/')
    msg = probe.late_latched('/tf_static', predicate=lambda m: 'other/lf' in children(m))
    assert transform_map(msg)['other/lf'][0] == 'other/lb'
    since, t0 = probe.mark(), probe.now_ns()
    probe.publish_joint_state(['b'], [0.5], t0)
    assert children(probe.wait_tf_stamp(t0, since)) == {'other/lb'}


def test_planar_and_floating_variables(probe, node):
    set_ok(probe, node, robot_description=MULTI_DOF, frame_prefix='md/')
    try:
        model = load_model(MULTI_DOF)
        kin = Kinematics(model)
        values = {'plane/x': 0.5, 'plane/y': -1.0, 'plane/theta': 0.7,
                  'fly/trans_x': 1.0, 'fly/trans_y': 2.0, 'fly/trans_z': 3.0,
                  'fly/rot_x': 0.0, 'fly/rot_y': math.sin(0.25), 'fly/rot_z': 0.0,
                  'fly/rot_w': math.cos(0.25)}
        since, t0 = probe.mark(), probe.now_ns()
        probe.publish_joint_state(list(values), list(values.values()), t0)
        msg = probe.wait_tf_stamp(t0, since)
        poses = compose_poses(transform_map(msg), 'md/world')
        expected = kin.link_poses(kin.positions(values))
        for i, link in enumerate(model.link_names):
            assert np.abs(poses['md/' + link] - expected[i]).max() < 1e-9, link
    finally:
        set_ok(probe, node, robot_description=TOY, frame_prefix='js/')


def test_publish_default_positions(probe):
    node = NodeUnderTest('urdf_state_defaults', {
        'robot_description': TOY, 'frame_prefix': 'dflt/', 'publish_default_positions': True},
        namespace='/dflt')
    try:
        # Published at load and re-sent while nothing else is: a late subscriber gets it.
        msg = probe.wait_tf(lambda m: children(m) == {'dflt/la', 'dflt/lm', 'dflt/lb'},
                            what='default positions on /tf')
        tf = transform_map(msg)
        assert tf['dflt/lb'][1][:3, 3] == pytest.approx([0.0, 0.0, 1.0])
        since, t0 = probe.mark(), probe.now_ns()
        probe.publish_joint_state(['b'], [0.5], t0, topic='/dflt/joint_states')
        msg = probe.wait_tf_stamp(t0, since)
        assert children(msg) == {'dflt/la', 'dflt/lm', 'dflt/lb'}  # a, m still at defaults
        since, t1 = probe.mark(), probe.now_ns()
        probe.publish_joint_state(['a'], [0.2], t1, topic='/dflt/joint_states')
        msg = probe.wait_tf_stamp(t1, since)
        assert children(msg) == {'dflt/la', 'dflt/lm'}  # everything has a state now
    finally:
        node.close()


def test_description_topic_and_namespace(probe):
    from std_msgs.msg import String
    node = NodeUnderTest('urdf_state_topic', {'use_robot_description_topic': True,
                                              'frame_prefix': 'tp/'}, namespace='/robot2')
    pub = probe.node.create_publisher(String, '/robot2/robot_description', LATCHED)
    try:
        assert any("'/robot2/robot_description'" in line for line in node.logs('info'))
        pub.publish(String(data=TOY))
        probe.wait_static(lambda m: 'tp/lf' in children(m), what='statics from topic model')
        since, t0 = probe.mark(), probe.now_ns()
        probe.publish_joint_state(['b'], [0.5], t0, topic='/robot2/joint_states')
        assert children(probe.wait_tf_stamp(t0, since)) == {'tp/lb'}
        pub.publish(String(data='<robot name="bad"'))
        wait_until(lambda: any('Failed to parse robot description from topic' in line
                               for line in node.logs('error')), what='the error log')
        assert node.node.model.name == 'toy'
        result, = probe.set_parameters(node.name, robot_description=TOY)
        assert not result.successful  # not declared in topic mode (as upstream)
    finally:
        probe.node.destroy_publisher(pub)
        node.close()


def test_compose_poses_chains_transforms():
    a = np.eye(4)
    a[0, 3] = 1.0
    b = np.eye(4)
    b[1, 3] = 2.0
    poses = compose_poses({'x': ('root', a), 'y': ('x', b), 'z': ('nowhere', a)}, 'root')
    assert np.allclose(poses['y'][:3, 3], [1.0, 2.0, 0.0])
    assert 'z' not in poses
