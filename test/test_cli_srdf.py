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
The CLI with an SRDF.

``check``/``tree --srdf`` show MoveIt's groups, states, end effectors and passive joints,
``fk --group-state`` starts from the states, errors name the fault.
"""

import numpy as np
import pytest
from robot_files import FIXTURES
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model_file
from urdf_state_py.tools import cli

URDF = str(FIXTURES / 'srdf' / 'mobile_arm.urdf')
SRDF = str(FIXTURES / 'srdf' / 'mobile_arm.srdf')


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize('command', ['check', 'tree'])
def test_check_and_tree_show_the_srdf(capsys, command):
    code, out, _ = run(capsys, command, URDF, '--srdf', SRDF)
    assert code == 0
    assert 'srdf: root joint base_joint (planar), model frame odom, 12 variables' in out
    assert "group gripper: 4 joints, 3 variables, end effector 'hand'" in out
    assert '  subgroups: arm, arm_gripper, base, gripper' in out
    assert 'end effector hand: group gripper, parent link tool0, parent group arm' in out
    assert 'passive joints: finger_b_joint, finger_c_joint' in out
    assert '  state parked: base_joint/x=1, base_joint/y=-2, base_joint/theta=0.5, ' \
           'wheel_joint=0.25' in out


def test_a_bad_srdf_is_named(capsys, tmp_path):
    bad = tmp_path / 'bad.srdf'
    bad.write_text('<robot name="mobile_arm"><group name="g"><link name="nolink"/></group>'
                   '</robot>')
    code, _, err = run(capsys, 'check', URDF, '--srdf', str(bad))
    assert code == 1
    assert "bad.srdf: group 'g': unknown link 'nolink'" in err


def test_fk_from_group_states(capsys):
    code, out, err = run(capsys, 'fk', URDF, '--srdf', SRDF, '--group-state', 'arm/ready',
                         '--group-state', 'gripper/open', '--set', 'elbow=1.0',
                         '--link', 'finger_c', '--digits', '9')
    assert code == 0, err
    model = load_model_file(URDF)
    kin = Kinematics(model)
    q = kin.positions({'z_lift': 0.3, 'shoulder_pan': 0.5, 'shoulder_lift': 0.6, 'elbow': 1.0,
                       'wrist_roll': -0.4, 'finger_a_joint': 0.03})
    expected = kin.link_pose(q, 'finger_c')[:3, 3]
    xyz = [float(v) for v in out.split('xyz')[1].split('\n')[0].split()]
    assert np.allclose(xyz, expected, atol=1e-8)
    # without --group-state: MoveIt's defaults (the soft-limit mid-points), not the URDF's
    code, out, _ = run(capsys, 'fk', URDF, '--srdf', SRDF, '--link', 'forearm', '--digits', '9')
    q = kin.positions({'z_lift': 0.3, 'shoulder_lift': 0.5, 'elbow': 1.25})
    xyz = [float(v) for v in out.split('xyz')[1].split('\n')[0].split()]
    assert np.allclose(xyz, kin.link_pose(q, 'forearm')[:3, 3], atol=1e-8)


def test_fk_group_state_errors(capsys):
    code, _, err = run(capsys, 'fk', URDF, '--group-state', 'arm/ready')
    assert code == 2 and '--group-state needs --srdf' in err
    code, _, err = run(capsys, 'fk', URDF, '--srdf', SRDF, '--group-state', 'arm/home')
    assert code == 1 and "group 'arm' has no state 'home' (states: ready, stretched)" in err
    code, _, err = run(capsys, 'fk', URDF, '--srdf', SRDF, '--group-state', 'leg/up')
    assert code == 1 and "unknown group 'leg'" in err
