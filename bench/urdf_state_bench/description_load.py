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
Benchmark: a 10 MB description set at run time, and what the node does meanwhile.

``python -m urdf_state_bench.description_load [--links 20000] [--trials 3] [--rate 200]``

The node runs as users run it (``python -m urdf_state_py.node``, its own
process). JointStates for the root joint go to it at ``--rate`` Hz from the
benchmark's driver process, and its /tf is recorded by the sink process: not
from this process, whose Python threads stop while it builds a 10 MB request
(the gaps then measured were this process's, not the node's). This process
sets the descriptions and calls GetParameters every 100 ms. Per trial it sets
the large description (``ros2 param set``), then a small one again, and reports

* the SetParameters round trip of the large description (= its load time),
* the longest time without a /tf while it loads, next to the same in the second
  before (the baseline: the driver's, the sink's and the machine's own jitter), and
  while a small description replaces the small one (a swap of two small models),
* the slowest GetParameters answer while it loads,
* the node's RSS (all threads; the parser process is separate) before, with
  the large model, and after switching back to the small one.

It prints medians over the trials. No assertion: figures only.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import threading
import time

import psutil

from .common import ensure_loopback, loopback_env, print_medians
from .procs import start_driver, start_sink, stop_chain

SMALL = """<robot name="small"><link name="l0"/><link name="l1"/>
<joint name="q" type="continuous"><parent link="l0"/><child link="l1"/><axis xyz="0 0 1"/>
</joint></robot>"""


def big_urdf(n_links: int) -> str:
    """
    Return a binary tree of ``n_links`` links.

    Return a binary tree of ``n_links`` links (~500 bytes each: inertial and mesh visual);
    the root joint is ``q`` as in :data:`SMALL`, so /tf goes on across the swap.
    """
    out = ['<robot name="big">']
    for i in range(n_links):
        out.append(
            f'<link name="l{i}"><inertial><mass value="1.5"/><origin xyz="0 0 0.05"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>'
            f'<visual><origin xyz="0 0 0.05" rpy="0 0 0"/><geometry><mesh filename="package:'
            f'//big_robot/meshes/segment_{i % 97}.stl" scale="0.001 0.001 0.001"/></geometry>'
            '</visual></link>')
        if i:
            parent = (i - 1) // 2
            name = 'q' if i == 1 else f'j{i}'
            kind = 'continuous' if i % 3 else 'fixed'
            out.append(f'<joint name="{name}" type="{"continuous" if i == 1 else kind}">'
                       f'<parent link="l{parent}"/><child link="l{i}"/>'
                       f'<origin xyz="0.1 {0.01 * (i % 7)} 0.2" rpy="0 0 0.1"/>'
                       '<axis xyz="0 0 1"/></joint>')
    out.append('</robot>')
    return '\n'.join(out)


def _now() -> float:
    """Return the wall clock [s]: the sink's receipt times and the driver's stamps use it."""
    return time.time_ns() / 1e9


class ParameterClient:
    """This process's DDS side: the descriptions set, and GetParameters latencies."""

    def __init__(self, node_name: str) -> None:
        from rcl_interfaces.srv import GetParameters, SetParameters
        import rclpy
        from rclpy.executors import MultiThreadedExecutor

        rclpy.init()
        self.rclpy = rclpy
        self.node = rclpy.create_node('bench_description_load')
        self.set_client = self.node.create_client(SetParameters, f'{node_name}/set_parameters')
        self.get_client = self.node.create_client(GetParameters, f'{node_name}/get_parameters')
        self.GetParameters, self.SetParameters = GetParameters, SetParameters
        self.executor = MultiThreadedExecutor(num_threads=2)
        self.executor.add_node(self.node)
        self._spin = threading.Thread(target=self.executor.spin, daemon=True)
        self._spin.start()
        self.get_latencies: list[tuple[float, float]] = []   # (sent, latency)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll_parameters, daemon=True)

    def start(self) -> None:
        deadline = time.monotonic() + 30.0
        while not self.set_client.service_is_ready():
            if time.monotonic() > deadline:
                raise RuntimeError('the node did not come up on DDS')
            time.sleep(0.05)
        self._thread.start()

    def _poll_parameters(self) -> None:
        while not self._stop.wait(0.1):
            sent = _now()
            future = self.get_client.call_async(
                self.GetParameters.Request(names=['publish_frequency']))
            while not future.done() and not self._stop.is_set():
                time.sleep(0.002)
            self.get_latencies.append((sent, _now() - sent))

    def set_description(self, text: str) -> tuple[bool, str, float, float]:
        from rclpy.parameter import Parameter
        request = self.SetParameters.Request(
            parameters=[Parameter('robot_description', value=text).to_parameter_msg()])
        sent = _now()
        future = self.set_client.call_async(request)
        while not future.done():
            time.sleep(0.002)
        result = future.result().results[0]
        return result.successful, result.reason, sent, _now()

    def slowest_get(self, start: float, end: float) -> float:
        return max((lat for sent, lat in list(self.get_latencies) if start <= sent <= end),
                   default=float('nan'))

    def close(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=2.0)
        self.executor.shutdown()
        self.node.destroy_node()
        self.rclpy.try_shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--links', type=int, default=20000)
    parser.add_argument('--trials', type=int, default=3)
    parser.add_argument('--rate', type=float, default=200.0, help='JointStates per second')
    args = parser.parse_args(argv)
    ensure_loopback()
    big = big_urdf(args.links)
    name = f'urdf_state_bench_{os.getpid()}'
    with tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False) as params:
        params.write('/**:\n  ros__parameters:\n    publish_frequency: 0.0\n'
                     f'    robot_description: {json.dumps(SMALL)}\n')   # JSON is YAML
    node = subprocess.Popen([sys.executable, '-m', 'urdf_state_py.node', '--ros-args',
                             '-r', f'__node:={name}', '--params-file', params.name],
                            env=loopback_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    rss = psutil.Process(node.pid)
    client = ParameterClient(f'/{name}')
    logs = Path(tempfile.mkdtemp(prefix='urdf_state_description_load_'))
    driver = sink = None
    rows, windows = [], []
    try:
        client.start()
        sink = start_sink(loopback_env(), logs, 'description_load')
        driver = start_driver({'mode': 'js', 'topic': 'joint_states', 'names': ['q'],
                               'lower': [-3.0], 'upper': [3.0], 'raw': True},
                              loopback_env(), logs, 'js')
        driver.wait_event('ready', 60.0)   # the node's joint_states matched
        driver.send(cmd='run', rate=args.rate, duration=12.0 * args.trials + 30.0)
        time.sleep(1.0)   # a second of baseline traffic before the first trial
        start_rss = rss.memory_info().rss / 1e6
        for _ in range(args.trials):
            before = rss.memory_info().rss
            ok, reason, sent, answered = client.set_description(big)
            if not ok:
                raise RuntimeError(f'the large description was rejected: {reason}')
            time.sleep(0.5)
            loaded = rss.memory_info().rss
            ok, reason, _, _ = client.set_description(SMALL)
            time.sleep(2.0)   # the node trims its heap ~1 s after a large model left
            ok, reason, small_sent, small_answered = client.set_description(
                SMALL.replace('name="small"', 'name="small_b"'))
            if not ok:
                raise RuntimeError(f'the small description was rejected: {reason}')
            time.sleep(0.3)
            windows += [(sent, answered + 0.2), (sent - 1.0, sent),
                        (small_sent, small_answered + 0.2)]
            rows.append({'load_s': answered - sent,
                         'get_max_s': client.slowest_get(sent, answered),
                         'rss_before_mb': before / 1e6, 'rss_big_mb': loaded / 1e6,
                         'rss_after_mb': rss.memory_info().rss / 1e6})
        gaps = sink.request('report', 30.0, cmd='report', gap_windows_ns=[
            [int(a * 1e9), int(b * 1e9)] for a, b in windows])['gap_max_us']
        for k, row in enumerate(rows):
            row['tf_gap_s'], row['baseline_gap_s'], row['small_gap_s'] = \
                (gap / 1e6 for gap in gaps[3 * k:3 * k + 3])
    finally:
        client.close()
        stop_chain(None, driver, sink)
        node.send_signal(2)
        node.wait(timeout=10.0)
        os.unlink(params.name)
    print(f'description: {len(big.encode()) / 1e6:.1f} MB, {args.links} links; JointStates at '
          f'{args.rate:g} Hz; {args.trials} trials (medians; max over trials in brackets); '
          'node RSS at start '
          f'(small model, under load): {start_rss:.1f} MB')
    print_medians(rows, (('load_s', 'SetParameters round trip (load) [s]'),
                         ('tf_gap_s', 'longest /tf gap during the load [s]'),
                         ('baseline_gap_s', 'longest /tf gap in the second before [s]'),
                         ('small_gap_s', 'longest /tf gap during a small swap [s]'),
                         ('get_max_s', 'slowest GetParameters during the load [s]'),
                         ('rss_before_mb', 'node RSS before [MB]'),
                         ('rss_big_mb', 'node RSS with the large model [MB]'),
                         ('rss_after_mb', 'node RSS back on the small model [MB]')))
    return 0


if __name__ == '__main__':
    sys.exit(main())
