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
urdf_state.launch.py and fleet.launch.py started for real, as ``ros2 launch`` runs them.

Each launch runs in its own process (a LaunchService including the file, which is what
``ros2 launch`` does), its nodes in their own processes: /tf_static must come out, a
parameter set over the node's set_parameters service (``ros2 param set``) must take
effect, and SIGINT to the process group (Ctrl-C in a terminal) must end everything with
exit 0. launch and launch_ros are not on PyPI: without them these tests skip.
"""
from __future__ import annotations

import os
from pathlib import Path
import signal
import subprocess
import sys
import uuid

from node_harness import wait_until
import pytest
from robot_files import REPO_ROOT

pytestmark = pytest.mark.ros

pytest.importorskip('launch', reason='launch is not installed (ROS 2 launch framework; not '
                    'on PyPI: a sourced ROS 2 distro has it)')
pytest.importorskip('launch_ros', reason='launch_ros is not installed (not on PyPI: a '
                    'sourced ROS 2 distro has it)')

#: Launch start-up, the parser process and DDS discovery on a loaded machine.
START = 90.0
RUNNER = """
import sys
from launch import LaunchService
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource
service = LaunchService(argv=sys.argv[2:])
service.include_launch_description(IncludeLaunchDescription(
    PythonLaunchDescriptionSource(sys.argv[1]),
    launch_arguments=[a.split(':=', 1) for a in sys.argv[2:]]))
sys.exit(service.run())
"""
FIXTURE = REPO_ROOT / 'test' / 'fixtures' / 'urdfdom_arm.urdf'


class Launched:
    """A launch file running in its own process group, its output in a file."""

    def __init__(self, launch_file: Path, log: Path, **arguments: str) -> None:
        self.log = log
        with open(log, 'wb') as out:
            self.process = subprocess.Popen(
                [sys.executable, '-c', RUNNER, str(launch_file),
                 *(f'{k}:={v}' for k, v in arguments.items())],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        return self.log.read_text(errors='replace')

    def interrupt(self) -> int:
        """Ctrl-C as a terminal sends it (to the whole group); the exit code."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            code = self.process.wait(timeout=START)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise AssertionError(f'still running {START} s after SIGINT:\n{self.output()}')
        wait_until(lambda: not self._group_alive(), START,
                   'every process of the launch (nodes, parser processes) to end')
        return code

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.process.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _frames(msg) -> set[str]:
    return {t.child_frame_id for t in msg.transforms}


def _static_with_prefix(probe, launched: Launched, prefix: str, what: str):
    def find():
        assert launched.process.poll() is None, f'the launch ended:\n{launched.output()}'
        with probe._lock:
            return next((m for m in reversed(probe.tf_static)
                         if any(f.startswith(prefix) for f in _frames(m))), None)
    return wait_until(find, START, what)


def test_urdf_state_launch_publishes_takes_a_parameter_and_ends_on_sigint(probe, tmp_path):
    tag = uuid.uuid4().hex[:8]
    namespace, prefix = f'launch_{tag}', f'a{tag}/'
    launched = Launched(REPO_ROOT / 'launch' / 'urdf_state.launch.py', tmp_path / 'launch.log',
                        model=str(FIXTURE), namespace=namespace, frame_prefix=prefix)
    try:
        first = _static_with_prefix(probe, launched, prefix, '/tf_static of the launched node')
        assert all(f.startswith(prefix) for f in _frames(first))
        (result,) = probe.set_parameters(f'/{namespace}/urdf_state', frame_prefix=f'b{tag}/')
        assert result.successful, result.reason
        moved = _static_with_prefix(probe, launched, f'b{tag}/', '/tf_static after param set')
        assert {f.removeprefix(f'b{tag}/') for f in _frames(moved)} == \
            {f.removeprefix(prefix) for f in _frames(first)}
        assert launched.interrupt() == 0, launched.output()
    finally:
        launched.close()


def test_fleet_launch_serves_every_robot_takes_a_parameter_and_ends_on_sigint(probe, tmp_path):
    tag = uuid.uuid4().hex[:8]
    fleet = tmp_path / 'fleet.yaml'
    fleet.write_text(f'robots:\n'
                     f'  - namespace: left_{tag}\n    model: {FIXTURE}\n'
                     f'  - namespace: right_{tag}\n    model: {FIXTURE}\n')
    launched = Launched(REPO_ROOT / 'launch' / 'fleet.launch.py', tmp_path / 'fleet.log',
                        fleet=str(fleet), container=f'fleet_{tag}')
    try:
        for side in ('left', 'right'):   # frame_prefix defaults to "<namespace>/"
            _static_with_prefix(probe, launched, f'{side}_{tag}/', f'/tf_static of {side}')
        (result,) = probe.set_parameters(f'/left_{tag}/urdf_state', frame_prefix=f'moved_{tag}/')
        assert result.successful, result.reason
        _static_with_prefix(probe, launched, f'moved_{tag}/', '/tf_static after param set')
        assert launched.interrupt() == 0, launched.output()
    finally:
        launched.close()
