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

"""The composition of a base and parts into one Model and one URDF (core/robot_parts.py)."""
import math

import numpy as np
import pytest
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import Joint, JointType, Limits, Link, Mimic, Model, Origin
from urdf_state_py.core.parsers import load_model
from urdf_state_py.core.robot_parts import compose, mount_joint_name, Part
from urdf_state_py.core.urdf_elements import elements_of, MAX_CHARS, UrdfElements
from urdf_state_py.core.urdf_writer import urdf_text

ARM = Model('arm', (Link('base'), Link('flange')), (
    Joint('lift', JointType.REVOLUTE, 'base', 'flange', Origin((0.0, 0.0, 1.0)),
          (0.0, 1.0, 0.0), Limits(-2.0, 2.0)),))
FINGERS = Model('fingers', (Link('palm'), Link('left'), Link('right')), (
    Joint('left_joint', JointType.PRISMATIC, 'palm', 'left', axis=(1.0, 0.0, 0.0),
          limits=Limits(0.0, 0.05)),
    Joint('right_joint', JointType.PRISMATIC, 'palm', 'right', axis=(-1.0, 0.0, 0.0),
          limits=Limits(0.0, 0.05), mimic=Mimic('left_joint'))))


def test_a_part_hangs_under_its_parent_at_its_offset():
    part = Part('hand', 'flange', (0.0, 0.0, 0.1), (0.0, 0.0, math.pi / 2))
    model = compose(ARM, [(part, FINGERS)])
    assert model.root == 'base' and model.name == 'arm'
    mount = model.joint(mount_joint_name(part))
    assert (mount.type, mount.parent, mount.child) == (JointType.FIXED, 'flange', 'palm')
    kin = Kinematics(model)
    poses = kin.link_poses(kin.positions({'lift': 0.0, 'left_joint': 0.02}))
    index = model.link_names.index
    np.testing.assert_allclose(poses[index('palm')][:3, 3], (0.0, 0.0, 1.1), atol=1e-12)
    # the mimic follows its prefixed master; the palm is turned 90 degrees about z
    np.testing.assert_allclose(poses[index('left')][:3, 3], (0.0, 0.02, 1.1), atol=1e-12)
    np.testing.assert_allclose(poses[index('right')][:3, 3], (0.0, -0.02, 1.1), atol=1e-12)


def test_a_prefix_renames_links_joints_and_mimic_masters_so_a_part_fits_twice():
    model = compose(ARM, [(Part('a', 'flange', prefix='a_'), FINGERS),
                          (Part('b', 'a_left', prefix='b_'), FINGERS)])
    assert {'a_palm', 'a_left', 'b_palm', 'b_right'} <= set(model.link_names)
    assert model.joint('b_right_joint').mimic.joint == 'b_left_joint'
    assert model.joint('b_mount').parent == 'a_left'
    # the written URDF reads back to the same model
    assert load_model(urdf_text(model)) == model


@pytest.mark.parametrize('parts, message', [
    ([(Part('a', 'flange'), FINGERS), (Part('b', 'flange'), FINGERS)],
     "link 'palm' of part 'b' is also a link of part 'a'"),
    ([(Part('a', 'flange'), ARM)], "link 'base' of part 'a' is also a link of the base"),
    ([(Part('a', 'wrist'), FINGERS)],
     "part 'a': parent link 'wrist' is in neither the base nor an earlier part"),
    ([(Part('a', ''), FINGERS)], "part 'a': no parent link given (parts.a.parent)"),
    ([(Part('a', 'x_left', prefix='x_'), FINGERS)],
     "part 'a': parent link 'x_left' is a link of the part itself (it would make a cycle)"),
    ([(Part('a', 'b_palm', prefix='a_'), FINGERS), (Part('b', 'a_palm', prefix='b_'), FINGERS)],
     "part 'a': parent link 'b_palm' is a link of part 'b', which comes later"),
    ([(Part('a', 'flange', (0.0, math.nan, 0.0)), FINGERS)], 'non-finite value'),
])
def test_what_cannot_be_composed_is_named(parts, message):
    with pytest.raises(DescriptionError) as info:
        compose(ARM, parts)
    assert message in str(info.value)


def test_a_mount_joint_named_like_a_joint_of_the_base_is_refused():
    base = Model('arm', ARM.links + (Link('tip'),), ARM.joints + (
        Joint('a_mount', JointType.FIXED, 'flange', 'tip'),))
    with pytest.raises(DescriptionError) as info:
        compose(base, [(Part('a', 'tip'), FINGERS)])
    assert "joint 'a_mount' of part 'a' (its mounting joint) is also a joint of the base" \
        in str(info.value)


PALM = ('<robot name="r"><material name="red"><color rgba="{red}"/></material>'
        '<link name="palm"><inertial><mass value="0.5"/><inertia ixx="1" ixy="0" ixz="0" '
        'iyy="1" iyz="0" izz="1"/></inertial><visual><origin xyz="0 0 0.1"/><geometry>'
        '<box size="1 2 3"/></geometry><material name="red"/></visual><visual><geometry>'
        '<mesh filename="package://hand/palm.dae" scale="2 2 2"/></geometry>'
        '<material name="nowhere"/></visual><collision><geometry><sphere radius="0.2"/>'
        '</geometry></collision></link><link name="left"><visual><geometry><box size="1 1 1"/>'
        '</geometry><material name="blue"><color rgba="0 0 1 1"/></material></visual></link>'
        '<link name="right"><visual><geometry><box size="1 1 1"/></geometry>'
        '<material name="blue"/></visual></link>'
        '<joint name="left_joint" type="fixed"><parent link="palm"/><child link="left"/>'
        '</joint><joint name="right_joint" type="fixed"><parent link="palm"/>'
        '<child link="right"/></joint><transmission name="t"/></robot>')


def test_a_composed_urdf_keeps_visuals_collisions_inertials_and_each_parts_colours():
    URDF = pytest.importorskip('urdf_parser_py.urdf', reason='reads the composed URDF as '
                               'rviz and MoveIt do: needs urdfdom-py').URDF
    base = ('<robot name="arm"><material name="red"><color rgba="0.5 0 0 1"/></material>'
            '<link name="base"><visual><geometry><box size="1 1 1"/></geometry>'
            '<material name="red"/></visual></link><link name="flange"/>'
            '<joint name="lift" type="revolute"><parent link="base"/><child link="flange"/>'
            '<limit lower="-2" upper="2" effort="0" velocity="0"/></joint>'
            '<ros2_control name="arm" type="system"><joint name="lift"/></ros2_control>'
            '</robot>')
    mine, theirs = elements_of(PALM.format(red='1 0 0 1')), elements_of(PALM.format(red='0 1 0 1'))
    assert [e.tag for e in mine.links['palm']] == ['inertial', 'visual', 'visual', 'collision']
    assert [e.tag for e in mine.others] == ['transmission']   # a part's: left out
    model = compose(load_model(base), [(Part('a', 'flange', prefix='a_'), load_model(PALM)),
                                       (Part('b', 'flange', prefix='b_'), load_model(PALM))])
    elements = elements_of(base)
    links = dict(elements.links, **mine.of_part('a_', 'a'), **theirs.of_part('b_', 'b'))
    text = urdf_text(model, links, tuple(elements.materials.values()), elements.others)
    robot = URDF.from_xml_string(text.encode())
    assert robot.link_map['base'].visual.material.name == 'red'
    assert list(robot.materials[0].color.rgba) == [0.5, 0.0, 0.0, 1.0]
    assert '<ros2_control name="arm" type="system">' in text and '<transmission' not in text
    for prefix, rgba in (('a_', [1.0, 0.0, 0.0, 1.0]), ('b_', [0.0, 1.0, 0.0, 1.0])):
        palm = robot.link_map[prefix + 'palm']
        box, mesh = palm.visuals
        assert list(box.geometry.size) == [1.0, 2.0, 3.0] and list(box.origin.xyz) == [0, 0, 0.1]
        # two parts' "red" are two materials, each with its own colour
        assert box.material.name == prefix[0] + '/red' and list(box.material.color.rgba) == rgba
        assert mesh.geometry.filename == 'package://hand/palm.dae' and mesh.material is None
        assert [c.geometry.radius for c in palm.collisions] == [0.2]
        assert palm.inertial.mass == 0.5
        # a material defined inside one visual and named by another, as urdfdom reads it
        for side in ('left', 'right'):
            material = robot.link_map[prefix + side].visual.material
            assert (material.name, list(material.color.rgba)) == (prefix[0] + '/blue',
                                                                  [0.0, 0.0, 1.0, 1.0])
    # the parts' elements were copied: what was read stays as the source wrote it
    assert mine.links['palm'][1].find('material').get('name') == 'red'
    deep = '<robot><link name="x"><visual>' + '<a>' * 40 + '</a>' * 40 + '</visual></link></robot>'
    for hostile in ('<robot><link name="x"><visual><geometry><box/></geometry>', 'not xml',
                    '<!DOCTYPE r [<!ENTITY e "x">]><robot>&e;</robot>', '<mujoco/>', deep):
        assert elements_of(hostile) == UrdfElements(), hostile


def test_a_description_too_long_gives_no_elements():
    text = '<robot name="r"><link name="a"><visual><geometry><box size="1 1 1"/></geometry>' \
           '</visual></link></robot>'
    assert list(elements_of(text).links) == ['a']
    assert elements_of(text + ' ' * MAX_CHARS) == UrdfElements()
