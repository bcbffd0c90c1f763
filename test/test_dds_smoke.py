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
Smoke tests for the environment.

Real DDS across processes, loopback only, and the ament_python packaging (data_files /
entry points).
"""
from importlib import metadata
import os
from pathlib import Path
import runpy
import subprocess
import sys
import time
import uuid

import pytest

pytestmark = pytest.mark.ros  # needs rclpy and DDS

REPO_ROOT = Path(__file__).resolve().parents[1]
DEADLINE_S = 15.0

# Publisher run in a separate interpreter: proves the message crosses a
# process boundary over DDS (not an intra-process shortcut).
PUBLISHER = r"""
import sys, time
import rclpy
from geometry_msgs.msg import TransformStamped
from tf2_msgs.msg import TFMessage

topic = sys.argv[1]
rclpy.init()
node = rclpy.create_node('dds_smoke_publisher')
pub = node.create_publisher(TFMessage, topic, 10)
t = TransformStamped()
t.header.frame_id = 'a'
t.child_frame_id = 'b'
t.transform.translation.x = 1.5
t.transform.rotation.w = 1.0
msg = TFMessage(transforms=[t])
deadline = time.monotonic() + 30.0  # never outlive a broken test run
announced = False
while time.monotonic() < deadline:
    if pub.get_subscription_count() > 0:
        if not announced:
            print('matched', flush=True)
            announced = True
        t.header.stamp = node.get_clock().now().to_msg()
        pub.publish(msg)
    rclpy.spin_once(node, timeout_sec=0.1)
node.destroy_node()
rclpy.shutdown()
"""


def test_discovery_is_loopback_only():
    assert os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] == 'LOCALHOST'
    assert os.environ.get('ROS_DOMAIN_ID', '').isdigit()


def test_tf_message_crosses_processes_over_dds():
    rclpy = pytest.importorskip('rclpy')
    from rclpy.executors import SingleThreadedExecutor
    from tf2_msgs.msg import TFMessage

    topic = '/dds_smoke_' + uuid.uuid4().hex[:8]
    proc = subprocess.Popen([sys.executable, '-c', PUBLISHER, topic],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    try:
        node = rclpy.create_node('dds_smoke_subscriber', context=ctx)
        received = []
        node.create_subscription(TFMessage, topic, received.append, 10)
        executor = SingleThreadedExecutor(context=ctx)
        executor.add_node(node)
        deadline = time.monotonic() + DEADLINE_S
        while not received and time.monotonic() < deadline:
            assert proc.poll() is None, (
                f'publisher exited early ({proc.returncode}): {proc.stderr.read()}')
            executor.spin_once(timeout_sec=0.1)
        assert received, (
            f'no TFMessage received within {DEADLINE_S} s '
            f'(publishers seen: {node.count_publishers(topic)})')
        tf = received[0].transforms[0]
        assert tf.header.frame_id == 'a'
        assert tf.child_frame_id == 'b'
        assert tf.transform.translation.x == pytest.approx(1.5)
        assert tf.transform.rotation.w == pytest.approx(1.0)
        executor.shutdown()
        node.destroy_node()
    finally:
        rclpy.shutdown(context=ctx)
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert 'matched' in out, err


def _setup_kwargs(monkeypatch, package_dir):
    """Run ``setup.py`` in ``package_dir`` with ``setuptools.setup`` captured."""
    import setuptools
    captured = {}
    monkeypatch.setattr(setuptools, 'setup', lambda **kw: captured.update(kw))
    monkeypatch.chdir(package_dir)
    runpy.run_path(str(Path(package_dir) / 'setup.py'), run_name='__main__')
    assert captured, 'setup.py did not call setuptools.setup()'
    return captured


def test_setup_py_data_files(monkeypatch):
    kw = _setup_kwargs(monkeypatch, REPO_ROOT)
    data = dict(kw['data_files'])
    assert data['share/ament_index/resource_index/packages'] == [
        'resource/urdf_state_py']
    assert (REPO_ROOT / 'resource' / 'urdf_state_py').is_file()
    assert data['share/urdf_state_py'] == ['package.xml']
    assert 'share/urdf_state_py/launch' in data
    assert 'share/urdf_state_py/config' in data
    for dest, files in kw['data_files']:
        for f in files:
            assert (REPO_ROOT / f).is_file(), f'{dest}: {f} does not exist'
    # Every launch/config file ships (dotfiles such as .gitkeep excepted).
    for folder in ('launch', 'config'):
        expected = sorted(f'{folder}/{p.name}' for p in (REPO_ROOT / folder).glob('*')
                          if p.is_file() and not p.name.startswith('.'))
        assert sorted(data[f'share/urdf_state_py/{folder}']) == expected
    assert kw['packages'] and all(not p.startswith('test') for p in kw['packages'])


def test_setup_py_keeps_robot_subfolders(monkeypatch, tmp_path):
    (tmp_path / 'setup.py').write_text((REPO_ROOT / 'setup.py').read_text())
    for rel in ('robots/arm/arm.urdf.xacro', 'robots/arm/meshes/link.stl',
                'robots/README.md'):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text('x')
    data = dict(_setup_kwargs(monkeypatch, tmp_path)['data_files'])
    assert data['share/urdf_state_py/robots'] == ['robots/README.md']
    assert data['share/urdf_state_py/robots/arm'] == ['robots/arm/arm.urdf.xacro']
    assert data['share/urdf_state_py/robots/arm/meshes'] == ['robots/arm/meshes/link.stl']
    assert data['share/urdf_state_py/launch'] == []  # absent folders are fine


def test_entry_points_are_installed():
    """The package is installed, so plugin discovery sees its entry points."""
    parsers = {ep.name: ep.value
               for ep in metadata.entry_points(group='urdf_state_py.parsers')}
    assert parsers.get('urdf') == 'urdf_state_py.core.parsers.urdf_xml:UrdfXmlParser'
    assert parsers.get('xacro') == 'urdf_state_py.core.parsers.xacro_parser:XacroParser'
    scripts = {ep.name for ep in metadata.entry_points(group='console_scripts')
               if ep.value.startswith('urdf_state_py.')}
    assert {'urdf_state', 'urdf_state_demo'} <= scripts
    # the benchmark (bench/) is not installed
    assert 'urdf_state_bench' not in {ep.name for ep in metadata.entry_points(
        group='console_scripts')}
