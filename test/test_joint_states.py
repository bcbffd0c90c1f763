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

"""Joint-state merging, validation and rate limiting, without ROS."""
import math

import numpy as np
import pytest
from urdf_state_py.core.model import Joint, Limits, Link, Mimic, Model
from urdf_state_py.node.tf_path.joint_state_merger import JointStateMerger
from urdf_state_py.node.tf_path.publish_throttle import PublishThrottle, upstream_interval_ns

MS = 1_000_000
S = 1_000_000_000


def make_model():
    """
    Return a model with every joint type and chained mimics.

    Base -> a (revolute) -> b (mimic of a) -> c (mimic of b); base -> d (continuous);
    base -> e (fixed, with a mimic tag); base -> p (planar); p -> f (floating).
    """
    links = [Link(n) for n in ('base', 'a', 'b', 'c', 'd', 'e', 'p', 'f')]
    joints = [
        Joint('ja', 'revolute', 'base', 'a', axis=(0, 0, 1), limits=Limits(-1.0, 1.0)),
        Joint('jb', 'revolute', 'a', 'b', axis=(0, 0, 1), limits=Limits(-2.0, 2.0),
              mimic=Mimic('ja', 2.0, 0.1)),
        Joint('jc', 'continuous', 'b', 'c', axis=(0, 0, 1), mimic=Mimic('jb', -1.0)),
        Joint('jd', 'continuous', 'base', 'd', axis=(1, 0, 0)),
        Joint('je', 'fixed', 'base', 'e', mimic=Mimic('jd')),
        Joint('jp', 'planar', 'base', 'p', axis=(0, 0, 1)),
        Joint('jf', 'floating', 'p', 'f'),
    ]
    return Model('toy', tuple(links), tuple(joints))


def make_merger():
    """Return a merger of the toy model at its default positions, with no rate limit."""
    model = make_model()
    index = {name: i for i, name in enumerate(model.variable_names)}
    defaults = np.array([model.default_positions()[n] for n in model.variable_names])
    return JointStateMerger(model, index, defaults, frequency=0.0)


@pytest.fixture
def merger():
    return make_merger()


def ordered(*names):
    """``names`` in the model's (topological) joint order."""
    order = make_model().joint_names
    return tuple(sorted(names, key=order.index))


def value(merger, name):
    return merger.q[merger._index[name]]


def test_interval_is_upstreams_truncated_milliseconds():
    assert upstream_interval_ns(20.0) == 50 * MS
    assert upstream_interval_ns(30.0) == 33 * MS
    assert upstream_interval_ns(1000.0) == 1 * MS
    assert upstream_interval_ns(0.0) == 0


def test_subsets_from_several_publishers_merge(merger):
    u1 = merger.update(['ja'], [0.5], 1 * S)
    assert u1.publish and u1.joints == ordered('ja', 'jb', 'jc')
    assert not u1.warnings and u1.error is None
    u2 = merger.update(['jd'], [3.0], 1 * S)
    assert u2.publish and u2.joints == ordered('jd')
    assert value(merger, 'ja') == 0.5 and value(merger, 'jd') == 3.0


def test_unknown_name_ignored_with_one_summary_per_name_list(merger):
    u = merger.update(['ja', 'nope'], [0.1, 7.0], 1 * S)
    assert u.publish and u.joints == ordered('ja', 'jb', 'jc')
    assert not u.warnings and "Ignored 1 name(s) that are not joints of robot 'toy': 'nope'." \
        == u.ignored
    assert merger.update(['ja', 'nope'], [0.2, 7.0], 2 * S).ignored is None  # same list
    # another list: a new summary (the node logs it throttled); no set of names is kept
    assert "'nope'" in merger.update(['nope', 'jd'], [0.2, 7.0], 3 * S).ignored
    assert not merger._warned._seen


def test_many_unknown_names_make_one_line_naming_the_first_few(merger):
    names = ['ja'] + [f'ghost{i}' for i in range(merger.max_names - 1)]
    u = merger.update(names, [0.5] * len(names), 1 * S)
    assert u.publish and value(merger, 'ja') == 0.5 and not u.warnings
    assert u.ignored.startswith(f'Ignored {len(names) - 1} name(s)')
    assert "'ghost0', 'ghost1', 'ghost2', 'ghost3', 'ghost4' (+" in u.ignored
    assert len(u.ignored) < 300


def test_oversized_name_list_is_rejected_before_looking_at_it(merger):
    n_vars = len(merger.q)
    assert merger.max_names == 4 * n_vars + 64
    names = ['ja'] * 100_000
    u = merger.update(names, [0.5] * len(names), 1 * S)
    assert not u.publish and u.reason == 'oversized' and '100000 names' in u.error
    assert value(merger, 'ja') == 0.0 and not merger._lists


def test_stale_joints_are_the_received_ones_not_updated_for_long(merger):
    assert merger.stale_joints(10 * S, S) == ()          # nothing received: never stale
    merger.update(['ja'], [0.1], 1 * S, now_ns=1 * S)
    merger.update(['jd'], [0.1], 1 * S, now_ns=5 * S)
    assert merger.stale_joints(5 * S, S) == ordered('ja', 'jb', 'jc')   # with its mimics
    assert merger.stale_joints(int(6.5 * S), S) == ordered('ja', 'jb', 'jc', 'jd')
    merger.update(['ja'], [0.2], 2 * S, now_ns=6 * S)
    assert merger.stale_joints(int(6.5 * S), S) == ordered('jd')


def test_length_mismatch_rejects_the_message(merger):
    u = merger.update(['ja', 'jd'], [0.3], 1 * S)
    assert not u.publish and '2 names but 1 positions' in u.error
    assert u.reason == 'length mismatch'
    assert value(merger, 'ja') == 0.0
    u = merger.update(['ja'], [], 1 * S)
    assert not u.publish and 'position member was empty' in u.error


def test_non_finite_position_rejects_only_that_joint(merger):
    u = merger.update(['ja', 'jd'], [math.nan, 1.5], 1 * S)
    assert u.publish and u.joints == ordered('jd')
    assert len(u.warnings) == 1 and "'ja'" in u.warnings[0]
    assert value(merger, 'ja') == 0.0 and value(merger, 'jd') == 1.5
    u = merger.update(['ja', 'jd'], [math.inf, 1.6], 2 * S)
    assert u.joints == ordered('jd') and not u.warnings  # once per joint
    u = merger.update(['ja'], [math.nan], 3 * S)
    assert not u.publish


def test_mimic_value_ignored_with_one_warning(merger):
    u = merger.update(['ja', 'jb'], [0.2, 1.9], 1 * S)
    assert u.joints == ordered('ja', 'jb', 'jc')
    assert len(u.warnings) == 1 and "mimic joint 'jb'" in u.warnings[0] and "'ja'" in u.warnings[0]
    assert value(merger, 'ja') == 0.2
    assert value(merger, 'jb') == 0.0  # not written: kinematics computes it from ja
    u = merger.update(['jb'], [0.3], 2 * S)
    assert not u.publish and not u.warnings


def test_fixed_joint_with_mimic_stays_fixed(merger):
    u = merger.update(['je', 'jd'], [1.0, 0.5], 1 * S)
    assert u.joints == ordered('jd')
    assert len(u.warnings) == 1 and "fixed joint 'je'" in u.warnings[0]


def test_planar_and_floating_use_moveit_variable_names(merger):
    u = merger.update(['jp/x', 'jp/theta', 'jf/trans_z', 'jf/rot_w', 'jf/rot_x'],
                      [1.0, 0.5, 2.0, 0.0, 1.0], 1 * S)
    assert u.publish and u.joints == ordered('jp', 'jf') and not u.warnings
    assert value(merger, 'jp/x') == 1.0 and value(merger, 'jp/y') == 0.0
    assert value(merger, 'jf/rot_x') == 1.0 and value(merger, 'jf/rot_w') == 0.0
    u = merger.update(['jp'], [1.0], 2 * S)
    assert not u.publish and 'jp/x' in u.warnings[0]


def test_pending_joints_and_include_pending(merger):
    assert merger.pending_joints() == ordered('ja', 'jb', 'jc', 'jd', 'jp', 'jf')
    u = merger.update(['jd'], [1.0], 1 * S, include_pending=True)
    assert u.joints == ordered('ja', 'jb', 'jc', 'jd', 'jp', 'jf')
    assert merger.pending_joints() == ordered('ja', 'jb', 'jc', 'jp', 'jf')
    merger.update(['ja'], [0.1], 2 * S)
    assert merger.pending_joints() == ordered('jp', 'jf')
    u = merger.update(['jd'], [1.0], 3 * S, include_pending=True)
    assert u.joints == ordered('jd', 'jp', 'jf')
    assert merger.update(['jd'], [1.0], 4 * S).joints == ordered('jd')


def test_rate_limit_follows_oldest_joint(merger):
    merger.throttle.frequency = 10.0  # 100 ms
    assert merger.update(['ja'], [0.1], 1 * S).publish
    assert not merger.update(['ja'], [0.2], 1 * S + 50 * MS).publish
    assert value(merger, 'ja') == 0.1  # dropped messages are not merged (as upstream)
    assert merger.update(['ja'], [0.3], 1 * S + 100 * MS).publish
    # jd never published: the oldest stamp of the set is 0 -> published.
    assert merger.update(['ja', 'jd'], [0.3, 1.0], 1 * S + 120 * MS).publish
    merger.throttle.ignore_timestamp = True
    assert merger.update(['ja'], [0.4], 1 * S + 121 * MS).publish


def test_zero_stamp_never_published_unless_ignore_timestamp(merger):
    merger.throttle.frequency = 20.0
    assert not merger.update(['ja'], [0.1], 0).publish
    merger.throttle.ignore_timestamp = True
    assert merger.update(['ja'], [0.1], 0).publish


def test_stamp_going_backwards_resets_and_publishes(merger):
    merger.throttle.frequency = 10.0
    assert merger.update(['ja'], [0.1], 10 * S).publish
    assert merger.update(['jd'], [0.1], 10 * S).publish
    u = merger.update(['ja'], [0.2], 2 * S)
    assert u.publish and 'backwards' in u.backwards and not u.warnings
    # jd's time was reset too: its next message publishes although stamped earlier.
    assert merger.update(['jd'], [0.2], 1 * S).publish


def test_node_clock_going_backwards_resets():
    throttle = PublishThrottle(2, frequency=10.0)
    idx = np.array([0])
    assert throttle.check(5 * S, idx, now_ns=100 * S) == (True, None)
    throttle.mark(5 * S, idx)
    assert throttle.check(5 * S + MS, idx, now_ns=101 * S)[0] is False
    publish, warning = throttle.check(5 * S + MS, idx, now_ns=50 * S)
    assert publish and 'backwards' in warning


def test_name_list_cache_reused(merger):
    merger.update(['ja', 'jd'], [0.1, 0.2], 1 * S)
    lists = dict(merger._lists)
    merger.update(['ja', 'jd'], [0.3, 0.4], 2 * S)
    assert merger._lists == lists
    assert value(merger, 'jd') == 0.4


def test_array_positions_accepted(merger):
    import array
    u = merger.update(['ja', 'jd'], array.array('d', [0.25, 0.5]), 1 * S)
    assert u.publish and value(merger, 'ja') == 0.25
