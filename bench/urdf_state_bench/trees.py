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
Robots for the benchmark: corpus files and seeded generated trees.

Every robot is handed to the measured code as a URDF *string* and loaded
through the project's parser, so generated trees go down the same path as the
corpus files.

Robot specs (``--robots``):

- a corpus alias (``panda``, ``anymal``, ``talos``, ``h1_2``);
- ``romeo`` — a humanoid-shaped generated tree of ~60 links (the corpus has no
  Romeo description), deterministic;
- ``tree:N`` (alias ``treeN``) — a seeded random tree of N links with a
  revolute / continuous / prismatic / fixed mix;
- a path to a ``.urdf`` file.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import os
from pathlib import Path
import random
from xml.sax.saxutils import quoteattr

CORPUS = {
    'panda': 'example_robot_data/panda_description/urdf/panda.urdf',
    'anymal': 'example_robot_data/anymal_c_simple_description/urdf/anymal.urdf',
    'talos': 'example_robot_data/talos_data/robots/talos_full_v2.urdf',
    'h1_2': 'unitree_ros/robots/h1_2_description/h1_2.urdf',
    'tiago': 'example_robot_data/tiago_description/robots/tiago.urdf',
    'pr2': 'example_robot_data/pr2_description/urdf/pr2.urdf',
    'ur5': 'example_robot_data/ur_description/urdf/ur5_robot.urdf',
}

FK_DEFAULT = ('panda', 'anymal', 'talos', 'h1_2', 'romeo', 'tree:100', 'tree:500', 'tree:1000')
FK_QUICK = ('panda', 'talos', 'h1_2', 'tree:100', 'tree:1000')
E2E_DEFAULT = ('talos', 'h1_2')
MEM_DEFAULT = ('talos', 'h1_2', 'tree:1000')
#: The robots of the container's memory measurement, taken in turn.
FLEET_MIX = ('talos', 'h1_2', 'panda', 'anymal', 'tiago', 'pr2', 'ur5')

TREE_SEED = 20240611


def robots_dir(override: str | os.PathLike | None = None) -> Path:
    """Return the shared corpus: ``override``, ``$URDF_STATE_ROBOTS``, ``<work>/shared/robots``."""
    if override:
        return Path(override)
    env = os.environ.get('URDF_STATE_ROBOTS')
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / 'shared' / 'robots'


@dataclass(frozen=True)
class Robot:
    """A named URDF string and where it came from."""

    name: str
    urdf: str
    source: str


def resolve_robot(spec: str, corpus: Path) -> Robot:
    """Turn a ``--robots`` entry into a :class:`Robot` (FileNotFoundError if missing)."""
    key = spec.strip()
    if key in CORPUS:
        path = corpus / CORPUS[key]
        if not path.is_file():
            raise FileNotFoundError(
                f'{key}: {path} not found (set --robots-dir or URDF_STATE_ROBOTS)')
        return Robot(key, path.read_text(encoding='utf-8'), CORPUS[key])
    if key == 'romeo':
        return Robot('romeo~60', humanoid_urdf(), 'generated humanoid (~60 links)')
    for prefix in ('tree:', 'tree'):
        if key.startswith(prefix) and key[len(prefix):].isdigit():
            n = int(key[len(prefix):])
            return Robot(f'tree{n}', random_tree_urdf(n),
                         f'generated random tree, seed {TREE_SEED}')
    path = Path(key)
    if path.is_file():
        return Robot(path.stem, path.read_text(encoding='utf-8'), str(path))
    raise FileNotFoundError(
        f'unknown robot {spec!r} (aliases: {", ".join(CORPUS)}, romeo, tree:N, or a path)')


# --------------------------------------------------------------------- URDF text

def _f(x: float) -> str:
    return f'{x:.6g}'


def _joint_xml(name: str, jtype: str, parent: str, child: str, xyz, rpy, axis=None,
               limits=None, mimic=None) -> str:
    parts = [f'  <joint name={quoteattr(name)} type="{jtype}">',
             f'    <parent link={quoteattr(parent)}/>',
             f'    <child link={quoteattr(child)}/>',
             f'    <origin xyz="{" ".join(map(_f, xyz))}" rpy="{" ".join(map(_f, rpy))}"/>']
    if axis is not None:
        parts.append(f'    <axis xyz="{" ".join(map(_f, axis))}"/>')
    if limits is not None:
        lo, hi = limits
        parts.append(f'    <limit lower="{_f(lo)}" upper="{_f(hi)}" effort="10" velocity="1"/>')
    elif jtype in ('continuous',):
        parts.append('    <limit effort="10" velocity="1"/>')
    if mimic is not None:
        parts.append(f'    <mimic joint={quoteattr(mimic[0])} multiplier="{_f(mimic[1])}" '
                     f'offset="{_f(mimic[2])}"/>')
    parts.append('  </joint>')
    return '\n'.join(parts)


def _unit(rng: random.Random) -> tuple[float, float, float]:
    while True:
        v = [rng.gauss(0.0, 1.0) for _ in range(3)]
        n = math.sqrt(sum(c * c for c in v))
        if n > 1e-3:
            return tuple(c / n for c in v)


def random_tree_urdf(n_links: int, seed: int = TREE_SEED) -> str:
    """
    Return a seeded random tree of ``n_links`` links (``n_links - 1`` joints).

    Parents are drawn mostly among the last few links (long chains, like real
    robots) and sometimes anywhere (branching). Joint mix: 45 % revolute,
    10 % continuous, 15 % prismatic, 30 % fixed; random origins and axes.
    """
    if n_links < 1:
        raise ValueError('a tree needs at least one link')
    rng = random.Random(seed * 1_000_003 + n_links)
    links = [f'l{i}' for i in range(n_links)]
    out = [f'<?xml version="1.0"?>\n<robot name="tree{n_links}">']
    out += [f'  <link name="{name}"/>' for name in links]
    for i in range(1, n_links):
        parent = i - 1 - min(int(rng.expovariate(0.7)), i - 1) if rng.random() < 0.85 \
            else rng.randrange(i)
        r = rng.random()
        xyz = tuple(rng.uniform(-0.2, 0.2) for _ in range(3))
        rpy = tuple(rng.uniform(-math.pi, math.pi) for _ in range(3))
        if r < 0.45:
            lo = rng.uniform(-3.0, -0.1)
            out.append(_joint_xml(f'j{i}', 'revolute', links[parent], links[i], xyz, rpy,
                                  _unit(rng), (lo, rng.uniform(0.1, 3.0))))
        elif r < 0.55:
            out.append(_joint_xml(f'j{i}', 'continuous', links[parent], links[i], xyz, rpy,
                                  _unit(rng)))
        elif r < 0.70:
            out.append(_joint_xml(f'j{i}', 'prismatic', links[parent], links[i], xyz, rpy,
                                  _unit(rng), (rng.uniform(-0.3, 0.0), rng.uniform(0.01, 0.3))))
        else:
            out.append(_joint_xml(f'j{i}', 'fixed', links[parent], links[i], xyz, rpy))
    out.append('</robot>\n')
    return '\n'.join(out)


def humanoid_urdf(seed: int = TREE_SEED) -> str:
    """
    Return a deterministic Romeo-sized humanoid: 60 links, ~45 movable joints, mimic fingers.

    pelvis -> 2 legs (6 revolute + sole) -> torso (2) -> head (2 + 2 cameras)
    -> 2 arms (7 revolute) -> hands (wrist + 4 fingers x 2 phalanges, the distal
    ones mimic the proximal ones) + a few fixed sensor frames.
    """
    rng = random.Random(seed)
    links: list[str] = ['pelvis']
    joints: list[str] = []

    def add(name, jtype, parent, xyz=None, axis=None, limits=(-1.5, 1.5), mimic=None):
        links.append(name)
        xyz = xyz or tuple(rng.uniform(-0.1, 0.1) for _ in range(3))
        rpy = tuple(rng.uniform(-0.3, 0.3) for _ in range(3))
        lim = limits if jtype in ('revolute', 'prismatic') else None
        joints.append(_joint_xml(name + '_joint', jtype, parent, name, xyz, rpy,
                                 axis if jtype != 'fixed' else None, lim, mimic))
        return name

    axes = [(0, 0, 1), (1, 0, 0), (0, 1, 0)]
    for side in ('L', 'R'):
        parent = 'pelvis'
        for k, part in enumerate(('hip_yaw', 'hip_roll', 'hip_pitch', 'knee', 'ankle_pitch',
                                  'ankle_roll')):
            parent = add(f'{side}_{part}', 'revolute', parent, axis=axes[k % 3])
        add(f'{side}_sole', 'fixed', parent)
    parent = add('torso_yaw', 'revolute', 'pelvis', axis=(0, 0, 1))
    torso = add('torso_pitch', 'revolute', parent, axis=(0, 1, 0))
    add('imu', 'fixed', torso)
    parent = add('neck_yaw', 'revolute', torso, axis=(0, 0, 1))
    head = add('head_pitch', 'revolute', parent, axis=(0, 1, 0))
    add('camera_left', 'fixed', head)
    add('camera_right', 'fixed', head)
    add('head_imu', 'fixed', head)
    for side in ('L', 'R'):
        parent = torso
        for k, part in enumerate(('shoulder_pitch', 'shoulder_roll', 'elbow_yaw', 'elbow_roll',
                                  'wrist_yaw', 'wrist_pitch', 'wrist_roll')):
            parent = add(f'{side}_{part}', 'revolute', parent, axis=axes[(k + 2) % 3])
        hand = add(f'{side}_hand', 'fixed', parent)
        for finger in ('thumb', 'index', 'middle', 'ring'):
            prox = add(f'{side}_{finger}_1', 'revolute', hand, axis=(0, 1, 0), limits=(0.0, 1.4))
            add(f'{side}_{finger}_2', 'revolute', prox, axis=(0, 1, 0), limits=(0.0, 2.0),
                mimic=(prox + '_joint', 1.3, 0.0))
        add(f'{side}_ft_sensor', 'fixed', parent)
    # pad to exactly 60 links with fixed sensor frames on the torso
    i = 0
    while len(links) < 60:
        add(f'sensor_{i}', 'fixed', torso)
        i += 1
    out = ['<?xml version="1.0"?>\n<robot name="romeo_like">']
    out += [f'  <link name="{name}"/>' for name in links]
    out += joints
    out.append('</robot>\n')
    return '\n'.join(out)
