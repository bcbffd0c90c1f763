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
The 3D view of a fleet.

``view --namespace /r1 --namespace /r2`` draws both robots of one urdf_state_container in
one scene, each from its own robot_description and under its own frame prefix (asked from
its node: two identical robots cannot be told apart by their frames), and ``--namespace
/r2`` alone shows r2. Headless Chromium, real DDS, TALOS with its meshes
(example-robot-data).
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rclpy')

from container_harness import answer_to, Container  # noqa: E402, I100 - after the importorskip
from robot_files import example_robot, EXAMPLE_ROBOT_DATA  # noqa: E402 - after the importorskip
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after the importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after the importorskip
from urdf_state_py.tools.demo.mesh_robot import TALOS  # noqa: E402 - after the importorskip
from view_harness import (  # noqa: E402 - after the importorskip
    Browser, DEADLINE, rendered_pose, screenshot, start_demo, ViewProcess)

TOLERANCE = 1e-4


@pytest.fixture(scope='module')
def fleet(probe, tmp_path_factory):
    model = example_robot(str(TALOS))
    path = tmp_path_factory.mktemp('fleet') / 'fleet.yaml'
    path.write_text('robots:\n' + ''.join(
        f'  - namespace: {ns}\n    model: {model}\n'
        '    parameters:\n      publish_default_positions: true\n' for ns in ('r1', 'r2')))
    container = Container(probe, 'view_fleet_container', fleet=path)
    yield load_model(model.read_text())
    container.close()


@pytest.fixture(scope='module')
def browser():
    page = Browser()
    yield page
    page.close()


def _view(*namespaces: str) -> ViewProcess:
    args = ['--package-path', f'example-robot-data={EXAMPLE_ROBOT_DATA}']
    for ns in namespaces:
        args += ['--namespace', ns]
    return ViewProcess(*args)


def _relative_poses(browser, model, robot: int) -> np.ndarray | None:
    """Robot ``robot``'s rendered link poses relative to its root link (None: not all drawn)."""
    names = json.dumps(list(model.link_names))
    rendered = browser.poll(f'return {names}.map((n) => window.urdfView.linkPose(n, {robot}));')
    if rendered is None or any(r is None for r in rendered):
        return None
    poses = np.array([rendered_pose(r) for r in rendered])
    root = poses[model.link_names.index(model.root)]
    return np.linalg.inv(root) @ poses


def _wait_poses(browser, model, robot: int, expected: np.ndarray) -> None:
    deadline = time.monotonic() + DEADLINE
    while True:
        poses = _relative_poses(browser, model, robot)
        error = np.inf if poses is None else float(np.abs(poses - expected).max())
        if error < TOLERANCE:
            return
        if time.monotonic() > deadline:
            pytest.fail(f'robot {robot}: rendered poses differ from FK by {error:.3g}; '
                        f'{browser.poll("return window.urdfView.status()")}')
        time.sleep(0.1)


def _fk(model, values: dict) -> np.ndarray:
    kin = Kinematics(model)
    q, _ = kin.resolve(kin.positions(values))
    poses = kin.link_poses_resolved(q)
    return np.linalg.inv(poses[model.link_names.index(model.root)]) @ poses


def test_every_robot_in_one_scene_under_its_prefix(probe, fleet, browser):
    view = _view('/r1', '/r2')
    try:
        browser.open(view.url)
        browser.wait('window.urdfView && window.urdfView.ready', what='both robots drawn')
        browser.wait('window.urdfView.status().robots.every((r) => r.framePrefix)',
                     what="both robots' frame prefixes")
        robots = browser.js('return window.urdfView.status().robots;')
        assert [(r['namespace'], r['robot'], r['framePrefix'], r['fixedFrame'])
                for r in robots] == [('/r1', 'talos', 'r1/', 'r1/base_link'),
                                     ('/r2', 'talos', 'r2/', 'r2/base_link')]
        for status in robots:
            assert status['posed'] == len(fleet.link_names)
            assert status['meshes']['failed'] == 0 and status['meshes']['loaded'] > 0
        rng = np.random.default_rng(40)
        values = {}
        for name in fleet.active_joint_names:
            for variable in fleet.joint(name).variable_names:
                lower, upper = fleet.variable_bounds()[variable]
                values[variable] = float(rng.uniform(max(lower, -1.0), min(upper, 1.0)))
        answer_to(probe, values, '/r2/joint_states')
        _wait_poses(browser, fleet, 1, _fk(fleet, values))     # r2 follows its JointState
        _wait_poses(browser, fleet, 0, _fk(fleet, {}))         # r1 stays at its defaults
        r1 = rendered_pose(browser.js('return window.urdfView.linkPose("base_link", 0);'))
        r2 = rendered_pose(browser.js('return window.urdfView.linkPose("base_link", 1);'))
        assert np.linalg.norm(r1[:3, 3] - r2[:3, 3]) > 0.5     # side by side, not overlaid
        screenshot(browser, 'view_fleet.png')
    finally:
        assert view.stop() == 0, view.log


def test_one_namespace_shows_that_robot(probe, fleet, browser):
    """
    Check that one namespace shows that robot: r1, publishing its default positions.

    A JointState-driven robot's moving frames reach a viewer that starts later only with
    its next JointState, as with robot_state_publisher.
    """
    view = _view('/r1')
    try:
        browser.open(view.url)
        browser.wait('window.urdfView && window.urdfView.ready', what='r1 drawn')
        # the prefix comes from r1's node (GetParameters) and may follow the drawing
        browser.wait('window.urdfView.status().framePrefix', what="r1's frame prefix")
        status = browser.js('return window.urdfView.status();')
        assert (status['namespace'], status['framePrefix'], len(status['robots'])) == \
            ('/r1', 'r1/', 1)
        _wait_poses(browser, fleet, 0, _fk(fleet, {}))
        assert '/r1/robot_description' in view.log
    finally:
        assert view.stop() == 0, view.log


def test_demo_fleet_web_shows_every_robot(browser):
    """``./dev.sh demo --fleet 2 --web``: one container, both robots in the page, moving."""
    import signal
    demo, url = start_demo('--fleet', '2', '--web')
    try:
        browser.open(url)
        browser.wait('window.urdfView && window.urdfView.ready', what='the demo fleet')
        robots = browser.js('return window.urdfView.status().robots;')
        assert [(r['namespace'], r['robot'], r['framePrefix'], r['meshes']['failed'])
                for r in robots] == [('/r1', 'talos', 'r1/', 0), ('/r2', 'talos', 'r2/', 0)]
        first = browser.js('return window.urdfView.linkPose("arm_left_4_link", 1);')
        browser.wait(f'JSON.stringify(window.urdfView.linkPose("arm_left_4_link", 1)) !== '
                     f'{json.dumps(json.dumps(first))}', what='r2 to move')
    finally:
        demo.send_signal(signal.SIGINT)
        output = demo.communicate(timeout=60)[0]
    assert demo.returncode == 0, output[-3000:]
