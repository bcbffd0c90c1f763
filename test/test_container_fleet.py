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
urdf_state_container -p fleet:=FILE over DDS.

Every robot of the file loaded before the composition services are offered, a bad entry
ending the container with the robot and the key named (nothing loaded), --help, and a
robot with a part (an arm and its gripper).
"""
from pathlib import Path
import subprocess
import sys

from container_harness import assert_tf_matches_fk, Container, START_DEADLINE
import pytest
from robot_files import CORPUS, H1_2, needs_corpus
from urdf_state_py.core.parsers import load_model
from urdf_state_py.core.robot_parts import compose, Part

pytestmark = pytest.mark.ros

EXAMPLE = Path(__file__).resolve().parents[1] / 'config' / 'fleet.example.yaml'
CONTAINER = [sys.executable, '-m', 'urdf_state_py.node.process.container']


def test_the_fleet_files_robots_are_loaded_before_the_services_are_offered(probe):
    container = Container(probe, 'fleet_file_container', fleet=EXAMPLE)
    try:
        # the first ListNodes, as soon as the services are up, lists the whole fleet
        assert container.listed() == {1: '/h1_a/urdf_state', 2: '/h1_b/urdf_state',
                                      3: '/h1_c/urdf_state'}
        model = load_model(H1_2.read_text())
        values = {var: 0.25 for joint in model.joints if joint.is_movable and not joint.is_mimic
                  for var in joint.variable_bounds()}
        assert_tf_matches_fk(probe, model, 'third/', '/h1_c/joint_states', values)
        assert container.get_parameter('/h1_c/urdf_state', 'publish_frequency') \
            .double_value == 50.0
        late = container.load('/late', {'robot_description': H1_2.read_text()})
        assert late.success and late.unique_id == 4, late.error_message
    finally:
        container.close()


BAD = {
    'a parameter of the wrong type': (
        '    parameters:\n      publish_frequency: fast\n',
        "robot '/second': parameter 'publish_frequency': expected a number"),
    'an unknown key': ('    colour: red\n', "robot #2: unknown key(s) ['colour']"),
    'a missing model': ('    model: nowhere.urdf\n', 'nowhere.urdf'),
}


@pytest.mark.parametrize('case', sorted(BAD))
def test_a_bad_entry_ends_the_container_naming_robot_and_key(tmp_path, case):
    extra, message = BAD[case]
    second = '  - namespace: second\n'
    if 'model:' not in extra:
        second += f'    model: {H1_2}\n'
    fleet = tmp_path / 'fleet.yaml'
    fleet.write_text(f'robots:\n  - namespace: first\n    model: {H1_2}\n{second}{extra}')
    done = subprocess.run([*CONTAINER, '--ros-args', '-r', '__node:=bad_fleet',
                           '-p', f'fleet:={fleet}'], capture_output=True, text=True,
                          timeout=START_DEADLINE)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert message in output and 'nothing loaded' in output, output
    assert "Loaded '/first/urdf_state'" not in output   # checked before the first is built


def test_help_prints_the_parameters_and_exits():
    done = subprocess.run([*CONTAINER, '--help'], capture_output=True, text=True,
                          timeout=START_DEADLINE)
    assert done.returncode == 0, done.stderr
    assert 'fleet' in done.stdout and 'load_node.max_robots' in done.stdout
    assert 'Component container' not in done.stdout + done.stderr   # no container started


@needs_corpus
def test_a_fleet_robot_with_a_part(probe, tmp_path):
    arm = CORPUS / 'ur_description_ros2' / 'generated' / 'ur5e.urdf'
    gripper = CORPUS / 'robotiq_2f85' / 'generated' / 'robotiq_2f_85.urdf'
    fleet = tmp_path / 'fleet.yaml'
    fleet.write_text(f'robots:\n  - namespace: cell\n    model: {arm}\n    parts:\n'
                     f'      - name: gripper\n        model: {gripper}\n'
                     '        parent: tool0\n        xyz: [0, 0, 0.02]\n        prefix: g_\n')
    container = Container(probe, 'fleet_parts_container', fleet=fleet)
    try:
        assert container.listed() == {1: '/cell/urdf_state'}
        model = compose(load_model(arm.read_text()), [
            (Part('gripper', 'tool0', (0.0, 0.0, 0.02), prefix='g_'),
             load_model(gripper.read_text()))])
        values = dict.fromkeys(model.active_joint_names, 0.3)
        assert_tf_matches_fk(probe, model, 'cell/', '/cell/joint_states', values)
    finally:
        container.close()
