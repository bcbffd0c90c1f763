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
No build output in git.

No build output in git: what a build makes (an ELF object, a .so, a .pyc) is made again on
each machine for its own Python and ROS 2, and a stale copy in the tree could be imported in
place of the one the build made. .gitignore keeps new ones out; this test finds any that
got in anyway. It reads git, so it skips outside a git checkout (a source tarball, a release).
"""
from __future__ import annotations

from pathlib import Path
import shutil
import subprocess

import pytest
from robot_files import REPO_ROOT

#: Suffixes of compiled outputs (CPython extensions and bytecode, objects, libraries).
BUILD_SUFFIXES = ('.so', '.pyc', '.pyo', '.pyd', '.o', '.a', '.dylib')
ELF_MAGIC = b'\x7fELF'


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(['git', '-C', str(REPO_ROOT), *args], capture_output=True,
                          check=False, timeout=60)


@pytest.fixture(scope='module')
def tracked() -> list[str]:
    """Paths (relative to the package root) of every file git tracks in the package."""
    if shutil.which('git') is None:
        pytest.skip('git is not installed: cannot list the tracked files')
    if _git('rev-parse', '--is-inside-work-tree').stdout.strip() != b'true':
        pytest.skip(f'{REPO_ROOT} is not a git checkout (a source archive): nothing is tracked')
    listing = _git('ls-files', '-z')
    assert listing.returncode == 0, listing.stderr.decode(errors='replace')
    return [p for p in listing.stdout.decode().split('\0') if p]


def build_outputs(root: Path, paths: list[str]) -> list[str]:
    """Return the ``paths`` (relative to ``root``) that are build outputs (name or ELF magic)."""
    found = []
    for path in paths:
        if path.endswith(BUILD_SUFFIXES) or '/__pycache__/' in f'/{path}':
            found.append(path)
            continue
        try:
            with open(root / path, 'rb') as f:
                if f.read(4) == ELF_MAGIC:
                    found.append(path)
        except (FileNotFoundError, IsADirectoryError):  # deleted in the work tree, a submodule
            continue
    return found


def test_no_build_output_is_tracked(tracked):
    found = build_outputs(REPO_ROOT, tracked)
    assert not found, f'build outputs tracked by git (git rm --cached them): {found}'


@pytest.mark.parametrize('path', [
    'urdf_state_py/node/tf_path/_urdf_state_native.cpython-311-x86_64-linux-gnu.so',
    'urdf_state_py/node/_urdf_state_native.cpython-312-x86_64-linux-gnu.so',
    'urdf_state_py/core/__pycache__/model.cpython-311.pyc',
    'build/lib/urdf_state_py/__init__.py',
])
def test_build_outputs_are_ignored(tracked, path):
    """Wherever a build leaves its output in the package, git does not offer to add it."""
    assert _git('check-ignore', '-q', '--no-index', path).returncode == 0, \
        f'{path} is not ignored by .gitignore'


def test_build_outputs_are_found_by_name_and_by_content(tmp_path):
    """A library renamed 'data.bin' is found by its ELF magic; sources and text are not."""
    (tmp_path / 'data.bin').write_bytes(ELF_MAGIC + b'\x02\x01\x01' + bytes(9))
    (tmp_path / 'model.py').write_text('ELF = 1\n')
    (tmp_path / 'notes.txt').write_bytes(b'\x7fEL')
    paths = ['data.bin', 'model.py', 'notes.txt', 'pkg/__pycache__/model.cpython-311.pyc',
             'pkg/_native.cpython-311-x86_64-linux-gnu.so', 'gone.txt']
    assert build_outputs(tmp_path, paths) == [
        'data.bin', 'pkg/__pycache__/model.cpython-311.pyc',
        'pkg/_native.cpython-311-x86_64-linux-gnu.so']
