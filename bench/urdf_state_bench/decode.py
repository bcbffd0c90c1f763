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
Micro-benchmark of the node's JointState callback and of the raw decoder, without DDS.

``python -m urdf_state_bench.decode [--robot PATH] [--trials N]``

The node is built in-process (its own context, topics remapped away from
/tf and joint_states) and its joint_states callback is called directly with a
serialised JointState of every movable joint of the robot (default: the
bundled H1_2): the decoder, the fast path and the publish of the
pre-serialised /tf, as each message pays them. Prints medians over trials of
the per-message time of the decoder alone and of the whole callback, with
publish_frequency 0 (every message is published). Run it on two checkouts
(e.g. ``PYTHONPATH=<other checkout> python <this file>``) to compare them in
one session; the machine's noise is in the spread of the trials.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import time

import rclpy
from rclpy.parameter import Parameter
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState
from urdf_state_py.node.state_publisher import UrdfStateNode
from urdf_state_py.node.tf_path.joint_state_cdr import JointStateReader


def _per_call_us(call, data: bytes, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        call(data)
    return (time.perf_counter() - start) / number * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--robot', type=Path, help='a URDF (default: the bundled H1_2)')
    ap.add_argument('--trials', type=int, default=15)
    ap.add_argument('--number', type=int, default=2000, help='calls per trial')
    args = ap.parse_args(argv)
    robot = args.robot or Path(__file__).resolve().parents[2] / 'robots' / 'h1_2' / 'h1_2.urdf'

    context = rclpy.Context()
    rclpy.init(context=context)
    node = UrdfStateNode(
        'urdf_state_bench_decode', context=context,
        cli_args=['--ros-args', '-r', '/tf:=/bench_decode_tf', '-r',
                  'joint_states:=bench_decode_joint_states'],
        parameter_overrides=[Parameter('robot_description', value=robot.read_text()),
                             Parameter('publish_frequency', value=0.0)])
    try:
        model = node.model
        names = [j.name for j in model.joints if j.is_movable and not j.is_mimic
                 and len(j.variable_names) == 1]
        defaults = model.default_positions()     # within every joint's limits: no clamping
        msg = JointState(name=names, position=[float(defaults[n]) for n in names])
        payload = serialize_message(msg)   # one payload (its name padding bytes stay the same)
        callback = node.joint_input.on_raw
        reader = JointStateReader()
        stamps = [0]

        def restamped(data):    # a new stamp per call: nothing is rate-limited
            stamps[0] += 1
            return data[:4] + int(stamps[0]).to_bytes(4, 'little') + data[8:]
        series = {'decoder': [], 'callback': []}
        for _ in range(args.trials):
            series['decoder'].append(_per_call_us(reader.read, payload, args.number))
            series['callback'].append(_per_call_us(
                lambda d: callback(restamped(d)), payload, args.number))
        restamp = _per_call_us(restamped, payload, args.number)
        print(f"robot '{model.name}', {len(names)} joints per JointState, "
              f'{args.trials} trials x {args.number} calls (median, spread):')
        for key, values in series.items():
            value = statistics.median(values)
            if key == 'callback':
                value -= restamp   # the benchmark's own re-stamping
            print(f'  {key:9s} {value:7.2f} µs/message  '
                  f'[{min(values):.2f} .. {max(values):.2f}]')
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
