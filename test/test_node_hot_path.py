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
joint_states served by the hot path's own thread: the step's bytes, atomic swaps.

The /tf side records raw CDR bytes (no deserialisation, so a 1 kHz stream stays
cheap in this process) and every expectation is the JointState step computed
here: JointStateMerger -> Kinematics.resolve -> MovingTransforms.payload_at.
"""
from __future__ import annotations

import struct
import threading
import time
import uuid

from node_harness import _Spinner, NodeUnderTest, NS, Probe, wait_until
import numpy as np
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import serialize_message
from robot_files import corpus_file, H1_2
from sensor_msgs.msg import JointState
from test_node_joint_states import MULTI_DOF, TOY
from tf2_msgs.msg import TFMessage
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model
from urdf_state_py.node.guards import INTERNAL_ERROR
from urdf_state_py.node.tf_path.hot_path import unavailable_reason
from urdf_state_py.node.tf_path.joint_state_merger import JointStateMerger
from urdf_state_py.node.tf_path.tf_publishing import MovingTransforms

pytestmark = pytest.mark.ros  # needs rclpy and DDS

_FIRST_STAMP = struct.Struct('<ii')  # after the CDR header and the sequence length

#: TOY with rotating joints only: every name list of it gets a native plan.
REVOLUTE = TOY.replace('name="toy"', 'name="revolute"').replace('"prismatic"', '"revolute"')


class RawSide:
    """The test side: a raw /tf recorder, a JointState publisher, a parameter client."""

    set_parameters = Probe.set_parameters

    def __init__(self) -> None:
        import rclpy
        self.spinner = _Spinner()
        self.node = rclpy.create_node('raw_side_' + uuid.uuid4().hex[:8],
                                      context=self.spinner.context)
        self._param_clients = {}
        self.lock = threading.Lock()
        self.tf: dict[int, list[bytes]] = {}   # first stamp (ns) -> payloads
        self.node.create_subscription(TFMessage, '/tf', self._on_tf,
                                      QoSProfile(depth=1000,
                                                 reliability=ReliabilityPolicy.RELIABLE),
                                      raw=True)
        self.spinner.start(self.node)

    def _on_tf(self, data: bytes) -> None:
        sec, nanosec = _FIRST_STAMP.unpack_from(data, 8)
        with self.lock:
            self.tf.setdefault(sec * NS + nanosec, []).append(bytes(data))

    def received(self) -> dict[int, list[bytes]]:
        with self.lock:
            return {k: list(v) for k, v in self.tf.items()}

    def close(self) -> None:
        self.spinner.stop(self.node)


def joint_state_bytes(names, values, stamp_ns: int) -> bytes:
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, NS)
    msg.name = list(names)
    msg.position = [float(v) for v in values]
    return serialize_message(msg)


class GeneralPath:
    """The node's JointState step for one model, as the reference."""

    def __init__(self, description: str, prefix: str = '') -> None:
        self.model = load_model(description)
        self.kin = Kinematics(self.model)
        self.merger = JointStateMerger(self.model, self.kin.variable_index,
                                       self.kin.default_positions(), frequency=0.0,
                                       ignore_timestamp=True)
        self.moving = MovingTransforms(self.kin, prefix)

    def payload(self, names, values, stamp_ns: int) -> bytes:
        update = self.merger.update(names, np.asarray(values, dtype=float), stamp_ns, None)
        assert update.publish
        q_eff, _ = self.kin.resolve(self.merger.q)
        data = self.moving.payload_at(update.joints, q_eff, *divmod(stamp_ns, NS))
        return data if isinstance(data, bytes) else serialize_message(data)


def send_until_tf(side: RawSide, pub, names, values, stamp: int) -> bytes:
    """
    Re-send a JointState until its /tf arrives; return its first payload.

    Best effort (and /tf discovery): re-send the same message until the /tf stamped
    ``stamp`` arrives; its first payload. The deadline is a bound, not an expectation (met
    in milliseconds at rest): a loaded machine once took over 15 s (Kilted, in CI).
    """
    deadline = time.monotonic() + 60.0
    while stamp not in side.received():
        assert time.monotonic() < deadline, f'no /tf for the message stamped {stamp}'
        pub.publish(joint_state_bytes(names, values, stamp))
        retry = time.monotonic() + 0.2
        while stamp not in side.received() and time.monotonic() < retry:
            time.sleep(0.002)
    return side.received()[stamp][0]


def driven_variables(model) -> list[str]:
    return [v for j in model.joints if j.is_movable and not j.is_mimic for v in j.variable_names]


def in_limit_values(model, names, rng, margin=0.0):
    bounds = model.variable_bounds()
    lo = np.array([bounds.get(n, (-1.0, 1.0))[0] for n in names])
    hi = np.array([bounds.get(n, (-1.0, 1.0))[1] for n in names])
    lo, hi = np.where(np.isfinite(lo), lo, -3.0), np.where(np.isfinite(hi), hi, 3.0)
    return rng.uniform(lo - margin, hi + margin)


@pytest.fixture(scope='module')
def side():
    s = RawSide()
    yield s
    s.close()


@pytest.mark.parametrize('robot, hot', [('talos', True), ('h1_2', True), ('multi_dof', True),
                                        ('h1_2', False)],
                         ids=['talos', 'h1_2', 'multi_dof', 'h1_2-executor-path'])
def test_hot_path_tf_equals_the_general_path_byte_for_byte(side, robot, hot):
    # hot=False: the executor serves joint_states (Humble's path), same bytes expected
    if robot == 'talos':   # skips with the corpus' reason when it is absent
        description = corpus_file(
            'example_robot_data/talos_data/robots/talos_full_v2.urdf').read_text()
    elif robot == 'h1_2':
        description = H1_2.read_text()
    else:
        description = MULTI_DOF
    ns = f'/hot_{robot}_{int(hot)}'
    node = NodeUnderTest(f'urdf_state_hot_{robot}', {
        'robot_description': description, 'publish_frequency': 0.0, 'ignore_timestamp': True},
        namespace=ns, hot_path=hot)
    try:
        hot_path = node.node.joint_input.hot_path
        assert (hot_path is not None and hot_path.running) if hot else hot_path is None
        # the hot path's subscription is the extension's; the executor's is rclpy's
        assert (node.node.joint_input.subscription in list(node.node.subscriptions)) != hot
        pub = side.node.create_publisher(JointState, f'{ns}/joint_states', 100)
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing')
        reference = GeneralPath(description)
        names = driven_variables(reference.model)
        rng = np.random.default_rng(10)
        stamp = time.time_ns()
        for k in range(40):
            # in limits mostly (the fast path's case, H1_2's thumbs clamping), some beyond
            values = in_limit_values(reference.model, names, rng, margin=0.3 if k % 7 == 3 else 0)
            stamp += 1_000_000
            expected = reference.payload(names, values, stamp)
            got = send_until_tf(side, pub, names, values, stamp)
            assert got == expected, f'message {k}: /tf bytes differ from the JointState step'
        side.node.destroy_publisher(pub)
    finally:
        node.close()


@pytest.mark.parametrize('model_a', [TOY, REVOLUTE], ids=['prismatic', 'revolute'])
def test_a_model_swap_during_a_1khz_stream_never_mixes_two_models(side, model_a):
    """
    Check a model swap during a 1 kHz stream never mixes two models.

    With a prismatic joint in the name list every message takes the Python path; with
    rotating joints only, the native loop (where it serves) installs each model's plan
    after its swap and serves the stream with it.
    """
    model_b = model_a.replace('name="toy"', 'name="toy_b"').replace(
        '<origin xyz="1 0 0"/>', '<origin xyz="1.5 0 0.25"/>').replace(
        '<origin xyz="0 1 0"/>', '<origin xyz="0 1.25 0"/>').replace(
        '<origin xyz="0 0 1"/>', '<origin xyz="0.5 0 1"/>')
    node = NodeUnderTest('urdf_state_swap', {
        'robot_description': model_a, 'publish_frequency': 0.0, 'ignore_timestamp': True},
        namespace='/swap')
    hot = node.node.joint_input.hot_path
    native = hot is not None and hot.sync is not None and model_a is REVOLUTE
    stop = threading.Event()
    sent: dict[int, np.ndarray] = {}
    names = ['a', 'b']
    try:
        pub = side.node.create_publisher(JointState, '/swap/joint_states', 100)
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing')
        refs = {'a': GeneralPath(model_a), 'b': GeneralPath(model_b)}
        rng = np.random.default_rng(4)
        messages = []
        for k in range(30000):
            values = np.array([rng.uniform(-1, 1), rng.uniform(0, 2)])
            messages.append(values)

        def stream():
            k, t0 = 0, time.perf_counter()
            while not stop.is_set() and k < len(messages):
                slack = t0 + k * 1e-3 - time.perf_counter()
                if slack > 0:
                    time.sleep(slack)
                stamp = time.time_ns()
                sent[stamp] = messages[k]
                pub.publish(joint_state_bytes(names, messages[k], stamp))
                k += 1

        thread = threading.Thread(target=stream, daemon=True)
        thread.start()
        for k in range(8):
            served = _served(node)
            results = side.set_parameters(node.name,
                                          robot_description=model_b if k % 2 == 0 else model_a)
            assert all(r.successful for r in results)
            n = len(side.received())
            wait_until(lambda: len(side.received()) > n + 20, what='/tf after a swap')
            if native:   # this model's plan installed: the loop serves the stream again
                wait_until(lambda: _served(node) > served + 20, what='the new plan serving')
        stop.set()
        thread.join(10.0)
        wait_until(lambda: len(side.received()) >= 100, what='/tf messages')
        seen = {'a': 0, 'b': 0}
        for stamp, payloads in side.received().items():
            if stamp not in sent:
                continue
            values = sent[stamp]
            for data in payloads:
                matches = [m for m, ref in refs.items()
                           if data == ref.payload(names, values, stamp)]
                assert matches, f'/tf stamped {stamp} matches neither model (mixed?)'
                seen[matches[0]] += 1
        assert seen['a'] > 10 and seen['b'] > 10, seen
        side.node.destroy_publisher(pub)
    finally:
        stop.set()
        node.close()


def _served(node) -> int:
    """Messages the node's native loop served itself so far (0 on the Python path)."""
    with node.node.joint_input.lock:
        return node.node._health.native_loop_served


def test_a_message_that_fails_is_counted_logged_once_and_the_thread_goes_on(side):
    node = NodeUnderTest('urdf_state_bad', {
        'robot_description': TOY, 'publish_frequency': 0.0, 'ignore_timestamp': True},
        namespace='/bad')
    try:
        hot = node.node.joint_input.hot_path
        dropped = node.node._health.rejected_messages   # reason -> count (/diagnostics)
        pub = side.node.create_publisher(JointState, '/bad/joint_states', 100)
        wait_until(lambda: pub.get_subscription_count() > 0, what='the node subscribing')
        # Whatever the decoder's policy on bad input, a handler that raises must cost
        # that message only: the reader fails on the next five messages.
        reader = node.node.joint_input._reader
        real_read, failing = reader.read, [5]

        class Failing:

            def read(self, data):
                if failing[0] > 0:
                    failing[0] -= 1
                    raise RuntimeError('injected failure')
                return real_read(data)

        node.node.joint_input._reader = Failing()
        deadline = time.monotonic() + 15.0
        while dropped[INTERNAL_ERROR] < 5:                  # (the first may precede matching)
            assert time.monotonic() < deadline, f'{dropped} failed messages counted'
            pub.publish(joint_state_bytes(['a', 'b'], [0.1, 0.5], time.time_ns()))
            retry = time.monotonic() + 0.05
            while dropped[INTERNAL_ERROR] < 5 and time.monotonic() < retry:
                time.sleep(0.002)
        assert hot.running and dropped[INTERNAL_ERROR] == 5
        failures = [line for line in node.logs('warning') if 'injected failure' in line]
        assert len(failures) == 1, failures                 # throttled: one line for the burst
        stamp = time.time_ns()
        deadline = time.monotonic() + 15.0
        while stamp not in side.received():                 # and the next good one goes out
            assert time.monotonic() < deadline, 'no /tf after the failed messages'
            pub.publish(joint_state_bytes(['a', 'b'], [0.1, 0.5], stamp))
            retry = time.monotonic() + 0.2
            while stamp not in side.received() and time.monotonic() < retry:
                time.sleep(0.002)
        side.node.destroy_publisher(pub)
    finally:
        node.close()
    assert not hot.running                                   # stopped with the node


def test_without_the_extension_the_executor_path_is_chosen_with_a_reason():
    import rclpy
    from urdf_state_py.node.tf_path import native
    module = native.loadable().module
    if module is None:
        pytest.skip('the native extension is not built here')
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('hot_path_reason', context=context)
    try:
        assert unavailable_reason(module, node) is None   # this rclpy has the public handles
        assert unavailable_reason(None, node) == 'the native extension is not loaded'
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def _free_elsewhere(lock) -> bool:
    """Whether another thread could take ``lock`` (a JointStateInput's) right now."""
    free = []

    def probe():
        if lock._lock.acquire(blocking=False):
            lock._lock.release()
            free.append(True)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return bool(free)


def test_a_settings_swap_adopts_the_joint_values_between_two_messages(side):
    """
    Check a settings swap adopts the joint values between two messages.

    use_smallest_joint_limits rebuilds the model, whose new merger adopts the values the
    old one received. A JointState handled meanwhile (the serving thread, as a handed-over
    message) would change the old merger's received set and values under the adopt:
    "Set changed size during iteration" (the change refused as an internal error) or the
    values of two messages mixed. So adopt runs under the JointState lock.
    """
    node = NodeUnderTest('urdf_state_adopt', {
        'robot_description': REVOLUTE, 'publish_frequency': 0.0, 'ignore_timestamp': True},
        namespace='/adopt')
    joint_input = node.node.joint_input
    interleaved = []

    class Interleaving(set):
        """
        The old merger's received joints, letting a JointState in mid-adopt.

        The old merger's received joints: after the first one, a JointState is handled
        wherever the lock lets one in (old: here, mid-adopt).
        """

        def __iter__(self):
            items = super().__iter__()
            yield next(items)
            if _free_elsewhere(joint_input.lock):
                interleaved.append(True)
                writer = threading.Thread(target=joint_input.on_raw, args=(
                    joint_state_bytes(['a', 'b'], [0.75, 0.75], time.time_ns()),))
                writer.start()
                writer.join()
            yield from items

    try:
        joint_input.on_raw(joint_state_bytes(['a'], [0.25], time.time_ns()))
        old = node.node.description.loaded.merger
        old._received = Interleaving(old._received)
        results = side.set_parameters(node.name, use_smallest_joint_limits=True)
        assert [r.successful for r in results] == [True], [r.reason for r in results]
        assert not interleaved, 'a JointState was handled in the middle of the adopt'
        new = node.node.description.loaded.merger
        assert new is not old
        index = node.node.kinematics.variable_index
        assert new.q[index['a']] == 0.25 and new.q[index['b']] == 0.0
    finally:
        node.close()
