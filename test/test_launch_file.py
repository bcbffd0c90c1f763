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
launch/urdf_state.launch.py and config/urdf_state.yaml.

The launch file can only be executed where ``launch``/``launch_ros`` are
installed (skipped otherwise); it is always compiled and inspected statically.
The parameters file is always checked against the real node: its keys are the
node's declared parameters and its values the node's defaults, and rcl's own
YAML parser accepts it.
"""
import ast
import importlib.util
from pathlib import Path
import py_compile

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
LAUNCH_FILE = REPO / 'launch' / 'urdf_state.launch.py'
CONFIG_FILE = REPO / 'config' / 'urdf_state.yaml'
LAUNCH_ARGUMENTS = {'model', 'xacro_args', 'namespace', 'frame_prefix', 'use_sim_time',
                    'source_list', 'srdf', 'initial_group_states', 'params_file'}
# Declared by rclpy itself (or by QoS overriding), not by the node's code.
INFRASTRUCTURE = {'use_sim_time', 'start_type_description_service'}


def _flatten(tree, prefix=''):
    out = {}
    for key, value in tree.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            out.update(_flatten(value, name + '.'))
        else:
            out[name] = value
    return out


def config_parameters():
    doc = yaml.safe_load(CONFIG_FILE.read_text())
    assert list(doc) == ['/**'], 'use the /** wildcard so any node name/namespace matches'
    assert list(doc['/**']) == ['ros__parameters']
    return _flatten(doc['/**']['ros__parameters'])


# --------------------------------------------------------------------------- launch

def test_launch_file_compiles(tmp_path):
    py_compile.compile(str(LAUNCH_FILE), cfile=str(tmp_path / 'launch.pyc'), doraise=True)


def test_launch_file_static_contents():
    """Without launch installed: the declared arguments and the Node call, from the AST."""
    tree = ast.parse(LAUNCH_FILE.read_text())
    arguments = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and any(getattr(t, 'id', None) == 'ARGUMENTS' for t in node.targets))
    assert {k.value for k in arguments.keys} == LAUNCH_ARGUMENTS
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, 'id', None) == 'Node']
    assert len(calls) == 1
    kw = {k.arg: k.value for k in calls[0].keywords}
    assert {k: ast.literal_eval(kw[k]) for k in ('executable', 'name', 'output')} == {
        'executable': 'urdf_state', 'name': 'urdf_state', 'output': 'screen'}
    assert ast.literal_eval(next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                                 and any(getattr(t, 'id', None) == 'PACKAGE'
                                         for t in n.targets))) == 'urdf_state_py'
    for needed in ('generate_launch_description', 'OpaqueFunction', 'xacro.base_dir',
                   'mjcf.base_dir', 'xacro.args', 'robot_description', 'urdf_state.yaml'):
        assert needed in LAUNCH_FILE.read_text()


def _load_launch_module():
    spec = importlib.util.spec_from_file_location('urdf_state_launch', LAUNCH_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.ros
def test_generate_launch_description():
    pytest.importorskip('launch', reason='launch is not installed (ROS 2 launch framework)')
    pytest.importorskip('launch_ros', reason='launch_ros is not installed')
    from launch import LaunchDescription
    from launch.actions import DeclareLaunchArgument, OpaqueFunction

    ld = _load_launch_module().generate_launch_description()
    assert isinstance(ld, LaunchDescription)
    declared = [e for e in ld.entities if isinstance(e, DeclareLaunchArgument)]
    assert {a.name for a in declared} == LAUNCH_ARGUMENTS
    assert {a.name for a in ld.get_launch_arguments()} == LAUNCH_ARGUMENTS
    assert any(isinstance(e, OpaqueFunction) for e in ld.entities)


@pytest.mark.ros
def test_launch_node_action_parameters(tmp_path):
    """Run the OpaqueFunction against a launch context: the Node gets the file contents."""
    pytest.importorskip('launch', reason='launch is not installed (ROS 2 launch framework)')
    pytest.importorskip('launch_ros', reason='launch_ros is not installed')
    from launch import LaunchContext
    from launch_ros.actions import Node

    model = tmp_path / 'robot.urdf.xacro'
    model.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                     '<link name="a"/></robot>')
    context = LaunchContext()
    context.launch_configurations.update({
        'model': str(model), 'xacro_args': 'p:=x "q:=a b"', 'namespace': 'ns',
        'frame_prefix': 'left/', 'use_sim_time': 'true', 'params_file': str(CONFIG_FILE),
        'source_list': '', 'srdf': '', 'initial_group_states': ''})
    module = _load_launch_module()
    (node,) = module._launch_node(context)
    assert isinstance(node, Node)
    assert node.node_package == 'urdf_state_py'
    assert node.node_executable == 'urdf_state'


def _launch_overrides(context, module):
    """Return the parameter dict the launch file hands the Node (last ``parameters`` entry)."""
    import unittest.mock
    with unittest.mock.patch.object(module, 'Node') as node:
        module._launch_node(context)
    return node.call_args.kwargs['parameters'][-1]


def test_launch_passes_source_list_through(tmp_path):
    """
    ``source_list:="arm/joint_states grip"`` becomes the node's string array.

    "" leaves the parameter at its default (the node as robot_state_publisher).
    """
    pytest.importorskip('launch', reason='launch is not installed (ROS 2 launch framework)')
    pytest.importorskip('launch_ros', reason='launch_ros is not installed')
    from launch import LaunchContext
    model = tmp_path / 'robot.urdf'
    model.write_text('<robot name="r"><link name="a"/></robot>')
    module = _load_launch_module()
    context = LaunchContext()
    context.launch_configurations.update({
        'model': str(model), 'xacro_args': '', 'namespace': '', 'frame_prefix': '',
        'use_sim_time': 'false', 'params_file': '', 'source_list': 'arm/joint_states grip',
        'srdf': '', 'initial_group_states': ''})
    assert _launch_overrides(context, module)['source_list'] == ['arm/joint_states', 'grip']
    context.launch_configurations['source_list'] = ''
    assert 'source_list' not in _launch_overrides(context, module)
    # srdf:=FILE passes its contents, initial_group_states:="a/b c/d" a string array
    srdf = tmp_path / 'robot.srdf'
    srdf.write_text('<robot name="r"/>')
    context.launch_configurations.update({'srdf': str(srdf),
                                          'initial_group_states': 'arm/ready hand/open'})
    overrides = _launch_overrides(context, module)
    assert overrides['initial_group_states'] == ['arm/ready', 'hand/open']
    assert overrides['robot_description_semantic'].value == '<robot name="r"/>'
    context.launch_configurations.update({'srdf': '', 'initial_group_states': ''})
    overrides = _launch_overrides(context, module)
    assert 'robot_description_semantic' not in overrides
    assert 'initial_group_states' not in overrides


# --------------------------------------------------------------------------- config

def _node_module():
    pytest.importorskip('rclpy')
    try:
        from urdf_state_py.node import state_publisher as node_module
    except ImportError as exc:   # the node cannot be imported: that is a failure
        pytest.fail(f'urdf_state_py.node.state_publisher does not import: {exc}')
    return node_module


def _declared(node):
    if hasattr(node, 'list_parameters'):
        names = node.list_parameters([], 0).names
    else:  # very old rclpy
        names = list(node._parameters)
    return {name: node.get_parameter(name).value for name in names
            if name not in INFRASTRUCTURE and not name.startswith('qos_overrides.')}


def _node_parameters(args=None):
    import rclpy
    node_module = _node_module()
    context = rclpy.Context()
    rclpy.init(args=args, context=context)
    try:
        node = node_module.UrdfStateNode(context=context)
        try:
            return {k: (list(v) if isinstance(v, (list, tuple)) or hasattr(v, 'tolist') else v)
                    for k, v in _declared(node).items()}
        finally:
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)


def test_config_yaml_parses_and_is_commented():
    params = config_parameters()
    assert params['publish_frequency'] == 20.0
    text = CONFIG_FILE.read_text()
    # Every parameter line is preceded by a comment line.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped and not stripped.startswith('#') and ':' in stripped \
                and not stripped.startswith(('/**', 'ros__parameters')):
            assert lines[i - 1].strip().startswith('#') or stripped.endswith(':'), line


@pytest.mark.ros
def test_config_yaml_matches_node_parameters_and_defaults():
    config = config_parameters()
    declared = _node_parameters()
    assert sorted(config) == sorted(declared), (
        f'only in config: {sorted(set(config) - set(declared))}; '
        f'only in node: {sorted(set(declared) - set(config))}')
    for name, default in declared.items():
        assert config[name] == default, f'{name}: config {config[name]!r} != node {default!r}'
        assert type(config[name]) is type(default), name


@pytest.mark.ros
def test_config_yaml_is_accepted_by_rcl():
    """Rcl's YAML parser (not PyYAML) reads the file and the node starts with the defaults."""
    declared = _node_parameters()
    with_file = _node_parameters(['urdf_state', '--ros-args', '--params-file', str(CONFIG_FILE)])
    assert with_file == declared


def test_launch_sets_mjcf_base_dir_to_the_model_folder(tmp_path):
    """An MJCF model's <include> files and meshes resolve against its folder."""
    pytest.importorskip('launch', reason='launch is not installed (ROS 2 launch framework)')
    pytest.importorskip('launch_ros', reason='launch_ros is not installed')
    from launch import LaunchContext
    model = tmp_path / 'robot.xml'
    model.write_text('<mujoco model="m"><include file="parts.xml"/></mujoco>')
    context = LaunchContext()
    context.launch_configurations.update({
        'model': str(model), 'xacro_args': '', 'namespace': '', 'frame_prefix': '',
        'use_sim_time': 'false', 'params_file': '', 'source_list': '', 'srdf': '',
        'initial_group_states': ''})
    overrides = _launch_overrides(context, _load_launch_module())
    assert overrides['mjcf.base_dir'].value == str(tmp_path)
    assert 'include file="parts.xml"' in overrides['robot_description'].value
