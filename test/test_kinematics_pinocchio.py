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
Root-relative link poses of every robot equal pinocchio's (1e-9).

For the robots the repository carries (the bundled H1_2, robot_state_publisher's
test URDFs) and, where the shared corpus is present, each valid robot in the
first table of its ``INDEX.md``, at 20
seeded random configurations within limits, every link's pose from
:meth:`Kinematics.link_poses` (single and batch) is compared with
``data.oMf[frame]`` after ``forwardKinematics`` + ``updateFramePlacements``.

Pinocchio ignores ``<mimic>`` (``buildModelFromXML(..., mimic=False)``, the
default), treating mimic joints as ordinary joints, so it is given our
*effective* configuration -- after mimic rules and clamping -- joint by joint.
Its configuration layout differs from ours: continuous (revolute unbounded)
joints take ``(cos, sin)``, a URDF floating joint becomes a free flyer
``(x, y, z, qx, qy, qz, qw)`` with a unit quaternion, a planar joint
``(x, y, cos, sin)``.

Notes on corpus files that are special for pinocchio (none is skipped):

* ``unitree_ros/.../b2_description.urdf`` has the one floating joint
  (``world`` -> ``base``); pinocchio models it as a JointModelFreeFlyer, mapped
  as above (our quaternion is deliberately NOT normalised, pinocchio gets the
  normalised one -- checking our normalisation too).
* One-link robots (``one_link``, ``no_visual``, ``pr2_desc_no_joint``,
  ``quadrotor_base``, ``test-desc``) and robots with only fixed joints have
  ``nq == 0`` in pinocchio; the root link is still a BODY frame, so they are
  compared like the others (identity and constant poses).
* ``unitree_ros/.../h1_2.urdf`` has ``<material>`` elements without a name;
  pinocchio's bundled urdfdom prints errors about them to stderr but builds the
  kinematic model fine (visuals do not matter here).
* ``ros2_urdf_test`` files with the XML declaration typo (``verison``) are
  accepted by pinocchio's parser as they are.
"""

import math
import re
import zlib

import numpy as np
import pytest
from robot_files import CORPUS, corpus_params, H1_2, needs_corpus, REPO_ROOT, RSP_FIXTURES
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import JointType

pin = pytest.importorskip('pinocchio')

try:
    from urdf_state_py.core.parsers import load_model_file
except ImportError:   # the parsers land separately; without them there is nothing to load
    load_model_file = None

N_CONFIGURATIONS = 20
TOLERANCE = 1e-9


def corpus_files():
    """Paths of the first table of INDEX.md (the valid robots), in table order."""
    index = CORPUS / 'INDEX.md'
    if not index.is_file():
        return []
    first_section = index.read_text(encoding='utf-8').split('\n## ')[0]
    return re.findall(r'^\| `([^`]+)`', first_section, re.MULTILINE)


#: The repository's own robots (relative to its root): these always run.
REPO_FILES = [p.relative_to(REPO_ROOT).as_posix()
              for p in (H1_2, *sorted(RSP_FIXTURES.glob('*.urdf')))]
CORPUS_FILES = corpus_files()
FILES = REPO_FILES + corpus_params(CORPUS_FILES)


def source(relative):
    """Return the file of a FILES entry: in the repository, else in the corpus."""
    return REPO_ROOT / relative if relative in REPO_FILES else CORPUS / relative


@needs_corpus
def test_corpus_is_present():
    assert len(CORPUS_FILES) == 43, 'INDEX.md first table should list 43 robots'


def random_configuration(kin, rng):
    """
    Our variable vector: independent joints within limits.

    Mimic joints get noise too (resolve must overwrite it); floating quaternions are not
    normalised.
    """
    q = kin.default_positions()
    for joint in kin.model.joints:
        if not joint.is_movable:
            continue
        for name, (lower, upper) in joint.variable_bounds().items():
            if not (math.isfinite(lower) and math.isfinite(upper)):
                lower, upper = -2 * math.pi, 2 * math.pi      # continuous, planar x/y ...
            q[kin.variable_index[name]] = rng.uniform(lower, upper)
        if joint.type is JointType.FLOATING:
            first = kin.variable_index[f'{joint.name}/rot_x']
            q[first:first + 4] = rng.normal(size=4) * rng.uniform(0.2, 3.0)
    return q


def pinocchio_configuration(pmodel, model, kin, q_effective):
    """Map our effective vector onto pinocchio's q layout, joint by joint."""
    qp = pin.neutral(pmodel)
    for jid in range(1, pmodel.njoints):
        name = pmodel.names[jid]
        joint = model.joint(name)
        nq, first = pmodel.nqs[jid], pmodel.idx_qs[jid]
        values = np.array([q_effective[kin.variable_index[v]] for v in joint.variable_names])
        if joint.type is JointType.FLOATING:
            assert nq == 7, f'{name}: floating joint expected as free flyer, nq={nq}'
            quat = values[3:] / np.linalg.norm(values[3:])
            qp[first:first + 7] = np.concatenate([values[:3], quat])
        elif joint.type is JointType.PLANAR:
            assert nq == 4, f'{name}: planar joint expected with nq=4, got {nq}'
            x, y, theta = values
            qp[first:first + 4] = (x, y, math.cos(theta), math.sin(theta))
        elif nq == 2:        # revolute unbounded (continuous): (cos, sin)
            qp[first:first + 2] = (math.cos(values[0]), math.sin(values[0]))
        else:
            assert nq == 1, f'{name}: unexpected pinocchio nq={nq} for {joint.type.value}'
            qp[first] = values[0]
    return qp


@pytest.mark.parametrize('relative', FILES)
def test_link_poses_match_pinocchio(relative):
    if load_model_file is None:
        pytest.skip('urdf_state_py.core.parsers.load_model_file is not available yet')
    path = source(relative)
    model = load_model_file(path)
    kin = Kinematics(model)
    pmodel = pin.buildModelFromXML(path.read_text(encoding='utf-8'))
    pdata = pmodel.createData()

    # Pinocchio has exactly our movable joints (mimic ones included).
    assert sorted(pmodel.names[1:]) == sorted(kin.movable_joint_names)
    frame_ids = []
    for link in model.link_names:
        fid = pmodel.getFrameId(link, pin.BODY)
        assert fid < pmodel.nframes, f'pinocchio has no BODY frame for link {link!r}'
        frame_ids.append(fid)

    rng = np.random.default_rng(zlib.crc32(relative.encode()))
    qs = np.array([random_configuration(kin, rng) for _ in range(N_CONFIGURATIONS)])
    batch = kin.link_poses(qs)                       # batch path (level schedule)
    for i, q in enumerate(qs):
        q_effective, _ = kin.resolve(q)
        pin.forwardKinematics(pmodel, pdata, pinocchio_configuration(pmodel, model, kin,
                                                                     q_effective))
        pin.updateFramePlacements(pmodel, pdata)
        expected = np.array([pdata.oMf[fid].homogeneous for fid in frame_ids])
        single = kin.link_poses(q)                   # single path (pointer jumping)
        for ours, what in ((single, 'single'), (batch[i], 'batch')):
            error = np.abs(ours - expected).max(axis=(1, 2))
            worst = int(np.argmax(error))
            assert error[worst] <= TOLERANCE, (
                f'{relative} config {i} ({what}): link {model.link_names[worst]!r} differs '
                f'from pinocchio by {error[worst]:.3g}')


def _has_mimic(relative):
    return '<mimic' in source(relative).read_text(encoding='utf-8')


MIMIC_FILES = ([f for f in REPO_FILES if _has_mimic(f)]
               + corpus_params([f for f in CORPUS_FILES if _has_mimic(f)]))


@pytest.mark.parametrize('relative', MIMIC_FILES)
def test_mimic_rules_match_pinocchio_mimic_models(relative):
    """
    Independent check of the mimic rules: pinocchio built WITH mimic support.

    Pinocchio never clamps, so this compares ``ignore_limits=True``. Pinocchio
    refuses some files (e.g. TALOS, robotiq: "The parent joint of the mimic
    joint is not in the kinematic tree" -- its parser needs the master joint
    created before the mimic one); those are skipped with pinocchio's message,
    the pose comparison above still covers them.
    """
    if load_model_file is None:
        pytest.skip('urdf_state_py.core.parsers.load_model_file is not available yet')
    path = source(relative)
    try:
        pmodel = pin.buildModelFromXML(path.read_text(encoding='utf-8'), True)
    except (ValueError, RuntimeError) as exc:
        pytest.skip(f'pinocchio cannot build a mimic model of {relative}: {exc}')
    model = load_model_file(path)
    kin = Kinematics(model)
    pdata = pmodel.createData()
    frame_ids = [pmodel.getFrameId(link, pin.BODY) for link in model.link_names]
    rng = np.random.default_rng(zlib.crc32(relative.encode()) + 1)
    for _ in range(N_CONFIGURATIONS):
        q = random_configuration(kin, rng)
        q_effective, _ = kin.resolve(q, ignore_limits=True)
        qp = pin.neutral(pmodel)
        for jid in range(1, pmodel.njoints):
            if pmodel.nqs[jid] == 0:          # a mimic joint: pinocchio derives it
                continue
            joint = model.joint(pmodel.names[jid])
            assert not joint.is_mimic, f'{joint.name} is a mimic joint but has its own q'
            value = q_effective[kin.variable_index[joint.name]]
            first = pmodel.idx_qs[jid]
            if pmodel.nqs[jid] == 2:
                qp[first:first + 2] = (math.cos(value), math.sin(value))
            else:
                qp[first] = value
        pin.forwardKinematics(pmodel, pdata, qp)
        pin.updateFramePlacements(pmodel, pdata)
        expected = np.array([pdata.oMf[fid].homogeneous for fid in frame_ids])
        np.testing.assert_allclose(kin.link_poses(q, ignore_limits=True), expected,
                                   atol=TOLERANCE, rtol=0)
