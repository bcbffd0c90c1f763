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

"""Smoke test of the benchmark command: FK section on a tiny generated tree."""
import os
from pathlib import Path
import subprocess
import sys

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

COLUMNS = ['robot', 'links', 'vars', 'poses', 'hot', 'poses/b', 'hot/b', 'batch', 'pin fk+fr',
           'pin fk', 'naive', 'hot/pin', 'poses/pin', 'hot/b/pin', 'naive/pin']


def test_fk_bench_prints_table():
    pytest.importorskip('pinocchio')
    pytest.importorskip('urdf_parser_py')
    pytest.importorskip('psutil')
    env = dict(os.environ,
               PYTHONPATH=str(REPO_ROOT / 'bench') + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run(
        [sys.executable, '-m', 'urdf_state_bench', '--only', 'fk', '--robots', 'tree:12',
         '--trials', '2', '--no-json'],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    header = next((ln for ln in lines if ln.startswith('robot ')), None)
    assert header is not None, proc.stdout
    for column in COLUMNS:
        assert f' {column} ' in f' {header} ', (column, header)
    row = next(ln for ln in lines if ln.startswith('tree12 '))
    assert len(row.split()) >= len(COLUMNS), row
    assert 'urdf_state_py bench |' in lines[0]


def _user_result(robot, executor, rate, cpu_us, p99_us=300.0, out_hz=1000.0, lost=0):
    return {'robot': robot, 'executor': executor, 'rate': rate, 'cpu_us': cpu_us,
            'lat_p99_us': p99_us, 'out_hz': out_hz, 'lost': lost}


def test_the_user_targets_are_ratios_to_the_c_floor_of_the_same_run():
    pytest.importorskip('psutil')   # the benchmark's dependency (not in the ROS-free step)
    from urdf_state_bench.user_run import floor_targets
    results = [_user_result('talos', 'cfloor', 1000.0, 100.0),
               _user_result('talos', 'auto', 1000.0, 114.0, p99_us=400.0, lost=2),
               _user_result('talos', 'single', 1000.0, 126.0),
               _user_result('h1_2', 'auto', 1000.0, 125.0),
               _user_result('talos', 'cfloor', 0.0, 50.0, out_hz=10000.0),
               _user_result('talos', 'auto', 0.0, 50.0, out_hz=8000.0)]
    rows = {row[0]: row[1:] for row in floor_targets(results, 1000.0)}
    assert rows == {
        'TALOS cpu / C floor, user protocol, auto, 1000 Hz': ['<= 1.15x', '1.14x', 'PASS'],
        'TALOS cpu / C floor, user protocol, single, 1000 Hz': ['<= 1.25x', '1.26x', 'FAIL'],
        'TALOS p99 / C floor, user protocol, auto, 1000 Hz': ['<= 1.3x', '1.33x', 'FAIL'],
        'TALOS out Hz / C floor, user protocol, auto, flat out': ['>= 0.8x', '0.80x', 'PASS'],
        'TALOS messages lost, user protocol, auto, 1000 Hz': ['0', '2', 'FAIL'],
        'H1_2 / TALOS CPU per update, user protocol, auto': ['<= 1.1x', '1.10x', 'PASS'],
        'TALOS messages lost, user protocol, single, 1000 Hz': ['0', '0', 'PASS'],
    }
    assert floor_targets([r for r in results if r['executor'] != 'cfloor'], 1000.0) == [
        ['TALOS messages lost, user protocol, auto, 1000 Hz', '0', '2', 'FAIL'],
        ['H1_2 / TALOS CPU per update, user protocol, auto', '<= 1.1x', '1.10x', 'PASS'],
        ['TALOS messages lost, user protocol, single, 1000 Hz', '0', '0', 'PASS']]


def test_the_container_targets_compare_with_the_standalone_node_of_the_same_run():
    pytest.importorskip('psutil')
    from urdf_state_bench.container import targets
    mem = {'count': 20, 'per_robot_mb': 1.12, 'idle_ms_per_s': 21.0,
           'standalone_idle_ms_per_s': 13.3}
    cpu = {'kinds': {'container': {'cpu_us': 141.7}, 'standalone': {'cpu_us': 133.3},
                     'cfloor': {'cpu_us': 100.0}}}
    assert targets(mem, cpu) == [
        ['container RSS per robot beyond the first (20 robots)', '<= 1.5 MB', '1.12 MB', 'PASS'],
        ['idle container with 20 robots, CPU', '<= 5 ms/s', '21.00 ms/s', 'FAIL'],
        ['idle CPU: container with 20 robots / one standalone node', '<= 3x', '1.58x', 'PASS'],
        ['container CPU per /tf / standalone node', '<= 1.2x', '1.06x', 'PASS'],
        ['container CPU per /tf / C floor', '<= 1.3x', '1.42x', 'FAIL']]
    # A standalone node too idle for /proc's ticks gives no ratio rather than a division by 0.
    assert [row[0] for row in targets(dict(mem, standalone_idle_ms_per_s=0.0), None)] == [
        'container RSS per robot beyond the first (20 robots)',
        'idle container with 20 robots, CPU']
