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
What a build installs: what users run and nothing of the benchmark's.

Run by .ci/colcon on the colcon install it made (``URDF_STATE_INSTALL_PREFIX``: the package's
install prefix); skipped elsewhere.
"""
from __future__ import annotations

import os
from pathlib import Path
import re
import subprocess
import sys

import pytest
from test_package_manifest import imports_of_test_only_modules

PREFIX = os.environ.get('URDF_STATE_INSTALL_PREFIX')
pytestmark = pytest.mark.skipif(not PREFIX, reason='URDF_STATE_INSTALL_PREFIX is not set: '
                                'no install to check (.ci/colcon sets it)')
#: Words with "floor" that are not the benchmark's: libm's and CPython's.
NOT_THE_FLOOR = {b'floor', b'floorf', b'floorl', b'nb_floor_divide', b'nb_inplace_floor_divide'}


@pytest.fixture(scope='module')
def site() -> Path:
    found = sorted(Path(PREFIX).glob('lib/python3*/site-packages/urdf_state_py'))
    assert found, f'no urdf_state_py installed under {PREFIX}'
    return found[0]


def test_no_benchmark_is_installed(site):
    modules = [p.relative_to(site) for p in site.rglob('*.py')]
    assert modules and not [m for m in modules if 'bench' in str(m)]
    entry_points = ''.join(p.read_text() for p in site.parent.glob(
        'urdf_state_py*-info/entry_points.txt'))
    assert 'urdf_state = ' in entry_points and 'bench' not in entry_points
    scripts = Path(PREFIX, 'lib', 'urdf_state_py')
    assert 'urdf_state' in os.listdir(scripts)
    assert not [n for n in os.listdir(scripts) if 'bench' in n]


def test_the_extension_holds_no_floor(site):
    built = sorted(site.rglob('_urdf_state_native*.so'))
    assert len(built) == 1, built
    words = set(re.findall(rb'\w*floor\w*', built[0].read_bytes(), re.IGNORECASE))
    assert not words - NOT_THE_FLOOR, words - NOT_THE_FLOOR
    names = subprocess.run(
        [sys.executable, '-c', 'import importlib.util as u, sys\n'
         'spec = u.spec_from_file_location("_urdf_state_native", sys.argv[1])\n'
         'module = u.module_from_spec(spec); spec.loader.exec_module(module)\n'
         'print(" ".join(dir(module)))', str(built[0])],
        capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert {'Loop', 'Plan', 'Subscription', 'build_info', 'decode'} <= set(names)
    assert not [n for n in names if 'floor' in n.lower()]


def test_installed_modules_import_no_test_only_dependency(site):
    found = imports_of_test_only_modules(site)
    assert not found, found
