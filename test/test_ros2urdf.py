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
``ros2 urdf``: its verbs are the CLI's commands, and setup.py registers them for ros2cli.

The verb classes and the command run here without ros2cli (they do not need
it); the check that ros2cli itself finds and runs them skips where ros2cli
is not installed (the PyPI-wheels venvs have none).
"""
from __future__ import annotations

import argparse
import ast
from contextlib import redirect_stdout
import importlib.util
import io
from pathlib import Path
import re
import subprocess
import sys

import pytest
from urdf_state_py.core.parsers import load_model
from urdf_state_py.tools import cli, node_status
from urdf_state_py.tools.model_tree import dot_lines, tree_lines
from urdf_state_py.tools.ros2urdf.command import UrdfCommand, VERB_GROUP
from urdf_state_py.tools.ros2urdf.verb import VerbExtension, VERBS

REPO = Path(__file__).resolve().parents[1]
ARM = REPO / 'test' / 'fixtures' / 'urdfdom_arm.urdf'
XACRO = REPO / 'test' / 'fixtures' / 'xacro' / 'fixture_arm' / 'urdf' / 'arm.urdf.xacro'
XACRO_ARGS = ['--xacro-arg', 'name:=demo', '--xacro-arg', 'with_gripper:=false',
              '--package-path', f'fixture_arm={XACRO.parents[1]}']


def _verb_run(name: str, *argv: str) -> tuple[int, str]:
    """Run a verb the way ros2cli does: its add_arguments on a parser, then main(args=)."""
    verb = VERBS[name]()
    parser = argparse.ArgumentParser(prog=f'ros2 urdf {name}')
    verb.add_arguments(parser, 'ros2')
    args = parser.parse_args(list(argv))
    out = io.StringIO()
    with redirect_stdout(out):
        rc = verb.main(args=args)
    return rc, out.getvalue()


def _cli_run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        rc = cli.main(list(argv))
    return rc, out.getvalue()


def _setup_entry_points() -> dict[str, list[str]]:
    """setup.py's entry_points, evaluated from its source (setup() is not run)."""
    tree = ast.parse((REPO / 'setup.py').read_text())
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, 'id', '') == 'setup')
    value = next(k.value for k in call.keywords if k.arg == 'entry_points')
    return eval(compile(ast.Expression(value), 'setup.py', 'eval'), {})  # our own setup.py


def test_every_cli_command_is_a_verb_and_registered_in_setup_py():
    names = [command.name for command in cli.COMMANDS]
    assert sorted(VERBS) == sorted(names) == ['check', 'fk', 'parsers', 'status', 'tree', 'view']
    points = _setup_entry_points()
    assert points['ros2cli.command'] == ['urdf = urdf_state_py.tools.ros2urdf.command:UrdfCommand']
    assert points['ros2cli.extension_point'] == [
        f'{VERB_GROUP} = urdf_state_py.tools.ros2urdf.verb:VerbExtension']
    registered = dict(item.split(' = ') for item in points[VERB_GROUP])
    assert {name: target.split(':')[1] for name, target in registered.items()} == \
        {name: cls.__name__ for name, cls in VERBS.items()}
    for name, cls in VERBS.items():
        assert issubclass(cls, VerbExtension)
        assert cls.__doc__ and cls.__doc__[0].isupper(), name   # ros2cli shows its first line


@pytest.mark.parametrize('argv', [
    ['check', str(ARM)], ['tree', str(ARM)], ['tree', '--dot', str(ARM)],
    ['fk', str(ARM), '--joint', 'elbow=-pi/2', '--frame', 'forearm'], ['parsers', str(ARM)],
    ['check', str(XACRO), *XACRO_ARGS], ['tree', str(XACRO), *XACRO_ARGS]])
def test_a_verb_prints_what_the_cli_prints(argv):
    rc, out = _verb_run(*argv)
    assert (rc, out) == _cli_run(*argv)
    assert rc == 0 and out


def test_an_invalid_description_exits_1_with_the_reason(tmp_path, capsys):
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="r"><link name="a"/><joint name="j" type="revolute">'
                   '<parent link="a"/><child link="b"/></joint></robot>')
    rc, out = _verb_run('check', str(bad))
    assert rc == 1 and out == ''
    err = capsys.readouterr().err
    assert err.startswith('error: ') and "joint 'j'" in err and '<limit>' in err
    assert 'Traceback' not in err


def test_fk_joint_and_frame_are_the_cli_set_and_link():
    rc, out = _verb_run('fk', str(ARM), '--joint', 'elbow=0.5', '--frame', 'forearm')
    assert (rc, out) == _cli_run('fk', str(ARM), '--set', 'elbow=0.5', '--link', 'forearm')
    assert out.splitlines()[1] == 'forearm'


def test_tree_shows_types_mimic_and_limits():
    model = load_model(ARM.read_text())
    text = '\n'.join(tree_lines(model, limits=True))
    for joint in model.joints:
        assert f'<- {joint.name} ({joint.type.value}' in text
    mimic = next(j for j in model.joints if j.is_mimic)
    assert re.search(rf'<- {mimic.name} \([a-z]+, mimics {mimic.mimic.joint}', text)
    bounded = next(j for j in model.joints if j.limits and j.limits.lower is not None)
    assert f'[{bounded.limits.lower:g}, {bounded.limits.upper:g}]' in text


def test_dot_has_one_box_per_link_and_one_edge_per_joint():
    model = load_model(ARM.read_text())
    lines = dot_lines(model)
    assert lines[0] == f'digraph "{model.name}" {{' and lines[-1] == '}'
    edges = [line for line in lines if ' -> ' in line]
    assert len(edges) == len(model.joints)
    assert sum('style=dashed' in e for e in edges) == len(model.mimic_joint_names)
    assert sum(1 for line in lines if re.fullmatch(r'  "[^"]+";', line)) == len(model.links)


def test_dot_quotes_hostile_names():
    model = load_model('<robot name="a&quot;b"><link name="x\\y"/><link name="z"/>'
                       '<joint name="j" type="fixed"><parent link="x\\y"/><child link="z"/>'
                       '</joint></robot>')
    lines = dot_lines(model)
    assert lines[0] == 'digraph "a\\"b" {'
    assert '  "x\\\\y" -> "z" [label="j\\nfixed"];' in lines


def test_the_command_without_a_verb_prints_its_help():
    command = UrdfCommand()
    parser = argparse.ArgumentParser(prog='ros2 urdf')
    command._subparser = parser          # what add_arguments keeps (it needs ros2cli)
    out = io.StringIO()
    with redirect_stdout(out):
        assert command.main(parser=parser, args=argparse.Namespace()) == 0
    assert out.getvalue().startswith('usage: ros2 urdf')


def test_ros2cli_finds_and_runs_the_verbs():
    if importlib.util.find_spec('ros2cli') is None:
        pytest.skip('ros2cli is not installed here (PyPI wheels); `ros2 urdf` needs a ROS 2 '
                    'install with ros2cli, python -m urdf_state_py is the entry point meanwhile')
    code = 'import sys; from ros2cli.cli import main; sys.exit(main(argv=sys.argv[1:]))'
    listing = subprocess.run([sys.executable, '-c', code, 'urdf', '--help'],
                             capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0, listing.stderr
    for name in VERBS:
        assert re.search(rf'^  {name} +\S', listing.stdout, re.M), listing.stdout
    tree = subprocess.run([sys.executable, '-c', code, 'urdf', 'tree', str(ARM)],
                          capture_output=True, text=True, timeout=60)
    assert (tree.returncode, tree.stdout) == (0, _cli_run('tree', str(ARM))[1]), tree.stderr


def test_status_text_from_the_network_cannot_drive_the_terminal():
    assert node_status.printable('a\x1b[2Jb\n') == 'a?[2Jb?'
    assert node_status.printable('x' * 400).endswith('... (400 characters)')
    assert node_status.node_of('ns/urdf_state: robot state') == '/ns/urdf_state'
    assert node_status.node_of('other: thing') is None


def test_status_without_rclpy_says_so(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, 'rclpy', None)          # import rclpy -> ImportError
    assert cli.main(['status', '--timeout', '0']) == 1
    assert capsys.readouterr().err.startswith('error: status needs ROS 2 (rclpy)')
