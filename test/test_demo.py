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
The demo (README's main command) end to end, plus its helpers.

``python -m urdf_state_py.tools.demo --until-complete`` starts the node, the joint
sweeper and the TF viewer as three processes on loopback DDS and must report
that every one of H1_2's 58 links arrived as a TF frame, with exit code 0.
"""
import math
import os
from pathlib import Path
import random
import re
import signal
import subprocess
import sys

import pytest
from urdf_state_py.core.parsers import load_model, load_model_file
from urdf_state_py.node.process.loopback import ensure_loopback, loopback_env
from urdf_state_py.tools.demo import demo
from urdf_state_py.tools.demo.sweep_plan import SweepPlan

REPO = Path(__file__).resolve().parents[1]
H1_2 = REPO / 'robots' / 'h1_2' / 'h1_2.urdf'
CAP_S = 40.0          # --duration cap; completion normally takes ~2 s


# --------------------------------------------------------------------------- ros_env

def test_loopback_env_sets_range_and_keeps_domain():
    env = loopback_env({'ROS_DOMAIN_ID': '42', 'FOO': 'bar'})
    assert env == {'ROS_DOMAIN_ID': '42', 'FOO': 'bar',
                   'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST'}


def test_loopback_env_picks_a_domain_and_handles_humble():
    for _ in range(20):
        env = loopback_env({'ROS_DISTRO': 'humble', 'ROS_DOMAIN_ID': ''})
        assert 1 <= int(env['ROS_DOMAIN_ID']) <= 100
        assert env['ROS_LOCALHOST_ONLY'] == '1'
        assert env['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert 'ROS_LOCALHOST_ONLY' not in loopback_env({'ROS_DISTRO': 'jazzy'})


def test_ensure_loopback_is_idempotent():
    environ = {'ROS_AUTOMATIC_DISCOVERY_RANGE': 'SUBNET'}
    first = ensure_loopback(environ)
    assert environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert ensure_loopback(environ)['ROS_DOMAIN_ID'] == first['ROS_DOMAIN_ID']


def test_loopback_env_does_not_touch_its_input():
    base = {'ROS_DOMAIN_ID': '3'}
    loopback_env(base)
    assert base == {'ROS_DOMAIN_ID': '3'}
    assert loopback_env()['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'


# --------------------------------------------------------------------------- sweep plan

def test_sweep_plan_covers_active_variables_within_limits():
    model = load_model_file(H1_2)
    plan = SweepPlan(model)
    assert plan.names == [v for j in model.joints if j.is_movable and not j.is_mimic
                          for v in j.variable_names]
    assert len(plan.names) == 39 and not set(plan.names) & set(model.mimic_joint_names)
    bounds = model.variable_bounds()
    samples = [plan.positions(t / 10.0) for t in range(60)]
    for i, name in enumerate(plan.names):
        lo, hi = bounds[name]
        values = [s[i] for s in samples]
        assert all(lo <= v <= hi for v in values), name
        if hi > lo:   # it really moves, over most of its range
            assert max(values) - min(values) > 0.5 * 0.9 * (hi - lo), name
    # Phases differ: the joints do not all move in lockstep.
    assert len({round(v, 6) for v in plan.positions(0.0)}) > 20


def test_sweep_plan_unbounded_planar_floating():
    urdf = """<robot name="mix">
      <link name="world"/><link name="base"/><link name="cart"/><link name="wheel"/>
      <link name="slider"/>
      <joint name="float" type="floating"><parent link="world"/><child link="base"/></joint>
      <joint name="plane" type="planar"><parent link="base"/><child link="cart"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="spin" type="continuous"><parent link="cart"/><child link="wheel"/>
        <axis xyz="0 1 0"/></joint>
      <joint name="slide" type="prismatic"><parent link="cart"/><child link="slider"/>
        <axis xyz="1 0 0"/><limit lower="0.1" upper="0.3" effort="1" velocity="1"/></joint>
    </robot>"""
    model = load_model(urdf)
    plan = SweepPlan(model, frequency=0.5)
    assert plan.names == ['float/trans_x', 'float/trans_y', 'float/trans_z', 'float/rot_x',
                          'float/rot_y', 'float/rot_z', 'float/rot_w', 'plane/x', 'plane/y',
                          'plane/theta', 'spin', 'slide']
    for t in (0.0, 0.3, 1.1, 1.7):
        values = dict(zip(plan.names, plan.positions(t)))
        quat = [values[f'float/rot_{c}'] for c in 'xyzw']
        assert math.fsum(q * q for q in quat) == pytest.approx(1.0)
        assert all(abs(values[f'float/trans_{c}']) <= 0.2 + 1e-12 for c in 'xyz')
        assert math.hypot(values['plane/x'], values['plane/y']) == pytest.approx(0.3)
        assert abs(values['spin']) <= math.pi + 1e-12
        assert 0.1 <= values['slide'] <= 0.3
    spins = [dict(zip(plan.names, plan.positions(t / 20)))['spin'] for t in range(40)]
    assert max(spins) > 3.0 and min(spins) < -3.0        # +-pi for continuous joints


# --------------------------------------------------------------------------- demo pieces

def test_default_model_is_the_bundled_h1_2():
    # From a source tree it is the repo's file; pip-installed, the copy in <prefix>/share.
    found = demo.default_model_path()
    assert found is not None and found.name == H1_2.name
    assert found.read_bytes() == H1_2.read_bytes()
    assert (REPO / 'robots' / 'h1_2' / 'LICENSE').read_text().startswith('BSD 3-Clause')


def test_params_file_roundtrip(tmp_path):
    yaml = pytest.importorskip('yaml')
    text = H1_2.read_text()
    path = demo.write_params_file(tmp_path, description=text, model_path=H1_2,
                                  xacro_args=['a:=1', 'b:=two words'], frame_prefix='p/')
    params = yaml.safe_load(path.read_text())['/**']['ros__parameters']
    assert params['robot_description'] == text
    assert params['xacro'] == {'base_dir': str(H1_2.parent), 'args': ['a:=1', 'b:=two words']}
    assert params['frame_prefix'] == 'p/'
    empty = demo.write_params_file(tmp_path, description=text, model_path=H1_2, xacro_args=[])
    assert 'args' not in yaml.safe_load(empty.read_text())['/**']['ros__parameters']['xacro']


def test_demo_rejects_a_bad_model(tmp_path):
    bad = tmp_path / 'bad.urdf'
    bad.write_text('<robot name="x"><joint name="j" type="fixed"><parent link="a"/>'
                   '<child link="b"/></joint></robot>')
    proc = subprocess.run([sys.executable, '-m', 'urdf_state_py.tools.demo', '--model', str(bad),
                           '--duration', '5'], capture_output=True, text=True, timeout=60,
                          cwd=REPO)
    assert proc.returncode == 2
    assert 'cannot load' in proc.stderr and 'Traceback' not in proc.stderr


# --------------------------------------------------------------------------- end to end

def _own_domain_env():
    """Loopback env with a domain of its own (not the test session's: no stray /tf)."""
    session = int(os.environ.get('ROS_DOMAIN_ID') or 0)
    domain = random.choice([d for d in range(1, 101) if d != session])
    return loopback_env({**os.environ, 'ROS_DOMAIN_ID': str(domain)})


def _run_demo(*args, timeout=CAP_S + 30):
    pytest.importorskip('rclpy')
    env = _own_domain_env()
    proc = subprocess.run([sys.executable, '-m', 'urdf_state_py.tools.demo', *args],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env)
    return proc, env


@pytest.mark.ros
def test_demo_every_h1_2_link_arrives():
    """The README's main command: all 58 links of the bundled H1_2 become TF frames."""
    proc, env = _run_demo('--until-complete', '--duration', str(CAP_S))
    out = proc.stdout
    assert proc.returncode == 0, f'exit {proc.returncode}\nstdout:\n{out}\nstderr:\n{proc.stderr}'
    assert 'summary: 58/58 frames' in out, out
    assert f'ROS_DOMAIN_ID={env["ROS_DOMAIN_ID"]}' in out
    assert 'model links: 58/58 frames' in out
    assert 'Traceback' not in out + proc.stderr
    assert '\x1b[' not in out                  # not a tty: plain prints, no ANSI codes
    frames = re.findall(r'^frames: (\d+)', out, re.M)
    assert frames and int(frames[-1]) == 58      # the last screen: the complete tree


@pytest.mark.ros
def test_demo_fleet_every_robots_links_arrive():
    """--fleet 3: one container from a fleet file, three H1_2 each under its prefix."""
    proc, _ = _run_demo('--fleet', '3', '--until-complete', '--duration', str(CAP_S))
    out = proc.stdout
    assert proc.returncode == 0, f'exit {proc.returncode}\nstdout:\n{out}\nstderr:\n{proc.stderr}'
    assert 'summary: 174/174 frames' in out, out
    assert all(f'r{k}/left_elbow_link' in out for k in (1, 2, 3))
    poses = dict(re.findall(r'^(r\d/L_thumb_distal) +r\d/pelvis +(\S+ +\S+ +\S+)', out, re.M))
    assert len(set(poses.values())) == 3, poses    # driven, each robot its own pose


@pytest.mark.ros
def test_demo_moves_the_joints_until_ctrl_c(tmp_path):
    """
    Keep /tf flowing and the joints moving on screen; Ctrl-C then ends the demo.

    It ends with its summary and exit 0. Stopped once both were seen (a busy machine takes
    seconds to start the three processes), at the latest by the --duration cap.
    """
    pytest.importorskip('rclpy')
    errors = tmp_path / 'stderr.txt'
    with open(errors, 'w') as err:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'urdf_state_py.tools.demo', '--duration', str(CAP_S),
             '--frames', 'left_ankle_roll_link,L_thumb_distal'],
            stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO, env=_own_domain_env())
        poses, rates, lines, stopped = set(), [], [], False
        for line in proc.stdout:     # until the demo exits
            lines.append(line)
            pose = re.match(r'^left_ankle_roll_link\s+pelvis\s+(.+)$', line)
            rate = re.search(r'/tf:\s+([\d.]+) msg/s', line)
            poses |= {pose.group(1)} if pose else set()
            rates += [float(rate.group(1))] if rate else []
            # the poses of a watched frame change from screen to screen (the joints move)
            if not stopped and len(poses) >= 2 and max(rates, default=0) > 5.0:
                proc.send_signal(signal.SIGINT)
                stopped = True
        code = proc.wait(timeout=60)
    out = ''.join(lines)
    stderr = errors.read_text()
    assert len(poses) >= 2 and max(rates, default=0) > 5.0, out
    assert code == 0, f'exit {code}\n{out}\n{stderr}'
    assert 'summary: ' in out and 'Traceback' not in out + stderr


@pytest.mark.ros
def test_demo_ends_after_its_duration():
    """--duration ends all three processes; the summary says how many frames arrived."""
    proc, _ = _run_demo('--duration', '2')
    assert proc.returncode in (0, 1), f'exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}'
    assert 'summary: ' in proc.stdout and 'Traceback' not in proc.stdout + proc.stderr


@pytest.mark.ros
def test_demo_reports_a_dead_node_with_a_nonzero_exit():
    """A helper that dies is reported (with its log), not hidden behind the viewer."""
    pytest.importorskip('rclpy')
    env = _own_domain_env()
    env['PYTHONPATH'] = str(REPO)
    # The demo with its node replaced by a process that exits at once.
    proc = subprocess.run([sys.executable, '-c', (
        'import sys\n'
        'import urdf_state_py.tools.demo.demo as d\n'
        'orig = d.ChildProcess.__init__\n'
        'def init(self, name, argv, *args, **kwargs):\n'
        '    if name == "node":\n'
        '        argv = [sys.executable, "-c", "import sys; print(\'boom\'); sys.exit(4)"]\n'
        '    orig(self, name, argv, *args, **kwargs)\n'
        'd.ChildProcess.__init__ = init\n'
        'sys.exit(d.main(["--duration", "20"]))\n')],
        capture_output=True, text=True, timeout=60, cwd=REPO, env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert 'the node process exited early (code 4)' in proc.stderr
    assert 'boom' in proc.stderr


def test_sweep_keeps_mimic_followers_within_their_limits():
    """H1_2's finger mimics (multiplier > 1) would leave their limits at full driver range."""
    model = load_model_file(H1_2)
    plan = SweepPlan(model)
    bounds = model.variable_bounds()
    for k in range(100):
        values = dict(zip(plan.names, plan.positions(k / 13.0)))
        for joint in model.joints:
            if joint.is_mimic:
                value = joint.mimic.multiplier * values[joint.mimic.joint] + joint.mimic.offset
                lo, hi = bounds[joint.name]
                assert lo - 1e-9 <= value <= hi + 1e-9, joint.name
