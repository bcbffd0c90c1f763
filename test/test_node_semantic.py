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
The node with an SRDF, over DDS.

The node with an SRDF, over DDS: MoveIt's defaults and group states on /tf before any
JointState (checked against pinocchio's FK), passive joints absent from /diagnostics, a bad
SRDF refused with its reason, the SRDF from the robot_description_semantic topic.

Robot: ``test/fixtures/srdf/mobile_arm`` (planar virtual joint, continuous joints, soft
limits that move the defaults, passive mimic fingers; see test_robot_model.py for the
MoveIt values worked out by hand).
"""
from node_harness import compose_poses, LATCHED, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from robot_files import FIXTURES
from std_msgs.msg import String
from test_hostile_inputs import DiagnosticsRecorder
from test_kinematics_pinocchio import pinocchio_configuration  # skips without pinocchio
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model_file

pytestmark = pytest.mark.ros  # needs rclpy and DDS

pin = pytest.importorskip('pinocchio')

URDF_PATH = FIXTURES / 'srdf' / 'mobile_arm.urdf'
URDF = URDF_PATH.read_text()
SRDF = (FIXTURES / 'srdf' / 'mobile_arm.srdf').read_text()
MOVING = {'wheel', 'lift_link', 'shoulder_link', 'upper_arm', 'forearm', 'wrist', 'finger_a',
          'finger_b', 'finger_c'}
#: MoveIt's defaults (test_robot_model.py), URDF variables only.
DEFAULTS = {'wheel_joint': 0.0, 'z_lift': 0.3, 'shoulder_pan': 0.0, 'shoulder_lift': 0.5,
            'elbow': 1.25, 'wrist_roll': 0.0, 'finger_a_joint': 0.0}


def expected_poses(values):
    """
    Return the root-relative poses of every link by pinocchio.

    Root-relative poses of every link by pinocchio, at ``values`` (independent joints;
    the fingers' mimic rules applied here by hand).
    """
    model = load_model_file(URDF_PATH)
    kin = Kinematics(model)
    full = dict(values)
    full['finger_b_joint'] = values['finger_a_joint'] + 0.005
    full['finger_c_joint'] = -0.5 * full['finger_b_joint'] + 0.001
    q = np.array([full[name] for name in kin.variable_names])
    pmodel = pin.buildModelFromXML(URDF)
    pdata = pmodel.createData()
    pin.forwardKinematics(pmodel, pdata, pinocchio_configuration(pmodel, model, kin, q))
    pin.updateFramePlacements(pmodel, pdata)
    return {link: pdata.oMf[pmodel.getFrameId(link, pin.BODY)].homogeneous
            for link in model.link_names}


def moving_with(prefix):
    return lambda m: {t.child_frame_id for t in m.transforms} == {prefix + c for c in MOVING}


def assert_tf_matches(probe, prefix, values, since=0):
    """
    Assert the node puts every link where pinocchio does at ``values``.

    The latest /tf_static and the first full /tf after ``since`` put every link where
    pinocchio does at ``values``.
    """
    moving = probe.wait_tf(moving_with(prefix), since, what=f'defaults under {prefix}')
    static = probe.wait_static(
        lambda m: any(t.child_frame_id == prefix + 'camera_link' for t in m.transforms))
    transforms = transform_map(static, moving)
    assert prefix + 'base_link' not in transforms     # the virtual joint: no TF
    poses = compose_poses(transforms, prefix + 'base_link')
    for link, expected in expected_poses(values).items():
        error = np.abs(poses[prefix + link] - expected).max()
        assert error < 1e-9, (link, error)


def set_results(probe, node, **values):
    return probe.set_parameters(node.name, **values)


def test_defaults_and_group_states_before_any_joint_state(probe):
    node = NodeUnderTest('urdf_state_srdf', {
        'robot_description': URDF, 'robot_description_semantic': SRDF, 'frame_prefix': 's1/',
        'publish_default_positions': True,
        'initial_group_states': ['arm/stretched', 'gripper/open']})
    try:
        # stretched, clamped to the URDF limits only: z_lift 0.9 -> 0.5, shoulder_pan
        # -3 -> -2 (not the soft -1.5), wrist_roll 4.0 continuous: as given
        assert_tf_matches(probe, 's1/', dict(DEFAULTS, z_lift=0.5, shoulder_pan=-2.0,
                                             shoulder_lift=0.0, elbow=0.6, wrist_roll=4.0,
                                             finger_a_joint=0.03))
        # a bad SRDF is refused naming the unknown joint; the previous one stays
        since = probe.mark()
        bad = SRDF.replace('<passive_joint name="finger_c_joint"/>',
                           '<passive_joint name="ghost_joint"/>')
        result, = set_results(probe, node, robot_description_semantic=bad)
        assert not result.successful and "unknown joint 'ghost_joint'" in result.reason
        result, = set_results(probe, node, initial_group_states=['arm/nowhere'])
        assert not result.successful and "no state 'nowhere'" in result.reason
        assert '(states: ready, stretched)' in result.reason
        result, = set_results(probe, node, initial_group_states=['armready'])
        assert not result.successful and "'armready' is not GROUP/STATE" in result.reason
        result, = set_results(probe, node, initial_group_states=['base/parked', 'arm/ready'])
        assert result.successful, result.reason
        assert_tf_matches(probe, 's1/', dict(DEFAULTS, wheel_joint=0.25, z_lift=0.3,
                                             shoulder_pan=0.5, shoulder_lift=0.6, elbow=1.2,
                                             wrist_roll=-0.4), since)
        # no SRDF at all: the URDF's defaults (0, or the mid-point of the hard limits)
        since = probe.mark()
        results = set_results(probe, node, robot_description_semantic='',
                              initial_group_states=[])
        assert all(r.successful for r in results), [r.reason for r in results]
        assert_tf_matches(probe, 's1/', dict(DEFAULTS, shoulder_lift=0.0, elbow=1.5), since)
    finally:
        node.close()


def test_passive_joints_are_never_reported_missing(probe):
    name = 'urdf_state_srdf_diag'
    recorder = DiagnosticsRecorder(probe, f'{name}: robot state')
    node = NodeUnderTest(name, {'robot_description': URDF, 'robot_description_semantic': SRDF,
                                'frame_prefix': 's2/'})
    try:
        values, _ = recorder.wait(lambda v, s: 'joints never received (names)' in v,
                                  what='a status listing the joints never received')
        listed = values['joints never received (names)']
        assert 'finger_a_joint' in listed and 'elbow' in listed
        assert 'finger_b_joint' not in listed and 'finger_c_joint' not in listed
        # a refused SRDF shows as the last rejection, the passive joints stay passive
        since = recorder.count()
        result, = probe.set_parameters(node.name, robot_description_semantic=SRDF.replace(
            'parent_link="tool0"', 'parent_link="tool7"'))
        assert not result.successful
        values, _ = recorder.wait(lambda v, s: any("unknown link 'tool7'" in x
                                                   for x in v.values()), since,
                                  what='the refused SRDF on /diagnostics')
        assert 'finger_b_joint' not in values['joints never received (names)']
    finally:
        node.close()


def test_srdf_from_the_topic(probe):
    node = NodeUnderTest('urdf_state_srdf_topic', {
        'robot_description': URDF, 'frame_prefix': 's3/', 'publish_default_positions': True,
        'initial_group_states': ['arm/ready']}, namespace='/srdf3')
    publisher = probe.node.create_publisher(String, '/srdf3/robot_description_semantic',
                                            LATCHED)
    try:
        # no SRDF yet: the URDF's defaults
        assert_tf_matches(probe, 's3/', dict(DEFAULTS, shoulder_lift=0.0, elbow=1.5))
        since = probe.mark()
        wait_until(lambda: publisher.get_subscription_count() > 0,
                   what='the node subscribing robot_description_semantic')
        publisher.publish(String(data=SRDF))
        assert_tf_matches(probe, 's3/', dict(DEFAULTS, z_lift=0.3, shoulder_pan=0.5,
                                             shoulder_lift=0.6, elbow=1.2, wrist_roll=-0.4),
                          since)
        # a bad one from the topic is refused and logged; the good one stays
        publisher.publish(String(data=SRDF.replace('tip_link="tool0"', 'tip_link="tool9"')))
        wait_until(lambda: any("unknown link 'tool9'" in line for line in node.logs('error')),
                   what='the refusal of the bad SRDF logged')
    finally:
        probe.node.destroy_publisher(publisher)
        node.close()


def test_a_bad_srdf_at_start_up_is_logged_and_the_node_runs(probe):
    bad = SRDF.replace('<joint name="wheel_joint"/>', '<joint name="wheel_jiont"/>')
    node = NodeUnderTest('urdf_state_srdf_bad', {
        'robot_description': URDF, 'robot_description_semantic': bad, 'frame_prefix': 's4/',
        'publish_default_positions': True, 'initial_group_states': ['arm/ready']})
    try:
        assert any("unknown joint 'wheel_jiont'" in line for line in node.logs('error'))
        assert_tf_matches(probe, 's4/', dict(DEFAULTS, shoulder_lift=0.0, elbow=1.5))
    finally:
        node.close()
