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
Where the tests' descriptions live: the repository's own fixtures, and the optional corpus.

A user's clone has nothing beside it, so every test module runs on what the
repository carries: ``test/fixtures/`` (small URDFs, see its README) and the
bundled Unitree H1_2 (``robots/h1_2``). The shared corpus of real robots
(``../shared/robots`` next to the clone, or ``URDF_STATE_ROBOTS``) only adds
breadth: the tests that need it are marked :data:`needs_corpus` (or get their
parameters from :func:`corpus_params`) and skip with one reason,
:data:`CORPUS_REASON`, when it is absent — never an error at collection.
"""
from __future__ import annotations

from collections.abc import Sequence
import os
from pathlib import Path

import pytest
from urdf_state_py.tools.demo.mesh_robot import example_robot_data

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = REPO_ROOT / 'test' / 'fixtures'
RSP_FIXTURES = FIXTURES / 'robot_state_publisher'
INVALID_FIXTURES = FIXTURES / 'invalid'
#: The bundled real robot: 58 links, 51 revolute joints, 12 of them mimic joints.
H1_2 = REPO_ROOT / 'robots' / 'h1_2' / 'h1_2.urdf'


def _corpus_dir() -> Path:
    override = os.environ.get('URDF_STATE_ROBOTS')
    return Path(override) if override else REPO_ROOT.parent / 'shared' / 'robots'


#: The shared corpus (may not exist); its INDEX.md marks it as present.
CORPUS = _corpus_dir()
HAS_CORPUS = (CORPUS / 'INDEX.md').is_file()
CORPUS_REASON = (f'needs the shared robot corpus, absent here ({CORPUS} has no INDEX.md; '
                 'set URDF_STATE_ROBOTS to its location)')

#: Marks a test that only runs with the corpus.
needs_corpus = pytest.mark.skipif(not HAS_CORPUS, reason=CORPUS_REASON)


def corpus_params(values: Sequence, ids: Sequence[str] | None = None) -> list:
    """
    ``values`` for ``parametrize`` when the corpus is present; else one skipped placeholder.

    Without it a test parametrized over corpus files would get an empty
    parameter set, which pytest skips with a reason that says nothing useful.
    """
    if HAS_CORPUS:
        return [pytest.param(v, id=i) for v, i in zip(values, ids)] if ids else list(values)
    return [pytest.param(None, id='corpus-absent', marks=pytest.mark.skip(reason=CORPUS_REASON))]


def corpus_file(relative: str | Path) -> Path:
    """Return the corpus file ``relative``; skips the calling test when the corpus is absent."""
    if not HAS_CORPUS:
        pytest.skip(CORPUS_REASON)
    return CORPUS / relative


def big_robot_params() -> list:
    """
    Return ``params`` of a fixture wanting a big real robot with mimic joints.

    As file paths: the bundled H1_2 always, TALOS (60 links, negative mimic multipliers)
    with the corpus.
    """
    talos = 'example_robot_data/talos_data/robots/talos_full_v2.urdf'
    return [pytest.param(H1_2, id='h1_2')] + corpus_params([CORPUS / talos], ids=['talos'])


#: ``share/example-robot-data`` of the PyPI package (test dependency: robots with STL/DAE
#: meshes), the folder ``package://example-robot-data/...`` names; None when not installed.
EXAMPLE_ROBOT_DATA = example_robot_data()
EXAMPLE_ROBOT_DATA_REASON = ('needs the PyPI package example-robot-data (real meshes; '
                             './dev.sh setup installs it)')


def example_robot(relative: str) -> Path:
    """
    Return a file of example-robot-data, e.g. ``robots/talos_data/robots/talos_full_v2.urdf``.

    Skips the calling test when the package is not installed.
    """
    if EXAMPLE_ROBOT_DATA is None:
        pytest.skip(EXAMPLE_ROBOT_DATA_REASON)
    return EXAMPLE_ROBOT_DATA / relative
