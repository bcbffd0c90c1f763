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
An MJCF robot through the node over DDS: TF of every body equals MuJoCo's ``mj_kinematics``.

The node starts on the features fixture (``<include>`` resolved through
``mjcf.base_dir``, as the launch file sets it); a MuJoCo configuration is
published as a JointState (``qpos`` values, a free joint's ``j/trans_x`` ...
``j/rot_w``) and the poses composed from /tf + /tf_static equal MuJoCo's body
poses to 1e-9. ``robot_description`` carries the URDF of the same robot. With
the shared corpus, the Menagerie Unitree H1 is then set at run time, and a
model using ``<replicate>`` is refused naming it, the H1 staying on TF.
"""

from __future__ import annotations

from mjcf_oracle import compile_model, joint_values, mujoco_poses, random_qpos
from node_harness import compose_poses, NodeUnderTest, transform_map
import numpy as np
import pytest
from robot_files import corpus_file, FIXTURES
from std_msgs.msg import String
from urdf_state_py.core.parsers import load_model, load_model_file

pytestmark = pytest.mark.ros  # needs rclpy and DDS

FEATURES = FIXTURES / 'mjcf' / 'features.xml'


@pytest.fixture(scope='module')
def node():
    n = NodeUnderTest('urdf_state_mjcf', {'robot_description': FEATURES.read_text(),
                                          'mjcf.base_dir': str(FEATURES.parent),
                                          'publish_frequency': 0.0})
    yield n
    n.close()


def assert_tf_is_mujoco(probe, path, model, seed):
    """Publish a random MuJoCo configuration; every body's TF pose equals MuJoCo's."""
    mj_model = compile_model(path)
    fixed_children = {j.child for j in model.joints if not j.is_movable}
    static = probe.wait_static(
        lambda m: {t.child_frame_id for t in m.transforms} == fixed_children,
        what=f'/tf_static of {model.name}')
    qpos = random_qpos(mj_model, model, np.random.default_rng(seed))
    values = joint_values(mj_model, qpos)
    since = probe.mark()
    stamp = probe.now_ns()
    probe.publish_joint_state(list(values), list(values.values()), stamp)
    moving = probe.wait_tf_stamp(stamp, since)
    poses = compose_poses(transform_map(static, moving), model.root)
    expected = mujoco_poses(mj_model, qpos)
    assert 'world' in expected and len(expected) > 5
    for body, pose in expected.items():
        np.testing.assert_allclose(poses[body], pose, rtol=0, atol=1e-9, err_msg=body)


def test_tf_of_every_body_is_mujoco_and_the_description_is_urdf(probe, node):
    model = load_model_file(FEATURES)
    assert_tf_is_mujoco(probe, FEATURES, model, 46)
    published = probe.late_latched('robot_description', String).data
    assert published.lstrip().startswith('<?xml') and '<robot name="features">' in published
    assert load_model(published).link_names == model.link_names


def test_run_time_menagerie_robot_and_refused_model(probe, node):
    path = corpus_file('mjcf/unitree_h1/h1.xml')
    text = path.read_text()
    result, = probe.set_parameters(node.name, robot_description=text)
    assert result.successful, result.reason
    model = load_model_file(path)
    assert_tf_is_mujoco(probe, path, model, 1)
    bad = text.replace('<worldbody>', '<worldbody><replicate count="2"><body/></replicate>', 1)
    result, = probe.set_parameters(node.name, robot_description=bad)
    assert not result.successful and '<replicate>' in result.reason, result.reason
    assert_tf_is_mujoco(probe, path, model, 2)      # the H1 stays
    published = probe.late_latched('robot_description', String).data
    assert '<robot name="h1">' in published
