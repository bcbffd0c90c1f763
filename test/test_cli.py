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
The ``urdf_state_check`` CLI on the fixtures and the bundled robot.

What a user debugging a description sees.

Most tests call :func:`urdf_state_py.tools.cli.main` in-process (fast, exact
output); a few run ``python -m urdf_state_py`` in a subprocess to cover the
module entry point, stdin, exit statuses and the absence of tracebacks / ROS
imports exactly as a shell user gets them.
"""

from __future__ import annotations

import importlib.metadata
import math
from pathlib import Path
import re
import subprocess
import sys

import pytest
from robot_files import H1_2, INVALID_FIXTURES, RSP_FIXTURES
from urdf_state_py.tools import cli


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``python -m urdf_state_py ARGS`` exactly as a user runs it."""
    return subprocess.run([sys.executable, '-m', 'urdf_state_py', *args], input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def call(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """In-process run: (exit status, stdout, stderr)."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def poses(out: str) -> dict[str, dict[str, list[float]]]:
    """Return the ``fk`` output as {link: {'xyz': [...], 'rpy': [...], 'xyzw': [...]}}."""
    result: dict[str, dict[str, list[float]]] = {}
    link = None
    for line in out.splitlines():
        if line.startswith('robot:'):
            continue
        if not line.startswith(' '):
            link = line.strip()
            result[link] = {}
            continue
        key, *numbers = line.split()
        result[link][key] = [float(n) for n in numbers]
    return result


# ------------------------------------------------------------------ check


def test_check_fixed_joint_prints_counts_and_tree(capsys):
    path = RSP_FIXTURES / 'two_links_fixed_joint.urdf'
    code, out, err = call(capsys, 'check', str(path))
    assert code == 0, err
    lines = out.splitlines()
    assert 'parser: urdf (auto-detected)' in lines
    assert re.search(r'^  urdf +\d+$', out, re.M)            # urdf is confident
    assert re.search(r'^  xacro +\d+  \(not mine\)$', out, re.M)
    assert 'robot: test_robot_fixed_joint' in lines
    assert 'root: link1' in lines
    assert 'links: 2' in lines
    assert 'joints: 1 (fixed 1)' in lines
    assert 'mimic joints: 0' in lines
    assert 'active joints: 0, active variables: 0' in lines
    tree = lines[lines.index('tree:') + 1:]
    assert tree == ['  link1', '    link2  <- joint1 (fixed)']


def test_check_through_python_m_and_stdin():
    path = RSP_FIXTURES / 'two_links_moving_joint.urdf'
    by_path = run_cli('check', str(path))
    assert by_path.returncode == 0, by_path.stderr
    assert 'links: 2' in by_path.stdout
    assert 'joints: 1 (continuous 1)' in by_path.stdout
    assert 'active joints: 1, active variables: 1' in by_path.stdout
    assert '    link2  <- joint1 (continuous)' in by_path.stdout
    by_stdin = run_cli('check', '-', stdin=path.read_text())
    assert by_stdin.returncode == 0, by_stdin.stderr
    assert by_stdin.stdout == by_path.stdout


def write_arm_xacro(tmp_path: Path) -> Path:
    """Return a two-link xacro document whose link names are the args ``base`` and ``tip``."""
    xacro_file = tmp_path / 'arm.urdf.xacro'
    xacro_file.write_text(
        '<robot name="arm" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        '  <xacro:arg name="base" default="base"/><xacro:arg name="tip" default="tip"/>\n'
        '  <link name="$(arg base)"/><link name="$(arg tip)"/>\n'
        '  <joint name="j" type="fixed"><parent link="$(arg base)"/>'
        '<child link="$(arg tip)"/></joint>\n</robot>\n')
    return xacro_file


def test_check_forced_parser_and_xacro_args(capsys, tmp_path):
    """--xacro-arg reaches the xacro parser; a forced parser is reported as such."""
    xacro_file = write_arm_xacro(tmp_path)
    code, out, err = call(capsys, 'check', str(xacro_file), '--xacro-arg', 'tip:=gripper')
    assert code == 0, err
    assert 'parser: xacro (auto-detected)' in out
    assert '    gripper  <- j (fixed)' in out
    code, out, err = call(capsys, 'check', str(xacro_file), '--parser', 'xacro')
    assert code == 0, err
    assert 'parser: xacro (forced by --parser)' in out
    assert '    tip  <- j (fixed)' in out


def test_check_option_reaches_any_parser(capsys, tmp_path):
    """--option PARSER.OPTION=VALUE, typed after the option's default; other parsers' ignored."""
    pytest.importorskip('urdf_parser_py')
    noisy = tmp_path / 'noisy.urdf'
    noisy.write_text((RSP_FIXTURES / 'two_links_moving_joint.urdf').read_text().replace(
        '</robot>', '<mujoco/></robot>'))
    args = ('check', str(noisy), '--parser', 'urdf_parser_py')
    code, out, err = call(capsys, *args, '--option', 'urdf_parser_py.strict=false')
    assert code == 0, err
    assert 'parser: urdf_parser_py (forced by --parser)' in out
    code, out, err = call(capsys, *args, '--option', 'urdf_parser_py.strict=yes')
    assert code == 1 and 'Unknown tag "mujoco"' in err
    code, out, err = call(capsys, 'check', str(noisy), '--option', 'urdf_parser_py.strict=on')
    assert code == 0 and "ignored: the description is read by parser 'urdf'" in err


def test_check_option_list_items_append(capsys, tmp_path):
    code, out, err = call(capsys, 'check', str(write_arm_xacro(tmp_path)),
                          '--xacro-arg', 'base:=palm', '--option', 'xacro.args=tip:=finger')
    assert code == 0, err
    assert '    finger  <- j (fixed)' in out and 'root: palm' in out


@pytest.mark.parametrize('option, message', [
    ('strict=true', 'is not of the form PARSER.OPTION=VALUE'),
    ('urdf_parser_py.strict', 'is not of the form PARSER.OPTION=VALUE'),
    ('urdf_parser_py.verbose=1', "parser 'urdf_parser_py' has no option 'verbose'"),
    ('urdf_parser_py.strict=maybe', 'urdf_parser_py.strict=maybe: not a bool'),
])
def test_check_option_usage_errors_exit_2(capsys, option, message):
    path = str(RSP_FIXTURES / 'two_links_moving_joint.urdf')
    code, out, err = call(capsys, 'check', path, '--parser', 'urdf_parser_py', '--option', option)
    assert code == 2 and out == ''
    assert message in err


def test_check_mimic_joint_counted(capsys, tmp_path):
    urdf = tmp_path / 'gripper.urdf'
    urdf.write_text(
        '<robot name="g"><link name="a"/><link name="b"/><link name="c"/>'
        '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        '<joint name="j2" type="revolute"><parent link="a"/><child link="c"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="j1"/></joint>'
        '</robot>')
    code, out, err = call(capsys, 'check', str(urdf))
    assert code == 0, err
    assert 'joints: 2 (revolute 2)' in out
    assert 'mimic joints: 1 (j2)' in out
    assert 'active joints: 1, active variables: 1' in out
    assert '    c  <- j2 (revolute, mimics j1)' in out


@pytest.mark.parametrize('name, expected', [
    ('double_joint.urdf', "joint name 'wheel_joint' is not unique"),
    ('loop.urdf', 'no root link'),
    ('bracket.urdf', "joint 'caster_joint' origin rpy"),
    ('mismatched_tag.urdf', 'mismatched tag'),
])
def test_check_invalid_exits_1_with_message(capsys, name, expected):
    code, out, err = call(capsys, 'check', str(INVALID_FIXTURES / name))
    assert code == 1
    assert out == ''
    assert err.startswith('error: [urdf] ')
    assert expected in err


def test_invalid_file_has_no_traceback_in_subprocess():
    result = run_cli('check', str(INVALID_FIXTURES / 'double_joint.urdf'))
    assert result.returncode == 1
    assert result.stderr == "error: [urdf] joint name 'wheel_joint' is not unique\n"
    assert 'Traceback' not in result.stderr


def test_unreadable_file_is_error_1(capsys, tmp_path):
    code, _, err = call(capsys, 'check', str(tmp_path / 'missing.urdf'))
    assert code == 1
    assert err.startswith('error: cannot read ')


# ------------------------------------------------------------------ fk


def test_fk_continuous_joint_at_pi(capsys):
    """
    joint1: continuous about the default axis x, origin xyz="5 0 0" rpy="0 0 1.57".

    The joint rotates link2 about its own origin, so link2 stays at x = 5 and
    its orientation is Rz(1.57) @ Rx(pi).
    """
    path = RSP_FIXTURES / 'two_links_moving_joint.urdf'
    code, out, err = call(capsys, 'fk', str(path), '--set', 'joint1=pi')
    assert code == 0, err
    assert err == ''
    result = poses(out)
    assert list(result) == ['link1', 'link2']          # all links, in declaration order
    assert result['link1']['xyz'] == [0.0, 0.0, 0.0]
    assert result['link2']['xyz'] == pytest.approx([5.0, 0.0, 0.0], abs=1e-6)
    half = 1.57 / 2
    # q = qz(1.57) (x) qx(pi) = (cos(half), sin(half), 0, 0)
    assert result['link2']['xyzw'] == pytest.approx([math.cos(half), math.sin(half), 0, 0],
                                                    abs=1e-6)
    roll, pitch, yaw = result['link2']['rpy']
    assert abs(roll) == pytest.approx(math.pi, abs=1e-6)
    assert (pitch, yaw) == pytest.approx((0.0, 1.57), abs=1e-6)


def test_fk_subprocess_link_selection():
    path = RSP_FIXTURES / 'two_links_moving_joint.urdf'
    result = run_cli('fk', str(path), '--set', f'joint1={math.pi / 2}', '--link', 'link2')
    assert result.returncode == 0, result.stderr
    parsed = poses(result.stdout)
    assert list(parsed) == ['link2']
    assert parsed['link2']['xyz'] == pytest.approx([5.0, 0.0, 0.0], abs=1e-6)
    assert parsed['link2']['rpy'] == pytest.approx([math.pi / 2, 0.0, 1.57], abs=1e-6)


@pytest.fixture()
def limited_arm(tmp_path: Path) -> Path:
    """One revolute joint about z, limits [-1, 1], 2 m along x to the tip link."""
    urdf = tmp_path / 'limited.urdf'
    urdf.write_text(
        '<robot name="limited"><link name="base"/><link name="arm"/><link name="tip"/>'
        '<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        '<joint name="tool" type="fixed"><parent link="arm"/><child link="tip"/>'
        '<origin xyz="2 0 0"/></joint></robot>')
    return urdf


def test_fk_clamped_value_warns(capsys, limited_arm):
    code, out, err = call(capsys, 'fk', str(limited_arm), '--set', 'shoulder=2', '--link', 'tip')
    assert code == 0
    assert err.startswith('warning: ')
    assert 'shoulder (2 -> 1)' in err
    tip = poses(out)['tip']
    assert tip['xyz'] == pytest.approx([2 * math.cos(1.0), 2 * math.sin(1.0), 0.0], abs=1e-6)
    assert tip['rpy'] == pytest.approx([0.0, 0.0, 1.0], abs=1e-6)


def test_fk_ignore_limits_uses_raw_value(capsys, limited_arm):
    code, out, err = call(capsys, 'fk', str(limited_arm), '--set', 'shoulder=2',
                          '--link', 'tip', '--ignore-limits')
    assert code == 0
    assert err == ''
    tip = poses(out)['tip']
    assert tip['xyz'] == pytest.approx([2 * math.cos(2.0), 2 * math.sin(2.0), 0.0], abs=1e-6)


def test_fk_clamped_real_robot_subprocess():
    """
    H1_2's left_elbow_joint is limited to [-0.95, 3.18]: 10 rad is clamped and named.

    The wrist ends where it is at the limit itself.
    """
    args = ('fk', str(H1_2), '--link', 'left_wrist_yaw_link', '--set')
    result = run_cli(*args, 'left_elbow_joint=10')
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith('warning:')]
    assert len(warnings) == 1
    assert 'left_elbow_joint (10 -> 3.18)' in warnings[0]
    at_limit = run_cli(*args, 'left_elbow_joint=3.18')
    assert at_limit.returncode == 0 and at_limit.stderr == ''
    assert poses(result.stdout) == poses(at_limit.stdout)
    assert poses(result.stdout) != poses(run_cli(*args, 'left_elbow_joint=3.0').stdout)


@pytest.mark.parametrize('args, message', [
    (('--set', 'elbow=1'), 'unknown joint variable(s): elbow (known: shoulder)'),
    (('--link', 'hand'), 'unknown link(s): hand'),
    (('--set', 'shoulder'), "'shoulder' is not of the form name=value"),
    (('--set', 'shoulder=abc'), "'abc' is not a number"),
])
def test_fk_usage_errors_exit_2(capsys, limited_arm, args, message):
    code, out, err = call(capsys, 'fk', str(limited_arm), *args)
    assert code == 2
    assert out == ''
    assert err.startswith('error: ')
    assert message in err


def test_fk_and_tree_of_a_robot_with_parts(capsys):
    path = RSP_FIXTURES / 'two_links_moving_joint.urdf'
    part = f'tool={path}@link2:0,0,1:0,0,1.57'
    code, out, err = call(capsys, 'fk', str(path), '--part', part, '--part-prefix', 'tool=p_',
                          '--set', 'joint1=0', '--set', 'p_joint1=0')
    assert code == 0, err
    result = poses(out)
    assert list(result) == ['link1', 'link2', 'p_link1', 'p_link2']
    assert result['p_link1']['xyz'] == pytest.approx([5.0, 0.0, 1.0], abs=1e-6)
    assert result['p_link1']['rpy'] == pytest.approx([0.0, 0.0, 3.14], abs=1e-6)
    code, out, err = call(capsys, 'tree', str(path), '--part', part, '--part-prefix', 'tool=p_')
    assert code == 0, err
    assert 'p_link1  <- tool_mount (fixed)' in out


@pytest.mark.parametrize('args, code, message', [
    (('--part', 'tool=x.urdf'), 2, 'expected NAME=FILE@PARENT[:X,Y,Z[:R,P,Y]]'),
    (('--part', 'tool=x.urdf@link2:1,2'), 2, "'1,2' is not three numbers X,Y,Z"),
    (('--part', 'a.b=x.urdf@link2'), 2, "part name 'a.b' must be"),
    (('--part-prefix', 'tool=p_'), 2, 'no --part of that name'),
    (('--part', 'tool={path}@link2'), 1,
     "link 'link1' of part 'tool' is also a link of the base"),
    (('--part', 'tool={path}@link9', '--part-prefix', 'tool=p_'), 1,
     "parent link 'link9' is in neither the base nor an earlier part"),
])
def test_part_mistakes_are_named(capsys, args, code, message):
    path = RSP_FIXTURES / 'two_links_moving_joint.urdf'
    args = [arg.format(path=path) for arg in args]
    if '--part' not in args:
        args += ['--part', f'other={path}@link2']
    status, out, err = call(capsys, 'check', str(path), *args)
    assert status == code
    assert err.startswith('error: ') and message in err, err


# ------------------------------------------------------------------ parsers


def test_parsers_lists_builtins_with_options(capsys):
    code, out, err = call(capsys, 'parsers')
    assert code == 0, err
    lines = out.splitlines()
    assert any(line.startswith('urdf  (') for line in lines)
    xacro = next(i for i, line in enumerate(lines) if line.startswith('xacro  ('))
    assert lines[xacro + 1] == '  args  type=list[str]  default=[]'
    assert 'name:=value' in lines[xacro + 2]
    assert '  package_paths  type=list[str]  default=[]' in lines
    assert "  base_dir  type=str  default=''" in lines


def test_no_ros_import():
    """The CLI must work on machines without ROS: importing and running it pulls in no rclpy."""
    code = ('import sys; from urdf_state_py.tools import cli; cli.main(["parsers"]); '
            'bad = sorted(m for m in sys.modules if m.split(".")[0] in '
            '("rclpy", "rcl_interfaces", "tf2_msgs", "geometry_msgs", "sensor_msgs")); '
            'sys.exit(f"ROS modules imported: {bad}" if bad else 0)')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr


def test_console_script_registered():
    try:
        scripts = importlib.metadata.entry_points(group='console_scripts')
    except Exception:
        pytest.skip('no package metadata')
    ours = [ep for ep in scripts if ep.name == 'urdf_state_check']
    if not ours:
        pytest.skip('urdf_state_py not (re)installed since the entry point was added')
    assert ours[0].value == 'urdf_state_py.tools.cli:main'


# ------------------------------------------------------------------ helpers


@pytest.mark.parametrize('text, value', [
    ('0.5', 0.5), ('-pi/2', -math.pi / 2), ('3*pi/4', 0.75 * math.pi), ('1e-3', 1e-3),
    ('2**3', 8.0), ('tau', math.tau),
])
def test_parse_number(text, value):
    assert cli.parse_number(text) == pytest.approx(value)


@pytest.mark.parametrize('text', ['__import__("os")', 'pi()', '1/0', 'x', ''])
def test_parse_number_rejects(text):
    with pytest.raises(cli.UsageError):
        cli.parse_number(text)
