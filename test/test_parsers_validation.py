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

"""One small hand-made description per validation rule of the URDF parser and the model."""

import time

import pytest
from urdf_state_py import DescriptionError, JointType, load_model
from urdf_state_py.core.parsers import UrdfXmlParser


def robot(body, name='r'):
    return f'<robot name="{name}">{body}</robot>'


def links(*names):
    return ''.join(f'<link name="{n}"/>' for n in names)


def joint(name, parent, child, type_='fixed', inner=''):
    return (f'<joint name="{name}" type="{type_}"><parent link="{parent}"/>'
            f'<child link="{child}"/>{inner}</joint>')


LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'


def rejects(data, *fragments, parser='urdf'):
    with pytest.raises(DescriptionError) as info:
        load_model(data, parser=parser)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)
    return info.value


# -- rejected -----------------------------------------------------------------

REJECTED = {
    'not xml': ('this is not xml', ('not well-formed',)),
    'unclosed': ('<robot name="r"><link name="a">', ('not well-formed',)),
    'no robot root': ('<model name="m"><link name="a"/></model>', ('<model>', 'expected <robot>')),
    'robot without name': ('<robot><link name="a"/></robot>', ('<robot> has no name',)),
    'no links': (robot(''), ("robot 'r' has no links",)),
    'link without name': (robot('<link/>'), ('link #1 has no name',)),
    'duplicate link': (robot(links('a', 'a')), ("link name 'a' is not unique",)),
    'duplicate joint': (robot(links('a', 'b', 'c') + joint('j', 'a', 'b') + joint('j', 'a', 'c')),
                        ("joint name 'j' is not unique",)),
    'joint without type': (robot(links('a', 'b') + '<joint name="j"><parent link="a"/>'
                                 '<child link="b"/></joint>'), ("joint 'j' has no type",)),
    'unknown joint type': (robot(links('a', 'b') + joint('j', 'a', 'b', 'spherical')),
                           ("joint 'j' has unknown type 'spherical'",)),
    'missing parent element': (robot(links('a', 'b') + '<joint name="j" type="fixed">'
                                     '<child link="b"/></joint>'), ("joint 'j' has no <parent>",)),
    'missing parent link': (robot(links('b') + joint('j', 'a', 'b')),
                            ("joint 'j': parent link 'a' does not exist",)),
    'missing child link': (robot(links('a') + joint('j', 'a', 'b')),
                           ("joint 'j': child link 'b' does not exist",)),
    'no root (loop)': (robot(links('a', 'b') + joint('j1', 'a', 'b') + joint('j2', 'b', 'a')),
                       ('no root link',)),
    'several roots': (robot(links('a', 'b', 'c') + joint('j', 'a', 'b')),
                      ('several root links', "'a'", "'c'")),
    'two parents': (robot(links('a', 'b', 'c') + joint('j1', 'a', 'c') + joint('j2', 'b', 'c')),
                    ("link 'c' has two parent joints", "'j1'", "'j2'")),
    'cycle not reaching root': (robot(links('a', 'b', 'c') + joint('j1', 'b', 'c')
                                      + joint('j2', 'c', 'b')),
                                ('kinematic loop not connected to the root', "'b'", "'c'")),
    'nan': (robot(links('a', 'b') + joint('j', 'a', 'b', inner='<origin xyz="0 nan 0"/>')),
            ("joint 'j' origin xyz has a non-finite value",)),
    'two dots': (robot(links('a', 'b') + joint('j', 'a', 'b', inner='<origin xyz="1.0.0 0 0"/>')),
                 ("joint 'j' origin xyz: '1.0.0' is not a number",)),
    'two-number vector': (robot(links('a', 'b')
                                + joint('j', 'a', 'b', inner='<origin rpy="1 2"/>')),
                          ("joint 'j' origin rpy must be 3 numbers, found 2",)),
    'bad limit number': (robot(links('a', 'b') + joint(
        'j', 'a', 'b', 'revolute', '<limit lower="x" upper="1" effort="1" velocity="1"/>')),
        ("joint 'j' <limit> lower: 'x' is not a number",)),
    'zero axis': (robot(links('a', 'b') + joint('j', 'a', 'b', 'revolute',
                                                '<axis xyz="0 0 0"/>' + LIMIT)),
                  ("joint 'j' (revolute) has a zero axis",)),
    'mimic unknown': (robot(links('a', 'b') + joint('j', 'a', 'b', 'continuous',
                                                    '<mimic joint="ghost"/>')),
                      ("joint 'j' mimics unknown joint 'ghost'",)),
    'mimic self': (robot(links('a', 'b') + joint('j', 'a', 'b', 'continuous',
                                                 '<mimic joint="j"/>')),
                   ("joint 'j' mimics itself",)),
    'mimic cycle': (robot(links('a', 'b', 'c')
                          + joint('ja', 'a', 'b', 'continuous', '<mimic joint="jb"/>')
                          + joint('jb', 'b', 'c', 'continuous', '<mimic joint="ja"/>')),
                    ('mimic cycle', 'ja -> jb -> ja')),
    'mimic without joint': (robot(links('a', 'b') + joint('j', 'a', 'b', 'continuous',
                                                          '<mimic multiplier="2"/>')),
                            ("joint 'j' <mimic> has no 'joint' attribute",)),
    'lower > upper': (robot(links('a', 'b') + joint(
        'j', 'a', 'b', 'revolute', '<limit lower="1" upper="-1" effort="1" velocity="1"/>')),
        ("joint 'j' has lower limit 1.0 > upper limit -1.0",)),
    'revolute without limit': (robot(links('a', 'b') + joint('j', 'a', 'b', 'revolute')),
                               ("joint 'j' is revolute but has no <limit>",)),
    'prismatic without limit': (robot(links('a', 'b') + joint('j', 'a', 'b', 'prismatic')),
                                ("joint 'j' is prismatic but has no <limit>",)),
    'limit without effort': (robot(links('a', 'b') + joint(
        'j', 'a', 'b', 'revolute', '<limit lower="0" upper="1" velocity="1"/>')),
        ("joint 'j' <limit> has no 'effort' attribute",)),
    'safety without k_velocity': (robot(links('a', 'b') + joint(
        'j', 'a', 'b', 'revolute', LIMIT + '<safety_controller k_position="1"/>')),
        ("joint 'j' <safety_controller> has no 'k_velocity'",)),
    'mesh without filename': (robot('<link name="a"><visual><geometry><mesh/></geometry>'
                                    '</visual></link>'),
                              ("link 'a' <visual> #1: <mesh> has no 'filename'",)),
    'unknown geometry': (robot('<link name="a"><collision><geometry><capsule radius="1" '
                               'length="2"/></geometry></collision></link>'),
                         ("link 'a' <collision> #1: unknown geometry type 'capsule'",)),
    'visual without geometry': (robot('<link name="a"><visual/></link>'),
                                ("link 'a' <visual> #1 has no <geometry>",)),
}


@pytest.mark.parametrize('case', sorted(REJECTED))
def test_rejected(case):
    data, fragments = REJECTED[case]
    error = rejects(data, *fragments)
    assert error.parser == 'urdf'


def test_parser_used_directly_raises_without_parser_name():
    with pytest.raises(DescriptionError) as info:
        UrdfXmlParser().parse(robot(''), {})
    assert info.value.parser is None
    assert str(info.value) == "robot 'r' has no links"


# -- accepted, with values ------------------------------------------------------

def test_full_joint_is_read_with_defaults():
    model = load_model(robot(
        links('base', 'a', 'b', 'c')
        + joint('rev', 'base', 'a', 'revolute',
                '<origin xyz="1 2 3" rpy="0.1 -0.2 3e-1"/><axis xyz="0 0 2"/>'
                '<limit upper="1.5" effort="10" velocity="2.5"/>'
                '<safety_controller soft_upper_limit="1.4" k_velocity="7"/>'
                '<dynamics damping="0.5"/>')
        + joint('cont', 'a', 'b', 'continuous',
                '<limit lower="-5" upper="-6" effort="1" velocity="1"/>'
                '<mimic joint="rev"/>')
        + joint('slide', 'b', 'c', 'prismatic',
                '<axis xyz="0 1 0"/><limit lower="-0.1" upper="0.2" effort="3" velocity="4"/>'
                '<mimic joint="rev" multiplier="-2" offset="0.25"/>')))
    rev = model.joint('rev')
    assert rev.type is JointType.REVOLUTE
    assert rev.origin.xyz == (1.0, 2.0, 3.0)
    assert rev.origin.rpy == (0.1, -0.2, 0.3)
    assert rev.axis == (0.0, 0.0, 1.0)  # normalised by the model
    assert (rev.limits.lower, rev.limits.upper) == (0.0, 1.5)  # lower defaults to 0
    assert (rev.limits.effort, rev.limits.velocity) == (10.0, 2.5)
    assert rev.safety.soft_upper_limit == 1.4 and rev.safety.k_velocity == 7.0
    assert rev.safety.soft_lower_limit == 0.0 and rev.safety.k_position == 0.0
    cont = model.joint('cont')
    assert cont.axis == (1.0, 0.0, 0.0)  # default axis
    assert (cont.limits.lower, cont.limits.upper) == (None, None)  # continuous: bounds ignored
    assert (cont.mimic.joint, cont.mimic.multiplier, cont.mimic.offset) == ('rev', 1.0, 0.0)
    slide = model.joint('slide')
    assert (slide.mimic.multiplier, slide.mimic.offset) == (-2.0, 0.25)
    assert slide.axis == (0.0, 1.0, 0.0)
    assert model.root == 'base'
    assert model.mimic_joint_names == ('cont', 'slide')


def test_fixed_and_floating_ignore_axis():
    model = load_model(robot(links('a', 'b', 'c')
                             + joint('f', 'a', 'b', 'fixed', '<axis xyz="0 0 0"/>')
                             + joint('fl', 'b', 'c', 'floating', '<axis xyz="0 0 0"/>')))
    assert model.joint('f').axis == (1.0, 0.0, 0.0)
    assert model.joint('fl').type is JointType.FLOATING


def test_unknown_tags_are_ignored():
    model = load_model(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<gazebo reference="a"><material>x</material></gazebo>'
        '<transmission name="t"><type>x</type></transmission>'
        '<mujoco><compiler meshdir="m"/></mujoco>'
        '<ros2_control name="c" type="system"><hardware/></ros2_control>'
        '<xacro:leftover_macro_call foo="bar"/>'
        '<material name="red"><color rgba="1 0 0 1"/></material>'
        + links('a', 'b')
        + joint('j', 'a', 'b', 'continuous', '<calibration rising="0.1"/><foo/>')
        + '</robot>', parser='urdf')
    assert model.link_names == ('a', 'b')
    assert model.joint_names == ('j',)


def test_undeclared_prefix_is_just_an_unknown_tag():
    model = load_model(robot(links('a') + '<xacro:foo/>'))
    assert model.link_names == ('a',)


def test_misspelled_xml_declaration_is_accepted():
    model = load_model('<?xml verison="1.0"?>\n' + robot(links('link1'), 'one_link'))
    assert (model.name, model.root) == ('one_link', 'link1')


def test_bytes_input():
    model = load_model(robot(links('a', 'b') + joint('j', 'a', 'b')).encode())
    assert model.link_names == ('a', 'b')


def test_str_with_encoding_declaration():
    model = load_model('<?xml version="1.0" encoding="UTF-8"?>\n'
                       + robot(links('lïnk')))
    assert model.link_names == ('lïnk',)


def test_iso_8859_1_bytes_with_non_ascii_link_name():
    data = ('<?xml version="1.0" encoding="ISO-8859-1"?>\n'
            + robot(links('bräu', 'café') + joint('j', 'bräu', 'café'))).encode('iso-8859-1')
    assert b'\xe4' in data
    model = load_model(data)
    assert model.link_names == ('bräu', 'café')
    assert model.root == 'bräu'


def test_utf16_bytes_with_bom():
    data = ('<?xml version="1.0" encoding="UTF-16"?>' + robot(links('ß'))).encode('utf-16')
    assert load_model(data).link_names == ('ß',)


def test_undecodable_bytes_are_a_description_error():
    with pytest.raises(DescriptionError, match='not valid utf-8'):
        load_model(b'<robot name="r"><link name="\xff"/></robot>')


def test_trailing_nul_after_root_is_ignored_but_nul_inside_is_not():
    assert load_model(robot(links('a')) + '\r\n\x00').link_names == ('a',)
    rejects(robot(links('a')).replace('<link', '\x00<link'), 'not well-formed')


def test_exponent_and_signs_are_numbers():
    model = load_model(robot(links('a', 'b') + joint(
        'j', 'a', 'b', inner='<origin xyz="+1e-3 -.5 2." rpy="0 0 1E2"/>')))
    assert model.joint('j').origin.xyz == (0.001, -0.5, 2.0)
    assert model.joint('j').origin.rpy == (0.0, 0.0, 100.0)


@pytest.mark.parametrize('bad', ['1_0', '0x10', '1,5', '', '--1', 'e5'])
def test_strict_numbers(bad):
    rejects(robot(links('a', 'b') + joint('j', 'a', 'b', inner=f'<origin xyz="{bad} 0 0"/>')),
            "joint 'j' origin xyz")


@pytest.mark.parametrize('value, error', [
    *[(v, "joint 'j' limit has a non-finite value")
      for v in ('-inf', 'inf', 'Infinity', 'nan', '-NaN')],
    # float() would give inf: the parser says the number itself is out of range
    *[(v, f"'{v}' is out of range") for v in ('1e999', '-1e400')],
])
@pytest.mark.parametrize('attribute', ['lower', 'upper', 'effort', 'velocity'])
def test_non_finite_limit_is_rejected(attribute, value, error):
    """
    Check a non-finite limit is rejected.

    Every spelling Python's float() turns into inf or nan, in every attribute of <limit>:
    none reaches the model as a joint limit.
    """
    values = {'lower': '-1', 'upper': '1', 'effort': '1', 'velocity': '1'}
    values[attribute] = value
    limit = '<limit %s/>' % ' '.join(f'{k}="{v}"' for k, v in values.items())
    rejects(robot(links('a', 'b') + joint('j', 'a', 'b', 'revolute', limit)), error)


# -- security -----------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE robot [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<robot name="&lol9;"><link name="a"/></robot>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE robot [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<robot name="r"><link name="&x;"/></robot>"""

#: Refused before any expansion or fetch: milliseconds at rest. Expanding the billion laughs
#: (~3 GB) or waiting on a network fetch takes far longer; a bound this loose tells them
#: apart on a machine busy with other test suites too.
EXPANSION_WOULD_TAKE_S = 10.0

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE robot SYSTEM "http://example.invalid/robot.dtd">
<robot name="r"><link name="a"/></robot>"""


@pytest.mark.parametrize('parser', ['auto', 'urdf', 'xacro'])
@pytest.mark.parametrize('data,entity', [(BILLION_LAUGHS, 'lol'), (EXTERNAL_ENTITY, 'x')],
                         ids=['billion-laughs', 'external-entity'])
def test_entities_are_refused_fast(data, entity, parser):
    start = time.monotonic()
    error = rejects(data, 'entity declarations are not allowed', parser=parser)
    assert time.monotonic() - start < EXPANSION_WOULD_TAKE_S
    assert 'root:' not in str(error)  # nothing of /etc/passwd leaked into the message
    if parser != 'xacro':
        assert f"entity '{entity}'" in str(error)


def test_external_dtd_is_refused_not_fetched():
    start = time.monotonic()
    rejects(EXTERNAL_DTD, 'external XML references are not allowed',
            'http://example.invalid/robot.dtd')
    assert time.monotonic() - start < EXPANSION_WOULD_TAKE_S


def test_internal_doctype_without_entities_is_fine():
    model = load_model('<!DOCTYPE robot [<!ELEMENT robot ANY>]>' + robot(links('a')))
    assert model.link_names == ('a',)
