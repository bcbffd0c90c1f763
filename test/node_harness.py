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
Shared machinery of the node tests (imported by the node tests; not collected).

* :class:`NodeUnderTest`: a :class:`UrdfStateNode` in its own rclpy context and
  executor thread (its own DDS participant), with its log lines recorded.
* :class:`Probe`: the test side, another context/participant: /tf and
  /tf_static recorders, a JointState publisher, a SetParameters client, late
  subscribers; everything waits with deadlines, never fixed sleeps.
* :func:`compose_poses`: root-relative link poses from received transforms.
"""
from __future__ import annotations

import sys
import threading
import time
import uuid

import numpy as np
import pytest

rclpy = pytest.importorskip('rclpy')

from rcl_interfaces.srv import SetParameters  # noqa: E402 - after importorskip
from rclpy.executors import SingleThreadedExecutor  # noqa: E402 - after importorskip
from rclpy.parameter import Parameter  # noqa: E402 - after importorskip
from rclpy.qos import (  # noqa: E402 - after importorskip
    DurabilityPolicy, QoSProfile, ReliabilityPolicy)
from sensor_msgs.msg import JointState  # noqa: E402 - after importorskip
from tf2_msgs.msg import TFMessage  # noqa: E402 - after importorskip
from urdf_state_py.core.transforms import quaternion_to_matrix  # noqa: E402 - after importorskip
from urdf_state_py.node.state_publisher import UrdfStateNode  # noqa: E402 - after importorskip

DEADLINE = 15.0
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
NS = 1_000_000_000


def wait_until(predicate, timeout=DEADLINE, what='condition'):
    """Poll ``predicate`` until true; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            pytest.fail(f'timed out after {timeout} s waiting for {what}')
        time.sleep(0.01)


def as_parameter(name, value):
    """Return a Parameter; lists are string arrays (an empty list would infer as bytes)."""
    if isinstance(value, Parameter):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return Parameter(name, Parameter.Type.STRING_ARRAY, value)
    return Parameter(name, value=value)


class _Spinner:
    """A context + executor spinning in a daemon thread."""

    def __init__(self) -> None:
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self._thread = None

    def start(self, node) -> None:
        self.executor.add_node(node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # a callback failed: show it, keep spinning
                if self.context.ok():
                    import traceback
                    traceback.print_exc()

    def stop(self, node) -> None:
        self.executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
        rclpy.try_shutdown(context=self.context)
        if self._thread is not None:
            self._thread.join(timeout=5.0)


class _RecordingLogger:
    """
    Keep (level, text) for assertions and print it.

    Keeps (level, text) for assertions and prints it (rclpy's logger keys its
    throttling by call site, so one forwarding wrapper cannot serve all levels).
    """

    def __init__(self, logger) -> None:
        self._logger = logger
        self.records: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def _log(self, level, message, **kwargs):
        with self._lock:
            self.records.append((level, message))
        print(f'[{level.upper()}] [{self._logger.name}] {message}', file=sys.stderr)

    def debug(self, message, **kw):
        return self._log('debug', message, **kw)

    def info(self, message, **kw):
        return self._log('info', message, **kw)

    def warning(self, message, **kw):
        return self._log('warning', message, **kw)

    warn = warning

    def error(self, message, **kw):
        return self._log('error', message, **kw)

    def fatal(self, message, **kw):
        return self._log('fatal', message, **kw)

    def __getattr__(self, name):
        return getattr(self._logger, name)


class NodeUnderTest:
    """The node in-process with its own executor thread; ``logs`` records its log lines."""

    def __init__(self, name: str, parameters: dict | None = None, **kwargs) -> None:
        self.spinner = _Spinner()
        overrides = [as_parameter(k, v) for k, v in (parameters or {}).items()]
        # Record from construction on: patch the class's get_logger for this instance.
        self.logger = None
        holder = self

        class _Recorded(UrdfStateNode):

            def get_logger(self):
                if holder.logger is None:
                    holder.logger = _RecordingLogger(super().get_logger())
                return holder.logger

        self.node = _Recorded(name, context=self.spinner.context,
                              parameter_overrides=overrides, **kwargs)
        self.name = self.node.get_fully_qualified_name()
        self.spinner.start(self.node)

    def logs(self, level: str | None = None) -> list[str]:
        records = list(self.logger.records) if self.logger else []
        return [text for lvl, text in records if level is None or lvl == level]

    def clear_logs(self) -> None:
        if self.logger:
            self.logger.records.clear()

    def close(self) -> None:
        self.spinner.stop(self.node)


class Probe:
    """The test side: its own participant, recording /tf and /tf_static."""

    def __init__(self) -> None:
        self.spinner = _Spinner()
        self.node = rclpy.create_node('probe_' + uuid.uuid4().hex[:8],
                                      context=self.spinner.context)
        self._lock = threading.Lock()
        self.tf: list[TFMessage] = []
        self.tf_static: list[TFMessage] = []
        self._tf_subscription = self.node.create_subscription(TFMessage, '/tf', self._on_tf, 100)
        self.node.create_subscription(TFMessage, '/tf_static', self._on_static, LATCHED)
        self._js_pubs = {}
        self._param_clients = {}
        self.spinner.start(self.node)

    def _on_tf(self, msg):
        with self._lock:
            self.tf.append(msg)

    def _on_static(self, msg):
        with self._lock:
            self.tf_static.append(msg)

    def close(self) -> None:
        self.spinner.stop(self.node)

    # -- clock / joint states ------------------------------------------------

    def now_ns(self) -> int:
        return self.node.get_clock().now().nanoseconds

    def joint_state_publisher(self, topic='joint_states'):
        pub = self._js_pubs.get(topic)
        if pub is None:
            pub = self._js_pubs[topic] = self.node.create_publisher(JointState, topic, 10)
        wait_until(lambda: pub.get_subscription_count() > 0,
                   what=f'a subscriber on {topic}')
        return pub

    def publish_joint_state(self, names, positions, stamp_ns, topic='joint_states'):
        msg = JointState()
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(int(stamp_ns), NS)
        msg.name = list(names)
        msg.position = [float(p) for p in positions]
        self.joint_state_publisher(topic).publish(msg)

    def tf_publisher_matched(self) -> bool:
        """Whether a /tf writer is matched with the probe's /tf reader (not only known)."""
        subscription = self._tf_subscription
        if hasattr(subscription, 'get_publisher_count'):     # rclpy of Jazzy and newer
            return subscription.get_publisher_count() > 0
        return self.node.count_publishers('/tf') > 0

    def answer_to_state(self, names, positions, resend_after=5.0):
        """
        Publish a JointState stamped now; return the /tf message answering it.

        The answer is one /tf message, lost if either side had not matched yet (a
        writer of a node closed moments ago may still count as matched): with no
        answer after ``resend_after`` s, the same state is sent again, newly
        stamped, until DEADLINE.
        """
        wait_until(self.tf_publisher_matched, what='a /tf publisher matched with the probe')
        since = self.mark()
        stamps: set[tuple[int, int]] = set()

        def answered(msg):
            return msg.transforms and (msg.transforms[0].header.stamp.sec,
                                       msg.transforms[0].header.stamp.nanosec) in stamps
        deadline = time.monotonic() + DEADLINE
        while True:
            stamp = self.now_ns()
            stamps.add(divmod(stamp, NS))
            self.publish_joint_state(names, positions, stamp)
            wait = min(resend_after, deadline - time.monotonic())
            try:
                return self.wait_tf(answered, since, max(wait, 0.1),
                                    f'/tf stamped {stamp} (or an earlier send)')
            except pytest.fail.Exception:
                if time.monotonic() + 0.1 >= deadline:
                    raise

    # -- received transforms ---------------------------------------------------

    def tf_since(self, index=0):
        with self._lock:
            return list(self.tf[index:])

    def mark(self) -> int:
        """Index to pass to :meth:`tf_since` / :meth:`wait_tf` for 'after now'."""
        with self._lock:
            return len(self.tf)

    def wait_tf(self, predicate, since=0, timeout=DEADLINE, what='a /tf message'):
        """Return the first /tf message after ``since`` for which ``predicate(msg)`` holds."""
        def find():
            for msg in self.tf_since(since):
                if predicate(msg):
                    return msg
            return None
        return wait_until(find, timeout, what)

    def wait_tf_stamp(self, stamp_ns, since=0, timeout=DEADLINE):
        sec, nanosec = divmod(int(stamp_ns), NS)

        def match(msg):
            return msg.transforms and msg.transforms[0].header.stamp.sec == sec \
                and msg.transforms[0].header.stamp.nanosec == nanosec
        return self.wait_tf(match, since, timeout, f'/tf stamped {stamp_ns}')

    def latest_static(self):
        with self._lock:
            return self.tf_static[-1] if self.tf_static else None

    def wait_static(self, predicate, timeout=DEADLINE, what='a /tf_static message'):
        def find():
            with self._lock:
                for msg in reversed(self.tf_static):
                    if predicate(msg):
                        return msg
            return None
        return wait_until(find, timeout, what)

    def late_latched(self, topic, msg_type=TFMessage, predicate=lambda m: True,
                     timeout=DEADLINE):
        """Subscribe now (a late joiner) and return the first message matching ``predicate``."""
        got = []
        sub = self.node.create_subscription(msg_type, topic, got.append, LATCHED)
        try:
            return wait_until(lambda: next((m for m in list(got) if predicate(m)), None),
                              timeout, f'latched {topic} for a late subscriber')
        finally:
            self.node.destroy_subscription(sub)

    # -- parameters --------------------------------------------------------------

    def set_parameters(self, node_name: str, timeout=DEADLINE, **values):
        """Call ``<node>/set_parameters`` (what ``ros2 param set`` does); list of results."""
        return set_parameters(self.node, self._param_clients, node_name, timeout, **values)


def set_parameters(node, clients: dict, node_name: str, timeout=DEADLINE, **values):
    """
    Call ``<node_name>/set_parameters`` and return its results.

    ``<node_name>/set_parameters`` from ``node`` (its executor spinning elsewhere);
    ``clients`` caches one client per target. The list of SetParametersResults.
    """
    client = clients.get(node_name)
    if client is None:
        client = clients[node_name] = node.create_client(SetParameters,
                                                         f'{node_name}/set_parameters')
    wait_until(lambda: client.service_is_ready(), timeout,
               f'service {node_name}/set_parameters')
    request = SetParameters.Request()
    request.parameters = [as_parameter(k, v).to_parameter_msg() for k, v in values.items()]
    future = client.call_async(request)
    wait_until(future.done, timeout, 'the set_parameters response')
    return future.result().results


def transform_map(*messages):
    """Child frame -> (parent frame, 4x4) over the given TFMessages (later wins)."""
    out = {}
    for msg in messages:
        if msg is None:
            continue
        for t in msg.transforms:
            m = np.eye(4)
            r = t.transform.rotation
            m[:3, :3] = quaternion_to_matrix(np.array([r.x, r.y, r.z, r.w]))
            v = t.transform.translation
            m[:3, 3] = (v.x, v.y, v.z)
            out[t.child_frame_id] = (t.header.frame_id, m)
    return out


def compose_poses(transforms, root):
    """Root-relative pose of every frame reachable from ``root`` through ``transforms``."""
    poses = {root: np.eye(4)}

    def pose(frame, depth=0):
        if frame in poses:
            return poses[frame]
        if frame not in transforms or depth > 1000:
            return None
        parent, m = transforms[frame]
        p = pose(parent, depth + 1)
        if p is None:
            return None
        poses[frame] = p @ m
        return poses[frame]

    for frame in list(transforms):
        pose(frame)
    return poses
