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
The restricted xacro policy (no ROS): every attack of issue 8 refused, naming the construct.

Each attack, if it got through, would create a marker file, put the host's
environment or a file's contents into the expansion, or loop; the tests check
that it is refused with a reason, that the marker does not exist, and that the
same documents still expand under the trusted policy where that is xacro's
behaviour (the launch-time flow keeps all of xacro).
"""
import os

import pytest
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.parsers.xacro_sandbox import (arg_value_problem, policy, RESTRICTED,
                                                      RestrictedEvaluator, SandboxViolation,
                                                      TRUSTED)

pytest.importorskip('xacro')


def doc(value, head=''):
    """Return a two-link xacro robot whose fixed joint's x offset is ``value``."""
    return f"""<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">{head}
  <link name="a"/><link name="b"/>
  <joint name="j" type="fixed"><parent link="a"/><child link="b"/>
    <origin xyz="{value} 0 0"/></joint>
</robot>"""


def named(name, head=''):
    """Return a robot whose name is ``name`` (where host data would show up when leaked)."""
    return f"""<robot name="{name}" xmlns:xacro="http://www.ros.org/wiki/xacro">{head}
  <link name="a"/></robot>"""


def expand(text, mode, **options):
    with policy(mode):
        model, published = default_registry().parse_published(text, 'xacro', options)
    return model, published


def refused(text, **options):
    with pytest.raises(DescriptionError) as info:
        expand(text, RESTRICTED, **options)
    assert info.value.kind == 'policy', str(info.value)
    return str(info.value)


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / 'marker'
    yield path
    assert not path.exists(), 'a shell command ran'


CODE_ATTACKS = {
    'eval': ("$(eval __import__('os').system('touch {m}'))", '$(eval'),
    'eval with ) from a property': ("$(eval ${{p}}import('os').system('touch {m}') or 1)",
                                    '$(eval'),
    'list comprehension': ('${{[c for c in ().__class__.__base__.__subclasses__() '
                           "if c.__name__ == 'Popen'][0](['touch', '{m}'])}}",
                           'list comprehension'),
    'vars string keys': ("${{python.vars(python)['__builtins__']}}", "'python.vars'"),
    'dunder name': ("${{__import__('os').system('touch {m}')}}", "'__import__'"),
    'lambda': ('${{(lambda: 1)()}}', 'lambda'),
    'sum(range())': ('${{sum(range(10**12))}}', "calling 'sum'"),
    'huge power': ('${{10**10**10}}', 'integer power'),
    'huge repetition': ("${{'a' * 10**9}}", 'repetition'),
}


@pytest.mark.parametrize('case', sorted(CODE_ATTACKS))
def test_code_is_refused_naming_the_construct(case, marker):
    template, construct = CODE_ATTACKS[case]
    reason = refused(doc(template.format(m=marker), '<xacro:property name="p" value="_"/>'))
    assert construct in reason
    assert 'run time' in reason


@pytest.mark.parametrize('text,construct', [
    ('$(env HOME)', '$(env'), ('$(optenv HOME fallback)', '$(optenv'), ('$(cwd)', '$(cwd'),
    ('$(find os)', '$(find os)'), ('$(dirname)', '$(dirname)'),
    ("$(arg ${'a) $(env HOME'})", ''),   # ')' smuggled through an expression
])
def test_environment_is_not_read(text, construct):
    with pytest.raises(DescriptionError) as info:
        expand(named(text, '<xacro:arg name="a" default="x"/>'), RESTRICTED)
    assert construct in str(info.value)
    assert os.environ.get('HOME', '/root') not in str(info.value)


def test_files_outside_the_declared_folders_are_refused(tmp_path):
    secret = tmp_path / 'secret'
    secret.mkdir()
    (secret / 'data.yaml').write_text('value: 42\n')
    (secret / 'part.xacro').write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="b"/></robot>')
    allowed = tmp_path / 'model'
    allowed.mkdir()
    (allowed / 'escape.yaml').symlink_to(secret / 'data.yaml')
    yaml_use = "${xacro.load_yaml('%s').value}"
    include = '<xacro:include filename="%s"/>'
    for text, construct in [
            (doc(yaml_use % (secret / 'data.yaml')), 'xacro.load_yaml'),
            (doc(yaml_use % 'escape.yaml'), 'xacro.load_yaml'),        # symlink out
            (doc(yaml_use % '../secret/data.yaml'), 'xacro.load_yaml'),
            (doc(0, include % (secret / 'part.xacro')), 'xacro:include'),
            (doc(0, include % '/etc/hostname'), 'xacro:include')]:
        reason = refused(text, base_dir=str(allowed))
        assert construct in reason and 'outside' in reason
    # no base_dir declared: not even relative files
    assert 'xacro:include' in refused(doc(0, include % 'part.xacro'))


def test_declared_folders_and_plain_xacro_still_work(tmp_path):
    (tmp_path / 'dims.yaml').write_text('arm: {length: 0.5}\n')
    (tmp_path / 'pkg').mkdir()
    (tmp_path / 'pkg' / 'part.xacro').write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:property name="scale" value="2"/></robot>')
    head = ('<xacro:include filename="$(find mypkg)/part.xacro"/>'
            '<xacro:property name="d" value="${xacro.load_yaml(\'dims.yaml\')}"/>'
            '<xacro:arg name="offset" default="0.25"/>'
            '<xacro:property name="half" value="${math.pi / 2}"/>')
    value = ('${d.arm.length * scale + $(arg offset) + radians(180) - pi + half - '
             "python.abs(-1) + max(1, 2) + (1 if 2 > 1 else 0) + len('ab') + int(-0.5)}")
    model, published = expand(doc(value, head), RESTRICTED, base_dir=str(tmp_path),
                              package_paths=[f'mypkg={tmp_path / "pkg"}'],
                              args=['offset:=0.5'])
    import math
    expected = 0.5 * 2 + 0.5 + 0.0 + math.pi / 2 - 1 + 2 + 1 + 2 + 0
    assert model.joints[0].origin.xyz[0] == pytest.approx(expected)
    assert 'xacro' not in published.split('<robot', 1)[1].split('>', 1)[0]


def test_trusted_policy_is_all_of_xacro(monkeypatch, tmp_path):
    """The launch-time file may use everything the xacro command allows."""
    monkeypatch.setenv('URDF_STATE_TEST_NAME', 'from_env')
    model, _ = expand(named('$(env URDF_STATE_TEST_NAME)'), TRUSTED)
    assert model.name == 'from_env'
    model, _ = expand(doc('${[x * 2 for x in [0.25]][0]}'), TRUSTED)
    assert model.joints[0].origin.xyz[0] == 0.5
    model, _ = expand(doc('$(eval 0.125 * 2)'), TRUSTED)
    assert model.joints[0].origin.xyz[0] == 0.25


def test_default_policy_is_trusted():
    """The library API (load_model, the CLI) reads the user's own files: all of xacro."""
    model, _ = default_registry().parse_published(doc('$(eval 1 + 1)'), 'xacro')
    assert model.joints[0].origin.xyz[0] == 2.0


def test_evaluator_directly():
    symbols = {'x': 2, 'name': 'arm', 'table': {'k': [1, 2]}}
    ev = RestrictedEvaluator(symbols)
    assert ev.evaluate('x ** 3 - 1') == 7
    assert ev.evaluate("name + '_link'") == 'arm_link'
    assert ev.evaluate("table['k'][1]") == 2
    assert ev.evaluate('not x < 1 and x in (1, 2)') is True
    assert ev.evaluate('-x // 3 % 5') == 4
    assert ev.evaluate('dict(a=x, b=[1, 2])') == {'a': 2, 'b': [1, 2]}   # ros2_control's
    assert ev.evaluate("{'a': 1}['a'] + round(2.567, ndigits=1)") == 3.6
    for bad in ('x.__class__', "table['k'].append(3)", '{**table}', 'dict(**table)', '[*table]',
                "f'{x}'", '(y := 1)', "table['k'][0:1]", '{x for x in [1]}',
                'list(map(str, [1]))'):
        with pytest.raises(SandboxViolation):
            ev.evaluate(bad)
    with pytest.raises(NameError):
        ev.evaluate('unknown + 1')


@pytest.mark.parametrize('item,ok', [
    ('prefix:=left_', True), ('xyz:=0 0.5 -1e-3', True), ('path:=/opt/x-y/z.urdf', True),
    ('v:=1), __import__("os").system("id"', False), ('v:=$(env HOME)', False),
    ("v:=['a']", False), ('v:=a;b', False),
])
def test_run_time_xacro_argument_values_are_data(item, ok):
    problem = arg_value_problem(item)
    assert (problem is None) == ok, problem
    if not ok:
        assert 'never code' in problem


# -- real models: the restricted policy expands them as xacro does ----------------------

def test_fixture_arm_expands_the_same_under_the_restricted_policy():
    from test_parsers_fixtures import ARM_URDF, ARM_XACRO, PACKAGE_PATHS
    model, _ = expand(ARM_XACRO.read_text(encoding='utf-8'), RESTRICTED, args=['name:=arm'],
                      package_paths=PACKAGE_PATHS, base_dir=str(ARM_XACRO.parent))
    assert model == default_registry().parse(ARM_URDF.read_bytes(), 'urdf')


def _corpus_sets():
    from test_parsers_corpus import STALE_GENERATED, XACRO_SETS
    return [s for s in XACRO_SETS if s[2] not in STALE_GENERATED]


@pytest.mark.parametrize('source,args,generated', _corpus_sets(),
                         ids=[f'{s} {" ".join(a)}' for s, a, _ in _corpus_sets()])
def test_real_xacro_models_expand_the_same_under_the_restricted_policy(source, args, generated):
    """UR (with ros2_control's dict(...) and load_yaml), Robotiq, Trossen, Ridgeback."""
    from robot_files import CORPUS
    from test_parsers_corpus import assert_same_model, PACKAGES
    if not (CORPUS / source).is_file():
        pytest.skip('the shared robot corpus is not here')
    path = CORPUS / source
    model, _ = expand(path.read_text(encoding='utf-8'), RESTRICTED, args=args,
                      base_dir=str(path.parent),
                      package_paths=[p.format(root=CORPUS) for p in PACKAGES])
    assert_same_model(model, default_registry().parse((CORPUS / generated).read_bytes()))
