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
Load generator process: publishes JointState (or TFMessage, for the floor) at a pinned rate.

Run as ``python -m urdf_state_bench.driver SPEC.json`` with a loopback
environment. ``SPEC.json``::

    {"mode": "js", "topic": "joint_states", "names": [...], "lower": [...], "upper": [...]}
    (+ "raw": true: one pre-serialised message, only its stamp changes -- floods;
     + "odd_stamps": true: every stamp an odd number of ns, so never on a whole
     millisecond, where a soak stamps the messages it checks)
    {"mode": "tf", "topic": "/tf", "parents": [...], "children": [...]}
    (+ "topics": [...] instead of "topic": message k goes to topics[k % len(topics)],
     e.g. one JointState stream shared by the robots of a container)

Protocol: JSON lines. Commands on stdin:

- ``{"cmd": "run", "rate": R, "duration": D}``: publish for D seconds at R Hz
  (``R <= 0``: as fast as possible);
- ``{"cmd": "quit"}``.

Events on stdout: ``{"event": "ready", ...}`` once a subscriber is matched,
``{"event": "done", "sent": n, "refused": m, "t_first_ns": ..., "t_last_ns": ...,
"elapsed": s, "cpu_s": ...}`` after each run (``refused``: writes the blocked reliable
writer failed; not in ``sent``).

The rate is pinned with absolute ``perf_counter`` targets and ``time.sleep``
of the remaining slack (no busy wait); a late message is sent at once, so the
average rate holds even when single sleeps overshoot. ``JointState`` values
random-walk within the joint limits; the stamp is ``time.time_ns()`` (the ROS
system clock) at publish time. In ``tf`` mode (the floor) the TFMessage is
serialised once and only its stamps are patched per message (``"raw": false``:
fill the transforms and let rclpy serialise, which costs far more); the
``ready`` event reports what fill + serialise would cost per message.
"""

from __future__ import annotations

import array
import json
import math
import sys
import time

import numpy as np

from .common import command_lines


def emit(**event) -> None:
    sys.stdout.write(json.dumps(event) + '\n')
    sys.stdout.flush()


class JointStateSource:

    def __init__(self, spec: dict, seed: int = 7):
        from sensor_msgs.msg import JointState
        self.msg = JointState()
        self.msg.name = list(spec['names'])
        lo = np.array(spec['lower'], float)
        hi = np.array(spec['upper'], float)
        lo = np.where(np.isfinite(lo), lo, -math.pi)
        hi = np.where(np.isfinite(hi), hi, math.pi)
        self.lo, self.hi = lo, hi
        self.step = 0.01 * (hi - lo)
        self.rng = np.random.default_rng(seed)
        self.q = 0.5 * (lo + hi)
        # precomputed noise, cycled: the driver must stay cheap
        self.noise = self.rng.standard_normal((1024, len(lo))) * self.step
        self.k = 0

    def next(self, stamp_ns: int):  # noqa: A003 - a method; the builtin stays reachable
        q = self.q + self.noise[self.k & 1023]
        self.k += 1
        np.clip(q, self.lo, self.hi, out=q)
        self.q = q
        self.msg.position = array.array('d', q.tobytes())
        st = self.msg.header.stamp
        st.sec, st.nanosec = divmod(stamp_ns, 1_000_000_000)
        return self.msg


class RawJointStateSource:
    """
    One JointState serialised once; per message only its stamp is patched.

    One JointState serialised once; per message only its stamp is patched (floods:
    the cheapest publisher, so that a few processes reach tens of thousands per second).
    """

    def __init__(self, spec: dict, seed: int = 7):
        import struct

        from rclpy.serialization import serialize_message
        msg = JointStateSource(spec, seed).next(0)
        self.template = bytearray(serialize_message(msg))
        self.pack = struct.Struct('<iI').pack_into  # header.stamp right after the CDR header

    def next(self, stamp_ns: int):  # noqa: A003 - a method; the builtin stays reachable
        self.pack(self.template, 4, *divmod(stamp_ns, 1_000_000_000))
        return bytes(self.template)


class RawTfSource:
    """
    The TFMessage serialised once; per message only the stamps are patched in the bytes.

    The transport floor: what publishing a message of this size costs with no
    FK and (almost) no Python message building.
    """

    def __init__(self, spec: dict, seed: int = 7):
        import struct

        from rclpy.serialization import serialize_message
        from urdf_state_py.node.tf_path.tf_message_cdr import decode_layout
        inner = TfSource(spec, seed)
        data = serialize_message(inner.msg)
        layout = decode_layout(data, max_frame_id=None)
        if layout.order != '<':   # next() and the C floor write little-endian stamps
            raise RuntimeError('the serialised TFMessage is not little-endian')
        self.offsets = (layout.stamp_words * 4 + 4).tolist()   # byte offsets of each stamp
        self.template = bytes(data)
        self.pack = struct.Struct('<iI').pack_into
        # what building + serialising the message in Python would cost instead
        n = 200
        t0 = time.perf_counter()
        for _ in range(n):
            serialize_message(inner.next(time.time_ns()))
        self.msg_build_us = (time.perf_counter() - t0) / n * 1e6

    def next(self, stamp_ns: int):  # noqa: A003 - a method; the builtin stays reachable
        buf = bytearray(self.template)
        sec, nsec = divmod(stamp_ns, 1_000_000_000)
        pack = self.pack
        for off in self.offsets:
            pack(buf, off, sec, nsec)
        return bytes(buf)


class TfSource:

    def __init__(self, spec: dict, seed: int = 7):
        from geometry_msgs.msg import TransformStamped
        from tf2_msgs.msg import TFMessage
        rng = np.random.default_rng(seed)
        n = len(spec['children'])
        self.transforms = []
        for parent, child in zip(spec['parents'], spec['children']):
            t = TransformStamped()
            t.header.frame_id = parent
            t.child_frame_id = child
            self.transforms.append(t)
        self.msg = TFMessage(transforms=self.transforms)
        quat = rng.standard_normal((16, n, 4))
        quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
        self.values = [(rng.standard_normal((n, 3)).tolist(), quat[i].tolist()) for i in range(16)]
        self.k = 0

    def next(self, stamp_ns: int):  # noqa: A003 - a method; the builtin stays reachable
        xyz, xyzw = self.values[self.k & 15]
        self.k += 1
        sec, nsec = divmod(stamp_ns, 1_000_000_000)
        for t, p, r in zip(self.transforms, xyz, xyzw):
            t.header.stamp.sec = sec
            t.header.stamp.nanosec = nsec
            tr = t.transform.translation
            tr.x, tr.y, tr.z = p
            ro = t.transform.rotation
            ro.x, ro.y, ro.z, ro.w = r
        return self.msg


class RoundRobin:
    """Publishers taking the messages in turn (one: the publisher itself, unchanged)."""

    def __init__(self, publishers: list) -> None:
        self._publishers = publishers
        self._next = 0
        if len(publishers) == 1:
            self.publish = publishers[0].publish

    def publish(self, msg) -> None:
        self._publishers[self._next].publish(msg)
        self._next = (self._next + 1) % len(self._publishers)

    def get_subscription_count(self) -> int:
        """Return the fewest subscribers of any of the topics."""
        return min(p.get_subscription_count() for p in self._publishers)


def run_rate(pub, source, rate: float, duration: float, odd_stamps: bool = False) -> dict:
    """Publish ``source``'s messages at ``rate`` for ``duration`` s; the ``done`` figures."""
    publish = pub.publish
    odd = int(odd_stamps)
    nxt = source.next
    now_ns = time.time_ns
    perf = time.perf_counter
    sent = refused = 0
    t_first = t_last = None
    cpu0 = time.process_time()
    t0 = perf()
    end = t0 + duration
    # Paced: message k at t0 + k / rate (catching up after a late one); max: until ``end``.
    period = 1.0 / rate if rate > 0 else 0.0
    n_total = max(1, int(round(duration * rate))) if rate > 0 else None
    k = 0
    while (k < n_total) if n_total is not None else (perf() < end):
        if period:
            slack = t0 + k * period - perf()
            if slack > 0:
                time.sleep(slack)
        stamp = now_ns() | odd
        k += 1
        try:
            publish(nxt(stamp))
        except Exception:  # RCLError: the reliable writer stayed blocked
            refused += 1   # (a flooded reader pushes back; Fast DDS 3 then fails the write)
            continue
        if t_first is None:
            t_first = stamp
        t_last = stamp
        sent += 1
    elapsed = perf() - t0
    return {'sent': sent, 'refused': refused, 't_first_ns': t_first, 't_last_ns': t_last,
            'elapsed': elapsed, 'cpu_s': time.process_time() - cpu0, 'rate': rate}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding='utf-8') as f:
        spec = json.load(f)
    from .common import ensure_loopback
    ensure_loopback()
    import rclpy
    from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
    rclpy.init(args=['--ros-args', '--disable-rosout-logs'])
    node = rclpy.create_node(f'bench_driver_{spec["mode"]}')
    if spec['mode'] == 'js':
        from sensor_msgs.msg import JointState
        source = RawJointStateSource(spec) if spec.get('raw') else JointStateSource(spec)
        msg_type = JointState
    else:
        from tf2_msgs.msg import TFMessage
        source = RawTfSource(spec) if spec.get('raw', True) else TfSource(spec)
        msg_type = TFMessage
    # reliable (tf2's QoS for /tf; compatible with a best-effort subscriber too)
    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                     history=HistoryPolicy.KEEP_LAST)
    pub = RoundRobin([node.create_publisher(msg_type, topic, qos) for topic in
                      spec.get('topics', [spec.get('topic', 'joint_states')])])
    deadline = time.monotonic() + float(spec.get('match_timeout', 30.0))
    while pub.get_subscription_count() < int(spec.get('min_subscribers', 1)):
        if time.monotonic() > deadline:
            emit(event='error', error='no subscriber matched')
            return 2
        time.sleep(0.01)
    emit(event='ready', subscribers=pub.get_subscription_count(),
         msg_build_us=getattr(source, 'msg_build_us', None))
    try:
        for cmd in command_lines(sys.stdin):
            if cmd.get('cmd') == 'run':
                emit(event='done', **run_rate(pub, source, float(cmd.get('rate', 0)),
                                              float(cmd.get('duration', 1.0)),
                                              bool(spec.get('odd_stamps'))))
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
