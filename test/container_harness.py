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
The container in a process of its own, driven through its real composition services.

:class:`Container` starts ``python -m urdf_state_py.node.process.container`` (what
``ros2 run urdf_state_py urdf_state_container`` runs), keeps its log in a file,
and calls LoadNode / UnloadNode / ListNodes from the test's :class:`Probe`
participant, as ``ros2 component`` and launch_ros do. Every wait has a deadline
and waits for a condition (services up, answers), never a fixed time.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rclpy')

from composition_interfaces.srv import (  # noqa: E402, I100 - after the importorskip
    ListNodes, LoadNode, UnloadNode)
from node_harness import (  # noqa: E402 - after the importorskip
    as_parameter, compose_poses, DEADLINE, NS, transform_map, wait_until)
from rcl_interfaces.srv import GetParameters  # noqa: E402 - after the importorskip
from rclpy.qos import (  # noqa: E402 - after the importorskip
    DurabilityPolicy, QoSProfile, ReliabilityPolicy)
from tf2_msgs.msg import TFMessage  # noqa: E402 - after the importorskip
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after the importorskip
from urdf_state_py.node.process.load_request import (  # noqa: E402 - after the importorskip
    PACKAGE, PLUGIN)

#: The container's start: a cold Python with rclpy, on a loaded machine.
START_DEADLINE = 90.0


class Container:
    """A container process and the probe's clients of its services."""

    def __init__(self, probe, name: str, **parameters) -> None:
        self.probe = probe
        self.name = f'/{name}'
        #: the longest a call waits for its answer unless told (a soak on a loaded machine
        #: sets more)
        self.deadline = DEADLINE
        self._log = tempfile.NamedTemporaryFile('w+', prefix='container-', suffix='.log')
        args = ['--ros-args', '-r', f'__node:={name}']
        for key, value in parameters.items():
            args += ['-p', f'{key}:={str(value).lower() if isinstance(value, bool) else value}']
        self.process = subprocess.Popen(
            [sys.executable, '-m', 'urdf_state_py.node.process.container', *args],
            stdout=self._log, stderr=subprocess.STDOUT, env=dict(os.environ))
        node = probe.node
        base = f'{self.name}/_container/'
        self._load = node.create_client(LoadNode, base + 'load_node')
        self._unload = node.create_client(UnloadNode, base + 'unload_node')
        self._list = node.create_client(ListNodes, base + 'list_nodes')
        wait_until(lambda: all(c.service_is_ready() for c in (self._load, self._unload,
                                                              self._list))
                   or self.process.poll() is not None, START_DEADLINE,
                   f'the services of {self.name}')
        assert self.process.poll() is None, self.log()

    def call(self, client, request, timeout: float | None = None):
        future = client.call_async(request)
        timeout = self.deadline if timeout is None else timeout
        wait_until(future.done, timeout, f'an answer from {client.srv_name}')
        return future.result()

    def load(self, namespace: str = '', parameters: dict | None = None, *,
             timeout: float | None = None, **fields) -> LoadNode.Response:
        """Return a LoadNode of the plugin (``fields`` override the request's fields)."""
        request = LoadNode.Request(package_name=PACKAGE, plugin_name=PLUGIN,
                                   node_namespace=namespace)
        request.parameters = [as_parameter(k, v).to_parameter_msg()
                              for k, v in (parameters or {}).items()]
        for key, value in fields.items():
            setattr(request, key, value)
        return self.call(self._load, request, timeout)

    def loaded(self, namespace: str, parameters: dict) -> int:
        """Load and return the unique id; fails the test with the container's reason."""
        answer = self.load(namespace, parameters, timeout=60.0)
        assert answer.success, answer.error_message
        return answer.unique_id

    def unload(self, unique_id: int) -> UnloadNode.Response:
        return self.call(self._unload, UnloadNode.Request(unique_id=unique_id))

    def listed(self) -> dict[int, str]:
        answer = self.call(self._list, ListNodes.Request())
        assert len(answer.unique_ids) == len(answer.full_node_names)
        return dict(zip(answer.unique_ids, answer.full_node_names))

    def get_parameter(self, node_name: str, name: str, timeout: float = DEADLINE):
        """``<node>/get_parameters`` for one name; the rcl_interfaces ParameterValue."""
        client = self.probe.node.create_client(GetParameters, f'{node_name}/get_parameters')
        try:
            wait_until(client.service_is_ready, timeout, f'{node_name}/get_parameters')
            return self.call(client, GetParameters.Request(names=[name]), timeout).values[0]
        finally:
            self.probe.node.destroy_client(client)

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30.0) -> int:
        """Signal the container; its exit status (fails the test if it does not end)."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f'the container did not end within {timeout} s of signal {sig}:\n'
                        + self.log())

    def log(self) -> str:
        self._log.flush()
        with open(self._log.name, encoding='utf-8', errors='replace') as stream:
            return stream.read()

    def close(self) -> None:
        self.stop()
        for client in (self._load, self._unload, self._list):
            self.probe.node.destroy_client(client)
        self._log.close()


def assert_tf_matches_fk(probe, model, prefix: str, topic: str, values: dict,
                         tol: float = 1e-9) -> None:
    """
    Publish ``values`` on ``topic`` and check ``prefix``'s TF against the library's FK.

    Every link pose composed from the received /tf and /tf_static frames of ``prefix``
    equals the library's FK.
    """
    kin = Kinematics(model)
    fixed = {prefix + j.child for j in model.joints if not j.is_movable}
    static = latched_static(probe, lambda m: fixed <= {t.child_frame_id for t in m.transforms},
                            f'/tf_static of {prefix}')
    moving = answer_to(probe, values, topic)
    frames = transform_map(static, moving)
    ours = {child[len(prefix):]: (parent[len(prefix):], m)
            for child, (parent, m) in frames.items() if child.startswith(prefix)}
    poses = compose_poses(ours, model.root)
    assert set(poses) == set(model.link_names)
    expected = kin.link_poses(kin.positions(values))
    worst = max(np.abs(poses[link] - expected[i]).max()
                for i, link in enumerate(model.link_names))
    assert worst < tol, f'{prefix}: max deviation {worst}'


#: What tf2's static listener uses: every robot's writer keeps its one latched message,
#: and a late reader with depth 1 could lose all but the last of them.
STATIC_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                        durability=DurabilityPolicy.TRANSIENT_LOCAL)


def latched_static(probe, predicate, what: str) -> TFMessage:
    """Return the first /tf_static message matching ``predicate`` a reader joining now gets."""
    got: list[TFMessage] = []
    sub = probe.node.create_subscription(TFMessage, '/tf_static', got.append, STATIC_QOS)
    try:
        return wait_until(lambda: next((m for m in list(got) if predicate(m)), None),
                          DEADLINE, what)
    finally:
        probe.node.destroy_subscription(sub)


def answer_to(probe, values: dict, topic: str, timeout: float = DEADLINE) -> TFMessage:
    """
    Return the /tf message answering a JointState of ``values`` on ``topic``.

    Sent again, freshly stamped, every second until one is answered: a best-effort
    reader drops what a writer sends before the reader has matched it too, and the
    writer's side of the match (what ``get_subscription_count`` shows) can come first.
    """
    since = probe.mark()
    stamps: set[tuple[int, int]] = set()

    def answered():
        if not stamps or time.monotonic() - sent[0] >= 1.0:
            stamp = probe.now_ns()
            probe.publish_joint_state(list(values), list(values.values()), stamp, topic=topic)
            stamps.add(divmod(stamp, NS))
            sent[0] = time.monotonic()
        return next((m for m in probe.tf_since(since) if m.transforms and (
            m.transforms[0].header.stamp.sec, m.transforms[0].header.stamp.nanosec) in stamps),
            None)

    sent = [0.0]
    return wait_until(answered, timeout, f'/tf answering a JointState on {topic}')
