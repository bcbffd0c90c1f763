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
FK micro-benchmark: the project's kinematics vs pinocchio vs a naive numpy loop.

Per robot, all on the same random configurations (within limits, seeded):

- ``poses``: ``Kinematics.link_poses(q)``, one configuration per call;
- ``hot``: ``resolve(q)`` + ``moving_transforms(q_eff)``, the node's per-update path;
- ``poses/b`` and ``hot/b``: the same for a batch of configurations (per-config cost);
- ``pin fk+fr``: ``pin.forwardKinematics`` + ``pin.updateFramePlacements``;
  ``pin fk``: ``pin.forwardKinematics`` alone;
- ``naive``: :class:`~urdf_state_bench.naive.NaiveFK`.

Each number is the median over ``trials`` timed trials, taken round-robin
across the implementations; ratios are to ``pin fk+fr``, computed per round
(same machine noise) and then the median. ``err`` is the largest difference of
any link pose (translation, m, and rotation matrix entries) between the
project and the naive loop, and between pinocchio and the naive loop.
"""

from __future__ import annotations

import math

import numpy as np

from .common import log, median, quiet_stderr, table, time_interleaved
from .trees import Robot

BATCH = 1000
#: Cap on batch size x links so the (N, links, 4, 4) output stays ~100 MB at most.
BATCH_CELLS = 200_000


def _random_q(names, bounds, rng, n=None):
    lo = np.array([bounds.get(v, (-math.pi, math.pi))[0] for v in names], float)
    hi = np.array([bounds.get(v, (-math.pi, math.pi))[1] for v in names], float)
    lo = np.where(np.isfinite(lo), lo, -math.pi)
    hi = np.where(np.isfinite(hi), hi, math.pi)
    shape = (len(names),) if n is None else (n, len(names))
    return lo + (hi - lo) * rng.random(shape)


class Project:
    """The project's model + kinematics for one URDF string."""

    def __init__(self, urdf: str):
        from urdf_state_py.core.kinematics import Kinematics
        from urdf_state_py.core.parsers import load_model
        self.model = load_model(urdf)
        self.kin = Kinematics(self.model)
        self.names = list(self.kin.variable_names)
        self.link_names = list(getattr(self.kin, 'link_names', None) or self.model.link_names)

    def hot(self, q):
        q_eff, _ = self.kin.resolve(q)
        return self.kin.moving_transforms(q_eff)

    def poses(self, q):
        return self.kin.link_poses(q)


#: pinocchio's Data holds several nv x nv x nv tensors (~32 nv^3 bytes: 19 GB for
#: the 1,000-link tree); above this budget pinocchio is skipped for that robot.
PIN_DATA_BUDGET = 1.6e9


class PinocchioTooBig(Exception):
    pass


class Pinocchio:

    def __init__(self, urdf: str):
        with quiet_stderr():
            import pinocchio as pin
            self.model = pin.buildModelFromXML(urdf)  # mimic joints as independent joints
        self.pin = pin
        need = 32.0 * self.model.nv ** 3
        if need > PIN_DATA_BUDGET:
            raise PinocchioTooBig(f'pinocchio Data would need ~{need / 1e9:.0f} GB '
                                  f'(nv={self.model.nv})')
        self.data = self.model.createData()

    def q_from(self, values: dict[str, float]) -> np.ndarray:
        """Pinocchio configuration from joint name -> value (mimic values included)."""
        q = self.pin.neutral(self.model)
        for j in range(1, self.model.njoints):
            jm = self.model.joints[j]
            v = values.get(self.model.names[j], 0.0)
            if jm.nq == 1:
                q[jm.idx_q] = v
            elif jm.nq == 2:  # continuous: (cos, sin)
                q[jm.idx_q], q[jm.idx_q + 1] = math.cos(v), math.sin(v)
        return q

    def fk_frames(self, q):
        self.pin.forwardKinematics(self.model, self.data, q)
        self.pin.updateFramePlacements(self.model, self.data)

    def fk(self, q):
        self.pin.forwardKinematics(self.model, self.data, q)

    def link_poses(self, q) -> dict[str, np.ndarray]:
        self.fk_frames(q)
        out = {}
        for i, frame in enumerate(self.model.frames):
            if frame.type == self.pin.FrameType.BODY:
                out[frame.name] = self.data.oMf[i].homogeneous
        return out


def _max_err(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float | None:
    common = [k for k in a if k in b]
    if not common:
        return None
    return max(float(np.max(np.abs(np.asarray(a[k]) - np.asarray(b[k])))) for k in common)


def bench_robot(robot: Robot, trials: int, trial_s: float, batch: int = BATCH,
                seed: int = 1) -> dict:
    """Measure one robot; returns a dict of medians (seconds) and metadata."""
    from .naive import NaiveFK
    rng = np.random.default_rng(seed)
    res: dict = {'robot': robot.name, 'source': robot.source}
    naive = NaiveFK(robot.urdf)
    res['links'] = len(naive.link_names)
    res['joints'] = len(naive.joints)
    try:
        proj = Project(robot.urdf)
    except Exception as exc:  # one broken robot must not end the run
        log(f'fk {robot.name}: project kinematics unavailable: {type(exc).__name__}: {exc}')
        proj = None
        res['project_error'] = f'{type(exc).__name__}: {exc}'
    try:
        pinm = Pinocchio(robot.urdf)
    except PinocchioTooBig as exc:
        log(f'fk {robot.name}: pinocchio skipped: {exc}')
        res['pin_skipped'] = str(exc)
        pinm = None

    # one random configuration of the active joints, shared by all three
    bounds = {}
    if proj is not None:
        bounds = proj.model.variable_bounds()
        names = proj.names
    else:
        names = naive.active
    q = _random_q(names, bounds, rng)
    qd = dict(zip(names, q.tolist()))
    res['variables'] = len(names)
    naive_poses = naive.link_poses(qd)
    full = naive.full_values(qd)
    qp = pinm.q_from(full) if pinm is not None else None
    if proj is not None:
        # cross-check on the configuration the project actually uses (mimic
        # joints and limits applied), so clamping is not counted as an error
        try:
            q_eff, _ = proj.kin.resolve(q)
            full = dict(zip(names, np.asarray(q_eff).tolist()))
            naive_poses = naive.link_poses(full, mimic=False)
            qp_check = pinm.q_from(full) if pinm is not None else None
        except Exception as exc:
            res['project_error'] = f'{type(exc).__name__}: {exc}'
            qp_check = qp
    else:
        qp_check = qp
    if pinm is not None:
        res['err_pin'] = _max_err(pinm.link_poses(qp_check), naive_poses)

    fns: dict = {}
    per: dict = {}
    if proj is not None:
        try:
            poses = np.asarray(proj.poses(q))
            res['err_project'] = _max_err(dict(zip(proj.link_names, poses)), naive_poses)
        except Exception as exc:
            res['project_error'] = f'{type(exc).__name__}: {exc}'
        fns['poses'] = lambda: proj.poses(q)
        fns['hot'] = lambda: proj.hot(q)
        nb = max(1, min(batch, BATCH_CELLS // max(1, res['links'])))
        res['batch'] = nb
        qb = _random_q(names, bounds, rng, nb)
        fns['poses_batch'] = lambda: proj.poses(qb)
        fns['hot_batch'] = lambda: proj.hot(qb)
        per['poses_batch'] = per['hot_batch'] = nb
    if pinm is not None:
        fns['pin_fk_frames'] = lambda: pinm.fk_frames(qp)
        fns['pin_fk'] = lambda: pinm.fk(qp)
    fns['naive'] = lambda: naive.link_poses(qd)

    def failed(key, exc):
        log(f'fk {robot.name}: {key} failed: {type(exc).__name__}: {exc}')
        res[key + '_error'] = f'{type(exc).__name__}: {exc}'

    timings = time_interleaved(fns, trials, trial_s, on_error=failed)
    for key, values in timings.items():
        values = [t / per.get(key, 1) for t in values]
        res[key] = median(values)
        res[key + '_trials'] = values
    # ratios per round (same noise), then the median
    ref_trials = res.get('pin_fk_frames_trials')
    for key in ('poses', 'hot', 'poses_batch', 'hot_batch', 'naive', 'pin_fk'):
        if res.get(key + '_trials') and ref_trials:
            res[key + '_ratio'] = median([a / b for a, b in zip(res[key + '_trials'], ref_trials)])
    return res


def us(x):
    return None if x is None else x * 1e6


def ratio(x):
    return None if x is None else f'{x:.1f}x'


def err(x):
    return '-' if x is None else f'{x:.0e}'


def _extrapolate_pin(results: list[dict]) -> None:
    """
    Estimate pinocchio where it was skipped.

    Where pinocchio was skipped, estimate it from the largest measured generated tree
    (pinocchio's FK is linear in the joints); ratios against the estimate get a '~'.
    """
    measured = [r for r in results if r['robot'].startswith('tree') and r.get('pin_fk_frames')]
    if not measured:
        return
    base = max(measured, key=lambda r: r['links'])
    for r in results:
        if r.get('pin_skipped') and r.get('pin_fk_frames') is None:
            est = base['pin_fk_frames'] / base['joints'] * r['joints']
            r['pin_fk_frames_est'] = est
            r['pin_estimated_from'] = base['robot']
            for key in ('poses', 'hot', 'poses_batch', 'hot_batch', 'naive'):
                if r.get(key) is not None:
                    r[key + '_ratio_est'] = r[key] / est


def print_tables(results: list[dict], trials: int) -> dict:
    """Print the FK tables; returns the linearity summary."""
    rows = []
    notes = []
    for r in results:
        est = r.get('pin_fk_frames_est')

        def rat(key):
            if r.get(key + '_ratio') is not None:
                return ratio(r[key + '_ratio'])
            if r.get(key + '_ratio_est') is not None:
                return '~' + ratio(r[key + '_ratio_est'])
            return '-'
        pin_cell = us(r.get('pin_fk_frames')) if est is None else f'~{us(est):.1f}'
        if est is not None:
            notes.append(f"{r['robot']}: {r['pin_skipped']}; ~ = estimated from "
                         f"{r['pin_estimated_from']} per joint")
        rows.append([r['robot'], r['links'], r.get('variables'), us(r.get('poses')),
                     us(r.get('hot')),
                     us(r.get('poses_batch')), us(r.get('hot_batch')), r.get('batch'),
                     pin_cell, us(r.get('pin_fk')), us(r.get('naive')),
                     rat('hot'), rat('poses'), rat('hot_batch'), rat('naive'),
                     err(r.get('err_project')), err(r.get('err_pin'))])
    table(['robot', 'links', 'vars', 'poses', 'hot', 'poses/b', 'hot/b', 'batch', 'pin fk+fr',
           'pin fk', 'naive', 'hot/pin', 'poses/pin', 'hot/b/pin', 'naive/pin', 'err proj',
           'err pin'], rows,
          title=f'\n== FK: µs per configuration (median of {trials} trials); '
                'ratios to pin fk+fr ==')
    print('   poses = link_poses(q); hot = resolve + moving_transforms (node path); /b = batch, '
          'per config;\n   err = max |pose - naive loop| over links (project, pinocchio); '
          'pinocchio treats mimic joints as independent joints')
    for note in notes:
        print('   ' + note)
    # linearity over generated trees
    trees = sorted((r for r in results if r['robot'].startswith('tree')), key=lambda r: r['links'])
    lin = {}
    if len(trees) >= 2:
        parts = []
        for key in ('poses', 'hot', 'pin_fk_frames', 'naive'):
            per_link = [(r['links'], us(r.get(key)) / r['links']) for r in trees
                        if r.get(key) is not None]
            if len(per_link) >= 2:
                lin[key] = {str(n): v for n, v in per_link}
                growth = per_link[-1][1] / per_link[0][1]
                lin[key]['growth'] = growth
                parts.append(f'{key}: ' + ' / '.join(f'{v:.2f}' for _, v in per_link)
                             + f' (x{growth:.2f})')
        sizes = '/'.join(str(r['links']) for r in trees)
        print(f'   linearity, µs per link for {sizes} links (xN = last/first, 1.0 = linear): '
              + '; '.join(parts))
    return lin


def run(robots: list[Robot], trials: int, trial_s: float, batch: int = BATCH) -> dict:
    results = []
    for robot in robots:
        log(f'fk: {robot.name}')
        results.append(bench_robot(robot, trials, trial_s, batch))
    _extrapolate_pin(results)
    lin = print_tables(results, trials)
    return {'robots': results, 'linearity': lin, 'trials': trials}
