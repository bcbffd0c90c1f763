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
joint_state_publisher's model settings as model transforms (ROS-free).

Dependent joints become mimic rules, soft limits narrow the hard ones, zeros are checked,
and the merged JointState's contents and the velocity integration are what they say.
"""
import math

import numpy as np
import pytest
from urdf_state_py.core.joint_overrides import (apply_overrides, dependent_joints_from,
                                                DependentJoint, zero_problem)
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model
from urdf_state_py.node.joint_state_publisher.output import JointStateOutput, VelocityIntegrator

ARM = """<robot name="arm">
  <link name="b"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/>
  <joint name="j1" type="revolute"><parent link="b"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/>
    <safety_controller soft_lower_limit="-1.5" soft_upper_limit="3" k_velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j3" type="continuous"><parent link="l2"/><child link="l3"/><axis xyz="1 0 0"/>
  </joint>
  <joint name="fx" type="fixed"><parent link="l3"/><child link="l4"/></joint>
</robot>"""


@pytest.fixture(scope='module')
def model():
    return load_model(ARM)


def test_defaults_change_nothing(model):
    assert apply_overrides(model, {}, False) == (model, [])


def test_dependent_joints_become_mimic_rules_in_chains(model):
    rules = dependent_joints_from({'j2.parent': 'j1', 'j2.factor': -0.5, 'j3.parent': 'j2',
                                   'j3.offset': 0.25})
    shaped, _ = apply_overrides(model, rules, False)
    kin = Kinematics(shaped)
    q, _ = kin.resolve(kin.positions({'j1': 1.0}))
    assert q[kin.variable_index['j2']] == pytest.approx(-0.5)
    assert q[kin.variable_index['j3']] == pytest.approx(-0.25)


@pytest.mark.parametrize('rules, text', [
    ({'j2': DependentJoint('ghost')}, "parent 'ghost' is not a joint"),
    ({'ghost': DependentJoint('j1')}, "'ghost' is not a joint"),
    ({'j2': DependentJoint('fx')}, "joint 'fx' is fixed"),
    ({'j2': DependentJoint('j2')}, 'mimics itself'),
    ({'j1': DependentJoint('j2'), 'j2': DependentJoint('j1')}, 'dependent_joints'),
])
def test_bad_rules_are_refused_naming_the_parameter(model, rules, text):
    with pytest.raises(ValueError, match=text):
        apply_overrides(model, rules, False)


@pytest.mark.parametrize('flat, text', [
    ({'j2.factor': 2.0}, 'has no parent'),
    ({'j2.gain': 2.0}, 'parent, .factor or .offset'),
    ({'j2.parent': 'j1', 'j2.factor': math.nan}, 'finite number'),
])
def test_bad_flat_parameters(flat, text):
    with pytest.raises(ValueError, match=text):
        dependent_joints_from(flat)


def test_smallest_joint_limits_narrow_only(model):
    shaped, _ = apply_overrides(model, {}, True)
    limits = shaped.joint_map['j1'].limits
    assert (limits.lower, limits.upper) == (-1.5, 2.0)   # the soft upper 3 is wider: kept


def test_zero_problems(model):
    assert zero_problem(model, 'j1', 1.0) is None
    assert 'outside' in zero_problem(model, 'j1', 2.5)
    assert 'not a movable joint' in zero_problem(model, 'fx', 0.0)
    assert 'not a movable joint' in zero_problem(model, 'ghost', 0.0)
    shaped, _ = apply_overrides(model, {'j2': DependentJoint('j1')}, False)
    assert 'mimic joint' in zero_problem(shaped, 'j2', 0.0)


def test_output_velocity_rule(model):
    shaped, _ = apply_overrides(model, {'j2': DependentJoint('j1', 2.0)}, False)
    kin = Kinematics(shaped)
    out = JointStateOutput(shaped, kin.variable_index)
    q = kin.positions({'j1': 0.5, 'j3': 1.0})
    fields = out.fields(kin.resolve(q)[0])
    assert fields.name == ['j1', 'j2', 'j3'] and fields.velocity == [] and fields.effort == []
    assert fields.position == pytest.approx([0.5, 1.0, 1.0])
    out.record(np.array([kin.variable_index['j1']]), np.array([0.5]), None)
    fields = out.fields(kin.resolve(q)[0])
    assert fields.velocity == [0.5, 1.0, 0.0] and fields.effort == []


def test_integrator_zero_order_hold_clamps_and_resets(model):
    kin = Kinematics(model)
    integ = VelocityIntegrator(model, kin.variable_index, ['j1', 'j3'])
    q = kin.default_positions()
    s = 1_000_000_000
    empty = np.array([])
    assert integ.positions(['j3'], empty, np.array([2.0]), 0, q) == (['j3'], [0.0])
    assert integ.positions(['j3'], empty, np.array([1.0]), s // 2, q) == (['j3'], [1.0])
    assert integ.positions(['j3'], empty, np.array([0.0]), 3 * s, q)[1] == [3.5]   # no wrap
    assert integ.positions(['j1'], empty, np.array([10.0]), 0, q)[1] == [0.0]
    assert integ.positions(['j1'], empty, np.array([0.0]), s, q)[1] == [2.0]       # clamped
    # a position restarts it; a stamp going backwards restarts it without moving
    assert integ.positions(['j1'], np.array([-1.0]), np.array([1.0]), 2 * s, q) == ([], [])
    assert integ.positions(['j1'], empty, np.array([0.0]), 2 * s + s // 4, q)[1] == [-0.75]
    q[kin.variable_index['j1']] = 0.125
    assert integ.positions(['j1'], empty, np.array([0.0]), s, q)[1] == [0.125]
