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
The built-in parsers against the shared corpus of real robot descriptions.

Expectations come from the corpus' own ``INDEX.md`` (parsed here), not from
copies: every valid URDF must parse to the counts and root listed there, every
file under ``invalid/`` must be rejected with a message naming the problem,
and every xacro source must expand to the model of its generated URDF.
"""

from collections import Counter
import math
import subprocess
import sys

import pytest
from robot_files import CORPUS, needs_corpus
from urdf_state_py import DescriptionError, JointType, load_model, load_model_file
from urdf_state_py.core.parsers import default_registry


def _index_rows():
    """Return the first table of INDEX.md as dicts keyed by its header (file: no backticks)."""
    if not (CORPUS / 'INDEX.md').is_file():
        return []
    lines = (CORPUS / 'INDEX.md').read_text(encoding='utf-8').splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('| file |'))
    header = [cell.strip() for cell in lines[start].strip().strip('|').split('|')]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith('|'):
            break
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        if not cells[0].startswith('`'):
            continue  # the TOTAL row
        row = dict(zip(header, cells))
        row['file'] = row['file'].strip('`')
        rows.append(row)
    return rows


ROWS = _index_rows()


@needs_corpus
def test_index_lists_43_valid_urdfs():
    assert len(ROWS) == 43
    assert all(row['check_urdf'] == 'ok' for row in ROWS)


@needs_corpus
@pytest.mark.parametrize('row', ROWS, ids=[row['file'] for row in ROWS])
def test_valid_urdf_matches_index(row):
    path = CORPUS / row['file']
    data = path.read_bytes()
    assert default_registry().select(data) == 'urdf'
    model = load_model(data)
    assert model.name == row['robot']
    assert len(model.links) == int(row['links'])
    assert len(model.joints) == int(row['joints'])
    types = Counter(joint.type.value for joint in model.joints)
    for joint_type in JointType:
        assert types[joint_type.value] == int(row[joint_type.value]), joint_type
    assert sum(joint.mimic is not None for joint in model.joints) == int(row['mimic'])
    assert model.root == row['root']
    # The same file through the file API gives the same model.
    assert load_model_file(path) == model


# A distinctive part of the expected message per invalid file (see invalid/README.md).
INVALID = {
    'ros2_urdf_test/urdf/test/fail_pr2_desc_bracket.urdf':
        ("joint 'fl_caster_rotation_joint' origin rpy", "'}' is not a number"),
    'ros2_urdf_test/urdf/test/fail_three_links_one_joint.urdf': ('mismatched tag', 'line 24'),
    'ros2_urdf_test/urdf/test/fail_pr2_desc_double_joint.urdf':
        ("joint name 'fl_caster_rotation_joint' is not unique",),
    'ros2_urdf_test/urdf/test/fail_pr2_desc_loop.urdf': ('no root link', 'loop'),
    'ros2_urdf_test/urdf/test/fail_pr2_desc_no_filename_in_mesh.urdf':
        ("link 'base_link'", "<mesh> has no 'filename' attribute"),
    'ros2_urdf_test/urdf/test/fail_pr2_desc_no_joint2.urdf': ('not well-formed', 'line 10'),
    'ros2_urdf_test/urdf/test/fail_pr2_desc_two_trees.urdf':
        ("joint 'fl_caster_rotation_joint'", "parent link 'base_link' does not exist"),
    'pybullet_data/husky/husky.urdf': ("joint 'imu_joint' origin", "'$(optenv' is not a number"),
    'pybullet_data/spherical_joint_limit.urdf': ("joint 'neck'", "unknown type 'spherical'"),
    'pybullet_data/humanoid/humanoid.urdf':
        ("link 'right_hip'", "unknown geometry type 'capsule'"),
    'pybullet_data/quadruped/microtaur/microtaur.urdf':
        ("joint 'dynamixel7_chassis_left' origin rpy must be 3 numbers, found 4",),
    'example_robot_data/ur_description/urdf/ur3.urdf': ('<robot> has no name',),
}


@needs_corpus
def test_every_invalid_file_has_an_expectation():
    found = {p.relative_to(CORPUS / 'invalid').as_posix()
             for p in (CORPUS / 'invalid').rglob('*.urdf')}
    assert found == set(INVALID)
    assert len(found) == 12


@needs_corpus
@pytest.mark.parametrize('relative', sorted(INVALID))
def test_invalid_file_is_rejected_with_reason(relative):
    data = (CORPUS / 'invalid' / relative).read_bytes()
    with pytest.raises(DescriptionError) as info:
        load_model(data, parser='urdf')
    assert info.value.parser == 'urdf'
    for fragment in INVALID[relative]:
        assert fragment in str(info.value)


@needs_corpus
def test_husky_with_optenv_is_auto_expanded_by_xacro():
    """husky.urdf still uses $(optenv ...) and declares xmlns:xacro: 'auto' hands it to xacro."""
    data = (CORPUS / 'invalid/pybullet_data/husky/husky.urdf').read_bytes()
    assert default_registry().select(data) == 'xacro'
    model = load_model(data)
    imu = model.joint('imu_joint')
    assert imu.origin.xyz == pytest.approx((0.19, 0.0, 0.149))


# -- xacro sources expand to their generated URDFs ----------------------------

PACKAGES = [
    'ur_description={root}/ur_description_ros2',
    'robotiq_description={root}/robotiq_2f85/robotiq_description',
    'ridgeback_description={root}/rtb_data/xacro/clearpath_ridgeback_description',
]

XACRO_SETS = [
    ('robot_state_publisher_test/urdf/test-desc.urdf.xacro', [],
     'robot_state_publisher_test/urdf/test-desc.urdf'),
    ('ur_description_ros2/urdf/ur.urdf.xacro', ['ur_type:=ur5e', 'name:=ur5e'],
     'ur_description_ros2/generated/ur5e.urdf'),
    ('ur_description_ros2/urdf/ur.urdf.xacro', ['ur_type:=ur3e', 'name:=ur3e'],
     'ur_description_ros2/generated/ur3e.urdf'),
    ('ur_description_ros2/urdf/ur_mocked.urdf.xacro', ['ur_type:=ur5e', 'name:=ur5e'],
     'ur_description_ros2/generated/ur5e.urdf'),
    ('robotiq_2f85/robotiq_description/urdf/robotiq_2f_85_gripper.urdf.xacro', [],
     'robotiq_2f85/generated/robotiq_2f_85.urdf'),
    ('rtb_data/xacro/trossen_descriptions/urdf/wx250s.urdf.xacro', ['robot_name:=wx250s'],
     'rtb_data/generated/wx250s.urdf'),
    ('rtb_data/xacro/clearpath_ridgeback_description/urdf/ridgeback.urdf.xacro', [],
     'rtb_data/generated/ridgeback.urdf'),
    ('rtb_data/xacro/unimation_puma560_description/urdf/puma560_robot.urdf.xacro', [],
     'rtb_data/xacro/unimation_puma560_description/urdf/puma560_robot.urdf'),
]
# The shipped puma560_robot.urdf does not match its xacro (e.g. joint j1 sits at z=0.6718
# there; the xacro's property l1_1 says 0.54864, and so does the xacro command line). For that
# set the reference is the xacro command line's own output; the stale file is checked separately.
STALE_GENERATED = {'rtb_data/xacro/unimation_puma560_description/urdf/puma560_robot.urdf'}


def _close(a, b, tol=1e-12):
    if a is None or b is None:
        return a is b
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=0.0, abs_tol=tol)


def assert_same_model(expanded, generated):
    assert expanded.name == generated.name
    assert expanded.link_names == generated.link_names
    assert expanded.joint_names == generated.joint_names
    assert expanded.root == generated.root
    for joint in generated.joints:
        other = expanded.joint(joint.name)
        what = joint.name
        assert (other.type, other.parent, other.child) == (joint.type, joint.parent, joint.child)
        assert _close(other.origin.xyz, joint.origin.xyz), what
        assert _close(other.origin.rpy, joint.origin.rpy), what
        assert _close(other.axis, joint.axis), what
        assert (other.limits is None) == (joint.limits is None), what
        if joint.limits is not None:
            for field in ('lower', 'upper', 'effort', 'velocity'):
                assert _close(getattr(other.limits, field), getattr(joint.limits, field)), \
                    (what, field)
        assert (other.safety is None) == (joint.safety is None), what
        if joint.safety is not None:
            for field in ('soft_lower_limit', 'soft_upper_limit', 'k_position', 'k_velocity'):
                assert _close(getattr(other.safety, field), getattr(joint.safety, field)), \
                    (what, field)
        assert (other.mimic is None) == (joint.mimic is None), what
        if joint.mimic is not None:
            assert other.mimic.joint == joint.mimic.joint
            assert _close((other.mimic.multiplier, other.mimic.offset),
                          (joint.mimic.multiplier, joint.mimic.offset)), what


@needs_corpus
def test_index_xacro_sources_are_all_covered():
    listed = set()
    lines = (CORPUS / 'INDEX.md').read_text(encoding='utf-8').splitlines()
    start = lines.index('## xacro sources')
    for line in lines[start:]:
        if line.startswith('## Invalid'):
            break
        if line.startswith('- `'):
            listed.add(line.split('`')[1])
    # Every entry point used here is a listed source, and every row with has-xacro is covered.
    assert {source for source, _, _ in XACRO_SETS} <= listed
    with_xacro = {row['file'] for row in ROWS if row['has-xacro'].startswith('yes')}
    assert with_xacro == {generated for _, _, generated in XACRO_SETS}


@needs_corpus
@pytest.mark.parametrize('source,args,generated', XACRO_SETS,
                         ids=[f'{s} {" ".join(a)}' for s, a, _ in XACRO_SETS])
def test_xacro_expands_to_generated_urdf(source, args, generated):
    options = {'args': args, 'package_paths': [p.format(root=CORPUS) for p in PACKAGES]}
    data = (CORPUS / source).read_bytes()
    assert default_registry().select(data) == 'xacro'
    expanded = load_model_file(CORPUS / source, options=options)
    if generated in STALE_GENERATED:
        reference = load_model(_xacro_command_line(CORPUS / source, args), parser='urdf')
    else:
        reference = load_model((CORPUS / generated).read_bytes(), parser='urdf')
    assert_same_model(expanded, reference)


def _xacro_command_line(path, args):
    """Return what the real xacro program makes of ``path`` (no $(find) needed)."""
    result = subprocess.run(
        [sys.executable, '-c', 'import sys, xacro; sys.argv[0] = "xacro"; xacro.main()',
         str(path), *args], capture_output=True, text=True, check=True, timeout=60)
    return result.stdout


@needs_corpus
def test_stale_puma560_urdf_differs_from_its_xacro():
    source = 'rtb_data/xacro/unimation_puma560_description/urdf/puma560_robot.urdf.xacro'
    expanded = load_model_file(CORPUS / source)
    shipped = load_model_file(CORPUS / source.removesuffix('.xacro'))
    assert expanded.joint('j1').origin.xyz == (0.0, 0.0, 0.54864)
    assert shipped.joint('j1').origin.xyz == (0.0, 0.0, 0.6718)
    different = []
    for joint in shipped.joints:
        other = expanded.joint(joint.name)
        for field in ('origin.xyz', 'origin.rpy', 'axis', 'limits.lower', 'limits.upper'):
            obj_a, obj_b = joint, other
            for part in field.split('.'):
                obj_a, obj_b = getattr(obj_a, part), getattr(obj_b, part)
            if not _close(obj_a, obj_b):
                different.append((joint.name, field))
    assert ('j1', 'origin.xyz') in different
    # Same tree and joint types, only the numbers moved on.
    assert expanded.joint_names == shipped.joint_names
    assert [j.type for j in expanded.joints] == [j.type for j in shipped.joints]


@needs_corpus
def test_xacro_string_with_base_dir_resolves_relative_includes():
    source = CORPUS / 'ur_description_ros2/urdf/ur.urdf.xacro'
    options = {'args': ['ur_type:=ur3e', 'name:=ur3e'],
               'package_paths': [p.format(root=CORPUS) for p in PACKAGES],
               'base_dir': str(source.parent)}
    model = load_model(source.read_text(encoding='utf-8'), options=options)
    assert model.joint('wrist_3_joint').type is JointType.CONTINUOUS
    assert len(model.joints) == 12
