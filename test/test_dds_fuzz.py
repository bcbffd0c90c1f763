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
Malformed requests below rclpy: a raw Fast DDS writer against the node as a process.

An rclpy publisher cannot write a service's request topic (a ROS name cannot be
``rq/...``), and it serialises what it is given. ``test/dds_fuzz/raw_writer.cpp``,
compiled here with g++ against the Fast DDS headers and library of the running ROS 2
(the wheels' venv or a sourced distro), writes bytes chosen here on the DDS topics of
every parameter service of the node (``rq/<node>/get_parametersRequest``, type
``rcl_interfaces::srv::dds_::GetParameters_Request_``, ...), of the type description
services, on ``rt/joint_states`` and on ``rt/robot_description``: a few thousand seeded
payloads (empty, truncated, random, absurd counts and lengths, wrong encapsulation,
valid prefix + garbage, flipped bytes, large). The node runs as users run it
(``python -m urdf_state_py.node`` with a params file), reading its description from the
topic, so that a robot_description reader is there to be fed.

Checked throughout and after: every writer matched a reader of the node (a fuzz that
reaches nothing fails); the node stays up, turns a good JointState into the right /tf,
answers a well-formed GetParameters from an rclpy client with the right value; its log
holds at most one line per kind of input and throttle period; SIGINT ends it with 0.
Without g++ or the Fast DDS headers the test is skipped, saying which is missing (failed
instead with ``URDF_STATE_REQUIRE_RAW_WRITER=1``, which .ci/run sets where g++ is).
"""
from __future__ import annotations

from collections import Counter
import glob
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import sysconfig
import time

from node_harness import LATCHED, wait_until
import numpy as np
import pytest
from test_hostile_inputs import KEEP_ALL, NODE, NodeProcess, PREFIX, send_good, serialized, TOY

pytestmark = pytest.mark.ros

SOURCE = os.path.join(os.path.dirname(__file__), 'dds_fuzz', 'raw_writer.cpp')
SEED = 17
PER_TARGET = 250          # payloads per topic: 2,500 in all
ROUND = 100               # payloads between two checks of the node
#: A request with a count of ~10^7 costs rmw a second or more (see address_space.py);
#: a round may hold several, the node works off the writer's backlog in order, and the
#: machine is shared: a good JointState's /tf, and an answer, must come within this.
GOOD_DEADLINE_S = 60.0
MATCH_TIMEOUT_S = 30
THROTTLE_S = 5.0          # the node's throttle period for one kind of log line


# -- building the writer ---------------------------------------------------------------

def _fast_dds_prefix():
    """(prefix, library name) of the Fast DDS that rclpy uses here, or (None, why not)."""
    candidates = [sys.prefix] + os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    for prefix in filter(None, candidates):
        header = os.path.join(prefix, 'include', 'fastdds', 'dds', 'topic', 'TopicDataType.hpp')
        for lib in ('fastdds', 'fastrtps'):   # 3.x (Kilted) or 2.x (Humble, Jazzy)
            if os.path.isfile(header) and glob.glob(os.path.join(prefix, 'lib', f'lib{lib}.so')):
                return prefix, lib
    return None, f'no Fast DDS headers and library in {", ".join(filter(None, candidates))}'


def _vendored_libs() -> list[str]:
    """Return the wheels' bundled libraries (auditwheel's ``ros_*.libs``): Fast DDS needs them."""
    return sorted(glob.glob(os.path.join(sysconfig.get_paths()['purelib'], 'ros_fast*.libs')))


@pytest.fixture(scope='module')
def raw_writer(tmp_path_factory):
    """
    Return the compiled writer.

    Skipped without g++ or Fast DDS, failed if they do not build it.
    """
    # CI sets URDF_STATE_REQUIRE_RAW_WRITER=1 where it has g++: a skip there is a failure
    unavailable = pytest.fail if os.environ.get('URDF_STATE_REQUIRE_RAW_WRITER') == '1' \
        else pytest.skip
    compiler = shutil.which(os.environ.get('CXX', 'g++'))
    if compiler is None:
        unavailable('no C++ compiler (g++) to build the raw Fast DDS writer')
    prefix, lib = _fast_dds_prefix()
    if prefix is None:
        unavailable(lib)
    out = str(tmp_path_factory.mktemp('raw_writer') / 'raw_writer')
    rpath = ':'.join([os.path.join(prefix, 'lib')] + _vendored_libs())
    cmd = [compiler, '-std=c++17', '-O1', '-Wall', '-Wextra', '-o', out, SOURCE,
           '-I' + os.path.join(prefix, 'include'), '-L' + os.path.join(prefix, 'lib'),
           # DT_RPATH, not RUNPATH: it also serves libfastdds's own (vendored) dependencies
           f'-Wl,--disable-new-dtags,-rpath,{rpath}', '-l' + lib, '-lfastcdr']
    built = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, f'{" ".join(cmd)}\n{built.stderr[-4000:]}'
    return out


class RawWriter:
    """The writer process: matched topics, then records fed on stdin."""

    def __init__(self, binary: str, topics: list[tuple[str, str, str]]) -> None:
        self.topics = [t for t, _, _ in topics]
        self.proc = subprocess.Popen(
            [binary, str(MATCH_TIMEOUT_S)] + ['='.join(t) for t in topics],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=False)
        self.lines: list[str] = []
        for raw in self.proc.stdout:
            line = raw.decode().strip()
            self.lines.append(line)
            if line == 'ready':
                break

    def matched(self) -> dict[str, int]:
        out = {}
        for line in self.lines:
            parts = line.split()
            if parts[0] in ('matched', 'unmatched'):
                out[parts[1]] = int(parts[2]) if parts[0] == 'matched' else 0
        return out

    def send(self, index: int, payload: bytes) -> None:
        self.proc.stdin.write(struct.pack('<II', index, len(payload)) + payload)

    def flush(self) -> None:
        self.proc.stdin.flush()

    def finish(self, timeout: float = 120.0) -> dict[str, tuple[int, int, bool]]:
        """End of input; {topic: (written, refused by the writer, all acknowledged)}."""
        out, err = self.proc.communicate(timeout=timeout)   # closes stdin: end of input
        assert self.proc.returncode == 0, err.decode()[-2000:]
        sent = {}
        for line in out.decode().splitlines():
            parts = line.split()
            if parts and parts[0] == 'sent':
                sent[parts[1]] = (int(parts[2]), int(parts[3]), parts[4] == 'acknowledged')
        return sent

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# -- the payloads --------------------------------------------------------------------

def targets(node: str) -> list[tuple[str, str, str, bytes]]:
    """
    (DDS topic, DDS type, durability, a well-formed payload) of everything fuzzed.

    Names as rmw_fastrtps makes them: ``rq`` + service name + ``Request``, type
    ``<pkg>::srv::dds_::<Srv>_Request_`` (rmw_service.cpp, type_support_common.hpp).
    The well-formed requests are harmless when one gets through: names that are
    not parameters of the node, or reads.
    """
    from rcl_interfaces import srv
    from rclpy.parameter import Parameter
    from rclpy.serialization import serialize_message
    from std_msgs.msg import String

    absent = [Parameter('fuzz.absent', value=1.5).to_parameter_msg(),
              Parameter('fuzz.names', value=['a', 'b']).to_parameter_msg()]
    requests = {
        'get_parameters': srv.GetParameters.Request(names=['frame_prefix', 'fuzz.absent']),
        'set_parameters': srv.SetParameters.Request(parameters=absent),
        'set_parameters_atomically': srv.SetParametersAtomically.Request(parameters=absent),
        'list_parameters': srv.ListParameters.Request(prefixes=['fuzz', 'description'], depth=2),
        'describe_parameters': srv.DescribeParameters.Request(names=['frame_prefix', 'fuzz.x']),
        'get_parameter_types': srv.GetParameterTypes.Request(names=['frame_prefix', 'fuzz.x']),
    }
    out = []
    for name, request in requests.items():
        srv_name = type(request).__name__.removesuffix('_Request')
        out.append((f'rq/{node}/{name}Request', f'rcl_interfaces::srv::dds_::{srv_name}_Request_',
                    'volatile', serialize_message(request)))
    try:   # Jazzy and later: every node serves ~/get_type_description
        from type_description_interfaces.srv import GetTypeDescription
    except ImportError:
        GetTypeDescription = None
    if GetTypeDescription is not None:
        request = GetTypeDescription.Request(type_name='sensor_msgs/msg/JointState',
                                             type_hash='RIHS01_' + '0' * 64,
                                             include_type_sources=True)
        for host in (node, f'_{node}_parameters'):   # the node and its parameter helper
            out.append((f'rq/{host}/get_type_descriptionRequest',
                        'type_description_interfaces::srv::dds_::GetTypeDescription_Request_',
                        'volatile', serialize_message(request)))
    out.append(('rt/joint_states', 'sensor_msgs::msg::dds_::JointState_', 'volatile',
                serialized(['a', 'b'], [0.1, 0.2])))
    out.append(('rt/robot_description', 'std_msgs::msg::dds_::String_', 'transient_local',
                serialize_message(String(data=TOY))))
    return out


ABSURD = (2**31, 2**32 - 1, 2**31 - 1, 10**9, 2**28, 2**24 + 1, 65_537)


def corpus(base: bytes, rng: np.random.Generator, n: int) -> list[tuple[str, bytes]]:
    """``n`` malformed variants of ``base`` (a well-formed CDR payload), kinds in turn."""
    def absurd():
        out = bytearray(base)
        at = 4 + 4 * int(rng.integers(0, max(1, (len(base) - 8) // 4)))
        out[at:at + 4] = struct.pack('<I', int(rng.choice(ABSURD)))
        return bytes(out)

    def flipped():
        out = bytearray(base)
        for at in rng.integers(0, len(base), size=int(rng.integers(1, 8))):
            out[int(at)] = int(rng.integers(0, 256))
        return bytes(out)

    kinds = {
        'empty': lambda: b'',
        'header only': lambda: base[:4],
        'truncated': lambda: base[:int(rng.integers(1, len(base)))],
        'random': lambda: rng.bytes(int(rng.integers(1, 600))),
        'CDR header + random': lambda: base[:4] + rng.bytes(int(rng.integers(0, 600))),
        'absurd count or length': absurd,
        'big-endian header on little-endian data': lambda: b'\x00\x00' + base[2:],
        'wrong encapsulation': lambda: rng.bytes(2) + base[2:],
        'valid prefix + garbage': lambda: base + rng.bytes(int(rng.integers(1, 300))),
        'flipped bytes': flipped,
    }
    names = list(kinds)
    out = [(names[i % len(names)], kinds[names[i % len(names)]]()) for i in range(n - 2)]
    return out + [('large random', rng.bytes(300_000)), ('large, valid prefix', base +
                                                         rng.bytes(200_000))]


# -- the node and the checks ------------------------------------------------------------

class ParameterReader:
    """GetParameters(frame_prefix) from the probe's participant, answered within a deadline."""

    def __init__(self, probe) -> None:
        from rcl_interfaces.srv import GetParameters
        self.request = GetParameters.Request(names=['frame_prefix'])
        self.client = probe.node.create_client(GetParameters, f'/{NODE}/get_parameters')
        self.answers = 0
        self._future = None

    def check(self, timeout: float = 30.0) -> None:
        wait_until(self.client.service_is_ready, timeout, 'the get_parameters service')
        self._future = self.client.call_async(self.request)
        wait_until(self._future.done, timeout, 'a GetParameters answer')
        self._check_answer()

    def try_check(self) -> bool:
        """Non-blocking: True once the request (sent on the first call) is answered."""
        if self._future is None:
            self._future = self.client.call_async(self.request)
        if not self._future.done():
            return False
        self._check_answer()
        return True

    def _check_answer(self) -> None:
        values = self._future.result().values
        self._future = None
        assert [v.string_value for v in values] == [PREFIX], values
        self.answers += 1


def log_kinds(lines: list[str]) -> tuple[Counter, Counter]:
    """
    Count the node's log lines by kind.

    (the node's own log lines, everything else it printed), counted by kind: the text
    without numbers and quoted parts, cut where a throttle key (source, reason) ends.
    """
    own, other = Counter(), Counter()
    for line in lines:
        found = re.match(r'^\[[A-Z]+\] \[[\d.]+\] \[([^\]]*)\]: (.*)', line)
        text = found.group(2) if found else line
        text = re.sub(r'\d+(\.\d+)?', '#', re.sub(r"'[^']*'|\"[^\"]*\"", "''", text))
        if found and found.group(1) == NODE:
            own[text[:36]] += 1
        elif text.strip():
            other[text[:60]] += 1
    return own, other


class PeakRss:
    """The node process's largest resident set seen so far (sampled on each call)."""

    def __init__(self, pid: int) -> None:
        import psutil
        self.process = psutil.Process(pid)
        self.start = self.peak = self.process.memory_info().rss

    def __call__(self) -> int:
        self.peak = max(self.peak, self.process.memory_info().rss)
        return self.peak

    def check(self) -> None:
        """Below the node's address-space ceiling (address_space.py): what a request costs."""
        from urdf_state_py.node.process.address_space import DEFAULT_HEADROOM_MB
        bound = self.start + DEFAULT_HEADROOM_MB * 2**20
        assert self() < bound, f'node RSS {self.peak / 1e6:.0f} MB (at start ' \
            f'{self.start / 1e6:.0f} MB): one request must not cost the machine its memory'


@pytest.mark.parametrize('count', [10**8, 2**28])
def test_a_request_with_an_absurd_count_costs_bounded_memory(probe, raw_writer, tmp_path, count):
    """
    Check a request with an absurd count costs bounded memory.

    GetParameters whose name count is ``count`` (12 bytes): rmw_fastrtps sizes the
    sequence before reading it (see address_space.py); the node answers the next
    well-formed request, and its memory stays below the ceiling meanwhile.
    """
    pytest.importorskip('psutil')
    from rcl_interfaces.srv import GetParameters
    from rclpy.serialization import serialize_message

    node = NodeProcess(tmp_path)
    writer = None
    try:
        wait_until(lambda: any("Robot 'toy' loaded" in ln for ln in node.lines), 30.0,
                   'the TOY model')
        rss = PeakRss(node.proc.pid)
        params = ParameterReader(probe)
        params.check()
        topic, type_name, durability, _ = targets(NODE)[0]
        writer = RawWriter(raw_writer, [(topic, type_name, durability)])
        assert writer.matched() == {topic: 1}, writer.lines
        base = serialize_message(GetParameters.Request(names=['frame_prefix']))
        writer.send(0, base[:4] + struct.pack('<I', count) + base[8:])
        writer.flush()
        assert writer.finish() == {topic: (1, 0, True)}   # delivered: acknowledged by the node

        def answered() -> bool:
            rss.check()            # while the request is being taken, too
            return params.try_check()
        wait_until(answered, 60.0, 'a GetParameters answer')
        assert node.alive()
    finally:
        if writer is not None:
            writer.kill()
        print(node.close()[-3000:])


def test_malformed_dds_payloads_to_every_service_and_topic(probe, raw_writer, tmp_path):
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    node = NodeProcess(tmp_path, extra='    use_robot_description_topic: true\n')
    description = probe.node.create_publisher(String, 'robot_description', LATCHED)
    joints = probe.node.create_publisher(JointState, 'joint_states', KEEP_ALL)
    writer = None
    try:
        description.publish(String(data=TOY))
        wait_until(lambda: any("Robot 'toy' loaded" in ln for ln in node.lines), 30.0,
                   'the TOY model from the topic')
        wait_until(lambda: joints.get_subscription_count() > 0, 20.0, 'the node on joint_states')
        params = ParameterReader(probe)
        params.check()
        send_good(probe, joints, 0.25)

        plan = targets(NODE)
        writer = RawWriter(raw_writer, [(t, ty, d) for t, ty, d, _ in plan])
        unmatched = [t for t, n in writer.matched().items() if n == 0]
        assert not unmatched, f'the raw writer reached no reader on {unmatched} ({writer.lines})'

        rng = np.random.default_rng(SEED)
        payloads = [(i, kind, data) for i, (_, _, _, base) in enumerate(plan)
                    for kind, data in corpus(base, rng, PER_TARGET)]
        rng.shuffle(payloads)
        logged = len(node.lines)
        rss = PeakRss(node.proc.pid)
        t0 = time.monotonic()
        for start in range(0, len(payloads), ROUND):
            for index, _, data in payloads[start:start + ROUND]:
                writer.send(index, data)
            writer.flush()
            assert node.alive(), node.close()[-4000:]
            send_good(probe, joints, 0.5 if start % 2 else -0.5, GOOD_DEADLINE_S)
            params.check(GOOD_DEADLINE_S)
            rss.check()
            print(f'{start + ROUND} sent, {time.monotonic() - t0:.1f} s, node RSS '
                  f'{rss.process.memory_info().rss / 1e6:.0f} MB', flush=True)
        sent = writer.finish()
        elapsed = time.monotonic() - t0
        print(f'{len(payloads)} payloads on {len(plan)} topics in {elapsed:.1f} s: {sent}')
        assert sum(ok for ok, _, _ in sent.values()) == len(payloads), sent

        # after: still publishing the last good model, still answering. The node may still
        # hold the writer's last samples in its keep-all queues: the /tf of a good
        # JointState sent now comes once that backlog is drained.
        send_good(probe, joints, 0.75, GOOD_DEADLINE_S)
        params.check(GOOD_DEADLINE_S)
        assert node.alive()
        own, other = log_kinds(node.lines[logged:])
        print(f'the node logged {sum(own.values())} lines of {len(own)} kinds:')
        for kind, count in own.most_common():
            print(f'  {count:5d}  {kind}')
        print(f'and printed {sum(other.values())} other lines (rmw, rcl, type support):')
        for kind, count in other.most_common(12):
            print(f'  {count:5d}  {kind}')
        allowed = elapsed / THROTTLE_S + 2
        floods = {k: c for k, c in own.items() if c > allowed}
        assert not floods, f'more than {allowed:.0f} lines of one kind: {floods}'

        node.proc.send_signal(signal.SIGINT)
        assert node.proc.wait(timeout=30) == 0, node.close()[-4000:]
    finally:
        if writer is not None:
            writer.kill()
        out = node.close()
        print(out[-6000:])
