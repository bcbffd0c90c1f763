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
urdf_parser_py (urdfdom-py) as an input: ``model_from_urdf_parser_py`` and the plugin.

Both must give the built-in reader's model (``==`` on the frozen dataclasses:
every name, type, origin, axis, limit, safety value and mimic rule, exactly)
and its FK to 1e-12, for every corpus robot urdfdom-py reads and for the
fixture ``fixtures/urdfdom_arm.urdf`` (every joint type). Where the two
readers disagree, the test pins who accepts what, so a change of urdfdom-py
(or of the built-in reader) shows up here and in the README.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from robot_files import CORPUS, corpus_params, FIXTURES
from robot_files import H1_2 as H1_2_PATH
from robot_files import needs_corpus
from test_parsers_corpus import assert_same_model, INVALID, ROWS
from urdf_state_py import (DescriptionError, Kinematics, load_model, Model,
                           model_from_urdf_parser_py)
from urdf_state_py.core.parsers import default_registry, ParserRegistry
from urdf_state_py.core.parsers.registry import BUILTIN_PARSERS

urdf = pytest.importorskip('urdf_parser_py.urdf')
xml_reflection = pytest.importorskip('urdf_parser_py.xml_reflection.core')

ARM = (FIXTURES / 'urdfdom_arm.urdf').read_bytes()
H1_2 = H1_2_PATH.read_bytes()
PLUGIN = 'urdf_parser_py'


@pytest.fixture(autouse=True)
def quiet_urdfdom(monkeypatch):
    """urdfdom-py prints a line per unknown tag when called directly; keep the log readable."""
    monkeypatch.setattr(xml_reflection, 'on_error', lambda message: None)


def raw_robot(data: bytes):
    """Return what a user of urdf_parser_py gets: URDF.from_xml_string on the bytes."""
    return urdf.URDF.from_xml_string(data)


def assert_same_fk(a: Model, b: Model, tol: float = 1e-12) -> None:
    ka, kb = Kinematics(a), Kinematics(b)
    assert ka.variable_names == kb.variable_names
    rng = np.random.default_rng(11)
    q = ka.default_positions() + rng.uniform(-1.5, 1.5, size=(16, ka.n_variables))
    qa, clamped_a = ka.resolve(q)
    qb, clamped_b = kb.resolve(q)
    assert clamped_a == clamped_b
    ta, tb = ka.moving_transforms(qa), kb.moving_transforms(qb)
    for x, y in ((ka.link_poses(q), kb.link_poses(q)), (ta.rotations, tb.rotations),
                 (ta.translations, tb.translations)):
        assert np.max(np.abs(x - y), initial=0.0) <= tol


# -- the fixture (no corpus needed) ---------------------------------------------

def test_fixture_from_urdf_parser_py_equals_builtin():
    builtin = load_model(ARM, parser='urdf')
    converted = model_from_urdf_parser_py(raw_robot(ARM))
    assert converted == builtin
    assert {j.type.value for j in converted.joints} == {
        'fixed', 'revolute', 'continuous', 'prismatic', 'planar', 'floating'}
    thumb = converted.joint('finger_thumb_joint')
    assert (thumb.mimic.multiplier, thumb.mimic.offset) == (1.0, 0.0)   # defaults
    assert converted.joint('elbow').limits.lower is None                 # continuous: no bounds
    assert converted.joint('shoulder_pan').safety.k_position == 15.0
    assert_same_fk(converted, builtin)


@pytest.mark.parametrize('strict', [False, True])
@pytest.mark.parametrize('as_text', [False, True], ids=['bytes', 'str'])
def test_fixture_plugin_equals_builtin(strict, as_text):
    data = ARM.decode() if as_text else ARM   # str with an encoding declaration: raw lxml fails
    model = load_model(data, parser=PLUGIN, options={'strict': strict})
    assert model == load_model(ARM, parser='urdf')
    assert_same_fk(model, load_model(ARM))


def test_kinematics_from_a_robot_built_in_code():
    """A Robot assembled with urdf_parser_py's API (no XML): None origins/axes take defaults."""
    robot = urdf.Robot(name='coded')
    for name in ('a', 'b', 'c'):
        robot.add_link(urdf.Link(name=name))
    robot.add_joint(urdf.Joint(name='j1', parent='a', child='b', joint_type='revolute',
                               axis=[0, 0, 2], limit=urdf.JointLimit(effort=1, velocity=1,
                                                                     lower=-1, upper=1)))
    robot.add_joint(urdf.Joint(name='j2', parent='b', child='c', joint_type='prismatic',
                               origin=urdf.Pose(xyz=[1, 0, 0]),
                               limit=urdf.JointLimit(effort=1, velocity=1, lower=0, upper=2),
                               mimic=urdf.JointMimic(joint_name='j1', multiplier=2.0)))
    model = model_from_urdf_parser_py(robot)
    assert model.joint('j1').axis == (0.0, 0.0, 1.0)
    assert model.joint('j1').origin.rpy == (0.0, 0.0, 0.0)
    assert model.joint('j2').mimic.offset == 0.0
    kin = Kinematics(model)
    pose = kin.link_pose(kin.positions({'j1': 0.5}), 'c')   # j2 = 2 * 0.5: 1 m + 1 m along x
    assert pose[:3, 3] == pytest.approx([math.cos(0.5) * 2.0, math.sin(0.5) * 2.0, 0.0])


@pytest.mark.parametrize('change, message', [
    (lambda r: setattr(r.joints[0], 'type', 'unknown'), "joint 'j1' has unknown type 'unknown'"),
    (lambda r: setattr(r.joints[0], 'type', 'spherical'), "unknown type 'spherical'"),
    (lambda r: setattr(r.joints[0], 'limit', None),
     "joint 'j1' is revolute but has no <limit> element"),
    (lambda r: setattr(r.joints[0].limit, 'effort', None), "joint 'j1' <limit> effort is not set"),
    (lambda r: setattr(r.joints[0], 'axis', [1, 0]), "joint 'j1' axis xyz must be 3 numbers"),
    (lambda r: setattr(r.joints[0], 'axis', [0, 0, 0]), "joint 'j1' (revolute) has a zero axis"),
    (lambda r: setattr(r.joints[0], 'origin', urdf.Pose(xyz=[0, 0, 'x'])),
     "joint 'j1' origin xyz: 'x' is not a number"),
    (lambda r: setattr(r.joints[0], 'origin', urdf.Pose(rpy=[0, float('nan'), 0])),
     "joint 'j1' origin rpy has a non-finite value"),
    (lambda r: setattr(r.joints[0], 'child', 'nowhere'),
     "joint 'j1': child link 'nowhere' does not exist"),
    (lambda r: setattr(r.joints[0], 'mimic', urdf.JointMimic(joint_name='ghost')),
     "joint 'j1' mimics unknown joint 'ghost'"),
    (lambda r: setattr(r.links[1], 'name', ''), 'link #2 has an empty or invalid name'),
    (lambda r: setattr(r, 'name', None), '<robot> has no name'),
    (lambda r: r.links.append(urdf.Link(name='island')), 'several root links'),
])
def test_robot_checked_like_the_builtin_reader(change, message):
    robot = urdf.Robot(name='coded')
    robot.add_link(urdf.Link(name='a'))
    robot.add_link(urdf.Link(name='b'))
    robot.add_joint(urdf.Joint(name='j1', parent='a', child='b', joint_type='revolute',
                               axis=[0, 0, 1], limit=urdf.JointLimit(effort=1, velocity=1)))
    model_from_urdf_parser_py(robot)   # valid as built
    change(robot)
    with pytest.raises(DescriptionError) as info:
        model_from_urdf_parser_py(robot)
    assert message in str(info.value)


def test_not_a_robot_is_named():
    with pytest.raises(DescriptionError, match=r'expected a urdf_parser_py\.urdf\.Robot.*str'):
        model_from_urdf_parser_py('<robot name="x"/>')


# -- where urdfdom-py and the built-in reader disagree (README) -------------------

MINIMAL = '<robot name="d"><link name="a"/><link name="b"/>{joint}{extra}</robot>'
FIXED_JOINT = ('<joint name="j" type="fixed"><parent link="a"/><child link="b"/>'
               '<origin xyz="{x} 0 0"/></joint>')


def _verdicts(data):
    """(built-in, plugin, raw urdfdom-py): 'ok' or the error text."""
    out = []
    for read in (lambda: load_model(data, parser='urdf'),
                 lambda: load_model(data, parser=PLUGIN),
                 lambda: raw_robot(data.encode() if isinstance(data, str) else data)):
        try:
            read()
            out.append('ok')
        except Exception as exc:  # urdfdom-py raises many kinds
            out.append(f'{type(exc).__name__}: {exc}')
    return tuple(out)


def test_disagreement_material_without_name():
    """The bundled H1_2 (as upstream): urdfdom and the built-in reader accept it."""
    builtin, plugin, raw = _verdicts(H1_2)
    assert builtin == 'ok'
    assert 'material: Required attribute not set in XML: name' in plugin
    assert '[urdf_parser_py]' in plugin and "link[@name='pelvis']" in plugin
    assert 'Required attribute not set in XML: name' in raw


def test_disagreement_verison_prolog_typo():
    """
    Read ros2/urdf's own test files, which raw urdfdom-py (lxml) fails on.

    The plugin, behind the gate, reads them, because the gate drops the declaration after
    decoding.
    """
    data = '<?xml verison="1.0"?>\n' + MINIMAL.format(joint=FIXED_JOINT.format(x=1), extra='')
    builtin, plugin, raw = _verdicts(data)
    assert (builtin, plugin) == ('ok', 'ok')
    assert 'Malformed declaration expecting version' in raw


def test_disagreement_str_with_encoding_declaration():
    """What a node holds (the parameter is a str): lxml refuses it, the gate decodes it."""
    builtin, plugin, _ = _verdicts(ARM.decode())   # (its raw column feeds bytes)
    assert (builtin, plugin) == ('ok', 'ok')
    with pytest.raises(ValueError, match='encoding declaration are not supported'):
        urdf.URDF.from_xml_string(ARM.decode())


def test_disagreement_undeclared_namespace_prefix():
    """A <xacro:...> leftover without xmlns:xacro: TinyXML (urdfdom) ignores it, lxml fails."""
    data = MINIMAL.format(joint=FIXED_JOINT.format(x=1), extra='<xacro:leftover/>')
    builtin, plugin, raw = _verdicts(data)
    assert builtin == 'ok'
    assert 'Namespace prefix xacro on leftover is not defined' in plugin
    assert 'Namespace prefix xacro' in raw


def test_disagreement_two_shapes_in_geometry():
    """Pybullet's racecar puts a <material> inside <geometry>: urdfdom reads the first shape."""
    link = ('<link name="c"><visual><geometry><box size="1 1 1"/><material name="m"/>'
            '</geometry></visual></link>')
    data = MINIMAL.format(joint=FIXED_JOINT.format(x=1), extra='').replace(
        '<link name="b"/>', '<link name="b"/>' + link).replace(
        '</robot>', '<joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint>'
                    '</robot>')
    builtin, plugin, raw = _verdicts(data)
    assert builtin == 'ok'
    assert 'One element only for geometric' in plugin and 'One element only' in raw


def test_disagreement_number_syntax():
    """urdfdom-py reads numbers with Python's float(): '1_0' is 10.0 there, an error here."""
    data = MINIMAL.format(joint=FIXED_JOINT.format(x='1_0'), extra='')
    builtin, plugin, raw = _verdicts(data)
    assert "'1_0' is not a number" in builtin
    assert (plugin, raw) == ('ok', 'ok')
    assert load_model(data, parser=PLUGIN).joint('j').origin.xyz == (10.0, 0.0, 0.0)


def test_disagreement_revolute_without_limit():
    """urdfdom-py reads it; both the built-in reader and the conversion reject it (as urdfdom)."""
    data = MINIMAL.format(joint='<joint name="j" type="revolute"><parent link="a"/>'
                                '<child link="b"/></joint>', extra='')
    builtin, plugin, raw = _verdicts(data)
    assert raw == 'ok'
    for verdict in (builtin, plugin):
        assert "joint 'j' is revolute but has no <limit> element" in verdict
    with pytest.raises(DescriptionError, match='has no <limit> element'):
        model_from_urdf_parser_py(raw_robot(data.encode()))


# -- the plugin: gate, registration, scoring, options ----------------------------

@pytest.mark.parametrize('document, fragment', [
    ('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
     '<robot name="&b;"><link name="x"/></robot>', 'entity declarations are not allowed'),
    ('<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/hostname">]><robot name="x">'
     '<link name="&e;"/></robot>', 'entity declarations are not allowed'),
    ('<!DOCTYPE robot SYSTEM "file:///etc/passwd"><robot name="x"><link name="a"/></robot>',
     'external XML references are not allowed'),
])
def test_plugin_gate_stops_entities_before_urdfdom_py(monkeypatch, document, fragment):
    calls = []
    monkeypatch.setattr(urdf.Robot, 'from_xml_string', classmethod(
        lambda cls, xml: calls.append(xml)))
    with pytest.raises(DescriptionError) as info:
        load_model(document, parser=PLUGIN)
    assert fragment in str(info.value) and info.value.parser == PLUGIN
    assert calls == []   # urdfdom-py never saw the text


def test_plugin_hands_urdfdom_py_only_the_gates_output(monkeypatch):
    seen = []
    original = urdf.Robot.from_xml_string.__func__
    monkeypatch.setattr(urdf.Robot, 'from_xml_string', classmethod(
        lambda cls, xml: seen.append(xml) or original(cls, xml)))
    load_model('\ufeff<?xml version="1.0" encoding="utf-8"?>\n<!-- c -->'
               + MINIMAL.format(joint=FIXED_JOINT.format(x=1), extra=''), parser=PLUGIN)
    assert len(seen) == 1 and seen[0].startswith(b'<robot name="d">')   # no prolog, no comment


def test_plugin_strict_turns_urdfdom_py_warnings_into_errors(capfd):
    data = ARM.replace(b'</robot>', b'<mujoco><compiler angle="radian"/></mujoco></robot>')
    assert load_model(data, parser=PLUGIN) == load_model(ARM)   # ignored, as by 'urdf'
    assert capfd.readouterr().err == ''                          # and not printed
    with pytest.raises(DescriptionError) as info:
        load_model(data, parser=PLUGIN, options={'strict': True})
    assert 'urdfdom-py warned (option strict)' in str(info.value)
    assert 'Unknown tag "mujoco"' in str(info.value)


def test_plugin_restores_urdfdom_py_hook_after_failure():
    before = xml_reflection.on_error
    with pytest.raises(DescriptionError):
        load_model(H1_2, parser=PLUGIN)
    load_model(ARM, parser=PLUGIN)
    assert xml_reflection.on_error is before


@pytest.mark.parametrize('options, message', [
    ({'strict': 'yes'}, "option 'urdf_parser_py.strict' must be bool"),
    ({'verbose': True}, "unknown option(s) for parser 'urdf_parser_py': verbose"),
])
def test_plugin_options_checked(options, message):
    with pytest.raises(DescriptionError) as info:
        load_model(ARM, parser=PLUGIN, options=options)
    assert message in str(info.value)


def test_plugin_is_an_entry_point_not_a_builtin():
    assert PLUGIN in ParserRegistry.from_entry_points()
    assert PLUGIN in default_registry()
    assert PLUGIN not in {cls.name for cls in BUILTIN_PARSERS}
    registry = ParserRegistry()
    for cls in BUILTIN_PARSERS:
        registry.register(cls)
    assert PLUGIN not in registry
    parser = default_registry().get(PLUGIN)
    assert [(o.name, o.default) for o in parser.options] == [('strict', False)]


def test_plugin_never_wins_under_auto():
    registry = default_registry()
    for data in (ARM.decode(), H1_2.decode(),
                 MINIMAL.format(joint=FIXED_JOINT.format(x=1), extra='')):
        scores = registry.scores(data)
        assert scores[PLUGIN] == scores['urdf'] + 1 < len(data)
        assert registry.select(data) == 'urdf'
    xacro = ('<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
             '<xacro:property name="l" value="1"/><link name="a"/></robot>')
    assert registry.select(xacro) == 'xacro'
    assert registry.scores('<sdf/>')[PLUGIN] == len('<sdf/>')   # not a URDF: not mine


# -- the corpus ----------------------------------------------------------------

# Valid files (urdfdom's check_urdf accepts them) that raw urdfdom-py 1.2 rejects.
RAW_REJECTS = {
    'example_robot_data/pr2_description/urdf/pr2.urdf': 'Could not perform duck-typed parsing',
    'ros2_urdf_test/urdf/test/pr2_desc.urdf': 'Could not perform duck-typed parsing',
    'pybullet_data/racecar/racecar.urdf': 'One element only for geometric',
    'unitree_ros/robots/h1_2_description/h1_2.urdf': 'Required attribute not set in XML: name',
    'pybullet_data/quadruped/minitaur.urdf': "Unsupported version '0.0'",
    'ros2_urdf_test/urdf/test/one_link.urdf': 'Malformed declaration expecting version',
    'ros2_urdf_test/urdf/test/no_visual.urdf': 'Malformed declaration expecting version',
    'ros2_urdf_test/urdf/test/two_links_one_joint.urdf': 'Malformed declaration expecting version',
    'ros2_urdf_test/urdf/test/singularity.urdf': 'Malformed declaration expecting version',
}
# ... of which the plugin (behind the gate, which repairs the prolog) still rejects these.
PLUGIN_REJECTS = {f: m for f, m in RAW_REJECTS.items() if 'version' not in m}


@needs_corpus
def test_pinned_rejections_are_corpus_files():
    assert set(RAW_REJECTS) <= {row['file'] for row in ROWS}
    assert len(ROWS) - len(RAW_REJECTS) == 34 and len(ROWS) - len(PLUGIN_REJECTS) == 39


@pytest.mark.parametrize('row', corpus_params(ROWS, ids=[row['file'] for row in ROWS]))
def test_corpus_from_urdf_parser_py_equals_builtin(row):
    data = (CORPUS / row['file']).read_bytes()
    if row['file'] in RAW_REJECTS:
        with pytest.raises(Exception, match=RAW_REJECTS[row['file']]):
            raw_robot(data)
        return
    builtin = load_model(data, parser='urdf')
    converted = model_from_urdf_parser_py(raw_robot(data))
    assert_same_model(converted, builtin)
    assert converted == builtin
    assert_same_fk(converted, builtin)


@pytest.mark.parametrize('row', corpus_params(ROWS, ids=[row['file'] for row in ROWS]))
def test_corpus_plugin_equals_builtin(row):
    data = (CORPUS / row['file']).read_bytes()
    registry = default_registry()
    assert registry.select(data) == 'urdf'
    assert registry.scores(data)[PLUGIN] == registry.scores(data)['urdf'] + 1
    if row['file'] in PLUGIN_REJECTS:
        with pytest.raises(DescriptionError) as info:
            load_model(data, parser=PLUGIN)
        assert PLUGIN_REJECTS[row['file']] in str(info.value)
        assert info.value.parser == PLUGIN
        return
    model = load_model(data, parser=PLUGIN)
    assert model == load_model(data, parser='urdf')
    assert_same_fk(model, load_model(data, parser='urdf'))


@pytest.mark.parametrize('relative', corpus_params(sorted(INVALID)))
def test_corpus_invalid_files_rejected_by_both_ways_in(relative):
    """
    Rejected by the plugin, with the built-in reader's message.

    Raw urdfdom-py either rejects them or reads a robot that the conversion rejects with
    the built-in reader's message (loops, two trees, ...).
    """
    data = (CORPUS / 'invalid' / relative).read_bytes()
    with pytest.raises(DescriptionError) as info:
        load_model(data, parser=PLUGIN)
    assert info.value.parser == PLUGIN
    try:
        robot = raw_robot(data)
    except Exception:  # urdfdom-py rejects it itself
        return
    with pytest.raises(DescriptionError) as converted:
        model_from_urdf_parser_py(robot)
    with pytest.raises(DescriptionError) as builtin:
        load_model(data, parser='urdf')
    assert converted.value.reason == builtin.value.reason
