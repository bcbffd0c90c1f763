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

``python -m urdf_state_bench.floor_node SPEC.json [--c] --ros-args ...``
(SPEC: the ``tf`` spec of :func:`urdf_state_bench.e2e.model_spec`).

It subscribes to ``joint_states`` (raw, sensor-data QoS, as the node) and serves
it with the node's own :class:`~urdf_state_py.node.tf_path.hot_path.HotPath` thread
(the native wait, every message handed to Python);
each message only has its stamp copied into a pre-serialised TFMessage of the
robot's size, which is published on ``/tf`` (reliable, depth 100, as the
node). Measured with the user protocol, node CPU per update minus this floor
is what decoding, the fast path and the model cost: everything else is rclpy,
Fast DDS and the wake-ups, which no Python node can avoid.

``--c``: the C floor -- the same subscription, publisher and stamp copy, served
by the benchmark's own extension ``urdf_state_floor`` (bench/floor, built by
``./dev.sh``: rcl wait set, take, publish, all in C without the GIL): what the I/O
costs with no Python on the way at all.
"""

from __future__ import annotations

import json
import struct
import sys
import threading

from .driver import RawTfSource


class CFloor:
    """
    The C floor's thread: ``urdf_state_floor.run`` on ``node``'s JointState ``topic``.

    It subscribes on the node's rcl handle itself (rclpy's executor never sees that
    subscription) and publishes ``template``, its stamps at ``offsets`` patched, on
    ``publisher``; ``stop()`` triggers its guard condition and joins it.
    """

    def __init__(self, node, topic: str, publisher, template: bytes,
                 offsets: tuple[int, ...]) -> None:
        import urdf_state_floor
        self._floor = urdf_state_floor
        self._node, self._topic, self._publisher = node, topic, publisher
        self._template, self._offsets = bytes(template), tuple(offsets)
        self._guard = node.create_guard_condition(lambda: None)
        self._thread = threading.Thread(target=self._run, name='urdf_state_c_floor',
                                        daemon=True)
        #: (published, skipped, errors, ok) once the thread returned
        self.counts: tuple | None = None

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._guard.trigger()
        self._thread.join(timeout)

    def _run(self) -> None:
        node, pub = self._node.handle, self._publisher.handle
        context, guard = self._node.context.handle, self._guard.handle
        with node, pub, guard, context:  # none destroyed under the C loop
            self.counts = self._floor.run(context.pointer, node.pointer, self._topic,
                                          pub.pointer, guard.pointer, self._template,
                                          self._offsets)
        if not self.counts[3] or self.counts[2]:
            self._node.get_logger().error(f'C floor: {self.counts}')


def _module():
    """Return the extension, also with URDF_STATE_NATIVE=off (that switches the node only)."""
    from urdf_state_py.node.tf_path import native

    found = native.loadable()
    if found.module is None:
        raise RuntimeError(f'no floor: {found.reason}')
    return found.module


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

            if c_floor:
                self._hot = CFloor(self, 'joint_states', publisher, template, tf.offsets)
            else:
                subscription = self.create_subscription(
                    JointState, 'joint_states', republish, qos_profile_sensor_data, raw=True)
                self._hot = HotPath.attach(self, _module(),
                                           [(subscription, 'joint_states', republish)],
                                           MessageErrors(self.get_logger()),
                                           tf_publisher=publisher)
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
