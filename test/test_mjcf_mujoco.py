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
The ``mjcf`` parser against MuJoCo: every body's pose equals ``mj_kinematics``'s (1e-9).

For each Menagerie robot of the shared corpus (``mjcf/``, when present) and
the repository's MJCF fixtures, at seeded random configurations inside the
joint ranges: the package's link poses (:class:`Kinematics`) and the poses of
the published URDF (urdf_parser_py + numpy, :func:`mjcf_oracle.urdf_poses`)
both equal MuJoCo's body poses, relative to the world body.
"""

from __future__ import annotations

import os
from pathlib import Path

from mjcf_oracle import (compile_model, joint_values, mujoco_poses, random_qpos, urdf_poses)
import numpy as np
import pytest
from robot_files import CORPUS, corpus_params, FIXTURES
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.parsers.registry import read_file

#: The Menagerie robots of the shared corpus (folder/file).
MENAGERIE = ('ufactory_xarm7/xarm7.xml', 'unitree_h1/h1.xml', 'shadow_hand/right_hand.xml',
             'pal_tiago/tiago_position.xml')
FIXTURE_FILES = sorted((FIXTURES / 'mjcf').glob('*.xml'))
SAMPLES = 20


def _robot_files() -> list:
    corpus = corpus_params([CORPUS / 'mjcf' / name for name in MENAGERIE],
                           [name.split('/')[0] for name in MENAGERIE])
    fixtures = [pytest.param(path, id=path.stem) for path in FIXTURE_FILES
                if not path.stem.endswith('_defaults')]
    return fixtures + corpus


def _published(path: Path):
    options = {'base_dir': os.path.dirname(path)}
    return default_registry().parse_published(read_file(path), 'auto', options)


@pytest.mark.parametrize('path', _robot_files())
def test_body_poses_equal_mujoco(path):
    model, urdf = _published(path)
    assert model.name and urdf.startswith('<?xml')
    mj_model = compile_model(path)
    kinematics = Kinematics(model)
    rng = np.random.default_rng(46)
    for _ in range(SAMPLES):
        qpos = random_qpos(mj_model, model, rng)
        values = joint_values(mj_model, qpos)
        expected = mujoco_poses(mj_model, qpos)
        ours = kinematics.link_poses(kinematics.positions(values))
        by_link = dict(zip(kinematics.link_names, ours))
        from_urdf = urdf_poses(urdf, values)
        assert set(expected) <= set(by_link)
        for body, pose in expected.items():
            np.testing.assert_allclose(by_link[body], pose, rtol=0, atol=1e-9, err_msg=body)
            np.testing.assert_allclose(from_urdf[body], pose, rtol=0, atol=1e-9,
                                       err_msg=f'{body} (published URDF)')
