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
Kinematics on hand-made models: joint semantics, limits, mimic rules, batches, API.

Models are built directly (no parser), so these tests pin down the kinematics
alone. Expected poses are written out by hand, or -- for the randomised
checks -- come from a deliberately naive per-joint reference implementation.
"""

import math

import numpy as np
import pytest
from test_transforms import axis_angle, same_rotation
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.kinematics import JointTransforms, Kinematics
from urdf_state_py.core.model import Joint, JointType, Limits, Link, Mimic, Model, Origin
from urdf_state_py.core.transforms import normalize_quaternion, quaternion_to_matrix, rpy_to_matrix

PI = math.pi


def make_model(*joints, name='test', extra_links=()):
    """Return a Model whose links are exactly those the joints mention (plus ``extra_links``)."""
    links = list(extra_links)
    for joint in joints:
        for link in (joint.parent, joint.child):
            if link not in links:
                links.append(link)
    return Model(name, tuple(Link(n) for n in links), tuple(joints))


def rev(name, parent, child, axis=(0, 0, 1), lower=None, upper=None, xyz=(0, 0, 0),
        rpy=(0, 0, 0), mimic=None, type_=JointType.REVOLUTE):
    limits = Limits(lower, upper, 1.0, 1.0) if lower is not None or upper is not None else None
    return Joint(name, type_, parent, child, Origin(xyz, rpy), axis, limits, None, mimic)


def fixed(name, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), mimic=None):
    return Joint(name, JointType.FIXED, parent, child, Origin(xyz, rpy), mimic=mimic)


def pose(xyz=(0, 0, 0), rotation=np.eye(3)):
    t = np.eye(4)
    t[:3, :3] = rotation
    t[:3, 3] = xyz
    return t


def rot_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


# ---------------------------------------------------------------- joint types


def test_revolute_quarter_turn_moves_x_offset_to_y():
    model = make_model(rev('j1', 'base', 'l1', axis=(0, 0, 1)),
                       fixed('j2', 'l1', 'l2', xyz=(1, 0, 0)))
    kin = Kinematics(model)
    q = kin.positions({'j1': PI / 2})
    poses = kin.link_poses(q)
    np.testing.assert_allclose(poses[model.link_names.index('l2')],
                               pose((0, 1, 0), rot_z(PI / 2)), atol=1e-12)
    np.testing.assert_allclose(kin.link_pose(q, 'l1'), pose((0, 0, 0), rot_z(PI / 2)), atol=1e-12)
    np.testing.assert_allclose(kin.link_pose(q, 'base'), np.eye(4))


def test_prismatic_moves_along_normalised_axis():
    model = make_model(Joint('slide', JointType.PRISMATIC, 'base', 'carriage',
                             Origin((0, 0, 1), (0, 0, 0)), (3, 4, 0), Limits(-5, 5, 1, 1)))
    kin = Kinematics(model)
    np.testing.assert_allclose(model.joint('slide').axis, (0.6, 0.8, 0))
    np.testing.assert_allclose(kin.link_pose(kin.positions({'slide': 2.0}), 'carriage'),
                               pose((1.2, 1.6, 1.0)), atol=1e-12)


def test_revolute_axis_is_in_the_rotated_joint_frame():
    # origin yaw 90 deg, axis x in the joint frame = y in the parent frame.
    model = make_model(rev('j', 'base', 'tip', axis=(1, 0, 0), xyz=(1, 2, 3), rpy=(0, 0, PI / 2)))
    kin = Kinematics(model)
    got = kin.link_pose(kin.positions({'j': 0.3}), 'tip')
    np.testing.assert_allclose(got, pose((1, 2, 3), rot_z(PI / 2) @ axis_angle((1, 0, 0), 0.3)),
                               atol=1e-12)
    np.testing.assert_allclose(got[:3, :3], axis_angle((0, 1, 0), 0.3) @ rot_z(PI / 2), atol=1e-12)


def test_continuous_is_never_clamped():
    model = make_model(rev('wheel', 'base', 'rim', axis=(0, 1, 0), type_=JointType.CONTINUOUS,
                           lower=-1.0, upper=1.0))   # stray limits are ignored for continuous
    kin = Kinematics(model)
    q_eff, clamped = kin.resolve(kin.positions({'wheel': 10.0}))
    assert q_eff[0] == 10.0
    assert clamped == ()
    np.testing.assert_allclose(kin.link_pose([10.0], 'rim'),
                               pose(rotation=axis_angle((0, 1, 0), 10.0)), atol=1e-12)


def test_revolute_clamped_at_bounds_and_reported():
    model = make_model(rev('elbow', 'base', 'forearm', lower=-1.0, upper=0.5),
                       rev('wrist', 'forearm', 'hand', lower=-2.0, upper=2.0))
    kin = Kinematics(model)
    q = kin.positions({'elbow': 2.0, 'wrist': 1.0})
    q_eff, clamped = kin.resolve(q)
    np.testing.assert_array_equal(q_eff, [0.5, 1.0])
    assert clamped == ('elbow',)
    np.testing.assert_array_equal(q, [2.0, 1.0])           # input untouched
    q_eff, clamped = kin.resolve(kin.positions({'elbow': -3.0, 'wrist': 5.0}))
    np.testing.assert_array_equal(q_eff, [-1.0, 2.0])
    assert clamped == ('elbow', 'wrist')
    np.testing.assert_allclose(kin.link_pose(q, 'forearm'), pose(rotation=rot_z(0.5)), atol=1e-12)

    q_eff, clamped = kin.resolve(q, ignore_limits=True)
    np.testing.assert_array_equal(q_eff, [2.0, 1.0])
    assert clamped == ()
    np.testing.assert_allclose(kin.link_pose(q, 'forearm', ignore_limits=True),
                               pose(rotation=rot_z(2.0)), atol=1e-12)

    # On the bound exactly is not clamping, and NaN is not reported as clamped.
    assert kin.resolve(kin.positions({'elbow': 0.5}))[1] == ()
    assert kin.resolve(kin.positions({'elbow': math.nan, 'wrist': 3.0}))[1] == ('wrist',)
    assert kin.resolve(np.array([[math.nan, 0.0], [0.0, 3.0]]))[1] == ('wrist',)


def test_prismatic_clamped():
    model = make_model(Joint('lift', JointType.PRISMATIC, 'base', 'top', axis=(0, 0, 1),
                             limits=Limits(0.0, 0.3, 1, 1)))
    kin = Kinematics(model)
    q_eff, clamped = kin.resolve([0.5])
    assert q_eff[0] == 0.3 and clamped == ('lift',)
    np.testing.assert_allclose(kin.link_pose([0.5], 'top'), pose((0, 0, 0.3)))


def reversed_mimic_chain(b_lower, b_upper):
    """C = -b + 0.5, b = 2a + 0.1, a in [-1, 1], declared c, b, a (not in resolution order)."""
    return Kinematics(make_model(
        rev('c', 'base', 'lc', mimic=Mimic('b', -1.0, 0.5)),
        rev('b', 'base', 'lb', lower=b_lower, upper=b_upper, mimic=Mimic('a', 2.0, 0.1)),
        rev('a', 'base', 'la', lower=-1.0, upper=1.0),
    ))


def test_mimic_chain_declared_in_reverse_order():
    # c mimics b mimics a, declared c, b, a -- resolution must not depend on order.
    kin = reversed_mimic_chain(-10, 10)
    q_eff, clamped = kin.resolve(kin.positions({'a': 0.3, 'b': 99.0, 'c': -99.0}))
    value = dict(zip(kin.variable_names, q_eff))
    assert value['a'] == pytest.approx(0.3)
    assert value['b'] == pytest.approx(0.7)          # 2 * 0.3 + 0.1 (given value ignored)
    assert value['c'] == pytest.approx(-0.2)         # -1 * 0.7 + 0.5
    assert clamped == ()
    np.testing.assert_allclose(kin.link_pose(kin.positions({'a': 0.3}), 'lc'),
                               pose(rotation=rot_z(-0.2)), atol=1e-12)

    # The master is clamped first: a = 1 (not 2), so b = 2.1.
    value = dict(zip(kin.variable_names, kin.resolve(kin.positions({'a': 2.0}))[0]))
    assert value['b'] == pytest.approx(2.1) and value['c'] == pytest.approx(-1.6)


def test_mimic_own_limits_clamp_after_the_rule_and_propagate():
    kin = reversed_mimic_chain(-0.5, 0.5)
    q_eff, clamped = kin.resolve(kin.positions({'a': 0.3}))
    value = dict(zip(kin.variable_names, q_eff))
    assert value['b'] == 0.5                          # 0.7 clamped into [-0.5, 0.5]
    assert value['c'] == pytest.approx(0.0)           # follows b's EFFECTIVE value
    assert clamped == ('b',)
    q_eff, clamped = kin.resolve(kin.positions({'a': 0.3}), ignore_limits=True)
    value = dict(zip(kin.variable_names, q_eff))
    assert value['b'] == pytest.approx(0.7) and value['c'] == pytest.approx(-0.2)
    assert clamped == ()


def test_mimic_of_mimic_in_a_chain_tree():
    # The mimic follows a joint deeper in the tree than itself.
    model = make_model(
        rev('shoulder', 'base', 'upper', lower=-2, upper=2, mimic=Mimic('wrist', 0.5)),
        rev('elbow', 'upper', 'fore', lower=-2, upper=2),
        rev('wrist', 'fore', 'hand', lower=-2, upper=2, mimic=Mimic('elbow', 1.0, 0.2)),
    )
    kin = Kinematics(model)
    value = dict(zip(kin.variable_names, kin.resolve(kin.positions({'elbow': 0.4}))[0]))
    assert value['wrist'] == pytest.approx(0.6)
    assert value['shoulder'] == pytest.approx(0.3)


def test_fixed_joint_with_mimic_stays_fixed():
    model = make_model(rev('a', 'base', 'la', lower=-1, upper=1),
                       fixed('f', 'la', 'lf', xyz=(0, 0, 1), mimic=Mimic('a', 3.0, 1.0)))
    kin = Kinematics(model)
    assert kin.variable_names == ('a',)
    assert kin.movable_joint_names == ('a',)
    assert kin.fixed_transforms().joint_names == ('f',)
    for a in (0.0, 0.7):
        got = kin.link_poses(kin.positions({'a': a}))
        la, lf = model.link_names.index('la'), model.link_names.index('lf')
        np.testing.assert_allclose(np.linalg.inv(got[la]) @ got[lf], pose((0, 0, 1)), atol=1e-12)


def test_mimic_of_a_fixed_joint_is_constant():
    # A fixed joint never moves, so its value is 0 and the follower sits at the offset.
    model = make_model(fixed('f', 'base', 'lf'),
                       rev('m', 'lf', 'lm', lower=-0.2, upper=0.2, mimic=Mimic('f', 2.0, 0.3)))
    kin = Kinematics(model)
    q_eff, clamped = kin.resolve(kin.default_positions())
    assert q_eff[0] == 0.2 and clamped == ('m',)
    assert kin.resolve(kin.default_positions(), ignore_limits=True) == (pytest.approx([0.3]), ())


def test_mimic_of_a_multi_dof_joint_is_rejected():
    model = make_model(Joint('p', JointType.PLANAR, 'base', 'lp'),
                       rev('m', 'lp', 'lm', mimic=Mimic('p')))
    with pytest.raises(DescriptionError, match="'m' mimics planar joint 'p'"):
        Kinematics(model)


def test_planar_pose_translation_then_rotation_axis_ignored():
    for axis in ((0, 0, 1), (1, 0, 0)):     # the URDF axis plays no role (MoveIt semantics)
        model = make_model(Joint('base_joint', JointType.PLANAR, 'world', 'base',
                                 Origin((0, 0, 0.5), (0, 0, PI / 2)), axis))
        kin = Kinematics(model)
        assert kin.variable_names == ('base_joint/x', 'base_joint/y', 'base_joint/theta')
        q = kin.positions({'base_joint/x': 1.0, 'base_joint/y': 2.0, 'base_joint/theta': 0.3})
        expected = pose((0, 0, 0.5), rot_z(PI / 2)) @ pose((1, 2, 0), rot_z(0.3))
        np.testing.assert_allclose(kin.link_pose(q, 'base'), expected, atol=1e-12)
        np.testing.assert_allclose(expected[:3, 3], (-2, 1, 0.5), atol=1e-12)
        # theta is not clamped (it wraps, it has no limit)
        assert kin.resolve(kin.positions({'base_joint/theta': 7.0}))[1] == ()


def test_floating_pose_normalises_the_quaternion():
    model = make_model(Joint('free', JointType.FLOATING, 'world', 'body',
                             Origin((0, 0, 1), (0, 0, 0))),
                       fixed('mount', 'body', 'sensor', xyz=(1, 0, 0)))
    kin = Kinematics(model)
    names = [f'free/{v}'
             for v in ('trans_x', 'trans_y', 'trans_z', 'rot_x', 'rot_y', 'rot_z', 'rot_w')]
    assert kin.variable_names == tuple(names)
    np.testing.assert_array_equal(kin.default_positions(), [0, 0, 0, 0, 0, 0, 1])
    q = kin.positions(dict(zip(names, (1, 2, 3, 0, 0, 2, 2))))   # 90 deg about z, norm 2*sqrt2
    np.testing.assert_allclose(kin.link_pose(q, 'body'), pose((1, 2, 4), rot_z(PI / 2)),
                               atol=1e-12)
    np.testing.assert_allclose(kin.link_pose(q, 'sensor'), pose((1, 3, 4), rot_z(PI / 2)),
                               atol=1e-12)
    moving = kin.moving_transforms(kin.resolve(q)[0])
    np.testing.assert_allclose(moving.translations[0], (1, 2, 4))
    assert same_rotation(moving.rotations[0], (0, 0, math.sqrt(0.5), math.sqrt(0.5)))
    # A zero quaternion means identity.
    q = kin.positions(dict(zip(names, (1, 2, 3, 0, 0, 0, 0))))
    np.testing.assert_allclose(kin.link_pose(q, 'body'), pose((1, 2, 4)), atol=1e-12)
    assert same_rotation(kin.moving_transforms(q).rotations[0], (0, 0, 0, 1))


# ------------------------------------------------------------------ API


def test_positions_unknown_name_raises_key_error_naming_it():
    kin = Kinematics(make_model(rev('j', 'a', 'b', lower=-1, upper=1)))
    with pytest.raises(KeyError, match="'nope'"):
        kin.positions({'j': 0.1, 'nope': 1.0})
    base = np.array([0.25])
    np.testing.assert_array_equal(kin.positions({}, base=base), [0.25])
    np.testing.assert_array_equal(kin.positions({'j': 0.5}, base=base), [0.5])
    assert base[0] == 0.25                              # base not modified


def test_default_positions_use_midpoint_when_zero_out_of_bounds():
    model = make_model(rev('a', 'base', 'la', lower=0.5, upper=1.5),
                       rev('b', 'base', 'lb', lower=-1.0, upper=2.0),
                       Joint('p', JointType.PRISMATIC, 'base', 'lp',
                             limits=Limits(-0.4, -0.2, 1, 1)))
    kin = Kinematics(model)
    np.testing.assert_allclose(kin.default_positions(), [1.0, 0.0, -0.3])
    assert kin.resolve(kin.default_positions())[1] == ()
    d = kin.default_positions()
    d[0] = 99                                         # a copy: the defaults are unaffected
    assert kin.default_positions()[0] == 1.0


def test_fixed_transforms_are_the_fixed_origins():
    model = make_model(fixed('f1', 'base', 'a', xyz=(1, 2, 3), rpy=(0.1, 0.2, 0.3)),
                       rev('j', 'a', 'b'),
                       fixed('f2', 'b', 'c', rpy=(PI, 0, 0)))
    kin = Kinematics(model)
    fixed_tf = kin.fixed_transforms()
    assert isinstance(fixed_tf, JointTransforms)
    assert fixed_tf.joint_names == ('f1', 'f2')
    assert fixed_tf.parents == ('base', 'b') and fixed_tf.children == ('a', 'c')
    np.testing.assert_allclose(fixed_tf.translations, [(1, 2, 3), (0, 0, 0)])
    np.testing.assert_allclose(quaternion_to_matrix(fixed_tf.rotations[0]),
                               rpy_to_matrix((0.1, 0.2, 0.3)), atol=1e-12)
    assert same_rotation(fixed_tf.rotations[1], (1, 0, 0, 0))
    assert kin.fixed_transforms() is fixed_tf          # computed once


def test_joint_index_and_subsets():
    model = make_model(rev('a', 'base', 'la'), fixed('f', 'la', 'lf'),
                       rev('b', 'lf', 'lb', axis=(1, 0, 0), xyz=(0, 0, 1)),
                       rev('c', 'base', 'lc', axis=(0, 1, 0), xyz=(1, 0, 0)))
    kin = Kinematics(model)
    assert kin.movable_joint_names == ('a', 'c', 'b')          # topological (breadth first)
    q = kin.positions({'a': 0.1, 'b': 0.2, 'c': 0.3})
    full = kin.moving_transforms(q)
    assert full.joint_names == ('a', 'c', 'b') and len(full) == 3
    idx = kin.joint_index(['b', 'a'])
    np.testing.assert_array_equal(idx, [2, 0])
    for joints in (idx, ['b', 'a'], ('b', 'a')):
        sub = kin.moving_transforms(q, joints)
        assert sub.joint_names == ('b', 'a')
        assert sub.parents == ('lf', 'base') and sub.children == ('lb', 'la')
        np.testing.assert_allclose(sub.translations, full.translations[[2, 0]])
        np.testing.assert_allclose(sub.rotations, full.rotations[[2, 0]])
    assert len(kin.moving_transforms(q, [])) == 0
    with pytest.raises(KeyError, match="unknown joint.*'zz'"):
        kin.joint_index(['a', 'zz'])
    with pytest.raises(KeyError, match="fixed joint.*'f'"):
        kin.joint_index(['f'])
    with pytest.raises(KeyError, match="'zz'"):
        kin.moving_transforms(q, ['zz'])


def test_link_pose_unknown_link_and_bad_shapes():
    kin = Kinematics(make_model(rev('j', 'a', 'b')))
    with pytest.raises(KeyError, match="'nope'"):
        kin.link_pose([0.0], 'nope')
    with pytest.raises(ValueError, match='shape'):
        kin.link_poses([0.0, 1.0])
    with pytest.raises(ValueError, match='shape'):
        kin.resolve(np.zeros((2, 3)))


def test_single_link_robot():
    kin = Kinematics(Model('one', (Link('only'),), ()))
    assert kin.variable_names == () and kin.movable_joint_names == ()
    np.testing.assert_array_equal(kin.link_poses(np.zeros(0)), [np.eye(4)])
    np.testing.assert_array_equal(kin.link_poses(np.zeros((3, 0))), [[np.eye(4)]] * 3)
    assert len(kin.moving_transforms(np.zeros(0))) == 0
    assert len(kin.fixed_transforms()) == 0
    assert kin.resolve(np.zeros(0))[1] == ()


# --------------------------------------------- randomised: reference + consistency


def reference_link_poses(model, q_effective):
    """Naive FK: one joint at a time, 4x4 matrices, written straight from the spec."""
    index = {name: i for i, name in enumerate(model.variable_names)}
    poses = {model.root: np.eye(4)}
    for joint in model.joints:
        origin = pose(joint.origin.xyz, rpy_to_matrix(joint.origin.rpy))
        motion = np.eye(4)
        if joint.type in (JointType.REVOLUTE, JointType.CONTINUOUS):
            motion = pose(rotation=axis_angle(joint.axis, q_effective[index[joint.name]]))
        elif joint.type is JointType.PRISMATIC:
            motion = pose(np.asarray(joint.axis) * q_effective[index[joint.name]])
        elif joint.type is JointType.PLANAR:
            x, y, theta = (q_effective[index[v]] for v in joint.variable_names)
            motion = pose((x, y, 0), rot_z(theta))
        elif joint.type is JointType.FLOATING:
            values = [q_effective[index[v]] for v in joint.variable_names]
            motion = pose(values[:3], quaternion_to_matrix(normalize_quaternion(values[3:])))
        poses[joint.child] = poses[joint.parent] @ origin @ motion
    return np.array([poses[name] for name in model.link_names])


def random_model(rng, n_joints=40, deep=False):
    """Return a random tree of every joint type, with random origins/axes/limits, mimics."""
    joints = []
    links = ['root']
    types = [JointType.REVOLUTE] * 4 + [JointType.CONTINUOUS, JointType.PRISMATIC] * 2 \
        + [JointType.FIXED] * 3 + [JointType.PLANAR, JointType.FLOATING]
    one_dof = []
    for i in range(n_joints):
        parent = links[-1] if deep or rng.random() < 0.5 else links[rng.integers(len(links))]
        jtype = types[rng.integers(len(types))]
        child = f'link{i}'
        limits = None
        if jtype in (JointType.REVOLUTE, JointType.PRISMATIC):
            lower = rng.uniform(-2, 0.5)
            limits = Limits(lower, lower + rng.uniform(0.1, 3), 1, 1)
        mimic = None
        if jtype in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC) \
                and one_dof and rng.random() < 0.3:
            mimic = Mimic(one_dof[rng.integers(len(one_dof))], rng.uniform(-2, 2),
                          rng.uniform(-0.5, 0.5))
        joints.append(Joint(f'j{i}', jtype, parent, child,
                            Origin(tuple(rng.uniform(-1, 1, 3)), tuple(rng.uniform(-PI, PI, 3))),
                            tuple(rng.normal(size=3)), limits, None, mimic))
        if jtype in (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC):
            one_dof.append(f'j{i}')
        links.append(child)
    order = rng.permutation(len(joints))            # declaration order must not matter
    return Model('random', tuple(Link(n) for n in links), tuple(joints[i] for i in order))


def random_q(kin, rng, n=None):
    shape = (kin.n_variables,) if n is None else (n, kin.n_variables)
    return rng.uniform(-3, 3, shape)


@pytest.mark.parametrize('seed,deep', [(0, False), (1, False), (2, True), (3, True)])
def test_random_trees_match_the_naive_reference(seed, deep):
    rng = np.random.default_rng(seed)
    model = random_model(rng, n_joints=40, deep=deep)
    kin = Kinematics(model)
    for _ in range(5):
        q = random_q(kin, rng)
        q_eff, _ = kin.resolve(q)
        np.testing.assert_allclose(kin.link_poses(q), reference_link_poses(model, q_eff),
                                   atol=1e-9)


@pytest.mark.parametrize('seed', [0, 1])
def test_moving_transforms_match_link_pose_composition(seed):
    """Parent-relative TF transforms equal inv(pose(parent)) @ pose(child) from link_poses."""
    rng = np.random.default_rng(seed)
    model = random_model(rng, n_joints=30)
    kin = Kinematics(model)
    index = {name: i for i, name in enumerate(model.link_names)}
    for _ in range(5):
        q_eff, _ = kin.resolve(random_q(kin, rng))
        poses = kin.link_poses_resolved(q_eff)
        for tf in (kin.moving_transforms(q_eff), kin.fixed_transforms()):
            for k, (parent, child) in enumerate(zip(tf.parents, tf.children)):
                relative = np.linalg.inv(poses[index[parent]]) @ poses[index[child]]
                np.testing.assert_allclose(tf.translations[k], relative[:3, 3], atol=1e-9)
                np.testing.assert_allclose(np.linalg.norm(tf.rotations[k]), 1.0, atol=1e-12)
                np.testing.assert_allclose(quaternion_to_matrix(tf.rotations[k]),
                                           relative[:3, :3], atol=1e-9)


@pytest.mark.parametrize('n', [1, 3, 8, 50, 300])   # both schedules, chunked batches
def test_batch_equals_single_calls(n):
    rng = np.random.default_rng(7)
    model = random_model(rng, n_joints=30)
    kin = Kinematics(model)
    qs = random_q(kin, rng, n)
    q_eff_batch, clamped_batch = kin.resolve(qs)
    poses_batch = kin.link_poses(qs)
    assert poses_batch.shape == (n, len(model.links), 4, 4)
    moving_batch = kin.moving_transforms(q_eff_batch)
    assert moving_batch.rotations.shape == (n, len(kin.movable_joint_names), 4)
    subset = kin.joint_index(kin.movable_joint_names[::-2])
    subset_batch = kin.moving_transforms(q_eff_batch, subset)
    clamped_union = set()
    for i in range(n):
        q_eff, clamped = kin.resolve(qs[i])
        clamped_union.update(clamped)
        np.testing.assert_array_equal(q_eff_batch[i], q_eff)
        np.testing.assert_allclose(poses_batch[i], kin.link_poses(qs[i]), atol=1e-12)
        single = kin.moving_transforms(q_eff)
        np.testing.assert_allclose(moving_batch.translations[i], single.translations, atol=1e-12)
        np.testing.assert_allclose(moving_batch.rotations[i], single.rotations, atol=1e-12)
        single = kin.moving_transforms(q_eff, subset)
        np.testing.assert_allclose(subset_batch.rotations[i], single.rotations, atol=1e-12)
        np.testing.assert_allclose(subset_batch.translations[i], single.translations, atol=1e-12)
    assert set(clamped_batch) == clamped_union
    order = {name: i for i, name in enumerate(kin.movable_joint_names)}
    assert list(clamped_batch) == sorted(clamped_batch, key=order.__getitem__)


def test_batch_ignore_limits_and_link_pose():
    rng = np.random.default_rng(3)
    kin = Kinematics(random_model(rng, n_joints=20))
    qs = random_q(kin, rng, 4)
    poses = kin.link_poses(qs, ignore_limits=True)
    for i in range(4):
        np.testing.assert_allclose(poses[i], kin.link_poses(qs[i], ignore_limits=True), atol=1e-12)
    link = kin.model.link_names[-1]
    np.testing.assert_allclose(kin.link_pose(qs, link),
                               kin.link_poses(qs)[:, kin.model.link_names.index(link)])
