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
Real robots over real DDS: every link pose rebuilt from /tf + /tf_static matches FK.

One node for the module, started WITHOUT a description (it must wait, not die);
each robot is loaded through the SetParameters service, then a JointState with
random values (some beyond the limits, mimic masters included, a bogus value
for a mimic joint) is published and the received transforms are composed into
root-relative poses compared with ``Kinematics.link_poses`` to 1e-9.
"""
import zlib

from node_harness import compose_poses, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from robot_files import CORPUS, corpus_params, H1_2
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model

pytestmark = pytest.mark.ros  # needs rclpy and DDS

#: Real robots of the shared corpus, beside the bundled H1_2 that always runs.
CORPUS_ROBOTS = {
    'talos': 'example_robot_data/talos_data/robots/talos_full_v2.urdf',
    'tiago': 'example_robot_data/tiago_description/robots/tiago.urdf',
    'pr2': 'example_robot_data/pr2_description/urdf/pr2.urdf',
    'robotiq_2f85': 'robotiq_2f85/generated/robotiq_2f_85.urdf',
}


@pytest.fixture(scope='module')
def node():
    n = NodeUnderTest('urdf_state_robots')
    yield n
    n.close()


def random_state(model, rng):
    """
    Return values for every active variable, some beyond their limits.

    Values for every active variable: bounded joints up to 30 % beyond their limits
    (the first bounded one always beyond).
    """
    names, values = [], []
    forced = False
    for joint in model.joints:
        if not joint.is_movable or joint.is_mimic:
            continue
        bounds = joint.variable_bounds()
        for var in joint.variable_names:
            lower, upper = bounds[var]
            if np.isfinite(lower) and np.isfinite(upper) and upper - lower < 100:
                span = upper - lower
                values.append(rng.uniform(lower - 0.3 * span - 0.1, upper + 0.3 * span + 0.1)
                              if forced else upper + 0.2)
                forced = True
            else:
                values.append(rng.uniform(-np.pi, np.pi))
            names.append(var)
    return names, values


def test_waits_without_description(node):
    assert node.node.model is None
    assert any('waiting' in line for line in node.logs('warning'))


@pytest.mark.parametrize('ignore_limits', [False, True], ids=['clamped', 'ignore_limits'])
@pytest.mark.parametrize('robot', ['h1_2'] + corpus_params(sorted(CORPUS_ROBOTS)))
def test_tf_matches_forward_kinematics(probe, node, robot, ignore_limits):
    text = (H1_2 if robot == 'h1_2' else CORPUS / CORPUS_ROBOTS[robot]).read_text()
    model = load_model(text)
    kin = Kinematics(model)
    results = probe.set_parameters(node.name, robot_description=text,
                                   ignore_limits=ignore_limits)
    assert all(r.successful for r in results), [r.reason for r in results]
    fixed_children = {j.child for j in model.joints if not j.is_movable}
    static = probe.wait_static(
        lambda m: {t.child_frame_id for t in m.transforms} == fixed_children,
        what=f'/tf_static of {robot}')
    assert len(static.transforms) == len(fixed_children)

    rng = np.random.default_rng(zlib.crc32(robot.encode()))
    names, values = random_state(model, rng)
    mimics = model.mimic_joint_names
    if mimics:  # an explicit value for a mimic joint is ignored
        names.append(mimics[0])
        values.append(0.123)
    since = probe.mark()
    stamp = probe.now_ns()
    probe.publish_joint_state(names, values, stamp)
    moving = probe.wait_tf_stamp(stamp, since)
    movable_children = {j.child for j in model.joints if j.is_movable}
    assert {t.child_frame_id for t in moving.transforms} == movable_children

    poses = compose_poses(transform_map(static, moving), model.root)
    assert set(poses) == set(model.link_names)
    q = kin.positions({n: v for n, v in zip(names, values) if n not in mimics})
    expected = kin.link_poses(q, ignore_limits=ignore_limits)
    worst = max(np.abs(poses[link] - expected[i]).max()
                for i, link in enumerate(model.link_names))
    assert worst < 1e-9, f'{robot}: max deviation {worst}'
    if not ignore_limits:
        _, clamped = kin.resolve(q)
        assert clamped
        wait_until(lambda: sum('is beyond its limits' in line
                               for line in node.logs('warning')) >= len(clamped),
                   what='clamping warnings')
    node.clear_logs()
