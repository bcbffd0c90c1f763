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
The native loop's plans (``native_loop.py``): which name lists get one, and when.

A plan's arithmetic is tested in C against the JointState step (test_native_loop.py);
here, without the extension: plans are built only for eligible name lists the
JointState step has settled, only while the state is ``clean`` (or limits are
ignored), with the rows never warned about, the frame prefix of their /tf, and a
cache of bounded memory. ``Twin`` and the robots here are shared with the native
tests.
"""
from types import SimpleNamespace

import numpy as np
import pytest

pytestmark = pytest.mark.ros  # needs rclpy (the /tf template is serialised by it)

pytest.importorskip('rclpy')

from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path import native_loop  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.joint_state_merger import (  # noqa: E402 - after importorskip
    JointStateMerger)
from urdf_state_py.node.tf_path.joint_state_step import (  # noqa: E402 - after importorskip
    joint_state_step)
from urdf_state_py.node.tf_path.native_loop import NativePlans  # noqa: E402
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
    """
    Two copies of the node's per-model state (``sides``: merger, kinematics, moving, plans).

    Each is served by :meth:`general`, the node's JointState step -- the specification
    of the native loop's plans.
    """

    def __init__(self, model, frequency, prefix='p/'):
        self.kin = Kinematics(model)
        self.sides = []
        for _ in range(2):
            merger = JointStateMerger(model, self.kin.variable_index,
                                      self.kin.default_positions(), frequency=frequency)
            moving = MovingTransforms(self.kin, prefix)
            self.sides.append(SimpleNamespace(merger=merger, kinematics=self.kin, moving=moving,
                                              plans=NativePlans(merger, self.kin, moving)))

    def general(self, side, names, positions, sec, nanosec, now_ns, ignore_limits):
        """
        Return ``(payload or None, (warnings, clamped))`` as the node's on_raw computes it.

        ``sec``/``nanosec``: the message's stamp as sent (a nanosec over 1e9 included).
        """
        step = joint_state_step(side, names, positions, sec, nanosec, now_ns,
                                ignore_limits=ignore_limits)
        if step.payload is None:
            return None, step.update.warnings
        return step.payload, (step.update.warnings, step.clamped)


def bounds_of(model, names):
    lo, hi = [], []
    bounds = model.variable_bounds()
    for name in names:
        low, high = bounds.get(name, (-np.inf, np.inf))
        lo.append(low if np.isfinite(low) else -3.0)
        hi.append(high if np.isfinite(high) else 3.0)
    return np.array(lo), np.array(hi)


@pytest.fixture(scope='module')
def toy():
    return load_model(TOY)


def _served(twin, names, values, k, ignore_limits=False):
    """Send one message through side 0's step; return its plans."""
    twin.general(twin.sides[0], tuple(names), np.array(values, dtype=float), k, 0, k * NS,
                 ignore_limits)
    return twin.sides[0].plans


def test_a_plan_needs_a_settled_name_list_and_a_clean_state(toy):
    twin = Twin(toy, 0.0)
    plans = twin.sides[0].plans
    assert plans.installable(False) is None              # nothing served yet
    names = ('j2', 'nope', 'j1', 'j3')
    plans = _served(twin, names, [0.2, 9.0, 0.1, 0.3], 1)
    plan = plans.installable(False)
    assert plan is not None and plan.names == names
    # the joints it moves (j4 follows j2), in model order; rows: their source joints,
    # then the joints themselves; each value from its source's place in the message
    assert plan.row_names == ('j1', 'j2', 'j1', 'j2', 'j1', 'j2', 'j3', 'j4')
    np.testing.assert_array_equal(plan.source, [2, 0, 2, 0])
    np.testing.assert_array_equal(plan.multiplier, [1.0, 1.0, 2.0, -1.0])
    np.testing.assert_array_equal(plan.offset, [-0.0, -0.0, 0.1, 0.0])
    assert b'p/a' in plan.template
    _served(twin, names, [0.2, 9.0, 5.0, 0.3], 2, ignore_limits=True)
    assert not plans.clean                               # values beyond limits may be in q
    assert plans.installable(False) is None and plans.installable(True) is plan
    _served(twin, names, [0.2, 9.0, 0.1, 0.3], 3)       # the JointState step cleans up
    assert plans.installable(False) is plan


def test_name_lists_a_plan_cannot_serve_get_none(toy):
    from test_node_joint_states import MULTI_DOF
    twin = Twin(load_model(MULTI_DOF), 0.0)
    names = list(twin.kin.variable_index)
    assert _served(twin, names, np.zeros(len(names)), 1).installable(False) is None
    twin = Twin(toy, 0.0)
    assert _served(twin, ['j3'], [0.1], 1).installable(False) is None   # a mimic joint alone


def test_rows_warned_about_are_marked_for_the_plan(toy):
    twin = Twin(toy, 0.0)
    names = ('j1', 'j2')
    plan = _served(twin, names, [0.1, 0.2], 1).installable(False)
    assert plan.unwarned.all()
    _served(twin, names, [0.8, 0.2], 2)                  # j3 = 2 * 0.8 + 0.1 > 1.5: warned
    plan = twin.sides[0].plans.installable(False)
    assert dict(zip(plan.row_names, plan.unwarned.tolist())) == {
        'j1': True, 'j2': True, 'j3': False, 'j4': True}


def test_a_prefix_change_takes_new_plans_over_the_same_state(toy):
    # What the node does on a frame_prefix change (Loaded.with_prefix): a new
    # MovingTransforms and NativePlans over the SAME merger.
    twin = Twin(toy, 0.0)
    names = ('j1', 'j2')
    old = _served(twin, names, [0.1, 0.2], 1)
    merger = twin.sides[0].merger
    moving = MovingTransforms(twin.kin, 'other/')
    twin.sides[0] = SimpleNamespace(merger=merger, kinematics=twin.kin, moving=moving,
                                    plans=NativePlans(merger, twin.kin, moving))
    plans = twin.sides[0].plans
    assert plans.installable(False) is None              # not clean until the JointState step ran
    plan = _served(twin, names, [0.1, 0.3], 2).installable(False)
    assert b'other/a' in plan.template and b'p/a' not in plan.template
    assert b'p/a' in old.installable(False).template     # the old plans keep their names


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


def test_the_plan_cache_of_a_large_robot_stays_within_its_memory_budget():
    """
    Check a large robot's plan cache stays within its memory budget.

    A peer cycling through 64 orders of a 200-joint robot's names: the cache keeps fewer
    plans than their count allows, so their memory stays within the budget.
    """
    twin = Twin(load_model(chain(200)), 0.0)
    rng = np.random.default_rng(1)
    names = [f'j{i}' for i in range(200)]
    plans = twin.sides[0].plans
    peak = 0
    for k in range(64):
        _served(twin, rng.permutation(names), np.zeros(200), k + 1)
        assert plans.installable(False) is not None
        cached = [plan for plan in plans._plans.values() if plan is not None]
        assert sum(plan.nbytes for plan in cached) <= native_loop._PLAN_CACHE_BYTES
        peak = max(peak, len(cached))
    assert 10 < peak < native_loop._PLAN_CACHE_SIZE, peak   # the budget, not the count


def test_the_native_self_test_drives_this_robot():
    """
    Check the native self-test drives this robot.

    The native loop's start-up self-test holds TOY as model data (no XML parser in the
    node's start-up): the same links, joints, limits and mimic rules.
    """
    from urdf_state_py.core.model_codec import model_from_data, model_to_data
    from urdf_state_py.node.tf_path.native import SELF_TEST_MODEL
    assert (model_to_data(model_from_data(SELF_TEST_MODEL))[1:]
            == model_to_data(load_model(TOY))[1:])
