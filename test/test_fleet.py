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
Fleet files of fleet.launch.py (no ROS): what each entry becomes, and every mistake named.

The launch file itself needs launch_ros (not on PyPI): it is compiled and read here,
and run where launch_ros is installed.
"""
import ast
from pathlib import Path
import py_compile

import pytest
from robot_files import FIXTURES, H1_2
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.node.process.fleet_file import component_parameters, FleetError, read_fleet

REPO = Path(__file__).resolve().parents[1]
LAUNCH_FILE = REPO / 'launch' / 'fleet.launch.py'
EXAMPLE = REPO / 'config' / 'fleet.example.yaml'
ARM = FIXTURES / 'xacro' / 'fixture_arm'


def write(tmp_path, text: str) -> Path:
    path = tmp_path / 'fleet.yaml'
    path.write_text(text)
    return path


def test_the_example_fleet_reads_as_documented():
    robots = read_fleet(EXAMPLE)
    assert [r.namespace for r in robots] == ['/h1_a', '/h1_b', '/h1_c']
    assert all(r.model == H1_2.resolve() for r in robots)
    assert [r.frame_prefix for r in robots] == ['h1_a/', 'h1_b/', 'third/']
    assert robots[2].parameters == {'publish_frequency': 50.0, 'ignore_limits': True}


def test_a_xacro_model_is_expanded_by_the_launch_unless_trusted(tmp_path):
    fleet = write(tmp_path, f"""robots:
  - namespace: left
    model: {ARM / 'urdf' / 'arm.urdf.xacro'}
    xacro_args: "name:=arm"
    parameters: {{xacro.package_paths: [fixture_arm={ARM}], publish_frequency: 30.0}}
""")
    (robot,) = read_fleet(fleet)
    plain = component_parameters(robot, trusted=False)
    expected = (ARM / 'urdf' / 'arm.urdf').read_text()
    registry = default_registry()
    assert registry.parse(plain['robot_description']) == registry.parse(expected)
    assert registry.select(plain['robot_description']) == 'urdf'
    assert plain['frame_prefix'] == 'left/' and plain['publish_frequency'] == 30.0
    assert not {'xacro.base_dir', 'xacro.package_paths', 'xacro.args'} & set(plain)
    trusted = component_parameters(robot, trusted=True)
    assert trusted['robot_description'] == robot.model.read_text()
    assert trusted['xacro.base_dir'] == str(ARM / 'urdf')
    assert trusted['xacro.args'] == ['name:=arm']
    assert trusted['xacro.package_paths'] == [f'fixture_arm={ARM}']


def test_an_mjcf_model_becomes_urdf_with_its_includes_unless_trusted(tmp_path):
    model = FIXTURES / 'mjcf' / 'features.xml'
    (robot,) = read_fleet(write(tmp_path, f'robots:\n  - {{namespace: m, model: {model}}}\n'))
    plain = component_parameters(robot, trusted=False)
    registry = default_registry()
    assert registry.select(plain['robot_description']) == 'urdf'
    from_file = registry.parse_file(model)
    assert registry.parse(plain['robot_description']).link_names == from_file.link_names
    assert 'mjcf.base_dir' not in plain
    trusted = component_parameters(robot, trusted=True)
    assert trusted['robot_description'] == model.read_text()
    assert trusted['mjcf.base_dir'] == str(model.parent)


MISTAKES = {
    'no robots': ('robots: []\n', "expected 'robots:' and a list"),
    'another top key': ('fleet: []\n', "expected 'robots:'"),
    'no namespace': ('robots:\n  - model: {h1}\n', "robot #1: 'namespace' is required"),
    'no model': ('robots:\n  - namespace: a\n', "robot #1: 'model' is required"),
    'missing file': ('robots:\n  - {{namespace: a, model: nowhere.urdf}}\n',
                     "nowhere.urdf' does not exist"),
    'bad namespace': ('robots:\n  - {{namespace: "a b", model: {h1}}}\n',
                      "'a b' is not a valid namespace"),
    'unknown key': ('robots:\n  - {{namespace: a, model: {h1}, prefix: x}}\n',
                    "unknown key(s) ['prefix']"),
    'bad args': ('robots:\n  - {{namespace: a, model: {h1}, xacro_args: [x]}}\n',
                 "'xacro_args' must be name:=value strings"),
    'twice': ('robots:\n  - {{namespace: a, model: {h1}}}\n  - {{namespace: /a/, model: {h1}}}\n',
              "robots #1 and #2 share the namespace '/a'"),
    'own key': ('robots:\n  - {{namespace: a, model: {h1}, parameters: {{frame_prefix: x}}}}\n',
                "set ['frame_prefix'] through the entry's own keys"),
    'not yaml': ('robots: [\n', 'while parsing'),
    'part without parent': ('robots:\n  - {{namespace: a, model: {h1}, parts: '
                            '[{{name: g, model: {h1}}}]}}\n', "part #1: 'parent' is required"),
    'part name': ('robots:\n  - {{namespace: a, model: {h1}, parts: '
                  '[{{name: g.h, model: {h1}, parent: x}}]}}\n', "part name 'g.h' must be"),
    'part twice': ('robots:\n  - {{namespace: a, model: {h1}, parts: [{{name: g, model: {h1}, '
                   'parent: x}}, {{name: g, model: {h1}, parent: y}}]}}\n',
                   "part #2: 'g' is listed twice"),
    'part offset': ('robots:\n  - {{namespace: a, model: {h1}, parts: '
                    '[{{name: g, model: {h1}, parent: x, xyz: [1, 2]}}]}}\n',
                    "part #1: 'xyz' must be 3 numbers"),
    'parts as parameters': ('robots:\n  - {{namespace: a, model: {h1}, parameters: '
                            '{{parts.g.parent: x}}}}\n', "give parts under the entry's own key"),
}


@pytest.mark.parametrize('case', sorted(MISTAKES))
def test_every_mistake_names_the_robot_and_the_key(tmp_path, case):
    text, message = MISTAKES[case]
    with pytest.raises(FleetError) as info:
        read_fleet(write(tmp_path, text.format(h1=H1_2)))
    assert message in str(info.value)


def test_a_model_that_does_not_parse_is_named(tmp_path):
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="x"><link/></robot>')
    (robot,) = read_fleet(write(tmp_path, f'robots:\n  - {{namespace: a, model: {bad}}}\n'))
    with pytest.raises(FleetError, match='bad.urdf.*no name attribute'):
        component_parameters(robot, trusted=False)


def test_the_launch_file_compiles_and_loads_the_plugin_in_the_container(tmp_path):
    py_compile.compile(str(LAUNCH_FILE), cfile=str(tmp_path / 'fleet.pyc'), doraise=True)
    tree = ast.parse(LAUNCH_FILE.read_text())
    calls = {getattr(n.func, 'id', None): {k.arg: k.value for k in n.keywords}
             for n in ast.walk(tree) if isinstance(n, ast.Call)}
    container, component = calls['ComposableNodeContainer'], calls['ComposableNode']
    assert ast.literal_eval(container['executable']) == 'urdf_state_container'
    assert getattr(component['plugin'], 'id', None) == 'PLUGIN'
    consts = {t.id: ast.literal_eval(n.value) for n in ast.walk(tree)
              if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
              and isinstance(n.value, ast.Constant)}
    assert consts['PLUGIN'] == 'urdf_state_py::UrdfState' and consts['PACKAGE'] == 'urdf_state_py'
    assert 'load_node.trusted' in LAUNCH_FILE.read_text()
