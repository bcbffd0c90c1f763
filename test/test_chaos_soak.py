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
Chaos soak: everything hostile at once, against the node as a process.

``URDF_STATE_CHAOS_S`` sets the duration (default 120 s; the long run is
``URDF_STATE_CHAOS_S=3600 ./dev.sh test test/test_chaos_soak.py -s``). The node
is ``python -m urdf_state_py.node`` (test_hostile_inputs.NodeProcess) with
``ignore_timestamp`` on. Throughout: 1 kHz of in-limit JointStates with fresh
stamps (raw bytes, one pre-built message patched), every 50th one malformed
(test_joint_state_cdr's mutations, those the decoder rejects); a GetParameters
every 100 ms; a /tf receiver, a process of its own (chaos_receiver). On a
schedule (seconds into each minute): a parameter change at 5, 15, ...
(frame_prefix, ignore_limits, publish_frequency, urdf_parser_py.strict in
turn), a description swap at 10, 20, ... (two models,
different links), at 30 a hostile description (macro bomb, code execution in
turn) and a 10 s flood from 3 publisher processes (24k/s together); a second
joint-state publisher in the odd half-minutes; at 50 s and every 5 minutes
after, the parser worker SIGKILLed in the middle of a parse (chaos_schedule).

Checked (and printed with ``-s``): see docs/soak.md.
"""
from __future__ import annotations

from collections import Counter, deque
import os
import signal
import struct
import sys
import threading
import time

from chaos_checks import FLOODED, GOOD, Ledger, memory_sample, NONE, positions, read_tf
from chaos_processes import abandon, collect_answers, HANG_S, probe_env
from chaos_receiver import Receiver
from chaos_report import DURATION_S, FLOOD_MARGIN_S, report_and_assert
from chaos_schedule import conduct, FLOOD_PUBLISHERS, run_thread
from node_harness import _Spinner, set_parameters, transform_map, wait_until
import numpy as np
import pytest
from test_hostile_inputs import (DiagnosticsRecorder, KEEP_ALL, NODE, NodeProcess, PREFIX,
                                 serialized, TOY)
from test_joint_state_cdr import mutations

pytestmark = pytest.mark.ros
psutil = pytest.importorskip('psutil')

RATE_HZ = 1000
BAD_EVERY = 50
STALLED_S = 30.0              # no answer for this long: the service is stalled
BEHIND_S = 2.0                # the 1 kHz stream this far behind its schedule skips slots
CHECKER_DRAIN_S = HANG_S - 200.0   # the /tf checker's time to finish after the stream


def _bad_payloads(template: bytes) -> list[bytes]:
    from urdf_state_py.node.tf_path.joint_state_cdr import JointStateReader, MalformedJointState
    reader, out = JointStateReader(), []
    for seed in range(20):
        for bad in mutations(np.random.default_rng(seed), template):
            try:
                reader.read(bad)
            except MalformedJointState:
                out.append(bad)
    return out


class Soak:
    """The soak's state shared by its threads (the 1 kHz loop runs in the test's thread)."""

    def __init__(self, tmp_path) -> None:
        import rclpy
        from sensor_msgs.msg import JointState
        self.rclpy, self.JointState = rclpy, JointState
        # Reliable and keep-all (a QoS override): a flood queues up in front of the node
        # and is worked off after it. Keep-last (1,000 or 100) lost less after a flood but
        # grew the node's private memory 2-3 MB an hour and stopped taking input in two of
        # four hours (docs/soak.md)
        self.node = NodeProcess(tmp_path, extra='    ignore_timestamp: true\n')
        self.spinner = _Spinner()
        self.side = rclpy.create_node('chaos_probe', context=self.spinner.context)
        self.clients: dict = {}
        self.records: deque[tuple[float, bytes]] = deque()   # (taken at, raw /tf)
        self.tf_per_s: Counter = Counter()   # /tf messages received, by monotonic second
        self.last_tf = time.monotonic()      # when the latest /tf came
        self.backlog_max = 0                 # most /tf received and waiting for the checker
        self.drain_s = 0.0                   # how long the checker took after the stream
        # a process of its own (chaos_receiver): the burst of /tf after a flood outran
        # every receiver that shared this process's GIL
        self.receiver = Receiver(self._on_tf, tmp_path)
        holder = type('Holder', (), {'node': self.side})
        self.diagnostics = DiagnosticsRecorder(holder, f'{NODE}: robot state')
        self.pub = self.side.create_publisher(JointState, 'joint_states', KEEP_ALL)
        self.second = None                 # the second joint-state publisher, when present
        # made and destroyed on a node no executor waits on: destroying a publisher while
        # the spinner builds a wait set with its event handlers raised InvalidHandle there
        self.second_node = rclpy.create_node('chaos_second', context=self.spinner.context)
        self.second_lock = threading.Lock()
        self.stop = threading.Event()
        self.flooding = threading.Event()
        self.flood_end = -1e9
        self.flood_windows: list[tuple[float, float]] = []   # (start, end) of each flood
        self.flood_sent = 0                # JointStates the flood publishers sent
        self.answers: list[tuple[float, float | None]] = []
        self.events: list[str] = []        # what the schedule did, in order
        self.refusals: list[tuple[str, str]] = []   # (what, the SetParameters reason)
        self.swaps = 0
        self.errors: list[str] = []        # failures inside the threads
        self.spinner.start(self.side)

    def _on_tf(self, now: float, data: bytes) -> None:
        self.records.append((now, data))
        self.tf_per_s[int(now)] += 1
        self.last_tf = now

    def flooded(self, now: float) -> bool:
        """In a flood window now: a flood running, or less than FLOOD_MARGIN_S after one."""
        return self.flooding.is_set() or now < self.flood_end + FLOOD_MARGIN_S

    def set_params(self, **values):
        return set_parameters(self.side, self.clients, f'/{NODE}', 30.0, **values)


def _check_tf(soak: Soak, ledger: Ledger) -> None:
    while True:
        stopping = soak.stop.is_set()
        records = soak.records    # the receiver appends on the right while this takes
        soak.backlog_max = max(soak.backlog_max, len(records))
        while records:
            t_recv, data = records.popleft()
            ledger.check(t_recv, *read_tf(data))
        if stopping and not soak.records:
            return
        soak.stop.wait(0.5)


def _publish(pub, data: bytes) -> bool:
    """Publish; False when the reliable writer stayed blocked (a flood fills the reader)."""
    try:
        pub.publish(data)
        return True
    except Exception:  # RCLError "cannot publish data"
        return False


def test_read_tf_reads_what_rclpy_reads():
    from geometry_msgs.msg import TransformStamped
    from rclpy.serialization import serialize_message
    from tf2_msgs.msg import TFMessage
    msg = TFMessage()
    for i, (parent, child) in enumerate([('base', 'a'), ('hx/a', 'hx/lb12'), ('x' * 7, 'yy')]):
        t = TransformStamped()
        t.header.stamp.sec, t.header.stamp.nanosec = 1_700_000_000 + i, 123_456_789
        t.header.frame_id, t.child_frame_id = parent, child
        t.transform.translation.x, t.transform.translation.y = 0.5 + i, -2.0
        q = np.array([0.1, -0.2, 0.3 * i, 1.0])
        t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, \
            t.transform.rotation.w = (q / np.linalg.norm(q)).tolist()
        msg.transforms.append(t)
    stamp, tf = read_tf(serialize_message(msg))
    want = transform_map(msg)
    assert stamp == 1_700_000_000_123_456_789
    assert list(tf) == list(want) == ['a', 'hx/lb12', 'yy']
    for child, (parent, pose) in want.items():
        assert tf[child][0] == parent
        np.testing.assert_allclose(tf[child][1], pose, atol=1e-15)
    assert read_tf(serialize_message(TFMessage())) == (None, {})
    with pytest.raises(ValueError, match='little-endian'):
        read_tf(b'\x00\x00\x00\x00\x00\x00\x00\x00')


def test_chaos_soak(tmp_path, monkeypatch):
    # a domain of its own: no /tf of a node another test left behind
    monkeypatch.setenv('ROS_DOMAIN_ID', str(int(os.environ.get('ROS_DOMAIN_ID', '0')) % 100 + 101))
    watchdog = threading.Timer(DURATION_S + HANG_S, abandon)
    watchdog.daemon = True
    watchdog.start()
    # The /tf checker works off each flood's backlog while the 1 kHz loop runs: with the
    # default 5 ms GIL switch interval the loop got the GIL at ~200 Hz then and fell behind.
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        _soak(tmp_path)
    finally:
        sys.setswitchinterval(switch)
        watchdog.cancel()


def _soak(tmp_path) -> None:
    from urdf_state_bench.e2e import model_spec
    from urdf_state_bench.procs import Proc, start_driver, stop_chain
    soak = Soak(tmp_path)
    drivers = []
    probe = None
    threads = []
    try:
        wait_until(lambda: soak.pub.get_subscription_count() > 0, 20.0, 'the node on joint_states')
        wait_until(lambda: any("Robot 'toy' loaded" in ln for ln in soak.node.lines), 20.0,
                   'the model loaded')
        # flood stamps off the millisecond grid of the checked messages: time.time_ns() lands
        # on a whole millisecond once in 10^6, and that flood /tf was taken for message k's
        # (a few per hour: the only "wrong /tf" the soak ever reported)
        spec = dict(model_spec(TOY)[0], raw=True, odd_stamps=True)
        drivers = [start_driver(spec, dict(os.environ), tmp_path, f'chaos_{k}')
                   for k in range(FLOOD_PUBLISHERS)]
        probe = Proc('probe', [sys.executable, '-m', 'urdf_state_bench.probe', f'/{NODE}',
                               '0.1', str(STALLED_S)], probe_env(), tmp_path)
        for proc in (*drivers, probe):
            proc.wait_event('ready', 60.0)
        # the node's /tf matched with the receiver: one message comes through
        warm = [0]

        def first_through():
            warm[0] += _publish(soak.pub, serialized(['a', 'b'], [0.0, 0.0]))
            return soak.records
        wait_until(first_through, 20.0, 'the first /tf message')
        soak.records.clear()

        capacity = int(DURATION_S * RATE_HZ) + 1
        base_ns = time.time_ns() // 1_000_000 * 1_000_000 + 1_000_000
        ledger = Ledger(base_ns, capacity)
        ledger.ack(ledger.config(TOY, PREFIX, float('-inf')), float('-inf'))
        template = bytearray(serialized(['a', 'b'], [0.125, 0.375]))
        at = {v: template.index(struct.pack('<d', v)) for v in (0.125, 0.375)}
        bad = _bad_payloads(bytes(template))
        process = psutil.Process(soak.node.proc.pid)
        samples = []       # MemorySample, once a second
        t0 = soak.t0 = time.monotonic()
        checker = run_thread(soak, 'tf check', _check_tf, ledger)
        threads = [run_thread(soak, 'parameters', collect_answers, probe), checker,
                   run_thread(soak, 'schedule', conduct, ledger, t0, drivers, tmp_path)]
        n_bad = n_bad_flooded = n_unsent = 0
        # slots skipped with the stream behind, by minute of the run (outside floods, in floods)
        skipped = (Counter(), Counter())
        pack_stamp, pack_d = struct.Struct('<iI').pack_into, struct.Struct('<d').pack_into
        for k in range(capacity - 1):
            now = time.monotonic()
            if t0 + k / RATE_HZ > now:
                time.sleep(t0 + k / RATE_HZ - now)   # pacing the 1 kHz stream
            elif now - (t0 + k / RATE_HZ) > BEHIND_S:
                # blocked writes (up to the writer's max_blocking_time each) put the stream
                # behind; it catches up by skipping, so the run keeps its length
                flooded = soak.flooded(now)
                skipped[flooded][int((now - t0) // 60)] += 1
                ledger.sent(k, NONE, now)
                continue
            if k % BAD_EVERY == BAD_EVERY - 1:
                if _publish(soak.pub, bad[k // BAD_EVERY % len(bad)]):
                    n_bad += 1
                    n_bad_flooded += soak.flooded(now)
                continue
            a, b = positions(k)
            pack_stamp(template, 4, *divmod(base_ns + k * 1_000_000, 1_000_000_000))
            pack_d(template, at[0.125], a)
            pack_d(template, at[0.375], b)
            flooded = soak.flooded(now)
            ledger.sent(k, FLOODED if flooded else GOOD, now)
            with soak.second_lock:
                if not _publish(soak.second if soak.second and k % 10 == 5 else soak.pub,
                                bytes(template)):
                    ledger.sent(k, NONE, now)
                    n_unsent += 1
            if k % 1000 == 0:
                samples.append(memory_sample(now - t0, process))
        # drain: the receiver goes quiet (the last /tf answers come), then the checker works
        # off what it has not checked yet: it checks as fast as it can, not as fast as /tf
        # comes, and after floods late in an hour it was minutes behind (a /tf's verdict
        # depends on when it was received, recorded by the receiver, not on when it is checked)
        sent = capacity - 1
        try:
            wait_until(lambda: soak.errors or time.monotonic() - soak.last_tf > 2.0, 30.0,
                       'the receiver quiet for 2 s')
        except pytest.fail.Exception:
            pass           # still receiving: checked as far as it got
        t_drain = time.monotonic()
        soak.stop.set()
        probe.stop()
        checker.join(CHECKER_DRAIN_S)
        soak.drain_s = time.monotonic() - t_drain
        if checker.is_alive():
            soak.errors.append(f'the /tf checker had not finished {soak.drain_s:.0f} s after '
                               f'the stream ({len(soak.records)} /tf waiting)')
        for thread in threads:
            thread.join(60.0)
        try:   # the latest counts (published once a second)
            final = soak.diagnostics.wait(
                lambda v, s: int(v['rejected messages']) >= n_bad - n_bad_flooded,
                soak.diagnostics.count() - 1, timeout=30.0, what='the counts')[0]
        except pytest.fail.Exception:
            final = soak.diagnostics.latest()
        code = soak.node.proc.send_signal(signal.SIGINT) or soak.node.proc.wait(30.0)
        report_and_assert(soak, ledger, sent, (n_bad, n_bad_flooded), (n_unsent, skipped),
                          samples, final, code)
    finally:
        soak.stop.set()
        stop_chain(None, probe, *drivers)
        (tmp_path / 'node.log').write_text(soak.node.close())   # the whole log, kept
        soak.receiver.stop()
        soak.second_node.destroy_node()
        soak.spinner.stop(soak.side)


def test_the_receivers_frames_come_out_whole_and_in_order_however_the_pipe_cuts_them():
    from chaos_receiver import FRAME, split_frames
    payloads = [b'', b'a', bytes(range(256)) * 3, b'tf' * 100]
    stream = b''.join(FRAME.pack(1.5 + k, len(p)) + p for k, p in enumerate(payloads))
    for cut in (1, 5, 13, 200, len(stream)):
        got, buffer = [], bytearray()
        for start in range(0, len(stream), cut):
            buffer += stream[start:start + cut]
            split_frames(buffer, lambda t, data: got.append((t, data)))
        assert got == [(1.5 + k, p) for k, p in enumerate(payloads)], cut
        assert buffer == b''
