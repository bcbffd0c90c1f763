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
A robot made of parts over real DDS: a UR5e with a Robotiq 2F-85 at its flange.

One node for the module, started with the gripper as a part given by flat dotted
parameters; the tests then change it at run time in order (offset, a second
part, refusals, detaching). Every check reads what a user's tools read: /tf and
/tf_static, the latched robot_description (parsed with urdf_parser_py and put
through an FK written here with numpy), the SetParameters results.
"""
import math

from node_harness import compose_poses, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.parameter import Parameter
from robot_files import CORPUS, CORPUS_REASON, FIXTURES, HAS_CORPUS
from std_msgs.msg import String
from urdf_state_py.node.tf_path import native
import yaml

pytestmark = pytest.mark.ros

ARM = CORPUS / 'ur_description_ros2' / 'generated' / 'ur5e.urdf'
GRIPPER = CORPUS / 'robotiq_2f85' / 'generated' / 'robotiq_2f_85.urdf'
OFFSET = [0.0, 0.0, 0.012]
TURN = [0.0, 0.0, math.pi / 2]
ARM_STATE = {'shoulder_pan_joint': 0.3, 'shoulder_lift_joint': -1.2, 'elbow_joint': 1.1,
             'wrist_1_joint': -0.5, 'wrist_2_joint': 0.7, 'wrist_3_joint': 0.2}


@pytest.fixture(scope='module')
def node():
    if not HAS_CORPUS:
        pytest.skip(CORPUS_REASON)
    n = NodeUnderTest('urdf_state_parts', {
        'robot_description': ARM.read_text(), 'parts': ['gripper'],
        'parts.gripper.description': GRIPPER.read_text(), 'parts.gripper.parent': 'tool0',
        'parts.gripper.xyz': OFFSET, 'parts.gripper.rpy': TURN,
        'parts.gripper.prefix': 'g_'})
    yield n
    n.close()


def _rpy(r, p, y):
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p), math.sin(p),
                              math.cos(y), math.sin(y))
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def _axis_angle(axis, angle):
    k = np.asarray(axis, float) / np.linalg.norm(axis)
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def urdf_fk(text, values):
    """Link poses of a URDF read by urdf_parser_py, at ``values`` (mimic joints followed)."""
    from urdf_parser_py.urdf import URDF
    robot = URDF.from_xml_string(text.encode())
    joints = {j.name: j for j in robot.joints}

    def value(joint):
        if joint.mimic is not None:
            master = value(joints[joint.mimic.joint])
            return (joint.mimic.multiplier or 1.0) * master + (joint.mimic.offset or 0.0)
        return values.get(joint.name, 0.0)

    by_child = {j.child: j for j in robot.joints}
    poses = {}

    def pose(link):
        if link not in poses:
            joint = by_child.get(link)
            if joint is None:
                poses[link] = np.eye(4)
            else:
                m = np.eye(4)
                origin = joint.origin
                m[:3, :3] = _rpy(*(origin.rpy if origin else (0, 0, 0)))
                m[:3, 3] = origin.xyz if origin else (0, 0, 0)
                motion = np.eye(4)
                if joint.type in ('revolute', 'continuous'):
                    motion[:3, :3] = _axis_angle(joint.axis, value(joint))
                poses[link] = pose(joint.parent) @ m @ motion
        return poses[link]

    for link in robot.links:
        pose(link.name)
    return robot, poses


def description(probe, predicate=lambda text: True):
    return probe.late_latched('robot_description', String,
                              lambda m: predicate(m.data)).data


def static_frames(probe):
    return {t.child_frame_id for t in probe.latest_static().transforms}


def atomically(probe, node_name, **values):
    client = probe.node.create_client(SetParametersAtomically,
                                      f'{node_name}/set_parameters_atomically')
    try:
        wait_until(client.service_is_ready, what='set_parameters_atomically')
        request = SetParametersAtomically.Request()
        request.parameters = [(v if isinstance(v, Parameter) else Parameter(k, value=v))
                              .to_parameter_msg() for k, v in values.items()]
        future = client.call_async(request)
        wait_until(future.done, what='the set_parameters_atomically response')
        return future.result().result
    finally:
        probe.node.destroy_client(client)


def test_composed_tf_equals_fk_of_the_published_urdf(node, probe):
    text = description(probe, lambda t: 'g_robotiq_85_base_link' in t)
    state = dict(ARM_STATE, robotiq_85_left_knuckle_joint=0.4)
    names = [f'g_{n}' if n.startswith('robotiq') else n for n in state]
    robot, expected = urdf_fk(text, dict(zip(names, state.values())))
    arm_links = {line.split('"')[1] for line in ARM.read_text().splitlines()
                 if '<link name=' in line}
    gripper_links = {'g_' + line.split('"')[1] for line in GRIPPER.read_text().splitlines()
                     if '<link name=' in line}
    assert {link.name for link in robot.links} == arm_links | gripper_links
    # the links keep their looks (rviz's RobotModel): meshes of the arm and of the gripper
    for link, mesh in (('shoulder_link', 'meshes/ur5e/visual/shoulder.dae'),
                       ('g_robotiq_85_base_link', 'robotiq_base.dae')):
        [visual] = robot.link_map[link].visuals
        assert visual.geometry.filename.endswith(mesh), (link, visual.geometry.filename)
    # and their collisions and inertia (MoveIt, simulators), as the sources wrote them
    from urdf_parser_py.urdf import URDF
    for source, prefix in ((ARM, ''), (GRIPPER, 'g_')):
        links = URDF.from_xml_string(source.read_bytes()).links
        assert any(link.collisions for link in links) and any(link.inertial for link in links)
        for link in links:
            mine = robot.link_map[prefix + link.name]
            assert (len(mine.visuals), len(mine.collisions)) == (
                len(link.visuals), len(link.collisions)), link.name
            assert (mine.inertial and mine.inertial.mass) == (
                link.inertial and link.inertial.mass), link.name
    # the base has no ros2_control; the part's names its unprefixed joints: left out
    assert '<ros2_control' in GRIPPER.read_text() and '<ros2_control' not in text
    msg = probe.answer_to_state(names, list(state.values()))
    probe.wait_static(lambda m: 'g_world' in {t.child_frame_id for t in m.transforms})
    poses = compose_poses(transform_map(probe.latest_static(), msg), 'world')
    assert set(poses) == set(expected)
    for link, pose in expected.items():
        np.testing.assert_allclose(poses[link], pose, atol=1e-9, err_msg=link)
    # The part's root is under the flange at the offset given.
    flange_to_root = np.linalg.inv(poses['tool0']) @ poses['g_world']
    np.testing.assert_allclose(flange_to_root[:3, 3], OFFSET, atol=1e-12)
    np.testing.assert_allclose(flange_to_root[:3, :3], _rpy(*TURN), atol=1e-12)
    assert node.node.model.root == 'world'


def test_offset_change_at_run_time(node, probe):
    [result] = probe.set_parameters(node.name, **{'parts.gripper.xyz': [0.0, 0.0, 0.05]})
    assert result.successful, result.reason
    static = probe.wait_static(lambda m: any(
        t.child_frame_id == 'g_world' and abs(t.transform.translation.z - 0.05) < 1e-12
        for t in m.transforms), what='the new offset on /tf_static')
    assert 'g_robotiq_85_base_link' in {t.child_frame_id for t in static.transforms}
    assert node.node.get_parameter('robot_description').value == ARM.read_text()


def test_second_part_with_the_same_description_and_another_prefix(node, probe):
    links = node.node.model.link_names
    [result] = probe.set_parameters(node.name, parts=['gripper', 'spare'])
    assert result.successful, result.reason
    # Its parameters are declared now; without a description it adds nothing.
    assert node.node.get_parameter('parts.spare.prefix').value == ''
    assert node.node.model.link_names == links
    result = atomically(probe, node.name, **{
        'parts.spare.description': GRIPPER.read_text(), 'parts.spare.parent': 'upper_arm_link',
        'parts.spare.prefix': 's_', 'parts.spare.xyz': [0.1, 0.0, 0.0]})
    assert result.successful, result.reason
    probe.wait_static(lambda m: {'s_world', 'g_world'} <= {t.child_frame_id for t in m.transforms},
                      what='both grippers on /tf_static')
    text = description(probe, lambda t: 's_robotiq_85_base_link' in t)
    assert 'g_robotiq_85_base_link' in text
    # Both copies move with joint_states, each by its own joint names.
    msg = probe.answer_to_state(['s_robotiq_85_left_knuckle_joint',
                                 'g_robotiq_85_left_knuckle_joint'], [0.2, 0.6])
    moved = {t.child_frame_id for t in msg.transforms}
    assert {'s_robotiq_85_left_knuckle_link', 'g_robotiq_85_left_knuckle_link',
            's_robotiq_85_right_knuckle_link'} <= moved


@pytest.mark.parametrize('values, reason', [
    ({'parts.spare.prefix': 'g_'},
     "link 'g_world' of part 'spare' is also a link of part 'gripper'"),
    ({'parts.spare.parent': 'no_such_link'},
     "part 'spare': parent link 'no_such_link' is in neither the base nor an earlier part"),
    ({'parts.gripper.parent': 's_robotiq_85_base_link'},
     "part 'gripper': parent link 's_robotiq_85_base_link' is a link of part 'spare', "
     'which comes later'),
    ({'parts.spare.description': '<robot name="broken"><link name="a"></robot>'},
     "part 'spare'"),
    ({'parts.spare.description': '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
      '<link name="$(env HOME)"/></robot>'}, "part 'spare': [xacro]"),
    ({'parts': ['gripper', 'spare', 'bad.name']}, "part name 'bad.name' must be"),
    ({'parts.spare.xyz': [0.0, 1.0]}, 'expected 3 finite numbers'),
    ({'parts': [f'p{k}' for k in range(65)]}, '65 parts: at most 64'),
    ({'parts.spare.prefix': Parameter('parts.spare.prefix')}, 'cannot be undeclared'),
])
def test_refused_change_leaves_the_robot(node, probe, values, reason):
    before = node.node.model
    names = sorted(values)
    old = {name: node.node.get_parameter(name).value for name in names}
    result = atomically(probe, node.name, **values)
    assert not result.successful
    assert reason in result.reason
    assert node.node.model is before
    for name in names:
        assert node.node.get_parameter(name).value == old[name]


def test_detach_removes_its_frames_for_late_subscribers(node, probe):
    [result] = probe.set_parameters(node.name, parts=['gripper'])
    assert result.successful, result.reason
    late = probe.late_latched('/tf_static', predicate=lambda m: 'g_world' in {
        t.child_frame_id for t in m.transforms} and 's_world' not in {
        t.child_frame_id for t in m.transforms})
    assert not any(t.child_frame_id.startswith('s_') for t in late.transforms)
    text = description(probe, lambda t: 's_robotiq' not in t)
    assert 'g_robotiq_85_base_link' in text
    assert 's_' not in ' '.join(node.node.model.link_names)


def test_no_parts_publishes_the_base_as_given(node, probe):
    [result] = probe.set_parameters(node.name, parts=[])
    assert result.successful, result.reason
    assert description(probe, lambda t: 'g_robotiq' not in t) == ARM.read_text()
    probe.wait_static(lambda m: 'g_world' not in {t.child_frame_id for t in m.transforms},
                      what='a /tf_static without the gripper')
    # Attached again, the part keeps its settings.
    [result] = probe.set_parameters(node.name, parts=['gripper'])
    assert result.successful, result.reason
    assert 'g_world' in node.node.model.link_names


def test_the_native_loop_serves_the_composed_robot(node, probe):
    status = native.status()
    if status.module is None:
        pytest.skip(f'the native loop cannot run here: {status.reason}')
    assert any(line.startswith('joint_states path: native loop (C)')
               for line in node.logs('info')), node.logs('info')
    [result] = probe.set_parameters(node.name, publish_frequency=0.0)   # each message answered
    assert result.successful, result.reason
    health = node.node._health
    with node.node.joint_input.lock:   # pauses the loop and brings its counters over
        before = health.native_loop_served
    names = list(ARM_STATE) + ['g_robotiq_85_left_knuckle_joint']
    for k in range(20):
        msg = probe.answer_to_state(names, [0.01 * k] * len(names))
        assert 'g_robotiq_85_right_finger_tip_link' in {t.child_frame_id for t in msg.transforms}
    with node.node.joint_input.lock:
        served = health.native_loop_served - before
    assert served >= 15, served


def test_parts_from_a_parameters_file_with_flat_dotted_keys(tmp_path, probe):
    arm = (FIXTURES / 'urdfdom_arm.urdf').read_text()
    params = tmp_path / 'params.yaml'
    params.write_text(yaml.safe_dump({'/**': {'ros__parameters': {
        'robot_description': arm, 'parts': ['second', 'unused'],
        'parts.second.description': arm, 'parts.second.parent': 'tool',
        'parts.second.xyz': [0.0, 0.0, 0.25], 'parts.second.prefix': 'second_',
        'parts.other.parent': 'base'}}}))
    node = NodeUnderTest('urdf_state_parts_file',
                         cli_args=['--ros-args', '--params-file', str(params)])
    try:
        model = node.node.model
        assert 'second_world' in model.link_names and len(model.links) == 24
        mount = model.joint('second_mount')
        assert (mount.parent, mount.origin.xyz) == ('tool', (0.0, 0.0, 0.25))
        # every name given is declared, listed in parts or not (attached later)
        assert node.node.get_parameter('parts.other.parent').value == 'base'
        assert node.node.get_parameter('parts.unused.description').value == ''
        # the base keeps its gazebo and transmission (they name its own joints), the
        # part's are left out; the part's "grey" is its own material, made inline
        from urdf_parser_py.urdf import URDF
        text = description(probe, lambda t: 'second_world' in t)
        assert text.count('<transmission name="shoulder_pan_transmission"') == 1
        assert text.count('<gazebo reference="base">') == 1
        robot = URDF.from_xml_string(text.encode())
        for link, material in (('base', 'grey'), ('second_base', 'second/grey')):
            looks = robot.link_map[link]
            assert looks.visual.material.name == material and looks.inertial.mass == 2.0
            assert list(looks.collision.geometry.size) == [0.2, 0.2, 0.1]
        assert list(robot.link_map['second_base'].visual.material.color.rgba) == [0.5] * 3 + [1]
    finally:
        node.close()
