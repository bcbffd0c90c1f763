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
``ros2 urdf view`` shows a MuJoCo Menagerie robot from its MJCF, with its meshes.

The node reads the Unitree H1's MJCF (shared corpus) and publishes its URDF,
whose meshes are absolute ``file://`` paths into the model's folder; the view,
allowed that folder (``--allow-dir``), serves every one of them and Chromium
draws the robot posed from /tf. ``URDF_STATE_SCREENSHOT=1`` writes the
screenshot to ``docs/images/view_mjcf_h1.png``.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')

from node_harness import NodeUnderTest  # noqa: E402, I100 - after the importorskip
from robot_files import corpus_file  # noqa: E402 - after the importorskip
from std_msgs.msg import String  # noqa: E402 - after the importorskip
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after the importorskip
from urdf_state_py.core.parsers import load_model_file  # noqa: E402 - after the importorskip
from view_harness import Browser, screenshot, ViewProcess  # noqa: E402 - after importorskip


H1 = 'mjcf/unitree_h1/h1.xml'


@pytest.fixture(scope='module')
def browser():
    corpus_file(H1)     # skips without the corpus, before a browser starts
    page = Browser()
    yield page
    page.close()


@pytest.fixture(scope='module')
def view(browser):
    process = ViewProcess('--allow-dir', str(corpus_file(H1).parent))
    yield process
    assert process.stop() == 0, process.log


@pytest.fixture(scope='module')
def node(view):
    path = corpus_file(H1)
    under_test = NodeUnderTest('urdf_state_view_mjcf', {'robot_description': path.read_text(),
                                                        'mjcf.base_dir': str(path.parent)})
    yield under_test
    under_test.close()


def test_menagerie_h1_is_drawn_with_its_meshes(probe, node, view, browser):
    model = load_model_file(corpus_file(H1))
    kinematics = Kinematics(model)
    rng = np.random.default_rng(3)
    values = {'pelvis_joint0/trans_z': 1.06, 'pelvis_joint0/rot_w': 1.0}
    for name in model.active_joint_names:
        joint = model.joint(name)
        if joint.is_bounded:
            values[name] = 0.3 * float(rng.uniform(joint.limits.lower, joint.limits.upper))
    browser.open(view.url)
    browser.wait('window.urdfView && window.urdfView.status().robot === "h1"',
                 what='the page to load the H1')
    probe.answer_to_state(list(values), list(values.values()))
    browser.wait('window.urdfView.ready', what='the H1 drawn')
    urdf = probe.late_latched('robot_description', String).data
    meshes = len(re.findall(r'<mesh filename="file://', urdf))
    status = browser.js('return window.urdfView.status();')
    assert meshes == 21 and status['links'] == len(model.link_names)
    assert status['meshes'] == {'referenced': meshes, 'loaded': meshes, 'failed': 0}, status
    # three.js's matrixWorld is column-major: the transpose's rows, flattened
    elbow = kinematics.link_pose(kinematics.positions(values), 'right_elbow_link')
    wanted = json.dumps(elbow.T.ravel().tolist())
    browser.wait(f'((p, e) => p !== null && p.every((v, i) => Math.abs(v - e[i]) < 1e-4))('
                 f'window.urdfView.linkPose("right_elbow_link"), {wanted})',
                 what='the right elbow drawn where FK puts it')
    screenshot(browser, 'view_mjcf_h1.png')
