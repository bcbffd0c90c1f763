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
The native build fails loudly, with a documented way out.

A compiler error fails setup.py with the compiler's message, ``URDF_STATE_BUILD_NATIVE=0``
builds without the extension, and a node without it says so.
"""
from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess
import sys
import threading

from node_harness import wait_until
import pytest
from robot_files import REPO_ROOT

pytestmark = pytest.mark.ros  # needs rcl's headers, found through the ament index

packages = pytest.importorskip('ament_index_python.packages')

#: A header no system has: the compiler stops at it, naming it.
BROKEN_CFLAGS = '-include urdf_state_no_such_header.h'
OPT_OUT = 'URDF_STATE_BUILD_NATIVE=0'


@pytest.fixture(scope='module', autouse=True)
def _rcl_is_indexed():
    try:
        packages.get_package_prefix('rcl')
    except (packages.PackageNotFoundError, LookupError):
        pytest.skip('rcl is not in the ament index: setup.py builds no extension here')


def _build(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, 'setup.py', 'build_ext', '--force', '--build-lib',
         str(tmp_path / 'lib'), '--build-temp', str(tmp_path / 'tmp')],
        cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=600)


def _built(tmp_path: Path) -> list[Path]:
    return list((tmp_path / 'lib').rglob('_urdf_state_native*.so'))


def test_a_compiler_error_fails_the_build_with_the_compilers_message(tmp_path):
    result = _build(tmp_path, CFLAGS=BROKEN_CFLAGS, URDF_STATE_BUILD_NATIVE='1')
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert 'urdf_state_no_such_header.h: No such file or directory' in output, output[-2000:]
    assert 'the native extension urdf_state_py.node.tf_path._urdf_state_native failed to ' \
        'build' in result.stderr and OPT_OUT in result.stderr
    assert _built(tmp_path) == []


def test_the_opt_out_builds_the_package_without_the_extension(tmp_path):
    result = _build(tmp_path, CFLAGS=BROKEN_CFLAGS, URDF_STATE_BUILD_NATIVE='0')
    assert result.returncode == 0, result.stderr[-2000:]
    assert f'{OPT_OUT}: the native extension is not built' in result.stderr
    assert _built(tmp_path) == []


def test_a_node_without_the_extension_says_so_on_start_up(tmp_path):
    """Its start-up line is the value 'joint_states decoder' of /diagnostics (see there)."""
    shutil.copytree(REPO_ROOT / 'urdf_state_py', tmp_path / 'urdf_state_py',
                    ignore=shutil.ignore_patterns('*.so', '__pycache__'))
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(
        filter(None, [str(tmp_path), os.environ.get('PYTHONPATH')]))}
    env.pop('URDF_STATE_NATIVE', None)
    env.pop('URDF_STATE_NATIVE_MODULE', None)
    node = subprocess.Popen(
        [sys.executable, '-m', 'urdf_state_py.node', '--ros-args', '--disable-rosout-logs'],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(node.stdout), daemon=True)
    reader.start()
    try:
        wait_until(lambda: any('joint_states decoder' in line for line in lines),
                   what='the start-up line naming the decoder')
    finally:
        node.terminate()
        node.wait(timeout=30)
        reader.join(timeout=30)
    said = [line for line in lines if 'joint_states decoder' in line]
    assert said, ''.join(lines)
    assert 'joint_states decoder: Python (running without the native extension: not built ' \
        f'({OPT_OUT} or no rcl at build time))' in said[0]
