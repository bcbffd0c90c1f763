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
Soak: the node as a process at 1 kHz of good JointStates with bad ones mixed in.

``URDF_STATE_SOAK_S`` sets the duration (default 20 s; the issue's figure is
600: ``URDF_STATE_SOAK_S=600 ./dev.sh test test/test_soak.py -s``). Every 50th
message is one of the hostile payloads of test_hostile_inputs (all but the
1.6 MB one). Asserts: the node is alive at the end, it published every good
message on /tf (its count on /diagnostics; joint_states is made reliable and
keep-all, so none is lost on the way in: a busy machine slows the driver down), every
bad one was counted, and the node's RSS after warm-up grew by less than 10 MB. Also
printed (``-s``): how many /tf messages this process received (the node's /tf writer keeps 100, as
robot_state_publisher's: a receiver held up for longer on a busy machine misses
some, which is not the node's doing).
"""
from __future__ import annotations

import os
import struct
import time

from node_harness import _Spinner, wait_until
import pytest
import rclpy
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from test_hostile_inputs import CASES, DiagnosticsRecorder, KEEP_ALL, NODE, NodeProcess, serialized
from tf2_msgs.msg import TFMessage

pytestmark = pytest.mark.ros  # needs rclpy and DDS

psutil = pytest.importorskip('psutil')

DURATION_S = float(os.environ.get('URDF_STATE_SOAK_S', '20'))
RATE_HZ = 1000.0
BAD_EVERY = 50
RSS_LIMIT = 10 * 1024 * 1024
STAMP = struct.Struct('<iI')


def test_soak_1khz_with_bad_inputs(tmp_path):
    node = NodeProcess(tmp_path)
    spinner = _Spinner()
    side = rclpy.create_node('soak_probe', context=spinner.context)
    reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    received = [0, 0]   # /tf messages: all, and those stamped in the soak

    def on_tf(data: bytes) -> None:
        received[0] += 1
        sec, nanosec = STAMP.unpack_from(data, 8)   # encapsulation, count, 1st stamp
        received[1] += sec * 1_000_000_000 + nanosec >= soak_from[0]
    soak_from = [1 << 62]
    side.create_subscription(TFMessage, '/tf', on_tf, reliable, raw=True)

    class _Probe:  # what DiagnosticsRecorder needs
        pass
    holder = _Probe()
    holder.node = side
    diagnostics = DiagnosticsRecorder(holder, f'{NODE}: robot state')
    raw = side.create_publisher(JointState, 'joint_states', KEEP_ALL)
    spinner.start(side)
    # (all but the 1.6 MB one, and the one with a good joint among unknown names: it publishes)
    bad = [payload for name, (payload, category, _) in CASES.items()
           if len(payload) < 100_000 and category != 'unknown names']
    try:
        wait_until(lambda: raw.get_subscription_count() > 0, 20.0, 'the node on joint_states')
        wait_until(lambda: any("Robot 'toy' loaded" in line for line in node.lines), 20.0,
                   'the model loaded')
        # the node's /tf matched with our sink: a message comes through
        stamp = side.get_clock().now().nanoseconds
        sent = [0]

        def first_through():
            raw.publish(serialized(['a', 'b'], [0.1, 0.1], stamp))
            sent[0] += 1
            return received[0]
        wait_until(first_through, 20.0, 'the first /tf message')
        # Those sends went to a best-effort subscription, maybe not yet matched with this
        # writer, so some may be lost: count what the node published of them, from its second
        # status after them (the soak's own messages are then counted exactly).
        statuses = diagnostics.count()
        before = int(diagnostics.wait(lambda v, s: True, statuses + 1, timeout=30.0,
                                      what='two statuses after the first /tf')[0]
                     ['/tf messages published'])
        process = psutil.Process(node.proc.pid)
        stamp += 1_000_000_000
        soak_from[0] = stamp + 1
        good = n_bad = 0
        rss = []
        t0 = time.monotonic()
        warm_up = min(5.0, DURATION_S / 4)
        i = 0
        while True:
            now = time.monotonic()
            elapsed = now - t0
            if elapsed >= DURATION_S:
                break
            target = t0 + i / RATE_HZ
            if target > now:
                time.sleep(target - now)     # pacing the 1 kHz driver, not waiting for a result
            i += 1
            if i % BAD_EVERY == 0:
                raw.publish(bad[(i // BAD_EVERY) % len(bad)])
                n_bad += 1
            else:
                stamp += 1_000_000
                value = ((i % 2000) - 1000) / 1000.0
                raw.publish(serialized(['a', 'b'], [value, abs(value)], stamp))
                good += 1
            if i % 1000 == 0 and elapsed >= warm_up:
                rss.append(process.memory_info().rss)
        total = before + good    # every good message of the soak, on top of the first ones

        def published(v, s):
            return int(v['/tf messages published']) >= total
        try:
            values, _ = diagnostics.wait(published, max(0, diagnostics.count() - 1),
                                         timeout=60.0, what=f'{total} /tf messages published')
        finally:
            values = diagnostics.latest()
            growth = rss[-1] - rss[0]
            print(f'\nsoak {DURATION_S:.0f} s at {RATE_HZ:.0f} Hz: {good} good (+{before} of '
                  f'{sent[0]} sent before published), {n_bad} bad; node published '
                  f'{values["/tf messages published"]} of {total}; received here {received[1]} of '
                  f'{good}; node RSS after warm-up '
                  f'{rss[0] / 2**20:.1f} MB, end {rss[-1] / 2**20:.1f} MB, max '
                  f'{max(rss) / 2**20:.1f} MB, growth {growth / 2**20:+.2f} MB; rejected '
                  f'{values["rejected messages"]}')
        assert node.alive()
        assert int(values['/tf messages published']) == total
        assert int(values['rejected messages']) + int(values['non-finite values dropped']) \
            >= n_bad
        assert growth < RSS_LIMIT and max(rss) - rss[0] < RSS_LIMIT
    finally:
        node.close()
        spinner.stop(side)
