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
``status [NODE]`` (``ros2 urdf status``) against a real node over DDS.

The node runs in this process; the command in a separate one
(``python -m urdf_state_py status``), as a user runs it from another shell.
"""
from __future__ import annotations

from pathlib import Path
import subprocess
import sys

from node_harness import NodeUnderTest
import pytest

pytestmark = pytest.mark.ros  # needs rclpy and DDS

ARM = Path(__file__).resolve().parent / 'fixtures' / 'urdfdom_arm.urdf'


def _status(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'urdf_state_py', 'status', *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope='module')
def node():
    n = NodeUnderTest('urdf_state_status', {'robot_description': ARM.read_text(),
                                            'frame_prefix': 'st/', 'publish_frequency': 7.0})
    yield n
    n.close()


def test_status_reports_model_parser_and_parameters(node):
    proc = _status(node.name, '--timeout', '30')
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f'node: {node.name}'
    assert lines[1].startswith('status: ')
    for expected in ('  robot: urdfdom_arm', '  parser: urdf', '  links: 12',
                     '  rejected descriptions: 0', '  last rejection: none',
                     f'  robot_description: {len(ARM.read_text())} characters',
                     '  frame_prefix: st/', '  publish_frequency: 7.0', '  parser: auto'):
        assert expected in lines, (expected, proc.stdout)


def test_status_of_an_absent_node_exits_1_with_the_reason(node):
    proc = _status('/no_such_node', '--timeout', '2')
    assert proc.returncode == 1
    assert proc.stdout == ''
    assert proc.stderr.startswith('error: node /no_such_node has not published on /diagnostics')


def test_status_lists_the_parts_attached():
    node = NodeUnderTest('urdf_state_status_parts', {
        'robot_description': ARM.read_text(), 'parts': ['second', 'empty'],
        'parts.second.description': ARM.read_text(), 'parts.second.parent': 'tool',
        'parts.second.prefix': 'second_'})
    try:
        proc = _status(node.name, '--timeout', '30')
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.splitlines()
        # 'empty' has no description: not attached
        for expected in ('  links: 24', '  parts: second', "  parts: ['second', 'empty']"):
            assert expected in lines, (expected, proc.stdout)
    finally:
        node.close()
