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
The native loop's plan step against the JointState step, byte for byte and state for state.

In process (no DDS): each payload goes, as serialised CDR, through

- the Python path: the reader and the JointState step, the specification;
- the native path as the loop runs it: ``Loop.step`` on the installed plan (the
  loop's mutex held), and for a message it hands over, the Python path under a
  :class:`PausingLock` driving a :class:`LoopSync` (pause, pull, Python, push
  the next plan, resume) -- the node's own mechanism.

Every /tf payload must be equal, and after every message the merged state, the
rate limit's state and ``clean`` too; the loop's clamp counter counts the
messages it served that the JointState step clamped. The loop over DDS is
tested in test_native_node.py.
"""
import os

import numpy as np
import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rclpy')

from rclpy.serialization import serialize_message  # noqa: E402 - after importorskip
from robot_files import big_robot_params  # noqa: E402 - after importorskip
from sensor_msgs.msg import JointState  # noqa: E402 - after importorskip
from test_native_plan import bounds_of, TOY, Twin  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after importorskip
from urdf_state_py.node.health import Health  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path import native  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.joint_state_cdr import (  # noqa: E402 - after importorskip
    JointStateReader)
from urdf_state_py.node.tf_path.joint_state_cdr import (  # noqa: E402 - after importorskip
    MalformedJointState)
from urdf_state_py.node.tf_path.native_loop import (  # noqa: E402 - after importorskip
    LoopSync, PausingLock)

NS = 1_000_000_000


@pytest.fixture(scope='module')
def module():
    try:
        return native._import(os.environ.get('URDF_STATE_NATIVE_MODULE'))
    except ImportError as err:
        pytest.skip(f'native extension not built: {err}')


class _Logger:

    def error(self, text):
        raise AssertionError(text)


class _Errors:

    def record(self, exc):
        raise exc


class NativeTwin(Twin):
    """``sides[0]``: the Python path; ``sides[1]``: the native loop's, as in the node."""

    def __init__(self, module, model, frequency):
        super().__init__(model, frequency)
        self.cfg = {'publish_default_positions': False, 'ignore_limits': False}
        loaded = self.sides[1]
        self.health = Health()
        self.last_tf_ns = 0
        self.sync = LoopSync(module, lambda: (loaded, self.cfg), self.health, self, _Errors())
        self.lock = PausingLock()
        self.lock.sync = self.sync
        self.readers = (JointStateReader(), JointStateReader())
        self.native_hits = self.handed = self.native_published = 0
        self.published = [0, 0]
        self.clamped = ()          # what the JointState step clamped for the last message
        self.native_clamps = [0, 0]   # served by the loop and clamped: published, throttled

    def python(self, i, data, now_ns, ignore_limits):
        try:
            names, positions, sec, nanosec = self.readers[i].read(data)
        except MalformedJointState as err:   # what the node reports and drops
            return ('rejected', err.reason, str(err))
        got, detail = self.general(self.sides[i], names, positions, sec, nanosec, now_ns,
                                   ignore_limits)
        self.clamped = tuple(detail[1]) if got is not None else ()
        if got:
            self.published[i] += 1
        return got or None

    def step(self, data, now_ns, ignore_limits):
        ref = self.python(0, data, now_ns, ignore_limits)
        with self.lock:    # a parameter change as the node makes it: between two messages
            self.cfg['ignore_limits'] = ignore_limits
        loop = self.sync.loop
        loop.pause()       # what the loop thread holds while it runs a plan
        try:
            result, payload = loop.step(data, now_ns) if self.sync._installed else ('none', None)
        finally:
            loop.resume()
        if result == 'publish':
            self.native_hits += 1
            self.native_published += 1
            self.native_clamps[0] += bool(self.clamped)
            got = payload
        elif result == 'throttled':
            self.native_hits += 1
            self.native_clamps[1] += 1
            got = None
        else:                                 # handed to Python, as on_raw gets it
            self.handed += 1
            with self.lock:
                got = self.python(1, data, now_ns, ignore_limits)
        assert got == ref
        with self.lock:    # the state, as any Python code under the lock sees it
            self.check_state()
        return got

    def check_state(self):
        (m0, p0), (m1, p1) = ((side.merger, side.plans) for side in self.sides)
        np.testing.assert_array_equal(m0.q, m1.q)
        np.testing.assert_array_equal(m0.seen_ns, m1.seen_ns)
        np.testing.assert_array_equal(m0.throttle.last_stamps, m1.throttle.last_stamps)
        assert m0.throttle.loop_state()[0] == m1.throttle.loop_state()[0]
        assert p0.clean == p1.clean
        published, throttled = self.native_clamps   # a throttled message may clamp first
        assert published <= p1.clamps <= published + throttled, (p1.clamps, self.native_clamps)
        assert self.health.tf_published == self.native_published  # pulled from the loop


def _payload(names, values, stamp_ns):
    msg = JointState(name=list(names), position=[float(v) for v in values])
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, NS)
    return serialize_message(msg)


def run(module, model, names, seed, n=300, frequency=0.0, margin=0.2, nan_rate=0.02,
        flip_rate=0.02):
    twin = NativeTwin(module, model, frequency)
    rng = np.random.default_rng(seed)
    lo, hi = bounds_of(model, names)
    stamp, now = 5 * NS, 7 * NS
    ignore = False
    for _ in range(n):
        values = rng.uniform(lo - margin, hi + margin) if rng.random() < 0.2 else \
            rng.uniform(lo, hi)
        if rng.random() < nan_rate:
            values[rng.integers(len(values))] = rng.choice([np.nan, np.inf, -np.inf])
        if rng.random() < flip_rate:
            ignore = not ignore
        stamp += int(rng.integers(0, 3_000_000)) if rng.random() > 0.01 else -NS
        now += 1_000_000 if rng.random() > 0.01 else -NS
        twin.step(_payload(names, values, max(stamp, 0)), now, ignore)
    return twin


@pytest.mark.parametrize('seed', range(3))
def test_toy_native_equals_python(module, seed):
    twin = run(module, load_model(TOY), ('j2', 'nope', 'j1', 'j3'), seed, margin=0.6)
    assert twin.native_hits > 100 and twin.handed > 10, (twin.native_hits, twin.handed)


def test_toy_throttled(module):
    twin = run(module, load_model(TOY), ('j2', 'j1'), 1, frequency=200.0)
    assert twin.native_hits > 100
    assert twin.native_published < twin.native_hits   # some were rate-limited natively


def test_toy_ignore_limits(module):
    twin = run(module, load_model(TOY), ('j1', 'j2'), 2, margin=0.8, flip_rate=0.1)
    assert twin.native_hits > 50


def test_planar_floating_is_handed_over(module):
    from test_node_joint_states import MULTI_DOF
    model = load_model(MULTI_DOF)
    names = list(model.active_joint_names)
    twin = NativeTwin(module, model, 0.0)
    stamp = NS
    for k in range(30):
        twin.step(_payload(names, np.zeros(len(names)) + 0.01 * k, stamp + k), 2 * NS + k, False)
    assert twin.native_hits == 0 and twin.handed == 30


@pytest.mark.parametrize('path', big_robot_params())
def test_big_robot_native_equals_python(module, path):
    model = load_model(path.read_text())
    names = list(model.active_joint_names)
    twin = run(module, model, names, 3, n=200)
    assert twin.native_hits > 50


def test_hostile_payloads_through_the_plan(module):
    """
    Send hostile payloads through the installed plan.

    The decoder fuzz's mutations of a payload the installed plan serves: the plan
    hands each to Python or serves it, never anything else (and the ASan build of
    .ci/sanitize runs this too).
    """
    from test_joint_state_cdr import mutations

    model = load_model(TOY)
    twin = NativeTwin(module, model, 0.0)
    rng = np.random.default_rng(8)
    names = ('j2', 'j1', 'j3')
    stamp, now = 5 * NS, 7 * NS
    for k in range(300):
        stamp += 1_000_000
        now += 1_000_000
        data = _payload(names, rng.uniform(-0.9, 0.9, 3), stamp)
        twin.step(data, now, False)                # (re)installs the plan of this name list
        for bad in mutations(rng, data):
            now += 1_000
            twin.step(bad, now, False)
    assert twin.native_hits > 250 and twin.handed > 1000, (twin.native_hits, twin.handed)


def _fan(joints: int, lower: str) -> str:
    """Return a robot of ``joints`` revolute joints side by side, each limited to [lower, 1]."""
    links = ''.join(f'<link name="l{i}"/>' for i in range(joints))
    return (f'<robot name="fan"><link name="base"/>{links}' + ''.join(
        f'<joint name="j{i}" type="revolute"><parent link="base"/><child link="l{i}"/>'
        f'<axis xyz="0 0 1"/><limit lower="{lower}" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(joints)) + '</robot>')


def test_a_zero_of_the_other_sign_at_a_limit_is_no_clamp(module):
    """
    Check a zero of the other sign at a limit is no clamp.

    -0.0 against a lower limit of +0.0: numpy's fmax picks the limit's zero for 16
    elements (its SIMD loop), the C loop keeps the message's; neither is a clamp (the
    JointState step reports none), so both counters stay at zero and the /tf bytes agree.
    """
    model = load_model(_fan(16, '0'))
    names = [f'j{i}' for i in range(16)]
    twin = NativeTwin(module, model, 0.0)
    for k in range(20):
        twin.step(_payload(names, [-0.0] * 16, NS + k), 2 * NS + k, False)
    assert twin.native_hits >= 15
    plans = twin.sides[1].plans
    assert plans.clamps == 0 and plans.last_clamped == [], (plans.clamps, plans.last_clamped)


def test_h1_2_in_limit_inputs_are_served_once_the_clamped_mimics_were_warned(module):
    """
    Check H1_2's clamped thumb mimics are served natively once warned about.

    The driver's in-limit values drive H1_2's thumb mimic joints (x1.6, x2.4 of a master
    in [-0.1, 0.6]) beyond their own limits: the first message clamps (the step,
    warnings), then the loop clamps the same joints, byte for byte as the JointState step,
    and counts them for /diagnostics.
    """
    from robot_files import H1_2
    model = load_model(H1_2.read_text())
    twin = run(module, model, list(model.active_joint_names), 5, n=300, margin=0.0,
               nan_rate=0.0)
    assert twin.native_hits >= 250, (twin.native_hits, twin.handed)   # the rest: time back,
    plans = twin.sides[1].plans                                          # ignore_limits flips
    assert plans.clamps >= 30 and set(plans.last_clamped) <= set(model.mimic_joint_names), \
        (plans.clamps, plans.last_clamped)
