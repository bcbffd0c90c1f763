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
The MoveIt robot model (URDF + SRDF) gives MoveIt's answers.

Three robots: ``test/fixtures/srdf/mobile_arm`` (written for these tests; the
expected values are worked out by hand from moveit_core's rules, each noted
where it is asserted), and the Panda and Baxter pairs of the shared corpus
(the Panda pair is byte-identical to moveit_py's unit-test fixtures: its
expectations are moveit_py's ``test_robot_model.py``'s).
"""

import math

import pytest
from robot_files import CORPUS, FIXTURES
from urdf_state_py import DescriptionError, load_model_file, load_robot_model
from urdf_state_py.core.parsers.semantic_parsers import load_semantic
from urdf_state_py.core.robot_model import ASSUMED_FIXED_ROOT_JOINT, RobotModel

MOBILE = FIXTURES / 'srdf' / 'mobile_arm'
PAIRS = CORPUS / 'srdf'


@pytest.fixture(scope='module')
def mobile() -> RobotModel:
    return load_robot_model(f'{MOBILE}.urdf', f'{MOBILE}.srdf')


def pair(name):
    folder = PAIRS / name
    if not (folder / f'{name}.srdf').is_file():
        pytest.skip(f'needs the shared URDF + SRDF pairs ({folder} is absent)')
    return load_robot_model(folder / f'{name}.urdf', folder / f'{name}.srdf')


# -- the fixture robot: every rule, by hand ------------------------------------

def test_root_joint_model_frame_and_depth_first_order(mobile):
    assert mobile.name == 'mobile_arm'
    assert mobile.root_joint_name == 'base_joint'          # the planar virtual joint
    assert mobile.model_frame == 'odom'                    # its parent frame (not fixed)
    assert mobile.root_link_name == 'base_link'
    # base_link's children by joint name (camera_joint, wheel_joint, z_lift), not file order
    assert mobile.joint_model_names == [
        'base_joint', 'camera_joint', 'wheel_joint', 'z_lift', 'shoulder_pan', 'shoulder_lift',
        'elbow', 'wrist_roll', 'tool_joint', 'gripper_mount', 'finger_a_joint',
        'finger_b_joint', 'finger_c_joint']
    assert mobile.link_model_names[:4] == ['base_link', 'camera_link', 'wheel', 'lift_link']
    assert mobile.variable_names == [
        'base_joint/x', 'base_joint/y', 'base_joint/theta', 'wheel_joint', 'z_lift',
        'shoulder_pan', 'shoulder_lift', 'elbow', 'wrist_roll', 'finger_a_joint',
        'finger_b_joint', 'finger_c_joint']
    assert mobile.mimic_joint_model_names == ['finger_b_joint', 'finger_c_joint']
    assert mobile.get_joint_model('finger_c_joint').mimic == 'finger_a_joint'   # collapsed
    assert mobile.get_joint_model('finger_c_joint').mimic_factor == -0.5
    assert mobile.get_joint_model('finger_c_joint').mimic_offset == pytest.approx(-0.0015)


def test_bounds(mobile):
    def bounds(variable):
        b = mobile.get_variable_bounds(variable)
        return b.min_position, b.max_position, b.position_bounded
    assert bounds('base_joint/x') == (-math.inf, math.inf, True)
    assert bounds('base_joint/theta') == (-math.pi, math.pi, False)
    assert bounds('wheel_joint') == (-math.pi, math.pi, False)         # continuous
    assert bounds('wrist_roll') == (-math.pi, math.pi, False)          # continuous, soft ignored
    assert bounds('z_lift') == (0.1, 0.5, True)
    assert bounds('shoulder_pan') == (-1.5, 1.5, True)                 # soft inside hard
    assert bounds('shoulder_lift') == (0.2, 0.8, True)
    assert bounds('elbow') == (0.5, 2.0, True)                         # max(soft, hard), min(...)
    wheel = mobile.get_variable_bounds('wheel_joint')
    assert (wheel.max_velocity, wheel.velocity_bounded) == (5.0, True)
    assert mobile.get_variable_bounds('wrist_roll').velocity_bounded is False   # no <limit>


def test_default_positions(mobile):
    assert mobile.get_variable_default_positions() == pytest.approx({
        'base_joint/x': 0.0, 'base_joint/y': 0.0, 'base_joint/theta': 0.0,
        'wheel_joint': 0.0,
        'z_lift': 0.3,                 # 0 outside [0.1, 0.5]: mid-point
        'shoulder_pan': 0.0,
        'shoulder_lift': 0.5,          # 0 outside the soft [0.2, 0.8]
        'elbow': 1.25,                 # [0.5, 2.0]
        'wrist_roll': 0.0,
        'finger_a_joint': 0.0,
        'finger_b_joint': 0.005,       # 1 * 0 + 0.005
        'finger_c_joint': -0.0015,     # -0.5 * 0.005 + 0.001
    })
    assert list(mobile.get_variable_default_positions()) == mobile.variable_names


def test_groups(mobile):
    assert mobile.joint_model_group_names == ['arm', 'arm_gripper', 'base', 'gripper',
                                              'whole_body']
    arm = mobile.get_joint_model_group('arm')
    assert arm.joint_model_names == ['z_lift', 'shoulder_pan', 'shoulder_lift', 'elbow',
                                     'wrist_roll', 'tool_joint']
    assert arm.active_joint_model_names == arm.joint_model_names[:5]
    assert arm.link_model_names == ['lift_link', 'shoulder_link', 'upper_arm', 'forearm',
                                    'wrist', 'tool0']
    gripper = mobile.get_joint_model_group('gripper')
    assert gripper.joint_model_names == ['gripper_mount', 'finger_a_joint', 'finger_b_joint',
                                         'finger_c_joint']
    assert gripper.active_joint_model_names == ['finger_a_joint']
    assert gripper.mimic_joint_model_names == ['finger_b_joint', 'finger_c_joint']
    assert gripper.fixed_joint_model_names == ['gripper_mount']
    assert gripper.variable_names == ['finger_a_joint', 'finger_b_joint', 'finger_c_joint']
    assert gripper.variable_count == 3
    base = mobile.get_joint_model_group('base')
    assert base.variable_names == ['base_joint/x', 'base_joint/y', 'base_joint/theta',
                                   'wheel_joint']
    assert [[(b.min_position, b.position_bounded) for b in joint]
            for joint in base.active_joint_model_bounds] == [
        [(-math.inf, True), (-math.inf, True), (-math.pi, False)], [(-math.pi, False)]]
    whole = mobile.get_joint_model_group('whole_body')
    assert whole.joint_model_names == mobile.joint_model_names[:1] + mobile.joint_model_names[2:]
    assert whole.subgroup_names == ['arm', 'arm_gripper', 'base', 'gripper']
    assert mobile.get_joint_model_group('arm_gripper').subgroup_names == ['arm', 'gripper']
    assert mobile.has_joint_model_group('arm') and not mobile.has_joint_model_group('leg')
    with pytest.raises(KeyError, match="no group 'leg'"):
        mobile.get_joint_model_group('leg')


def test_group_states_and_group_defaults(mobile):
    arm = mobile.get_joint_model_group('arm')
    assert arm.default_state_names == ['ready', 'stretched']
    assert arm.get_variable_default_positions('ready') == {
        'elbow': 1.2, 'shoulder_lift': 0.6, 'shoulder_pan': 0.5, 'wrist_roll': -0.4,
        'z_lift': 0.3}
    assert mobile.get_joint_model_group('base').get_variable_default_positions('parked') == {
        'base_joint/x': 1.0, 'base_joint/y': -2.0, 'base_joint/theta': 0.5,
        'wheel_joint': 0.25}
    assert arm.get_variable_default_positions() == pytest.approx({
        'z_lift': 0.3, 'shoulder_pan': 0.0, 'shoulder_lift': 0.5, 'elbow': 1.25,
        'wrist_roll': 0.0})
    with pytest.raises(KeyError, match="no state 'home'"):
        arm.get_variable_default_positions('home')
    # the fingers' source is in the group: they follow it
    assert mobile.get_joint_model_group('gripper').get_variable_default_positions() == \
        pytest.approx({'finger_a_joint': 0.0, 'finger_b_joint': 0.005,
                       'finger_c_joint': -0.0015})


def test_end_effectors_and_passive_joints(mobile):
    assert [g.name for g in mobile.end_effectors] == ['gripper']
    gripper = mobile.get_joint_model_group('gripper')
    assert gripper.end_effector_name == 'hand'
    # no parent_group given: the group holding tool0 with the fewest joints
    assert gripper.end_effector_parent_group == ('arm', 'tool0')
    assert mobile.get_joint_model_group('arm').attached_end_effector_names == ['hand']
    assert mobile.passive_joint_names == ['finger_b_joint', 'finger_c_joint']
    assert mobile.get_joint_model('finger_b_joint').is_passive
    assert not mobile.get_joint_model('finger_a_joint').is_passive
    assert mobile.semantic.disabled_collisions == (('finger_a', 'finger_b', 'Adjacent'),)


def test_rigidly_connected_parent_and_common_root(mobile):
    parent = mobile.get_rigidly_connected_parent_link_model_name
    assert parent('gripper_base') == 'wrist'        # gripper_mount, tool_joint are fixed
    assert parent('camera_link') == 'base_link'
    assert parent('finger_a') == 'finger_a'
    assert parent('wrist', 'gripper') == 'base_link'   # the arm's joints are not in 'gripper'
    root = mobile.get_common_root_name
    assert root('shoulder_pan', 'elbow') == 'shoulder_pan'        # ancestor
    assert root('camera_joint', 'shoulder_pan') == 'base_joint'
    assert root('elbow', 'elbow') == 'elbow'
    assert root('finger_a_joint', 'finger_c_joint') == 'finger_a_joint'   # mimic "descendant"
    assert root('finger_b_joint', 'finger_c_joint') == 'gripper_mount'
    # two siblings without descendants: MoveIt's table keeps the root joint for them
    assert root('camera_joint', 'wheel_joint') == 'base_joint'


def test_random_positions(mobile):
    first = mobile.get_variable_random_positions(seed=7)
    assert first == mobile.get_variable_random_positions(seed=7)
    assert first != mobile.get_variable_random_positions(seed=8)
    assert list(first) == mobile.variable_names
    for seed in range(50):
        values = mobile.get_variable_random_positions(seed)
        for variable, value in values.items():
            bounds = mobile.get_variable_bounds(variable)
            assert bounds.min_position <= value <= bounds.max_position, (variable, value)
        assert values['base_joint/x'] == values['base_joint/y'] == 0.0   # infinite bounds
        assert values['finger_b_joint'] == pytest.approx(values['finger_a_joint'] + 0.005)
        assert values['finger_c_joint'] == pytest.approx(-0.5 * values['finger_a_joint']
                                                         - 0.0015)
    group = mobile.get_joint_model_group('gripper')
    assert group.get_variable_random_positions(3) == group.get_variable_random_positions(3)


def test_without_srdf_and_with_a_fixed_virtual_joint():
    model = load_model_file(f'{MOBILE}.urdf')
    plain = RobotModel(model)
    assert plain.root_joint_name == ASSUMED_FIXED_ROOT_JOINT
    assert plain.model_frame == 'base_link'
    assert plain.variable_names[0] == 'wheel_joint'
    assert plain.joint_model_group_names == []
    fixed = RobotModel(model, load_semantic(
        '<robot name="mobile_arm"><virtual_joint name="vj" type="fixed" parent_frame="world" '
        'child_link="base_link"/></robot>', model))
    assert (fixed.root_joint_name, fixed.model_frame) == ('vj', 'base_link')


@pytest.mark.parametrize('body, named', [
    ('<group name="g"><joint name="nope"/></group>', "unknown joint 'nope'"),
    ('<group name="g"><link name="nolink"/></group>', "unknown link 'nolink'"),
    ('<group name="g"><chain base_link="base_link" tip_link="x"/></group>', "unknown link 'x'"),
    ('<group name="g"><group name="ghost"/></group>', "unknown subgroup 'ghost'"),
    ('<group name="a"><group name="b"/></group><group name="b"><group name="a"/></group>',
     'cycle'),
    ('<group_state name="s" group="ghost"><joint name="elbow" value="0"/></group_state>',
     "unknown group 'ghost'"),
    ('<group name="g"><joint name="elbow"/></group>'
     '<group_state name="s" group="g"><joint name="elbw" value="0"/></group_state>',
     "unknown joint 'elbw'"),
    ('<group name="g"><joint name="elbow"/></group>'
     '<group_state name="s" group="g"><joint name="elbow" value="zero"/></group_state>',
     "'zero' is not a number"),
    ('<end_effector name="e" group="ghost" parent_link="tool0"/>', "unknown group 'ghost'"),
    ('<group name="g"><joint name="elbow"/></group>'
     '<end_effector name="e" group="g" parent_link="hand"/>', "unknown link 'hand'"),
    ('<passive_joint name="ghost_joint"/>', "unknown joint 'ghost_joint'"),
    ('<virtual_joint name="v" type="planar" parent_frame="odom" child_link="nowhere"/>',
     "unknown link 'nowhere'"),
    ('<group name="g"/><group name="g"/>', "'g' is used twice"),
    ('<virtual_joint name="elbow" type="fixed" parent_frame="w" child_link="base_link"/>',
     "virtual joint 'elbow' has the name of a joint"),
    ('<!DOCTYPE r [<!ENTITY a "aaaa">]><group name="&a;"/>', 'entity'),
])
def test_bad_srdf_is_an_error_naming_it(body, named):
    model = load_model_file(f'{MOBILE}.urdf')
    text = body if body.startswith('<!') else f'<robot name="mobile_arm">{body}</robot>'
    if body.startswith('<!'):
        text = body.replace('<group', '<robot name="m"><group') + '</robot>'
    with pytest.raises(DescriptionError, match=named):
        load_semantic(text, model)


def test_load_robot_model_names_the_file(tmp_path):
    bad = tmp_path / 'bad.srdf'
    bad.write_text('<robot name="mobile_arm"><passive_joint name="ghost"/></robot>')
    with pytest.raises(DescriptionError, match=r"bad\.srdf: .*unknown joint 'ghost'"):
        load_robot_model(f'{MOBILE}.urdf', bad)


# -- the shared pairs ----------------------------------------------------------

def test_panda_as_moveit_py_expects():
    robot = pair('panda')
    # moveit_py's test_robot_model.py
    assert robot.name == 'panda'
    assert robot.model_frame == 'world'
    assert robot.root_joint_name == 'virtual_joint'
    assert sorted(robot.joint_model_group_names) == ['hand', 'panda_arm', 'panda_arm_hand']
    assert robot.get_joint_model_group('panda_arm').name == 'panda_arm'
    assert not robot.has_joint_model_group('The answer is 42.')
    # MoveIt's rules
    assert robot.variable_names[:7] == [f'virtual_joint/{v}' for v in (
        'trans_x', 'trans_y', 'trans_z', 'rot_x', 'rot_y', 'rot_z', 'rot_w')]
    assert robot.variable_names[7:] == [f'panda_joint{i}' for i in range(1, 8)] + [
        'panda_finger_joint1', 'panda_finger_joint2']
    arm = robot.get_joint_model_group('panda_arm')
    assert arm.joint_model_names == [f'panda_joint{i}' for i in range(1, 9)]
    assert arm.active_joint_model_names == [f'panda_joint{i}' for i in range(1, 8)]
    # soft limits of the <safety_controller> (-3.0718, 0.0175), narrower than <limit>
    assert [(b[0].min_position, b[0].max_position) for b in arm.active_joint_model_bounds][3] \
        == (-3.0718, 0.0175)
    assert arm.default_state_names == ['ready', 'extended', 'transport']
    assert arm.get_variable_default_positions('ready')['panda_joint4'] == -2.356
    hand = robot.get_joint_model_group('hand')
    assert hand.joint_model_names == ['panda_hand_joint', 'panda_finger_joint1',
                                      'panda_finger_joint2']
    assert hand.active_joint_model_names == ['panda_finger_joint1']
    assert hand.end_effector_name == 'hand'
    assert hand.end_effector_parent_group == ('panda_arm', 'panda_link8')
    assert [g.name for g in robot.end_effectors] == ['hand']
    assert robot.passive_joint_names == []    # the <passive_joint> inside a group is ignored
    assert robot.get_joint_model_group('panda_arm_hand').subgroup_names == ['hand', 'panda_arm']
    defaults = robot.get_variable_default_positions()
    assert defaults['virtual_joint/rot_w'] == 1.0
    assert all(defaults[f'panda_joint{i}'] == 0.0 for i in range(1, 8))   # 0 within all


def test_baxter_by_moveit_rules():
    robot = pair('baxter')
    assert (robot.root_joint_name, robot.model_frame, robot.root_link_name) == (
        'world_joint', 'world', 'base')
    assert robot.passive_joint_names == ['world_joint']
    assert robot.get_joint_model('world_joint').is_passive
    assert robot.joint_model_group_names == ['both_arms', 'left_arm', 'left_hand', 'right_arm',
                                             'right_hand']
    left = robot.get_joint_model_group('left_arm')
    assert left.active_joint_model_names == [
        'left_s0', 'left_s1', 'left_e0', 'left_e1', 'left_w0', 'left_w1', 'left_w2']
    assert 'torso_t0' not in left.joint_model_names
    assert robot.get_joint_model_group('left_hand').variable_count == 0
    assert robot.get_joint_model_group('left_hand').end_effector_parent_group == (
        'left_arm', 'left_gripper')
    both = robot.get_joint_model_group('both_arms')
    assert set(both.joint_model_names) == set(left.joint_model_names) | set(
        robot.get_joint_model_group('right_arm').joint_model_names)
    assert left.get_variable_default_positions('left_neutral')['left_w1'] == 1.26
    values = robot.get_variable_random_positions(1)
    assert values == robot.get_variable_random_positions(1)
    for variable, value in values.items():
        b = robot.get_variable_bounds(variable)
        assert b.min_position <= value <= b.max_position


def test_chain_through_the_common_ancestor_and_ignored_state_values():
    """
    A chain whose base is not above its tip: MoveIt's walk, kept as is.

    MoveIt walks up from the tip to the root, then up from the base until it meets that
    walk, and keeps the met joint's whole prefix (here the root joint too). Group-state
    values MoveIt ignores are warnings, not errors.
    """
    model = load_model_file(f'{MOBILE}.urdf')
    srdf = ('<robot name="mobile_arm">'
            '<virtual_joint name="base_joint" type="planar" parent_frame="odom" '
            'child_link="base_link"/>'
            '<group name="across"><chain base_link="finger_a" tip_link="camera_link"/></group>'
            '<group name="arm"><joint name="elbow"/></group>'
            '<group_state name="s" group="arm"><joint name="elbow" value="0.7 1"/>'
            '<joint name="z_lift" value="0.2"/></group_state>'
            '<group_state name="t" group="arm"><joint name="elbow" value="0.9"/></group_state>'
            '</robot>')
    robot = RobotModel(model, load_semantic(srdf, model))
    assert robot.get_joint_model_group('across').joint_model_names == [
        'base_joint', 'camera_joint', 'z_lift', 'shoulder_pan', 'shoulder_lift', 'elbow',
        'wrist_roll', 'tool_joint', 'gripper_mount', 'finger_a_joint']
    arm = robot.get_joint_model_group('arm')
    assert arm.default_state_names == ['t']        # 's' kept no valid value: not added
    assert any("'elbow' needs 1 value(s), 2 given" in w for w in robot.warnings)
    assert any("'z_lift' is not in the group" in w for w in robot.warnings)


def test_element_limits():
    model = load_model_file(f'{MOBILE}.urdf')
    groups = ''.join(f'<group name="g{i}"><joint name="elbow"/></group>' for i in range(1001))
    with pytest.raises(DescriptionError, match='1001 <group> elements, more than the limit'):
        load_semantic(f'<robot name="mobile_arm">{groups}</robot>', model)
    chains = '<chain base_link="base_link" tip_link="tool0"/>' * 1001
    with pytest.raises(DescriptionError, match='1001 <chain> elements'):
        load_semantic(f'<robot name="mobile_arm"><group name="g">{chains}</group></robot>',
                      model)


def test_the_parser_process_reads_an_srdf_as_the_library_does():
    from urdf_state_py.core.parsers import UrdfXmlParser
    from urdf_state_py.core.parsers.isolated import IsolatedParser, ParseLimits
    from urdf_state_py.core.parsers.semantic_parsers import SEMANTIC_REQUEST
    from urdf_state_py.core.parsers.srdf import SrdfParser
    from urdf_state_py.core.parsers.xacro_sandbox import RESTRICTED
    text = (FIXTURES / 'srdf' / 'mobile_arm.srdf').read_text()
    parser = IsolatedParser([UrdfXmlParser], ParseLimits(timeout_s=60.0))
    try:
        result = parser.parse(text, SEMANTIC_REQUEST, {}, RESTRICTED)
        assert result.parser == 'srdf'
        assert result.model == SrdfParser().read(text)
        bomb = ('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
                '<robot name="m"><group name="&b;"/></robot>')
        with pytest.raises(DescriptionError, match='entity declarations are not allowed'):
            parser.parse(bomb, SEMANTIC_REQUEST, {}, RESTRICTED)
    finally:
        parser.close()


class LinesSemantic:
    """A toy semantic format for the plugin test: 'group NAME JOINT...' lines."""

    name = 'lines'

    def might_handle(self, data):
        return 0 if data.startswith('group ') else len(data)

    def read(self, data):
        from urdf_state_py.core.parsers.srdf import Group, Semantic
        groups = tuple(Group(words[1], joints=tuple(words[2:]))
                       for words in (line.split() for line in data.splitlines()) if words)
        return Semantic('mobile_arm', groups=groups)


def test_a_semantic_format_plugs_in_as_parsers_do(monkeypatch):
    import importlib.metadata

    from urdf_state_py.core.parsers import semantic_parsers as module
    entry = importlib.metadata.EntryPoint('lines', 'test_robot_model:LinesSemantic',
                                          module.SEMANTIC_ENTRY_POINT_GROUP)
    monkeypatch.setattr(module.importlib.metadata, 'entry_points',
                        lambda group: [entry] if group == module.SEMANTIC_ENTRY_POINT_GROUP
                        else [])
    module.semantic_parsers.cache_clear()
    try:
        assert sorted(module.semantic_parsers()) == ['lines', 'srdf']
        model = load_model_file(f'{MOBILE}.urdf')
        robot = RobotModel(model, load_semantic('group arm elbow wrist_roll\n', model))
        assert robot.get_joint_model_group('arm').active_joint_model_names == [
            'elbow', 'wrist_roll']
        assert module.select_semantic((FIXTURES / 'srdf' / 'mobile_arm.srdf').read_text()) \
            == 'srdf'
        with pytest.raises(DescriptionError, match="unknown joint 'knee'"):
            load_semantic('group leg knee\n', model)
    finally:
        module.semantic_parsers.cache_clear()


def test_every_name_docs_srdf_lists_exists(mobile):
    """docs/srdf.md's API table names only what the objects have."""
    import re
    text = (FIXTURES.parents[1] / 'docs' / 'srdf.md').read_text()
    joint = mobile.get_joint_model('elbow')
    objects = {'RobotModel': mobile, 'JointModelGroup': mobile.get_joint_model_group('arm'),
               'JointModel': joint, 'VariableBounds': joint.variable_bounds[0]}
    for kind, obj in objects.items():
        row = next(line for line in text.splitlines() if line.startswith(f'| `{kind}` |'))
        names = re.findall(r'`(\w+)(?:\(|`)', row.split('|')[2])
        assert len(names) > 3
        assert [n for n in names if not hasattr(obj, n) and n not in ('Model', 'Revolute')] \
            == [], kind
