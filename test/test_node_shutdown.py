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
Ending the node as users do: Ctrl-C under ``ros2 launch``, SIGINT, SIGTERM.

``launch`` is not installable here, so each test does what launch and a
terminal do to a real node process (``python -m urdf_state_py.node``, the
console script's ``main``) started in a process group of its own: a terminal's
Ctrl-C is SIGINT to the whole group, and launch then forwards the SIGINT it got
itself to the node, which so receives SIGINT twice; launch escalates to SIGTERM
after ``sigterm_timeout`` (5 s). Every case must end with exit status 0 (launch
reports anything else as "process has died"), no ``Traceback`` nor
``KeyboardInterrupt`` in the output, and the process gone before launch would
escalate — while JointStates flow and /tf is published, and while a large
description is still loading.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid

from node_harness import wait_until
import pytest
from robot_files import H1_2
from sensor_msgs.msg import JointState
from urdf_state_py.core.parsers import load_model
from urdf_state_py.node.process.loopback import loopback_env

pytestmark = pytest.mark.ros  # needs rclpy and DDS

#: What launch waits after SIGINT before it sends SIGTERM (its sigterm_timeout).
LAUNCH_PATIENCE_S = 5.0
#: Links of the description that is still loading when the signal comes (seconds to parse here).
LOADING_LINKS = 30_000

GROUP, PROCESS = 'group', 'process'
#: name -> what is sent, in order: (seconds after the previous one, to the group or the
#: process only, signal). Launch forwards the terminal's SIGINT once its event loop has
#: handled its own copy: a few ms to a few hundred ms later, the node mid-way through
#: its clean-up by then; both delays are tried.
SIGNALS = {
    'ctrl-c': [(0, GROUP, signal.SIGINT)],
    'ctrl-c-under-launch': [(0, GROUP, signal.SIGINT), (0.02, PROCESS, signal.SIGINT)],
    'ctrl-c-under-slow-launch': [(0, GROUP, signal.SIGINT), (0.15, PROCESS, signal.SIGINT)],
    'sigint': [(0, PROCESS, signal.SIGINT)],
    'sigterm': [(0, PROCESS, signal.SIGTERM)],
    'sigint-then-sigterm': [(0, GROUP, signal.SIGINT), (0.05, PROCESS, signal.SIGTERM)],
}


class NodeProcess:
    """``python -m urdf_state_py.node`` in its own session, its output in a file."""

    def __init__(self, tmp_path, parameters: dict, executor: str, ros_args=()) -> None:
        import yaml
        self.name = 'shutdown_' + uuid.uuid4().hex[:8]
        params = tmp_path / 'params.yaml'
        params.write_text(yaml.safe_dump({'/**': {'ros__parameters': parameters}}))
        self.log = tmp_path / 'node.log'
        env = loopback_env()
        env['PYTHONUNBUFFERED'] = '1'
        env['URDF_STATE_EXECUTOR'] = executor
        with open(self.log, 'wb') as out:
            self.proc = subprocess.Popen(
                [sys.executable, '-m', 'urdf_state_py.node', '--ros-args',
                 '-r', f'__node:={self.name}', '--params-file', str(params), *ros_args],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors='replace')

    def send(self, sequence) -> None:
        self.signalled_at = time.monotonic()
        for delay, target, sig in sequence:
            time.sleep(delay)   # the stimulus' own timing, not a wait for a condition
            if target == GROUP:
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)

    def wait_exit(self) -> tuple[int | None, float]:
        """Exit status and seconds since the first signal; None past LAUNCH_PATIENCE_S."""
        left = self.signalled_at + LAUNCH_PATIENCE_S - time.monotonic()
        try:
            code = self.proc.wait(timeout=max(left, 0.1))
        except subprocess.TimeoutExpired:
            code = None
        return code, time.monotonic() - self.signalled_at

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)


@pytest.fixture
def start_node(tmp_path):
    started = []

    def start(parameters, executor='auto', ros_args=()):
        started.append(NodeProcess(tmp_path, parameters, executor, ros_args))
        return started[-1]
    yield start
    for node in started:
        node.kill()


class JointStateFlow:
    """
    Publishes H1_2 JointStates at ~100 Hz from the probe's node until stopped.

    Its own publisher, which never waits for a subscriber: the node is gone
    at the end of every test, and the flow must not wait for it.
    """

    def __init__(self, probe) -> None:
        self.names = list(load_model(H1_2.read_text()).active_joint_names)
        self.probe = probe
        self.publisher = probe.node.create_publisher(JointState, 'joint_states', 10)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        msg = JointState(name=self.names)
        k = 0
        while not self._stop.wait(0.01):
            k += 1
            msg.header.stamp = self.probe.node.get_clock().now().to_msg()
            msg.position = [0.001 * (k % 100)] * len(self.names)
            self.publisher.publish(msg)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.probe.node.destroy_publisher(self.publisher)


def assert_quiet_exit(node: NodeProcess, case: str) -> float:
    code, seconds = node.wait_exit()
    out = node.output()
    assert code is not None, (f'{case}: still running {LAUNCH_PATIENCE_S} s after the signal '
                              f'(launch would escalate to SIGTERM/SIGKILL)\n{out}')
    assert code == 0, f'{case}: exit status {code} (launch: "process has died")\n{out}'
    assert 'Traceback' not in out and 'KeyboardInterrupt' not in out, f'{case}:\n{out}'
    print(f'{case}: exit status 0, {seconds:.2f} s after the first signal')   # shown with -rP
    return seconds


#: The executors spin differently on a signal: the EventsExecutor (auto, Jazzy and later)
#: catches it itself, the wait-set executor (Humble's, URDF_STATE_EXECUTOR=single) is woken
#: by rclpy's handler. Every case with the first, the launch-like ones with the second.
FLOW_CASES = [(case, 'auto') for case in sorted(SIGNALS)] + [
    (case, 'single') for case in ('ctrl-c-under-launch', 'sigterm', 'sigint-then-sigterm')]


@pytest.mark.parametrize('case, executor', FLOW_CASES)
def test_signal_while_joint_states_flow(probe, start_node, case, executor):
    prefix = f'{case}_{uuid.uuid4().hex[:6]}/'
    node = start_node({'robot_description': H1_2.read_text(), 'frame_prefix': prefix}, executor)
    flow = JointStateFlow(probe)
    try:
        probe.wait_tf(lambda m: m.transforms and m.transforms[0].child_frame_id.startswith(prefix),
                      what=f'/tf from the node process ({prefix})')
        node.send(SIGNALS[case])
        assert_quiet_exit(node, case)
    finally:
        flow.stop()


def big_tree(links: int, name: str) -> str:
    """
    Return a valid binary tree of ``links`` links joined by revolute joints.

    Megabytes of URDF.
    """
    parts = [f'<robot name="{name}">']
    parts += [f'<link name="l{i}"/>' for i in range(links)]
    parts += [f'<joint name="j{i}" type="revolute"><parent link="l{(i - 1) // 2}"/>'
              f'<child link="l{i}"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>'
              '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
              for i in range(1, links)]
    parts.append('</robot>')
    return ''.join(parts)


@pytest.mark.parametrize('case', ['ctrl-c-under-launch', 'sigterm'])
@pytest.mark.parametrize('executor', ['auto', 'single'])
def test_signal_while_a_description_loads(probe, start_node, case, executor):
    name = 'loading_' + uuid.uuid4().hex[:6]
    # rcl's debug log says "Node initialized" when the rclpy Node exists; the
    # description (seconds of parsing) is loaded right after that.
    node = start_node({'robot_description': big_tree(LOADING_LINKS, name)}, executor,
                      ros_args=('--log-level', 'rcl:=debug'))
    flow = JointStateFlow(probe)
    try:
        wait_until(lambda: 'Node initialized' in node.output() or node.proc.poll() is not None,
                   what=f'node {node.name} created')
        before = node.output()
        node.send(SIGNALS[case])
        assert_quiet_exit(node, case)
        assert f"'{name}'" not in before, (
            'the description had finished loading before the signal: grow LOADING_LINKS\n'
            f'{before}')
        # the signal ended the parse: a shutdown, not a description to complain about
        assert 'Failed to parse robot description' not in node.output(), node.output()
    finally:
        flow.stop()


#: Start-ups of the node the abort test interrupts: each signal sequence below with each
#: executor, in turn.
STARTS = 20
START_UP_CASES = ('sigint', 'ctrl-c-under-launch', 'sigterm', 'sigint-then-sigterm')
#: The first signal comes at a random moment this long at most after rcl says the node
#: exists: while the node starts its threads and loads the start-up model (a few hundred
#: ms), or just after that.
START_UP_WINDOW_S = 0.5
#: What an abort at the end of the process prints (exit status -6 besides).
ABORT_MARKS = ('terminate called', 'Fatal Python error')


def test_signals_during_start_up_never_abort(tmp_path):
    """
    Ctrl-C (or SIGTERM) while the node starts, over and over: every start ends with exit 0.

    A signal that interrupted the node's constructor left its threads running
    (nothing destroyed a node that was never returned), and when one of them
    was inside rclpy's C++ with the GIL released as the interpreter finalised,
    the process aborted: "terminate called without an active exception", exit
    status -6. Each start waits for rcl's "Node initialized" (debug log), then
    signals at a random moment within START_UP_WINDOW_S.
    """
    failures = []
    for i in range(STARTS):
        run = tmp_path / f'start{i}'
        run.mkdir()
        case = START_UP_CASES[i % len(START_UP_CASES)]
        executor = ('auto', 'single')[i // len(START_UP_CASES) % 2]
        node = NodeProcess(run, {'robot_description': big_tree(3, f'quick_{i}')}, executor,
                           ros_args=('--log-level', 'rcl:=debug'))
        try:
            wait_until(lambda: 'Node initialized' in node.output() or node.proc.poll() is not None,
                       what=f'node {node.name} created')
            time.sleep(random.uniform(0, START_UP_WINDOW_S))   # the stimulus' own timing
            node.send(SIGNALS[case])
            code, _ = node.wait_exit()
        finally:
            node.kill()
        out = node.output()
        if code != 0 or 'Traceback' in out or any(mark in out for mark in ABORT_MARKS):
            loaded = 'loaded' if f"Robot 'quick_{i}' loaded" in out else 'not loaded yet'
            failures.append(f'start {i} ({case}, {executor}, model {loaded}): exit status {code}'
                            '\n' + '\n'.join(line for line in out.splitlines()
                                             if '[DEBUG]' not in line))
    assert not failures, (f'{len(failures)} of {STARTS} starts did not end quietly; '
                          f'the first:\n{failures[0]}')
