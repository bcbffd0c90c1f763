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
Hostile JointStates over DDS against the node as a process (its real entry point).

Every case is generated here from a real serialised message and sent as raw
bytes (``publisher.publish(bytes)``: rclpy then sends them unchecked, as any
participant on the domain can). Each case asserts that

* the node process is still alive,
* it gave a reason: the rejection is counted on /diagnostics under the
  expected category and named in "last rejection" (the log line may be held
  back by the throttle; the first of each category is checked in the log),
* the last good model is still on /tf: a good JointState sent right after
  comes out with the right values,
* all of this within a deadline (never a fixed sleep).
"""
from __future__ import annotations

import math
import os
import struct
import subprocess
import sys
import threading
import time

from node_harness import NS, transform_map, wait_until
import numpy as np
import pytest
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState

pytestmark = pytest.mark.ros  # needs rclpy and DDS

diagnostic_msgs = pytest.importorskip('diagnostic_msgs.msg')

NODE = 'urdf_state_hostile'
PREFIX = 'hx/'
#: Longest a case waits for what it checks: a limit on a condition, met in well under a
#: second at rest; generous, for a machine shared with other test suites.
CASE_DEADLINE = 30.0
KEEP_ALL = QoSProfile(depth=1, history=HistoryPolicy.KEEP_ALL,
                      reliability=ReliabilityPolicy.RELIABLE)
# a: revolute [-1, 1] (its mimic m: x2); b: prismatic [0, 2]
TOY = """<robot name="toy">
  <link name="base"/><link name="la"/><link name="lm"/><link name="lb"/>
  <joint name="a" type="revolute"><parent link="base"/><child link="la"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="m" type="revolute"><parent link="la"/><child link="lm"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="a" multiplier="2"/></joint>
  <joint name="b" type="prismatic"><parent link="base"/><child link="lb"/>
    <axis xyz="1 0 0"/><limit lower="0" upper="2" effort="1" velocity="1"/></joint>
</robot>"""
MAX_NAMES = 4 * 3 + 64   # joint_states.max_names of TOY (3 variables: a, m, b)


def serialized(names, positions, stamp_ns=0, frame_id=''):
    msg = JointState(name=list(names), position=[float(p) for p in positions])
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(stamp_ns), NS)
    msg.header.frame_id = frame_id
    return serialize_message(msg)


def with_u32(data, at, value):
    return data[:at] + struct.pack('<I', value) + data[at + 4:]


def cases():
    """Name -> (payload, diagnostics category, text expected in the reason)."""
    rng = np.random.default_rng(8)
    base = serialized(['a', 'b'], [0.1, 0.2])
    # offsets: 12 frame_id length, 20 name count, 24/32 name lengths, 40 position count
    assert base[20:24] == struct.pack('<I', 2) and base[40:44] == struct.pack('<I', 2)
    unknown = [f'ghost_{i}' for i in range(100_000)]
    return {
        'truncated': (base[:len(base) // 2], 'truncated', 'position: no count'),
        'random bytes': (rng.bytes(200), 'encapsulation', 'not a plain CDR payload'),
        'CDR header + random bytes': (base[:4] + rng.bytes(120), None, ''),
        'header only': (base[:4], 'truncated', 'not even a stamp'),
        'position count 2^31': (with_u32(base, 40, 2**31), 'truncated', 'position'),
        'name count 2^31': (with_u32(base, 20, 2**31), 'oversized', '2147483648 names'),
        'name without terminator': (base[:28] + b'ab' + base[30:], 'string', 'NUL'),
        'non-UTF-8 name': (base[:28] + b'\xff' + base[29:], 'string', 'not UTF-8'),
        'unknown encapsulation': (b'\x00\x03' + base[2:], 'encapsulation', '0003'),
        'NaN and inf values': (serialized(['a', 'b'], [math.nan, math.inf]), 'non-finite',
                               "non-finite position for joint 'a'"),
        'length mismatch': (serialized(['a', 'b'], [0.1]), 'length mismatch', '2 names but 1'),
        '100,000 unknown names': (serialized(unknown, [0.0] * len(unknown)), 'oversized',
                                  f'100000 names, more than the {MAX_NAMES}'),
        'unknown names within the limit': (
            serialized(['a'] + unknown[:MAX_NAMES - 1], [0.0] * MAX_NAMES), 'unknown names',
            f"Ignored {MAX_NAMES - 1} name(s) that are not joints of robot 'toy': 'ghost_0'"),
    }


class NodeProcess:
    """
    ``python -m urdf_state_py.node`` with TOY; its log lines collected from stderr.

    Its joint_states subscription is made reliable and keep-all (a QoS override, as a
    user may set it), so that no case depends on best effort delivering a burst or a
    large message, and a busy machine slows a burst down instead of losing some of it.
    """

    def __init__(self, tmp_path, extra: str = '', depth: int | None = None) -> None:
        """
        Write the node's params file and start the node process on it.

        ``extra``: more lines of the params file (4-space indented ``name: value``);
        ``depth``: keep the last ``depth`` JointStates instead of all of them.
        """
        params = tmp_path / 'params.yaml'
        indented = '\n'.join('      ' + line for line in TOY.splitlines())
        history = 'keep_all' if depth is None else f'keep_last\n          depth: {depth}'
        params.write_text(f'/{NODE}:\n  ros__parameters:\n    frame_prefix: {PREFIX}\n'
                          '    publish_frequency: 0.0\n' + extra +
                          # reliable, keep all unless told: every message of a burst reaches it
                          '    qos_overrides:\n      /joint_states:\n        subscription:\n'
                          f'          reliability: reliable\n          history: {history}\n'
                          f'    robot_description: |\n{indented}\n')
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'urdf_state_py.node', '--ros-args', '-r', f'__node:={NODE}',
             '--params-file', str(params)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED='1'))
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip('\n'))

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> str:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(timeout=5)
        return '\n'.join(self.lines)


class DiagnosticsRecorder:
    """The node's latest /diagnostics status as {key: value} plus level and message."""

    def __init__(self, probe, name: str) -> None:
        self.name = name
        self.statuses = []
        self.times: list[float] = []    # when each status came (monotonic s)
        self._lock = threading.Lock()
        probe.node.create_subscription(diagnostic_msgs.DiagnosticArray, '/diagnostics',
                                       self._on_array, 10)

    def _on_array(self, msg) -> None:
        for status in msg.status:
            if status.name == self.name:
                with self._lock:
                    self.statuses.append(status)
                    self.times.append(time.monotonic())

    def latest(self):
        """{key: value} of the latest status (waiting for one if there is none yet)."""
        return self.wait(lambda v, s: True, max(0, self.count() - 1), what='a status')[0]

    def timeline(self, key: str) -> list[tuple[float, str]]:
        """(time received, value of ``key``) of every status so far."""
        with self._lock:
            return [(t, {kv.key: kv.value for kv in s.values}.get(key))
                    for t, s in zip(self.times, self.statuses)]

    def count(self) -> int:
        with self._lock:
            return len(self.statuses)

    def wait(self, predicate, since=0, timeout=CASE_DEADLINE, what='a /diagnostics status'):
        """Return the first status after ``since`` whose {key: value} satisfies ``predicate``."""
        def find():
            with self._lock:
                for status in self.statuses[since:]:
                    values = {kv.key: kv.value for kv in status.values}
                    if predicate(values, status):
                        return values, status
            return None
        return wait_until(find, timeout, what)


@pytest.fixture(scope='module')
def hostile(probe, tmp_path_factory):
    node = NodeProcess(tmp_path_factory.mktemp('hostile'))
    diagnostics = DiagnosticsRecorder(probe, f'{NODE}: robot state')
    raw = probe.node.create_publisher(JointState, 'joint_states', KEEP_ALL)
    try:
        wait_until(lambda: raw.get_subscription_count() > 0, 20.0, 'the node on joint_states')
        wait_until(lambda: any("Robot 'toy' loaded" in line for line in node.lines), 20.0,
                   'the TOY model loaded')
        yield node, diagnostics, raw
    finally:
        out = node.close()
        print(out[-5000:])


def send_good(probe, raw, value, timeout=CASE_DEADLINE):
    """
    Return a good JointState a=value, b=|value|/2; returns the /tf message it produced.

    Re-sent (new stamp) every second until it shows, for at most ``timeout`` s: right
    after start-up the node's /tf publisher may not have matched the probe yet.
    """
    deadline = time.monotonic() + timeout
    while True:
        since, stamp = probe.mark(), probe.now_ns()
        raw.publish(serialized(['a', 'b'], [value, abs(value) / 2], stamp))
        try:
            msg = probe.wait_tf_stamp(stamp, since, timeout=1.0)
            break
        except pytest.fail.Exception:
            if time.monotonic() > deadline:
                raise
    tf = transform_map(msg)
    angle = math.atan2(tf[PREFIX + 'la'][1][1, 0], tf[PREFIX + 'la'][1][0, 0])
    assert angle == pytest.approx(value) and \
        tf[PREFIX + 'lb'][1][0, 3] == pytest.approx(abs(value) / 2)
    assert set(tf) == {PREFIX + 'la', PREFIX + 'lm', PREFIX + 'lb'}
    return msg


CASES = cases()


@pytest.mark.parametrize('case', list(CASES))
def test_hostile_joint_state(probe, hostile, case):
    node, diagnostics, raw = hostile
    payload, category, reason = CASES[case]
    send_good(probe, raw, 0.25)
    first = diagnostics.latest()
    key = {'non-finite': 'non-finite values dropped',
           'unknown names': 'messages with names not in the model'}.get(
        category, f'rejected messages: {category}')
    before = int(first.get(key, 0))
    mark, logged = diagnostics.count(), len(node.lines)

    raw.publish(payload)

    if category is None:   # random content after a valid header: any rejection will do
        values, _ = diagnostics.wait(
            lambda v, s: int(v['rejected messages']) > int(first['rejected messages']), mark,
            what='the rejection counted')
    else:
        values, status = diagnostics.wait(lambda v, s: int(v.get(key, 0)) > before, mark,
                                          what=f"'{key}' counted")
        if category in CASES_REJECTING_ALL:
            assert reason in values['last rejection'] and 'joint_states' in \
                values['last rejection']
            assert status.level == diagnostic_msgs.DiagnosticStatus.WARN
            assert 'input rejected' in status.message
        # the log says it too (unless the throttle held a same-category line back)
        text = '\n'.join(node.lines[logged:])
        held = any(f"'/joint_states': {category}" in line for line in node.lines[:logged])
        assert reason in text or held, text
    send_good(probe, raw, -0.5)       # the last good model, still publishing
    assert node.alive(), node.close()


CASES_REJECTING_ALL = ('truncated', 'encapsulation', 'oversized', 'string', 'length mismatch')


def test_a_flood_of_bad_messages_leaves_the_node_responsive(probe, hostile):
    """500 malformed messages back to back: one log line per category and period, all counted."""
    node, diagnostics, raw = hostile
    mark = diagnostics.count()
    first = diagnostics.latest()
    logged = len(node.lines)
    base = serialized(['a', 'b'], [0.1, 0.2])
    for i in range(500):
        raw.publish(base[:20 + i % 20])
    values, _ = diagnostics.wait(
        lambda v, s: int(v.get('rejected messages: truncated', 0))
        >= int(first.get('rejected messages: truncated', 0)) + 500, mark,
        timeout=2 * CASE_DEADLINE, what='the flood counted')
    send_good(probe, raw, 0.75)
    assert node.alive()
    lines = [line for line in node.lines[logged:] if 'Dropped a message' in line]
    assert len(lines) <= 2, lines
