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
The I/O floor of the node: the same JointState -> /tf loop with no work in between.

``python -m urdf_state_py.tools.bench.floor_node SPEC.json [--c] --ros-args ...``
(SPEC: the ``tf`` spec of :func:`urdf_state_py.tools.bench.e2e.model_spec`).

It subscribes to ``joint_states`` (raw, sensor-data QoS, as the node) and serves
it with the node's own :class:`~urdf_state_py.node.tf_path.hot_path.HotPath` thread
(the native wait, every message handed to Python);
each message only has its stamp copied into a pre-serialised TFMessage of the
robot's size, which is published on ``/tf`` (reliable, depth 100, as the
node). Measured with the user protocol, node CPU per update minus this floor
is what decoding, the fast path and the model cost: everything else is rclpy,
Fast DDS and the wake-ups, which no Python node can avoid.

``--c``: the C floor -- the same subscription, publisher and stamp copy, served
by the native extension's ``floor_run`` (rcl wait set, take, publish, all in C
without the GIL): what the I/O costs with no Python on the way at all.
"""

from __future__ import annotations

import json
import struct
import sys

from .driver import RawTfSource


def _module():
    """Return the extension, also with URDF_STATE_NATIVE=off (that switches the node only)."""
    from urdf_state_py.node.tf_path import native

    found = native.loadable()
    if found.module is None:
        raise RuntimeError(f'no floor: {found.reason}')
    return found.module


def _c_floor_path(hot_path_cls):
    """Return a HotPath whose thread runs the native ``floor_run`` instead of the loop."""
    module = _module()

    class CFloorPath(hot_path_cls):
        tf_template = b''
        tf_offsets: tuple = ()

        def _run(self) -> None:
            pub, context, guard = self._tf_publisher.handle, self._context.handle, \
                self._guard.handle
            with pub, guard, context:  # none destroyed under the C loop
                counts = module.floor_run(context.pointer, self._owned[0].pointer, pub.pointer,
                                          guard.pointer, self.tf_template, self.tf_offsets)
            if not counts[3] or counts[2]:
                self._errors.record(RuntimeError(f'C floor: {counts}'))

    return CFloorPath


def _floor_node(spec: dict, c_floor: bool = False):
    """Return the floor as an rclpy Node (imports deferred: rclpy must be initialised first)."""
    from rclpy.node import Node
    from rclpy.qos import HistoryPolicy, qos_profile_sensor_data, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage
    from urdf_state_py.node.tf_path.hot_path import HotPath, MessageErrors

    class FloorNode(Node):

        def __init__(self) -> None:
            super().__init__('urdf_state_floor')
            tf = RawTfSource(spec)
            publisher = self.create_publisher(TFMessage, '/tf', QoSProfile(
                depth=100, reliability=ReliabilityPolicy.RELIABLE,
                history=HistoryPolicy.KEEP_LAST))
            stamp = struct.Struct('<iI')
            template = bytearray(tf.template)

            def republish(data: bytes) -> None:
                sec, nanosec = stamp.unpack_from(data, 4)
                for at in tf.offsets:
                    stamp.pack_into(template, at, sec, nanosec)
                publisher.publish(bytes(template))

            subscription = self.create_subscription(JointState, 'joint_states', republish,
                                                    qos_profile_sensor_data, raw=True)
            path_cls = _c_floor_path(HotPath) if c_floor else HotPath
            self._hot = path_cls.attach(self, _module(),
                                        [(subscription, 'joint_states', republish)],
                                        MessageErrors(self.get_logger()), tf_publisher=publisher)
            if c_floor:
                self._hot.tf_template, self._hot.tf_offsets = bytes(template), tuple(tf.offsets)
            self._hot.start()

        def destroy_node(self) -> None:
            self._hot.stop()
            super().destroy_node()

    return FloorNode()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding='utf-8') as f:
        spec = json.load(f)
    c_floor = '--c' in argv[1:2]
    from urdf_state_py.node.process.spin import spin_until_shutdown
    spin_until_shutdown(lambda: _floor_node(spec, c_floor), args=argv[1 + c_floor:])
    return 0


if __name__ == '__main__':
    sys.exit(main())
