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
Receiving end: subscribes to ``/tf`` and measures stamp -> receipt latency.

Run as ``python -m urdf_state_bench.sink [--topic /tf] [--executor events|single]``
with a loopback environment. The subscription is raw (serialized CDR): the
callback only records the receipt time (``time.time_ns()``, the same clock the
driver stamps with) and reads the first transform's stamp and the transform
count straight out of the CDR bytes, so the sink stays cheap and is not the
bottleneck. QoS: reliable, keep-last 100 (what tf2's TransformListener uses).

JSON-lines protocol, commands on stdin:

- ``{"cmd": "report", "since_ns": a, "until_ns": b}``: statistics of the
  messages whose stamp lies in [a, b], then forget everything received so far;
  with ``"window_ns": [c, d]`` also ``window_received`` (messages stamped in
  [c, d]) and the latency percentiles over that window only;
  with ``"gap_windows_ns": [[c, d], ...]`` also ``gap_max_us``: per window, the
  longest time in it without a receipt (receipt time: the clock the driver
  stamps with), whatever the stamps;
- ``{"cmd": "count"}``: messages received since the last report;
- ``{"cmd": "quit"}``.

Events on stdout: ``{"event": "ready"}``, ``{"event": "report", ...}``,
``{"event": "count", ...}``.
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import threading
import time

from .common import command_lines

# sequence length, first stamp sec, nanosec (after the 4-byte CDR header)
_HEAD = struct.Struct('<Iii')


def emit(**event) -> None:
    sys.stdout.write(json.dumps(event) + '\n')
    sys.stdout.flush()


class Recorder:

    def __init__(self) -> None:
        self.items: list[tuple[int, bytes]] = []
        self.lock = threading.Lock()

    def callback(self, data: bytes) -> None:
        self.items.append((time.time_ns(), data[:16]))

    def take(self) -> list[tuple[int, bytes]]:
        with self.lock:
            items, self.items = self.items, []
        return items


def _stats(items, since_ns: int | None, until_ns: int | None, window_ns=None) -> dict:
    lat = []
    window = []
    stamps = set()
    n_tf = {}
    outside = 0
    for recv, head in items:
        if len(head) < 16:
            continue
        n, sec, nsec = _HEAD.unpack_from(head, 4)
        if n == 0:
            continue
        stamp = sec * 1_000_000_000 + nsec
        if (since_ns is not None and stamp < since_ns) or \
                (until_ns is not None and stamp > until_ns):
            outside += 1
            continue
        stamps.add(stamp)
        lat.append(recv - stamp)
        if window_ns is not None and window_ns[0] <= stamp <= window_ns[1]:
            window.append(recv - stamp)
        n_tf[n] = n_tf.get(n, 0) + 1
    received = len(lat)
    if window_ns is not None:
        lat = window
    lat.sort()

    def pct(p):
        if not lat:
            return None
        k = max(0, min(len(lat) - 1, int(round(p / 100.0 * len(lat) + 0.5)) - 1))
        return lat[k] / 1e3  # µs

    return {'received': received, 'unique_stamps': len(stamps), 'outside': outside,
            'window_received': len(window) if window_ns is not None else None,
            'lat_p50_us': pct(50), 'lat_p99_us': pct(99), 'lat_max_us': pct(100),
            'n_tf': max(n_tf, key=n_tf.get) if n_tf else None}


def _gap_max_us(items, start_ns: int, end_ns: int) -> float:
    """Return the longest time without a receipt in [start_ns, end_ns] [us] (its ends count)."""
    times = [start_ns] + [recv for recv, _ in items if start_ns < recv < end_ns] + [end_ns]
    return max(b - a for a, b in zip(times, times[1:])) / 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument('--topic', default='/tf')
    ap.add_argument('--executor', default='single', choices=('single', 'events'))
    args = ap.parse_args(argv)
    from .common import ensure_loopback
    ensure_loopback()
    import rclpy
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage
    from urdf_state_py.node.process.spin import make_executor
    rclpy.init(args=['--ros-args', '--disable-rosout-logs'])
    node = rclpy.create_node('bench_sink')
    rec = Recorder()
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                     history=HistoryPolicy.KEEP_LAST)
    node.create_subscription(TFMessage, args.topic, rec.callback, qos, raw=True)
    # make_executor: EventsExecutor where rclpy has it (not Humble), else the default one.
    executor = make_executor(args.executor)
    executor.add_node(node)
    stop = threading.Event()

    def control():
        try:
            for cmd in command_lines(sys.stdin):
                what = cmd.get('cmd')
                if what == 'count':
                    emit(event='count', received=len(rec.items))
                elif what == 'report':
                    items = rec.take()
                    emit(event='report', total=len(items),
                         gap_max_us=[_gap_max_us(items, *window)
                                     for window in cmd.get('gap_windows_ns') or ()],
                         **_stats(items, cmd.get('since_ns'), cmd.get('until_ns'),
                                  cmd.get('window_ns')))
        finally:
            stop.set()
            # wake the executor
            try:
                executor.wake() if hasattr(executor, 'wake') else None
            except Exception:
                pass

    thread = threading.Thread(target=control, daemon=True)
    thread.start()
    emit(event='ready')
    try:
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
