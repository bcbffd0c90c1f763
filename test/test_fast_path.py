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

"""The node's fused JointState -> /tf path against the general path, byte for byte."""
import numpy as np
import pytest

pytestmark = pytest.mark.ros  # needs rclpy and DDS

pytest.importorskip('rclpy')

from robot_files import big_robot_params, H1_2  # noqa: E402 - after importorskip
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.fast_path import FastPath  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.joint_state_merger import (  # noqa: E402 - after importorskip
    JointStateMerger)
from urdf_state_py.node.tf_path.tf_publishing import (  # noqa: E402 - after importorskip
    MovingTransforms)

NS = 1_000_000_000

TOY = """<robot name="toy">
  <link name="base"/><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
  <link name="e"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.1" rpy="0.1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="0.2 0 0" rpy="0 0.3 0"/><axis xyz="0 1 0"/></joint>
  <joint name="j3" type="revolute"><parent link="b"/><child link="c"/>
    <origin xyz="0 0.1 0" rpy="0 0 0.2"/><axis xyz="1 0 0"/>
    <limit lower="-1.5" upper="1.5" effort="1" velocity="1"/>
    <mimic joint="j1" multiplier="2" offset="0.1"/></joint>
  <joint name="j4" type="continuous"><parent link="b"/><child link="d"/>
    <axis xyz="0 0 1"/><mimic joint="j2" multiplier="-1"/></joint>
  <joint name="f" type="fixed"><parent link="d"/><child link="e"/>
    <origin xyz="0 0 0.3"/></joint>
</robot>"""


class Twin:
    """The general path alone (``ref``) and the fast path with the general fallback (``fast``)."""

    def __init__(self, model, frequency):
        self.kin = Kinematics(model)
        self.sides = []
        for _ in range(2):
            merger = JointStateMerger(model, self.kin.variable_index,
                                      self.kin.default_positions(), frequency=frequency)
            moving = MovingTransforms(self.kin, 'p/')
            self.sides.append((merger, moving, FastPath(merger, self.kin, moving)))
        self.fast_hits = 0

    def general(self, side, names, positions, stamp_ns, now_ns, ignore_limits):
        merger, moving, fast = side
        update = merger.update(names, positions, stamp_ns, now_ns)
        if not (update.publish and update.joints):
            return None, update.warnings
        q_eff, clamped = self.kin.resolve(merger.q, ignore_limits)
        fast.resolved(clamped, ignore_limits)
        sec, nanosec = divmod(stamp_ns, NS)
        return moving.payload_at(update.joints, q_eff, sec, nanosec), (update.warnings, clamped)

    def step(self, names, positions, stamp_ns, now_ns, ignore_limits):
        ref = self.general(self.sides[0], names, positions, stamp_ns, now_ns, ignore_limits)[0]
        merger, moving, fast = self.sides[1]
        sec, nanosec = divmod(stamp_ns, NS)
        got = fast.update(names, positions, stamp_ns, now_ns, sec, nanosec, ignore_limits)
        if got is None:
            got = self.general(self.sides[1], names, positions, stamp_ns, now_ns,
                               ignore_limits)[0]
        else:
            self.fast_hits += 1
            got = got or None
        assert got == ref
        (m0, _, _), (m1, _, _) = self.sides
        np.testing.assert_array_equal(m0.q, m1.q)
        np.testing.assert_array_equal(m0.throttle._last, m1.throttle._last)
        return got


def bounds_of(model, names):
    lo, hi = [], []
    bounds = model.variable_bounds()
    for name in names:
        low, high = bounds.get(name, (-np.inf, np.inf))
        lo.append(low if np.isfinite(low) else -3.0)
        hi.append(high if np.isfinite(high) else 3.0)
    return np.array(lo), np.array(hi)


def run_random(model, names, seed, n=400, frequency=0.0, margin=0.2, nan_rate=0.02):
    twin = Twin(model, frequency)
    rng = np.random.default_rng(seed)
    names = tuple(names)
    lo, hi = bounds_of(model, names)
    stamp, now = 5 * NS, 7 * NS
    ignore = False
    published = 0
    for k in range(n):
        if rng.random() < 0.2:   # mostly in bounds: the fast path's case
            values = rng.uniform(lo - margin, hi + margin)
        else:
            values = rng.uniform(lo, hi)
        if rng.random() < nan_rate:
            values[rng.integers(len(values))] = rng.choice([np.nan, np.inf, -np.inf])
        if rng.random() < 0.02:
            ignore = not ignore
        stamp += int(rng.integers(0, 3_000_000)) if rng.random() > 0.01 else -NS
        now += 1_000_000 if rng.random() > 0.01 else -NS
        positions = np.frombuffer(values.tobytes(), dtype='<f8')   # read-only, as the reader's
        if twin.step(names, positions, stamp, now, ignore) is not None:
            published += 1
    return twin, published


@pytest.fixture(scope='module')
def toy():
    return load_model(TOY)


@pytest.fixture(scope='module', params=big_robot_params())
def talos(request):
    """Return a big real robot with mimic joints: the bundled H1_2, and TALOS with the corpus."""
    return load_model(request.param.read_text())


@pytest.mark.parametrize('seed', range(4))
def test_toy_random_matches_general_path(toy, seed):
    twin, published = run_random(toy, ['j2', 'nope', 'j1', 'j3'], seed, margin=0.6)
    assert published > 300
    assert twin.fast_hits > 100


@pytest.mark.parametrize('frequency', [0.0, 500.0, 20.0])
def test_talos_random_matches_general_path(talos, frequency):
    twin, published = run_random(talos, talos.active_joint_names, 11, frequency=frequency,
                                 margin=0.05)
    assert published > {0.0: 300, 500.0: 150, 20.0: 10}[frequency]
    assert twin.fast_hits > {0.0: 100, 500.0: 50, 20.0: 5}[frequency]


def test_two_publishers_and_subsets(talos):
    twin = Twin(talos, 0.0)
    rng = np.random.default_rng(3)
    active = talos.active_joint_names
    lists = [tuple(active[:10]), tuple(active[10:]), tuple(reversed(active))]
    lo_hi = [bounds_of(talos, names) for names in lists]
    stamp = now = NS
    for k in range(300):
        i = int(rng.integers(len(lists)))
        lo, hi = lo_hi[i]
        stamp += 1_000_000
        now += 1_000_000
        values = rng.uniform(lo - 0.01, hi + 0.01)
        twin.step(lists[i], np.frombuffer(values.tobytes()), stamp, now, False)
    # H1_2's thumb mimics (x1.6, x2.4 of a master in [-0.1, 0.6]) leave their own limits
    # for part of the master's range; such a clamped message takes the general path.
    assert twin.fast_hits > {'h1_2': 40}.get(talos.name, 100)


def test_clamped_and_non_finite_messages_are_left_to_the_general_path(toy):
    twin = Twin(toy, 0.0)
    names = ('j1', 'j2')
    merger, moving, fast = twin.sides[1]
    twin.step(names, np.array([0.1, 0.2]), NS, NS, False)     # general path: learns the list
    assert fast.update(names, np.array([0.1, 0.3]), 2 * NS, 2 * NS, 2, 0, False)
    for bad in ([1.5, 0.0], [0.0, np.nan], [np.inf, 0.0], [0.8, 0.0]):   # 0.8: j3 = 1.7 > 1.5
        before = merger.q.copy()
        assert fast.update(names, np.array(bad), 3 * NS, 3 * NS, 3, 0, False) is None
        np.testing.assert_array_equal(merger.q, before)
    assert fast.update(names, np.array([1.5, 0.0]), 3 * NS, 3 * NS, 3, 0, True)  # ignore_limits
    assert not fast.clean                 # values beyond the limits may be in the state now
    assert fast.update(names, np.array([0.1, 0.3]), 4 * NS, 4 * NS, 4, 0, False) is None


def test_prefix_change_takes_a_new_fast_path_over_the_same_state(toy):
    # What the node does on a frame_prefix change: a new MovingTransforms and
    # FastPath over the SAME merger (joint values and rate-limit marks carry over).
    twin = Twin(toy, 0.0)
    names = ('j1', 'j2')
    twin.step(names, np.array([0.1, 0.2]), NS, NS, False)
    hits = twin.fast_hits
    before = twin.step(names, np.array([0.1, 0.3]), 2 * NS, 2 * NS, False)
    assert twin.fast_hits == hits + 1
    old_fast = twin.sides[1][2]
    for i, (merger, _, _) in enumerate(twin.sides):
        moving = MovingTransforms(twin.kin, 'other/')
        twin.sides[i] = (merger, moving, FastPath(merger, twin.kin, moving))
    hits = twin.fast_hits
    after = [twin.step(names, np.array([0.1, 0.3 + k]), (3 + k) * NS, (3 + k) * NS, False)
             for k in range(2)]   # the first re-establishes `clean` on the general path
    assert twin.fast_hits == hits + 1
    assert b'p/a' in before
    assert all(b'other/a' in got and b'p/a' not in got for got in after)
    # the old fast path is untouched: still the old frame names
    stale = old_fast.update(names, np.array([0.1, 0.2]), 9 * NS, 9 * NS, 9, 0, False)
    assert b'p/a' in stale and b'other/' not in stale


@pytest.fixture(scope='module')
def h1_2():
    return load_model(H1_2.read_text())


def test_h1_2_in_limit_inputs_take_the_fast_path_once_the_clamped_mimics_were_warned(h1_2):
    # The driver's in-limit values drive H1_2's thumb mimic joints beyond their own
    # limits: the first message clamps (general path, warnings), then every message
    # clamps the same joints on the fast path, byte for byte as the general path.
    twin, published = run_random(h1_2, h1_2.active_joint_names, 5, margin=0.0, nan_rate=0.0)
    assert published == 400
    assert twin.fast_hits >= 350           # the rest: time going back, ignore_limits toggled
    fast = twin.sides[1][2]
    assert any(name in fast._warned for name in h1_2.mimic_joint_names)   # really clamped


def test_a_joint_clamped_for_the_first_time_goes_to_the_general_path_once(toy):
    twin = Twin(toy, 0.0)
    names = ('j1', 'j2')
    merger, moving, fast = twin.sides[1]
    twin.step(names, np.array([0.1, 0.2]), NS, NS, False)
    hits = twin.fast_hits
    twin.step(names, np.array([0.8, 0.2]), 2 * NS, 2 * NS, False)   # j3 = 1.7 > 1.5: warn
    assert twin.fast_hits == hits
    assert fast.clamps == 0
    twin.step(names, np.array([0.9, 0.2]), 3 * NS, 3 * NS, False)   # j3 again: fast now
    assert twin.fast_hits == hits + 1
    assert fast.clamps == 1 and fast.last_clamped == ['j3']   # counted for /diagnostics
    twin.step(names, np.array([1.2, 0.2]), 4 * NS, 4 * NS, False)   # j1 itself: new, general
    assert twin.fast_hits == hits + 1
    twin.step(names, np.array([1.3, 0.2]), 5 * NS, 5 * NS, False)
    assert twin.fast_hits == hits + 2
    fast._warned.reset()                  # what an ignore_limits change does: warn again
    assert fast.update(names, np.array([1.3, 0.2]), 6 * NS, 6 * NS, 6, 0, False) is None


def chain(joints: int) -> str:
    """
    Return a chain of ``joints`` revolute joints (j0, j1, ...).

    Every name list of it is eligible.
    """
    links = ''.join(f'<link name="l{i}"/>' for i in range(joints + 1))
    return (f'<robot name="chain">{links}' + ''.join(
        f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
        f'<origin xyz="0 0 0.1"/><axis xyz="0 1 0"/>'
        f'<limit lower="-2" upper="2" effort="1" velocity="1"/></joint>'
        for i in range(joints)) + '</robot>')


def test_the_route_cache_of_a_large_robot_stays_within_its_memory_budget():
    """
    Check a large robot's route cache stays within its memory budget.

    A peer cycling through 64 orders of a 100-joint robot's names: the cache keeps fewer
    routes than their count allows, so their memory stays within the budget.
    """
    from urdf_state_py.node.tf_path import fast_path

    twin = Twin(load_model(chain(100)), 0.0)
    rng = np.random.default_rng(1)
    names = [f'j{i}' for i in range(100)]
    for k in range(64):
        order = tuple(rng.permutation(names))
        for i in range(2):   # the general path first, then the route of this order
            twin.step(order, np.zeros(100), NS * (k + 1) + i, NS * (k + 1) + i, False)
    fast = twin.sides[1][2]
    routes = [route for route in fast._routes.values() if route is not None]
    assert 10 < len(routes) < fast_path._ROUTE_CACHE_SIZE, len(routes)
    assert sum(route.nbytes for route in routes) <= fast_path._ROUTE_CACHE_BYTES


def test_the_native_self_test_drives_this_robot():
    """
    Check the native self-test drives this robot.

    The native loop's start-up self-test holds TOY as model data (no XML parser in the
    node's start-up): the same links, joints, limits and mimic rules.
    """
    from urdf_state_py.core.model_codec import model_from_data, model_to_data
    from urdf_state_py.node.tf_path.native_selftest import SELF_TEST_MODEL
    assert (model_to_data(model_from_data(SELF_TEST_MODEL))[1:]
            == model_to_data(load_model(TOY))[1:])
