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
The node with ``parser:=urdf_parser_py`` over real DDS: TF equal to the built-in parser's.

One node for the module, started with ``parser: urdf_parser_py`` (what the launch
file's parameters would do). Per robot (the repo fixture with every joint type,
and corpus robots when present) the same JointState is published once with
``parser: urdf`` and once after switching to ``urdf_parser_py`` through the
SetParameters service (what ``ros2 param set /urdf_state parser urdf_parser_py``
calls); both /tf + /tf_static sets must match frame by frame to 1e-12 and
compose to the core's FK. Then the plugin's rejections and its ``strict``
option, which the node declares as the parameter ``urdf_parser_py.strict``.
"""
from node_harness import compose_poses, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from robot_files import corpus_file, corpus_params, FIXTURES
from robot_files import H1_2 as H1_2_PATH
from test_node_robots import random_state
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model

pytestmark = pytest.mark.ros  # needs rclpy and DDS

pytest.importorskip('urdf_parser_py.urdf')

ARM = (FIXTURES / 'urdfdom_arm.urdf').read_text(encoding='utf-8')
H1_2 = H1_2_PATH.read_text(encoding='utf-8')
CORPUS_ROBOTS = {
    'talos': 'example_robot_data/talos_data/robots/talos_full_v2.urdf',
    'tiago': 'example_robot_data/tiago_description/robots/tiago.urdf',
    'robotiq_2f85': 'robotiq_2f85/generated/robotiq_2f_85.urdf',
    'ur5e': 'ur_description_ros2/generated/ur5e.urdf',
}
TOL = 1e-12


@pytest.fixture(scope='module')
def node():
    n = NodeUnderTest('urdf_state_udp', {'parser': 'urdf_parser_py', 'robot_description': ARM})
    yield n
    n.close()


def _description(robot: str) -> str:
    if robot == 'fixture':
        return ARM
    return corpus_file(CORPUS_ROBOTS[robot]).read_text(encoding='utf-8')


def _set(probe, node, **values):
    results = probe.set_parameters(node.name, **values)
    assert all(r.successful for r in results), [r.reason for r in results]


def _tf_after_state(probe, model, names, values, static_since):
    """
    Return the /tf_static and /tf after a JointState as one map.

    Return the /tf_static sent after ``static_since`` (index into the probe's /tf_static list) +
    the /tf answering one JointState, as one transform map.
    """
    fixed_children = {j.child for j in model.joints if not j.is_movable}
    static = wait_until(lambda: next(
        (m for m in list(probe.tf_static)[static_since:]
         if {t.child_frame_id for t in m.transforms} == fixed_children), None),
        what=f'/tf_static of {model.name}')
    return transform_map(static, probe.answer_to_state(names, values))


def test_starts_with_urdf_parser_py_and_declares_its_option(node):
    line = wait_until(lambda: next((t for t in node.logs('info') if 'urdfdom_arm' in t), None),
                      what='the load log line')
    assert "loaded with parser 'urdf_parser_py'" in line
    assert node.node.get_parameter('urdf_parser_py.strict').value is False
    descriptor = node.node.describe_parameter('urdf_parser_py.strict')
    assert 'urdfdom-py' in descriptor.description


@pytest.mark.parametrize('robot', ['fixture'] + corpus_params(sorted(CORPUS_ROBOTS)))
def test_tf_equals_builtin_parser_after_switch(probe, node, robot):
    text = _description(robot)
    model = load_model(text, parser='urdf')
    static_since = len(probe.tf_static)
    _set(probe, node, parser='urdf', robot_description=text)
    names, values = random_state(model, np.random.default_rng(len(robot)))
    builtin = _tf_after_state(probe, model, names, values, static_since)

    node.clear_logs()
    static_since = len(probe.tf_static)
    _set(probe, node, parser='urdf_parser_py')          # ros2 param set ... parser urdf_parser_py
    wait_until(lambda: any(f"Robot '{model.name}' loaded with parser 'urdf_parser_py'" in t
                           for t in node.logs('info')), what='the reload with urdf_parser_py')
    plugin = _tf_after_state(probe, model, names, values, static_since)

    assert set(plugin) == set(builtin) == set(model.link_names) - {model.root}
    for frame, (parent, matrix) in builtin.items():
        assert plugin[frame][0] == parent
        assert np.abs(plugin[frame][1] - matrix).max() <= TOL, frame
    kin = Kinematics(model)
    expected = kin.link_poses(kin.positions(dict(zip(names, values))))
    poses = compose_poses(plugin, model.root)
    worst = max(np.abs(poses[link] - expected[i]).max()
                for i, link in enumerate(model.link_names))
    assert worst < 1e-9, f'{robot}: max deviation {worst}'


def _still_publishes_arm(probe, node):
    tf = transform_map(probe.answer_to_state(['shoulder_pan'], [0.25]))
    assert tf['shoulder'][0] == 'base'


def test_urdfdom_py_rejection_keeps_the_model(probe, node):
    _set(probe, node, robot_description=ARM, parser='urdf_parser_py')
    result, = probe.set_parameters(node.name, robot_description=H1_2)
    assert not result.successful
    assert '[urdf_parser_py]' in result.reason and 'material' in result.reason, result.reason
    _still_publishes_arm(probe, node)
    # The built-in reader takes the same text, as robot_state_publisher would. (SetParameters
    # applies a request's parameters one by one: the parser first.)
    _set(probe, node, parser='urdf', robot_description=H1_2)
    _set(probe, node, robot_description=ARM, parser='auto')
    wait_until(lambda: any("'urdfdom_arm' loaded with parser 'urdf'" in t
                           for t in node.logs('info')), what="'auto' picking the urdf parser")


def test_strict_option_reparses_and_can_reject(probe, node):
    noisy = ARM.replace('</robot>', '<mujoco><compiler angle="radian"/></mujoco></robot>')
    _set(probe, node, robot_description=noisy, parser='urdf_parser_py')
    result, = probe.set_parameters(node.name, **{'urdf_parser_py.strict': True})
    assert not result.successful
    assert 'Unknown tag "mujoco"' in result.reason, result.reason
    assert node.node.get_parameter('urdf_parser_py.strict').value is False
    _still_publishes_arm(probe, node)
    result, = probe.set_parameters(node.name, **{'urdf_parser_py.strict': 'yes'})
    assert not result.successful                      # typed: a bool parameter
    _set(probe, node, robot_description=ARM, **{'urdf_parser_py.strict': True})
    _set(probe, node, **{'urdf_parser_py.strict': False})
    _still_publishes_arm(probe, node)
