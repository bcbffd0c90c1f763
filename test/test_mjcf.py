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
The ``mjcf`` parser without MuJoCo: detection, names, joint mapping, URDF out, refusals.

Poses are checked against MuJoCo itself in test_mjcf_mujoco.py; here the
parser's documented choices (docs/parsers.md, "The mjcf parser") are pinned.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from robot_files import CORPUS, FIXTURES, needs_corpus
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.model import JointType, Mimic
from urdf_state_py.core.parsers import default_registry, load_model, load_model_file
from urdf_state_py.core.parsers.mjcf_orientation import axis_angle, origin
from urdf_state_py.core.parsers.registry import read_file
from urdf_state_py.core.parsers.xacro_sandbox import limit_expansion, policy, RESTRICTED
from urdf_state_py.core.transforms import quaternion_multiply, quaternion_to_matrix, rpy_to_matrix
from urdf_state_py.tools import cli

MJCF = FIXTURES / 'mjcf'
FEATURES = MJCF / 'features.xml'


def published(path: Path) -> tuple:
    return default_registry().parse_published(read_file(path), 'auto',
                                              {'base_dir': str(path.parent)})


def mjcf(body: str, head: str = '') -> str:
    return f'<mujoco model="m">{head}<worldbody>{body}</worldbody></mujoco>'


def test_registry_picks_mjcf_for_a_mujoco_root():
    registry = default_registry()
    assert 'mjcf' in registry.names()
    text = '<?xml version="1.0"?>\n<!-- c -->\n' + mjcf('<body name="b"/>')
    assert registry.select(text) == 'mjcf'
    assert registry.select('<robot name="r"><link name="a"/></robot>') == 'urdf'
    assert registry.get('mjcf').might_handle('<robot name="r"/>') == len('<robot name="r"/>')


def test_bodies_joints_and_generated_names():
    model = load_model_file(FEATURES)
    assert model.name == 'features'
    assert model.root == 'world'
    assert model.link_names == (
        'world', 'base', 'upper', 'upper/shoulder', 'lower', 'lower/elbow', 'body_4',
        'body_4/body_4_joint0', 'body_4/body_4_joint1', 'tip', 'follower', 'follower/follow',
        'slider', 'free_spin')
    kinds = {joint.name: (joint.type, joint.parent, joint.child) for joint in model.joints}
    assert kinds['float'] == (JointType.FLOATING, 'world', 'base')
    assert kinds['shoulder'] == (JointType.REVOLUTE, 'base', 'upper/shoulder')
    assert kinds['twist'] == (JointType.REVOLUTE, 'upper/shoulder', 'upper')
    assert kinds['lower_anchor'] == (JointType.FIXED, 'lower/elbow', 'lower')
    assert kinds['body_4_joint0'][0] is JointType.PRISMATIC
    assert kinds['body_4_anchor'] == (JointType.FIXED, 'body_4/body_4_joint1', 'body_4')
    assert kinds['tip_fixed'] == (JointType.FIXED, 'body_4', 'tip')
    # A joint in a <frame>: its axis in the frame (euler '0 0 30' in zYx: 30 degrees about x).
    assert model.joint('follow').axis == pytest.approx((0.0, math.sqrt(0.75), 0.5))
    assert kinds['follower_anchor'] == (JointType.FIXED, 'follower/follow', 'follower')
    assert kinds['rail'][0] is JointType.PRISMATIC and model.joint('rail').limits is None
    assert kinds['spin'][0] is JointType.CONTINUOUS
    assert model.variable_names[:7] == tuple(f'float/{v}' for v in (
        'trans_x', 'trans_y', 'trans_z', 'rot_x', 'rot_y', 'rot_z', 'rot_w'))
    # Degrees by default; the class 'arm' range over the main class's.
    twist = model.joint('twist')
    assert (twist.limits.lower, twist.limits.upper) == (-math.pi / 2, math.pi / 4)
    assert twist.axis == (0.0, 0.0, 1.0)
    assert model.joint('elbow').axis == pytest.approx((math.sqrt(0.5), 0.0, math.sqrt(0.5)))
    # follow = ref(follow) + 0.1 - 0.5 (shoulder - ref(shoulder)), refs in radians
    offset = math.radians(10) + 0.1 + 0.5 * math.radians(15)
    assert model.joint('follow').mimic == Mimic('shoulder', -0.5, pytest.approx(offset))


def _visuals(urdf: str) -> dict[str, list[ElementTree.Element]]:
    root = ElementTree.fromstring(urdf)
    return {link.get('name'): [visual.find('geometry')[0] for visual in link.findall('visual')]
            for link in root.findall('link')}


def test_published_urdf_has_the_model_and_its_visual_geoms():
    model, urdf = published(FEATURES)
    again = load_model(urdf)
    assert again.link_names == model.link_names
    rail = again.joint('rail')     # URDF has no unbounded prismatic joint: +-1e9 m stand in
    assert (rail.limits.lower, rail.limits.upper) == (-1e9, 1e9)
    assert [j for j in again.joints if j.name != 'rail'] == \
        [j for j in model.joints if j.name != 'rail']
    visuals = _visuals(urdf)
    assert visuals['world'] == []                                   # a plane has no URDF shape
    (box,) = visuals['base']
    assert box.tag == 'box' and box.get('size') == '0.2 0.4 0.1'    # MuJoCo: half extents
    assert [s.tag for s in visuals['upper']] == ['cylinder', 'sphere', 'sphere']  # a capsule
    assert visuals['upper'][0].get('length') == '0.3'                # fromto's length
    assert [s.tag for s in visuals['tip']] == ['box']               # contype=conaffinity=0 only
    root = ElementTree.fromstring(urdf)
    base = root.find("link[@name='base']/visual/material/color")
    assert base.get('rgba') == '0.8 0.1 0.1 1.0'                   # the material's colour


def test_published_urdf_radian_fixture_visual_groups():
    _, urdf = published(MJCF / 'radian.xml')
    visuals = _visuals(urdf)
    assert [s.tag for s in visuals['hip']] == ['cylinder', 'sphere', 'sphere']  # group 3 out
    assert visuals['pendulum'] == []                               # an inline mesh: no file
    assert 'body_1_joint0/rot_w' in load_model(urdf).variable_names


@needs_corpus
def test_menagerie_meshes_are_absolute_file_urls():
    path = CORPUS / 'mjcf' / 'pal_tiago' / 'tiago_position.xml'
    model, urdf = published(path)
    meshes = [shape.get('filename') for shapes in _visuals(urdf).values() for shape in shapes
              if shape.tag == 'mesh']
    assert len(meshes) >= 20
    for url in meshes:
        assert url.startswith('file:///') and os.path.isfile(url[len('file://'):]), url
    assert model.joint('reference').type is JointType.FLOATING        # a named free joint
    # fusestatic is the simulator's business: every written body is a frame.
    assert len([n for n in model.link_names if '/' not in n]) > 23


REFUSED = [
    (mjcf('<replicate count="2"><body/></replicate>'), '<replicate>'),
    (mjcf('<composite type="grid" count="2 2 1"/>'), '<composite>'),
    (mjcf('<flexcomp name="f" type="grid" count="2 2 1"/>'), '<flexcomp>'),
    (mjcf('<body><attach model="m" prefix="p"/></body>'), '<attach>'),
    (mjcf('<body name="b"><joint name="j" type="ball"/></body>'),
     "joint 'j' of body 'b' is a ball"),
    (mjcf('<body name="a"><body name="b"><freejoint/></body></body>'), 'free joint'),
    (mjcf('<body name="b"><freejoint/><joint/></body>'), 'free joint'),
    (mjcf('<body name="b"><joint class="nope"/></body>'), "unknown default class 'nope'"),
    (mjcf('<body name="b" quat="1 0 0 0" euler="0 0 1"/>'), 'several orientations'),
    (mjcf('<body name="b" pos="1 2"/>'), "body 'b' pos must be 3 numbers"),
    (mjcf('<body name="b" pos="1 2 x"/>'), "body 'b' pos: 'x' is not a number"),
    (mjcf('<body name="b"><geom size=""/></body>'), 'size must be 1 to 3 numbers'),
    (mjcf('<body name="b"><joint range="1 0" limited="true"/></body>'), 'range'),
    (mjcf('<body name="b"><joint name="j"/></body><body name="c"><joint name="k"/></body>',
          '<equality><joint joint1="j" joint2="k" polycoef="0 1 0.5 0 0"/></equality>'),
     'degree above 1'),
    (mjcf('<body name="b"><joint name="j"/></body>',
          '<equality><joint joint1="j"/></equality>'), 'without joint2'),
    (mjcf('<body name="b"><joint name="j" range="0 1"/></body>',
          '<compiler autolimits="false"/>'), "has a range but no 'limited'"),
    (mjcf('', '<compiler coordinate="global"/>'), 'coordinate'),
    (mjcf('', '<compiler angle="grad"/>'), 'angle'),
    ('<mujoco><include file="absent.xml"/></mujoco>', "include file='absent.xml'"),
    ('<mujoco><worldbody><body name="b"/><body name="b"/></worldbody></mujoco>', "'b'"),
]


@pytest.mark.parametrize('text, message', REFUSED, ids=[m for _, m in REFUSED])
def test_unsupported_or_wrong_is_refused_naming_it(text, message, tmp_path):
    with pytest.raises(DescriptionError) as error:
        load_model(text, 'mjcf', {'base_dir': str(tmp_path)})
    assert message in str(error.value)
    assert error.value.parser == 'mjcf'


def test_includes_at_run_time_stay_below_base_dir(tmp_path):
    inside = tmp_path / 'robot'
    inside.mkdir()
    (inside / 'part.xml').write_text('<mujoco><worldbody><body name="p"/></worldbody></mujoco>')
    (tmp_path / 'outside.xml').write_text('<mujoco/>')
    good = '<mujoco><include file="part.xml"/></mujoco>'
    with policy(RESTRICTED):
        assert 'p' in load_model(good, 'mjcf', {'base_dir': str(inside)}).link_names
        for text, options in ((good, {}),
                              ('<mujoco><include file="../outside.xml"/></mujoco>',
                               {'base_dir': str(inside)})):
            with pytest.raises(DescriptionError, match='only files below mjcf.base_dir'):
                load_model(text, 'mjcf', options)
    # The trusted policy (the operator's own file) reads where the file says.
    text = '<mujoco><include file="../outside.xml"/></mujoco>'
    assert load_model(text, 'mjcf', {'base_dir': str(inside)}).link_names == ('world',)


def test_included_files_count_against_the_size_limit(tmp_path):
    part = '<mujoco><worldbody><body name="b%d"/></worldbody></mujoco>'
    for index in range(3):
        (tmp_path / f'p{index}.xml').write_text(part % index)
    text = '<mujoco>' + ''.join(f'<include file="p{i}.xml"/>' for i in range(3)) + '</mujoco>'
    size = len(part % 0)
    with limit_expansion(3 * size):
        assert len(load_model(text, 'mjcf', {'base_dir': str(tmp_path)}).links) == 4
    with limit_expansion(3 * size - 1), pytest.raises(DescriptionError) as error:
        load_model(text, 'mjcf', {'base_dir': str(tmp_path)})
    assert "<include file='p2.xml'>: the included files are over the limit" in str(error.value)
    assert error.value.kind == 'size limit'


def test_include_loop_is_refused(tmp_path):
    (tmp_path / 'a.xml').write_text('<mujoco><include file="a.xml"/></mujoco>')
    with pytest.raises(DescriptionError, match='includes itself'):
        load_model_file(tmp_path / 'a.xml')


def test_cli_check_and_fk_read_mjcf(capsys):
    code = cli.main(['check', str(FEATURES)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert 'parser: mjcf (auto-detected)' in out
    assert 'links: 14' in out and 'mimic joints: 1' in out
    code = cli.main(['fk', str(FEATURES), '--link', 'slider'])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert 'slider' in out and '-0.5' in out


def test_bodies_nested_too_deeply_are_an_error_not_a_crash():
    depth = 5000
    text = mjcf('<body>' * depth + '</body>' * depth)
    with pytest.raises(DescriptionError, match='nested too deeply'):
        load_model(text, 'mjcf')


def test_origin_rpy_rebuilds_the_rotation_at_every_pitch():
    """Near pitch +-pi/2 too (MuJoCo models are full of exact quarter turns), to 1e-10."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(5000):
        off = 10.0 ** rng.uniform(-17, -2) * rng.integers(0, 2)
        pitch = rng.choice([-1.0, 1.0]) * (math.pi / 2 - off)
        q = quaternion_multiply(quaternion_multiply(
            axis_angle((0.0, 0.0, 1.0), rng.uniform(-4, 4)), axis_angle((0.0, 1.0, 0.0), pitch)),
            axis_angle((1.0, 0.0, 0.0), rng.uniform(-4, 4)))
        rpy = origin(((0.0, 0.0, 0.0), q)).rpy
        worst = max(worst, np.abs(rpy_to_matrix(np.array(rpy)) - quaternion_to_matrix(q)).max())
    assert worst < 1e-10
