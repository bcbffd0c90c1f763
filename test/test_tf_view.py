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

"""The ROS-free part of the terminal TF viewer: tree composition, rates, rendering."""
import math

import pytest
from urdf_state_py.core.transforms import compose_poses, quaternion_to_rpy, rpy_to_quaternion
from urdf_state_py.tools.tf_view.frame_tree import FrameTree, pick_frames
from urdf_state_py.tools.tf_view.tf_screen import RateMeter, render, Stats, summary

Q0 = (0.0, 0.0, 0.0, 1.0)


def yaw(angle):
    return tuple(rpy_to_quaternion((0.0, 0.0, angle)).tolist())


def quat_to_rpy(q):
    return tuple(quaternion_to_rpy(q).tolist())


def arm_tree():
    """
    Return the TF tree of a small arm, plus a second tree.

    Base -> shoulder (static, z=1) -> elbow (yaw 90 deg, x=1) -> hand (x=0.5);
    base -> camera (static); plus a second tree odom -> map-less 'world_marker'.
    """
    t = FrameTree()
    t.update('base', 'shoulder', (0, 0, 1), Q0, static=True, received=0.0)
    t.update('shoulder', 'elbow', (1, 0, 0), yaw(math.pi / 2), received=0.0)
    t.update('elbow', 'hand', (0.5, 0, 0), Q0, received=0.0)
    t.update('/base', 'camera', (0.1, 0, 0.2), Q0, static=True, received=0.0)
    return t


def test_quaternion_roundtrip_and_compose():
    for rpy in [(0.1, -0.2, 0.3), (1.0, 0.5, -2.0), (0.0, 0.0, math.pi - 1e-3)]:
        assert quat_to_rpy(rpy_to_quaternion(rpy)) == pytest.approx(rpy, abs=1e-9)
    # 90 deg about z then translate x: the point (1,0,0) of the child lands on (0,1,0).
    t, q = compose_poses((0, 0, 0), yaw(math.pi / 2), (1, 0, 0), Q0)
    assert tuple(t) == pytest.approx((0, 1, 0), abs=1e-12)
    assert quat_to_rpy(q) == pytest.approx((0, 0, math.pi / 2))


def test_tree_structure():
    t = arm_tree()
    assert t.frames == {'base', 'shoulder', 'elbow', 'hand', 'camera'}
    assert t.roots() == ['base']          # leading '/' normalised away
    assert t.leaves() == ['camera', 'hand']
    assert t.depth('hand') == 3 and t.depth('base') == 0
    assert t.children() == {'base': ['camera', 'shoulder'], 'shoulder': ['elbow'],
                            'elbow': ['hand']}
    assert t.is_static('shoulder') is True and t.is_static('elbow') is False
    assert t.is_static('base') is None


def test_root_relative_pose_composes_the_chain():
    t = arm_tree()
    root, xyz, q = t.pose('hand')
    # base->shoulder z=1; shoulder->elbow x=1, yaw 90; elbow->hand x=0.5 (rotated to +y).
    assert root == 'base'
    assert xyz == pytest.approx((1.0, 0.5, 1.0))
    assert quat_to_rpy(q) == pytest.approx((0, 0, math.pi / 2))
    assert t.pose('base') == ('base', (0.0, 0.0, 0.0), Q0)


def test_received_rotations_are_normalised_and_degenerate_ones_become_identity():
    t = arm_tree()
    t.update('hand', 'finger', (0, 0, 0), (0.0, 0.0, 2.0, 2.0))
    assert t.edges['finger'].rotation == pytest.approx((0, 0, math.sqrt(0.5), math.sqrt(0.5)))
    for bad in [(0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0), (math.inf, 0.0, 0.0, 1.0)]:
        t.update('hand', 'finger', (0, 0, 0), bad)
        assert t.edges['finger'].rotation == Q0
        assert all(isinstance(c, float) for c in t.edges['finger'].rotation)
    assert t.pose('finger')[2] == pytest.approx(yaw(math.pi / 2))


def test_latest_transform_wins_and_reparenting():
    t = arm_tree()
    t.update('shoulder', 'elbow', (2, 0, 0), Q0, received=1.0)
    assert t.pose('hand')[1] == pytest.approx((2.5, 0, 1))
    assert t.edges['elbow'].updates == 2
    t.update('camera', 'hand', (0, 0, 1), Q0)   # re-parented (latest wins, like tf2)
    assert t.pose('hand')[1] == pytest.approx((0.1, 0, 1.2))
    assert t.leaves() == ['elbow', 'hand']


def test_forest_and_cycle_do_not_hang():
    t = FrameTree()
    t.update('odom', 'base', (1, 0, 0), Q0)
    t.update('map', 'marker', (0, 1, 0), Q0)
    t.update('a', 'b', (0, 0, 0), Q0)
    t.update('b', 'a', (0, 0, 0), Q0)          # a cycle
    roots = t.roots()
    assert roots[:2] == ['map', 'odom'] and len(roots) == 3
    assert t.pose('base')[0] == 'odom'
    assert t.depth('a') == 1                     # stops at the cycle
    lines = t.tree_lines()
    assert sorted(line.split()[-1] if line.endswith('~') else line for line in lines)
    assert len(lines) == 6                       # every frame exactly once


def test_tree_lines_and_compact_lines():
    t = arm_tree()
    assert t.tree_lines() == [
        'base',
        '├─ camera =',
        '└─ shoulder =',
        '   └─ elbow ~',
        '      └─ hand ~',
    ]
    assert t.compact_lines() == ['base', '  camera=', '  shoulder= > elbow~ > hand~']
    wrapped = t.compact_lines(width=24)
    assert wrapped[-2:] == ['  shoulder= > elbow~ >', '      hand~']


def test_pick_frames_prefers_deep_leaves_spread_over_branches():
    t = FrameTree()
    for side in ('l', 'r'):
        t.update('root', f'{side}_arm', (0, 0, 0), Q0)
        t.update(f'{side}_arm', f'{side}_hand', (0, 0, 0), Q0)
        for finger in ('a', 'b', 'c'):
            t.update(f'{side}_hand', f'{side}_{finger}1', (0, 0, 0), Q0)
            t.update(f'{side}_{finger}1', f'{side}_{finger}2', (0, 0, 0), Q0)
    t.update('root', 'head', (0, 0, 0), Q0)
    picked = pick_frames(t, 3)
    # The deepest leaves are fingertips: one per hand first (then sorted by
    # depth and name), the head (shallow) not before every fingertip.
    assert picked == ['l_a2', 'l_b2', 'r_a2']
    assert pick_frames(t, 2) == ['l_a2', 'r_a2']
    assert len(pick_frames(t, 6)) == 6 and 'head' not in pick_frames(t, 6)
    assert set(pick_frames(t, 20)) == set(t.leaves())


def test_rate_meter():
    m = RateMeter(window=2.0)
    assert m.rate(now=0.0) == 0.0
    for i in range(30):                        # 10 Hz for 3 s
        m.add(1, now=i * 0.1)
    assert m.rate(now=2.95) == pytest.approx(10.0)
    assert m.total == 30
    assert m.rate(now=10.0) == 0.0             # nothing in the last window
    young = RateMeter(window=2.0)
    young.add(5, now=0.0)
    young.add(5, now=1.0)
    assert young.rate(now=1.0) == pytest.approx(10.0)   # 10 events in 1 s of age
    assert young.rate(now=0.0) <= 20.0                  # no absurd first rate


def test_render_contents():
    t = arm_tree()
    stats = Stats(RateMeter(), RateMeter())
    for i in range(40):                        # 20 msg/s with 2 transforms each
        stats.tf_messages.add(1, now=i * 0.05)
        stats.tf_transforms.add(2, now=i * 0.05)
    stats.static_messages, stats.static_transforms = 1, 2
    text = render(t, stats, expected=['base', 'shoulder', 'elbow', 'hand', 'wrist'],
                  title='TITLE', now=1.975)
    lines = text.splitlines()
    assert lines[0] == 'TITLE'
    assert lines[1].startswith('frames: 5  (2 moving ~, 2 static =, 1 root: base)')
    words = lines[2].split()
    assert float(words[1]) == pytest.approx(40 / 1.975, abs=0.05) and words[2] == 'msg/s'
    assert float(words[3]) == pytest.approx(80 / 1.975, abs=0.05)
    assert words[4] == 'transforms/s'
    assert '/tf_static: 2 transforms in 1 msg' in lines[2]
    assert lines[3] == 'model links: 4/5 frames  missing: wrist'
    assert '└─ shoulder =' in lines
    hand = next(line for line in lines if line.startswith('hand '))
    assert hand.split()[1:] == ['base', '+1.000', '+0.500', '+1.000', '+0.000', '+0.000',
                                '+1.571']
    # Explicit frames, one unknown; no tree.
    text = render(t, stats, watch=['elbow', 'nope'], tree_mode='none', now=1.975)
    assert 'shoulder =' not in text
    assert 'nope   (not received)' in text
    assert any(line.startswith('elbow') and '+1.000' in line for line in text.splitlines())


def test_summary_counts_expected_frames():
    t = arm_tree()
    stats = Stats(RateMeter(), RateMeter())
    text, ok = summary(t, ['base', 'shoulder', 'elbow', 'hand'], stats, 1.0)
    assert ok and 'summary: 4/4 frames' in text
    text, ok = summary(t, ['base', 'ghost'], stats, 1.0)
    assert not ok and 'summary: 1/2 frames' in text and 'MISSING: ghost' in text
    assert summary(t, None, stats, 1.0)[1] is True
    text, ok = summary(t, ['base'] + [f'g{i}' for i in range(20)], stats, 1.0, max_missing=3)
    assert 'summary: 1/21 frames' in text and 'MISSING: g0, g1, g2 (and 17 more)' in text


def test_render_shortens_the_tree_to_fit_the_screen():
    t = FrameTree()
    for i in range(30):
        t.update('base', f'f{i:02d}', (i, 0, 0), Q0)
    stats = Stats(RateMeter(), RateMeter())
    full = render(t, stats, title='T', now=0.0)
    assert len(full.splitlines()) > 30
    short = render(t, stats, title='T\nsecond title line', now=0.0, max_lines=20).splitlines()
    assert len(short) == 20
    assert short[-9].startswith('... ') and 'more tree lines' in short[-9]
    assert short[-8] == '' and short[-7].startswith('frame')
    assert short[-1].startswith('f')          # the poses survive
    tiny = render(t, stats, title='T', now=0.0, max_lines=10).splitlines()
    assert not any(line.startswith('├─') for line in tiny)
