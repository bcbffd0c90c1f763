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
The built-in parsers on the descriptions the repository carries (no corpus needed).

robot_state_publisher's test URDFs, one-defect invalid files and a small xacro
package (``test/fixtures``, see its README) and the bundled H1_2: what
``test_parsers_corpus.py`` checks on the shared corpus, so that a bare clone
checks it too.
"""
from pathlib import Path

import pytest
from robot_files import FIXTURES, H1_2, INVALID_FIXTURES, RSP_FIXTURES
from urdf_state_py import DescriptionError, JointType, load_model, load_model_file
from urdf_state_py.core.parsers import default_registry

ARM = FIXTURES / 'xacro' / 'fixture_arm'
ARM_XACRO = ARM / 'urdf' / 'arm.urdf.xacro'
#: The output of the real xacro program for ``arm.urdf.xacro name:=arm``.
ARM_URDF = ARM / 'urdf' / 'arm.urdf'
PACKAGE_PATHS = [f'fixture_arm={ARM}']


@pytest.mark.parametrize('path, name, links, joints, root', [
    (RSP_FIXTURES / 'two_links_fixed_joint.urdf', 'test_robot_fixed_joint', 2, 1, 'link1'),
    (RSP_FIXTURES / 'two_links_moving_joint.urdf', 'test_robot_moving_joint', 2, 1, 'link1'),
    (RSP_FIXTURES / 'mimic_joint.urdf', 'test', 3, 2, 'base_link'),
    (H1_2, 'h1_2', 58, 57, 'pelvis'),
    (ARM_URDF, 'arm', 6, 5, 'base_link'),
], ids=lambda v: v.name if isinstance(v, Path) else None)
def test_valid_fixture_parses_to_its_counts(path, name, links, joints, root):
    data = path.read_bytes()
    assert default_registry().select(data) == 'urdf'
    model = load_model(data)
    assert (model.name, len(model.links), len(model.joints), model.root) == \
        (name, links, joints, root)
    assert load_model_file(path) == model


def test_fixed_joint_with_mimic_stays_fixed():
    """robot_state_publisher #212: a fixed joint carrying <mimic> must not break loading."""
    model = load_model_file(RSP_FIXTURES / 'mimic_joint.urdf')
    assert [j.type for j in model.joints] == [JointType.FIXED, JointType.FIXED]
    assert not any(j.is_movable for j in model.joints)


@pytest.mark.parametrize('name, fragments', [
    ('double_joint.urdf', ("joint name 'wheel_joint' is not unique",)),
    ('loop.urdf', ('no root link', 'loop')),
    ('bracket.urdf', ("joint 'caster_joint' origin rpy", "'}' is not a number")),
    ('mismatched_tag.urdf', ('mismatched tag', 'line 9')),
])
def test_invalid_fixture_is_rejected_with_reason(name, fragments):
    with pytest.raises(DescriptionError) as info:
        load_model((INVALID_FIXTURES / name).read_bytes(), parser='urdf')
    assert info.value.parser == 'urdf'
    for fragment in fragments:
        assert fragment in str(info.value)


def test_every_invalid_fixture_is_covered():
    names = {p.name for p in INVALID_FIXTURES.glob('*.urdf')}
    assert names == {'double_joint.urdf', 'loop.urdf', 'bracket.urdf', 'mismatched_tag.urdf'}


def test_xacro_fixture_expands_to_what_the_xacro_program_made():
    assert default_registry().select(ARM_XACRO.read_bytes()) == 'xacro'
    model = load_model_file(ARM_XACRO, options={'args': ['name:=arm'],
                                                'package_paths': PACKAGE_PATHS})
    assert model == load_model(ARM_URDF.read_bytes(), parser='urdf')
    right = model.joint('right_finger_joint')
    assert right.mimic is not None and right.mimic.joint == 'left_finger_joint'
    assert model.joint('upper_joint').limits.upper == pytest.approx(1.5707963267948966)


def test_xacro_fixture_args_change_the_model():
    model = load_model_file(ARM_XACRO, options={
        'args': ['name:=long', 'length:=1.0', 'with_gripper:=false'],
        'package_paths': PACKAGE_PATHS})
    assert model.name == 'long'
    assert model.joint('lower_joint').origin.xyz == (1.0, 0.0, 0.0)
    assert model.link_names == ('base_link', 'upper_link', 'lower_link')


def test_xacro_string_with_base_dir_resolves_relative_includes():
    model = load_model(ARM_XACRO.read_text(encoding='utf-8'), options={
        'args': ['name:=arm'], 'package_paths': PACKAGE_PATHS,
        'base_dir': str(ARM_XACRO.parent)})
    assert model == load_model(ARM_URDF.read_bytes(), parser='urdf')


@pytest.mark.parametrize('options, named', [
    ({'package_paths': PACKAGE_PATHS}, 'name'),             # required arg not given
    ({'args': ['name:=arm']}, 'fixture_arm'),               # $(find) of an unknown package
])
def test_xacro_fixture_errors_name_what_is_missing(options, named):
    with pytest.raises(DescriptionError) as info:
        load_model_file(ARM_XACRO, options=options)
    assert info.value.parser == 'xacro'
    assert named in str(info.value)
