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
The native loop when rcl fails under it: retried, counted, and handed over to Python.

Real nodes over DDS, with the loop's test-only fault injection
(``Loop._inject_failures``): the next *n* waits, takes, clock reads or publications of
that loop fail as if rcl had failed. A failed wait is retried after a short sleep
and counted on /diagnostics; should the loop end (every wait failing), the executor
serves the same topic, with the same QoS, at once and /diagnostics says so and why. A
failed take is an error and retried, a failed clock read one error (the message goes
to Python), a failed publication one error and no /tf counted.
"""
import time

from node_harness import wait_until  # first: it skips the module without rclpy
import pytest
from test_hostile_inputs import DiagnosticsRecorder
import test_native_node
from test_native_node import native_node
from test_node_hot_path import send_until_tf

pytestmark = pytest.mark.ros

#: test_native_node's fixtures, which the tests below take as arguments (pytest finds a
#: fixture as a module attribute; an import of the name would read as unused to flake8).
side = test_native_node.side
switch = test_native_node.switch


def _health(node):
    """Return the node's counters with the loop's pulled in (under the JointState lock)."""
    with node.node.joint_input.lock:
        health = node.node._health
        return {'published': health.tf_published, 'errors': health.native_loop_errors,
                'retries': health.native_loop_retries, 'served': health.native_loop_served,
                'handed': dict(health.joint_states_handed)}


def _served_natively(side, node, pub, stamp):
    """Send until the loop serves a message itself (its plan installed); the last stamp."""
    before = _health(node)['served']
    while _health(node)['served'] == before:
        stamp += 1_000_000
        send_until_tf(side, pub, ['a'], [0.1], stamp)
    return stamp


def test_failed_waits_are_retried_and_counted(side, switch):
    with native_node(side, switch, 'native_retry') as (node, pub):
        recorder = DiagnosticsRecorder(side, 'native_retry/urdf_state_native_retry: robot state')
        stamp = _served_natively(side, node, pub, time.time_ns())
        node.node.joint_input.hot_path.loop._inject_failures(wait=5)
        wait_until(lambda: _health(node)['retries'] == 5, what='five failed waits retried')
        served = _health(node)['served']
        for _ in range(3):   # and the loop serves on
            stamp += 1_000_000
            send_until_tf(side, pub, ['a'], [0.2], stamp)
        assert _health(node)['served'] > served
        values, _ = recorder.wait(lambda v, s: v.get('native loop wait retries') == '5',
                                  max(0, recorder.count() - 1), what='the retries on /diagnostics')
        assert values['joint_states path'].startswith('joint_states path: native loop (C)')
        assert node.node.joint_input.hot_path.sync is not None
        assert not node.logs('warning'), node.logs('warning')


def test_when_the_loop_ends_the_executor_serves_at_once(side, switch):
    with native_node(side, switch, 'native_ends') as (node, pub):
        recorder = DiagnosticsRecorder(side, 'native_ends/urdf_state_native_ends: robot state')
        joint_input = node.node.joint_input
        stamp = _served_natively(side, node, pub, time.time_ns())
        joint_input.hot_path.loop._inject_failures(wait=10**9)   # every wait fails
        ended = ('joint_states path: executor (the native loop ended: 100 waits in a row '
                 'failed, the last: rcl_wait: injected failure)')
        wait_until(lambda: ended in node.logs('warning'), what='the loop ending')
        hot = joint_input.hot_path
        wait_until(lambda: hot.handed_back and not hot.running, what='the topic handed back')
        assert joint_input.lock.sync is None
        assert [sub.topic_name for sub in hot.handed_back] == ['/native_ends/joint_states']
        assert hot.handed_back[0] in list(node.node.subscriptions)
        for k in range(5):   # served by Python now: same /tf, the loop's counters frozen
            stamp += 1_000_000
            send_until_tf(side, pub, ['a'], [0.1 * k], stamp)
        health = _health(node)
        assert health['retries'] == 100 and health['published'] >= 5, health
        values, _ = recorder.wait(lambda v, s: v.get('joint_states path') == ended,
                                  max(0, recorder.count() - 1), what='the switch on /diagnostics')
        assert values['native loop wait retries'] == '100'


def test_a_failed_take_is_an_error_and_the_loop_serves_on(side, switch):
    with native_node(side, switch, 'native_take') as (node, pub):
        stamp = _served_natively(side, node, pub, time.time_ns())
        before = _health(node)
        node.node.joint_input.hot_path.loop._inject_failures(take=3)
        stamp += 1_000_000
        send_until_tf(side, pub, ['a'], [0.5], stamp)   # taken at the fourth try
        after = _health(node)
        assert after['errors'] - before['errors'] == 3, (before, after)
        assert after['served'] > before['served'] and after['handed'] == before['handed']


def test_a_failed_clock_read_is_one_error_and_python_serves_the_message(side, switch):
    with native_node(side, switch, 'native_clock') as (node, pub):
        stamp = _served_natively(side, node, pub, time.time_ns())
        before = _health(node)
        node.node.joint_input.hot_path.loop._inject_failures(clock=2)
        for _ in range(2):
            stamp += 1_000_000
            send_until_tf(side, pub, ['a'], [0.3], stamp)   # published by Python
        after = _health(node)
        assert after['errors'] - before['errors'] == 2, (before, after)
        assert after['handed'] == before['handed'], (before, after)   # no 'malformed'


def test_a_failed_publication_is_an_error_and_no_tf_published(side, switch):
    with native_node(side, switch, 'native_publish') as (node, pub):
        start = time.time_ns()
        stamp = _served_natively(side, node, pub, start)
        node.node.joint_input.hot_path.loop._inject_failures(publish=3)
        for _ in range(3):    # each re-sent until its /tf came: 3 failed publications
            stamp += 1_000_000
            send_until_tf(side, pub, ['a'], [0.4], stamp)
        wait_until(lambda: _health(node)['errors'] == 3, what='three failed publications')
        wait_until(lambda: _health(node)['published'] == _received_since(side, start),
                   what='/tf counted as published == /tf received')


def _received_since(side, start: int) -> int:
    """How many /tf payloads stamped ``start`` or later the test side received."""
    return sum(len(payloads) for stamp, payloads in side.received().items() if stamp >= start)
