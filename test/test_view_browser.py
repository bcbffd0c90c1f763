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
The 3D view end to end: the node, the view server and headless Chromium, on real meshes.

The node (in-process, its own participant) publishes robot_description
(transient local), /tf_static and /tf for the JointStates this test sends;
``python -m urdf_state_py view`` runs as a user runs it; Chromium loads its
page. Asserted, per robot: every link's rendered pose (``linkPose``) equals
the library's FK for the published JointState to 1e-4, and follows a new
JointState; every referenced mesh loaded; the screenshot is not blank; every
request the browser made went to the view's own 127.0.0.1 address. A
description change reloads the page's model; a hostile description gets
every mesh refused, nothing served, and the view carries on.

Robots: TALOS (STL meshes, 60 links, mimic joints) and ANYmal C (COLLADA
meshes with JPEG textures), from the PyPI package example-robot-data.
"""
from __future__ import annotations

import json
from pathlib import Path
import re
import time
import urllib.request

import numpy as np
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip('rclpy')

from node_harness import NodeUnderTest  # noqa: E402, I100 - after the importorskip
from robot_files import (  # noqa: E402 - after the importorskip
    example_robot, EXAMPLE_ROBOT_DATA, EXAMPLE_ROBOT_DATA_REASON)
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after the importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after the importorskip
from view_harness import (  # noqa: E402 - after the importorskip
    Browser, DEADLINE, rendered_pose, screenshot, start_demo, ViewProcess)

TALOS = 'robots/talos_data/robots/talos_full_v2.urdf'
ANYMAL = 'robots/anymal_c_simple_description/urdf/anymal.urdf'
TOLERANCE = 1e-4
HOSTILE_MESHES = 100_000


@pytest.fixture(scope='module')
def browser():
    page = Browser()
    yield page
    page.close()


@pytest.fixture(scope='module')
def allowed_dir(tmp_path_factory):
    """Return an --allow-dir folder with a 10 GB sparse "mesh" and a symlink to /etc/passwd."""
    folder = tmp_path_factory.mktemp('allowed')
    with open(folder / 'huge.stl', 'wb') as stream:
        stream.truncate(10 * 1024 ** 3)
    (folder / 'out.stl').symlink_to('/etc/passwd')
    return folder


@pytest.fixture(scope='module')
def view(browser, allowed_dir):
    if EXAMPLE_ROBOT_DATA is None:
        pytest.skip(EXAMPLE_ROBOT_DATA_REASON)
    process = ViewProcess('--package-path', f'example-robot-data={EXAMPLE_ROBOT_DATA}',
                          '--allow-dir', str(allowed_dir))
    yield process
    assert process.stop() == 0, process.log


@pytest.fixture(scope='module')
def node(view):
    under_test = NodeUnderTest('urdf_state_view_test')
    yield under_test
    under_test.close()


def _show(probe, node, browser, view, text: str, robot: str) -> None:
    """Give the node ``text`` as its description and wait until the page shows that robot."""
    results = probe.set_parameters(node.name, robot_description=text)
    assert results[0].successful, results[0].reason
    shown = browser.poll('return location.href;')     # None: busy, so open already
    if shown is not None and not shown.startswith(view.url):
        browser.open(view.url)
    browser.wait(f'window.urdfView && window.urdfView.status().robot === "{robot}"',
                 what=f'the page to load {robot}')


def _publish(probe, kinematics: Kinematics, rng) -> np.ndarray:
    """Return a random JointState within the limits (all active joints), published; FK of it."""
    model = kinematics.model
    values = {}
    for name in model.active_joint_names:
        for variable in model.joint(name).variable_names:
            lower, upper = model.variable_bounds()[variable]
            lower, upper = max(lower, -np.pi), min(upper, np.pi)
            values[variable] = float(rng.uniform(lower, upper))
    probe.answer_to_state(list(values), list(values.values()))
    q_effective, _ = kinematics.resolve(kinematics.positions(values))
    return kinematics.link_poses_resolved(q_effective)


def _pose_error(browser, model, expected: np.ndarray) -> float:
    """Largest difference between the rendered link poses and ``expected`` (inf: one missing)."""
    names = json.dumps(list(model.link_names))
    rendered = browser.poll(f'return {names}.map((n) => window.urdfView.linkPose(n));')
    if rendered is None:
        return float('inf')
    worst = 0.0
    for elements, pose in zip(rendered, expected):
        if elements is None:
            return float('inf')
        worst = max(worst, float(np.abs(rendered_pose(elements) - pose).max()))
    return worst


def _follows(browser, model, expected: np.ndarray, what: str) -> None:
    """Wait until every rendered pose is within TOLERANCE of ``expected`` (generous deadline)."""
    deadline = time.monotonic() + DEADLINE
    error = _pose_error(browser, model, expected)
    while error > TOLERANCE:
        if time.monotonic() > deadline:
            pytest.fail(f'{what}: rendered poses differ from FK by {error:.3g} after '
                        f'{DEADLINE} s; page status: '
                        f'{browser.poll("return window.urdfView.status()")}')
        time.sleep(0.1)
        error = _pose_error(browser, model, expected)


def _mesh_count(text: str) -> int:
    """Visuals with a mesh: what the page counts as referenced."""
    return sum('<mesh' in visual for visual in re.findall(r'<visual\b.*?</visual>', text, re.S))


def _summary(view) -> dict:
    """Return the server's /api/model answer (what the page loaded)."""
    with urllib.request.urlopen(view.url + 'api/model', timeout=30) as answer:
        return json.loads(answer.read())


def _only_local(browser, view) -> list[str]:
    """Every network request the browser made (chrome:, data:, blob: stay inside it)."""
    requests = [url for url in browser.requests()
                if url.split(':', 1)[0].lower() in ('http', 'https', 'ws', 'wss', 'ftp')]
    assert requests, 'no request recorded'
    outside = [url for url in requests if not url.startswith(view.url)]
    assert not outside, f'requests that left the view server: {outside[:10]}'
    return requests


@pytest.mark.parametrize('relative, robot', [(TALOS, 'talos'), (ANYMAL, 'anymal')],
                         ids=['stl-talos', 'dae-anymal'])
def test_rendered_poses_follow_tf(probe, node, view, browser, relative, robot):
    path = example_robot(relative)
    text = path.read_text()
    model = load_model(text, parser='urdf')
    kinematics = Kinematics(model)
    rng = np.random.default_rng(31)
    before = browser.js('return window.urdfView ? window.urdfView.status().version : null;')
    earlier = len(browser.requests())
    _show(probe, node, browser, view, text, robot)
    expected = _publish(probe, kinematics, rng)
    browser.wait('window.urdfView.ready', what=f'{robot} ready')
    status = browser.js('return window.urdfView.status();')
    meshes = _mesh_count(text)
    assert status['links'] == len(model.link_names)
    assert status['meshes'] == {'referenced': meshes, 'loaded': meshes, 'failed': 0}, status
    assert status['fixedFrame'] == model.root and status['tfMessages'] > 0
    if before is not None:   # the second robot: the same page reloaded its model by itself
        assert status['version'] > before
    _follows(browser, model, expected, f'{robot}: first JointState')
    _follows(browser, model, _publish(probe, kinematics, rng), f'{robot}: a new JointState')
    screenshot(browser, f'view_{robot}.png')
    requests = _only_local(browser, view)
    meshes_fetched = {url for url in browser.requests()[earlier:]
                      if '/files/' in url and not url.endswith('.jpg')}
    assert len(meshes_fetched) == _summary(view)['meshes']['served']
    for url in [u for u in requests if u.endswith('.jpg')]:
        with urllib.request.urlopen(url, timeout=30) as answer:   # COLLADA textures: served
            assert answer.status == 200 and answer.read(3) == b'\xff\xd8\xff'


def _hostile(allowed_dir: Path) -> tuple[str, list[str]]:
    """Return a valid tree whose meshes are all things the view must not serve."""
    uris = ['file:///etc/passwd', '/proc/self/environ', 'file:///proc/self/environ',
            'package://example-robot-data/../../../../../../etc/passwd',
            'package://example-robot-data/robots/%2e%2e/%2e%2e/%2e%2e/etc/passwd.stl',
            'package://example-robot-data/robots/..%2f..%2f..%2fetc/hosts.stl',
            'http://example.com/robot.stl', 'https://127.0.0.1:1/x.dae',
            f'file://{allowed_dir}/huge.stl', f'file://{allowed_dir}/out.stl',
            f'{allowed_dir}/../../../etc/passwd.stl', 'package://no_such_package/x.stl']
    visuals = ''.join(f'<visual><geometry><mesh filename="{u}"/></geometry></visual>'
                      for u in uris)
    many = '<visual><geometry><mesh filename="file:///nowhere/m{}.stl"/></geometry></visual>'
    text = (f'<robot name="hostile"><link name="base">{visuals}</link>'
            f'<link name="many">{"".join(many.format(i) for i in range(HOSTILE_MESHES))}</link>'
            '<joint name="j" type="revolute"><parent link="base"/><child link="many"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    return text, uris


def test_hostile_description_is_refused_and_the_view_carries_on(probe, node, view, browser,
                                                                allowed_dir):
    text, uris = _hostile(allowed_dir)
    kinematics = Kinematics(load_model(text, parser='urdf'))
    earlier = len(browser.requests())
    _show(probe, node, browser, view, text, 'hostile')
    _publish(probe, kinematics, np.random.default_rng(5))
    browser.wait('window.urdfView.ready', what='the hostile robot posed')
    status = browser.js('return window.urdfView.status();')
    total = len(uris) + HOSTILE_MESHES
    assert status['meshes'] == {'referenced': total, 'loaded': 0, 'failed': total}, status
    summary = _summary(view)
    assert summary['meshes']['served'] == 0 and summary['meshes']['refusedCount'] == total
    assert '<mesh' not in summary['urdf'] and 'passwd' not in summary['urdf']
    reasons = dict(summary['meshes']['refused'])
    assert 'larger than' in reasons[f'file://{allowed_dir}/huge.stl']
    assert 'outside' in reasons[f'file://{allowed_dir}/out.stl']
    assert 'not served' in view.log and 'hostile' in view.log
    assert not [url for url in browser.requests()[earlier:] if '/files/' in url]
    browser.wait('document.getElementById("problems").textContent.includes('
                 '"not served: file:///etc/passwd: not a")', what='the problem list in the panel')
    # and a good description afterwards is shown as before
    talos = example_robot(TALOS).read_text()
    _show(probe, node, browser, view, talos, 'talos')
    _publish(probe, Kinematics(load_model(talos, parser='urdf')), np.random.default_rng(6))
    browser.wait('window.urdfView.ready', what='TALOS again after the hostile description')


def test_demo_web_shows_the_demo_robot(browser):
    """
    Run ``./dev.sh demo --web``: the node, the sweeper and the view.

    The URL printed, TALOS drawn with every mesh (example-robot-data), Ctrl-C ends it all.
    """
    import signal
    if EXAMPLE_ROBOT_DATA is None:
        pytest.skip(EXAMPLE_ROBOT_DATA_REASON)
    demo, url = start_demo('--web')
    try:
        browser.open(url)
        browser.wait('window.urdfView && window.urdfView.ready', what='the demo robot')
        status = browser.js('return window.urdfView.status();')
        talos = load_model(example_robot(TALOS).read_text())
        assert status['robot'] == 'talos' and status['posed'] == len(talos.link_names)
        assert status['meshes']['loaded'] == _mesh_count(example_robot(TALOS).read_text())
        assert status['meshes']['failed'] == 0 and status['refused'] == 0
        assert not browser.js('return document.getElementById("skeleton").checked;')
        assert browser.js('return document.getElementById("problems-box").hidden;')
        first = browser.js('return window.urdfView.linkPose("arm_left_4_link");')
        browser.wait(f'JSON.stringify(window.urdfView.linkPose("arm_left_4_link")) !== '
                     f'{json.dumps(json.dumps(first))}', what='the demo robot to move')
        screenshot(browser, 'view_demo.png')
    finally:
        demo.send_signal(signal.SIGINT)
        output = demo.communicate(timeout=60)[0]
    assert demo.returncode == 0, output[-3000:]
