"""Smoke test of the benchmark command: FK section on a tiny generated tree."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

COLUMNS = ['robot', 'links', 'vars', 'poses', 'hot', 'poses/b', 'hot/b', 'batch', 'pin fk+fr',
           'pin fk', 'naive', 'hot/pin', 'poses/pin', 'hot/b/pin', 'naive/pin']


def test_fk_bench_prints_table():
    pytest.importorskip('pinocchio')
    pytest.importorskip('urdf_parser_py')
    pytest.importorskip('psutil')
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get('PYTHONPATH', ''))
    proc = subprocess.run(
        [sys.executable, '-m', 'urdf_state_py.tools.bench', '--only', 'fk', '--robots', 'tree:12',
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
