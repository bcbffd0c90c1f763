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
./dev.sh's ROS_DOMAIN_ID.

A running demo's is recorded, and ``./dev.sh python`` / ``shell`` in a second terminal join
it; without a live demo each run picks its own, and says so.
"""
import os
from pathlib import Path
import subprocess

import pytest

REPO = Path(__file__).resolve().parents[1]
STATE = REPO / '.venv' / 'demo-domain'
PRINT_DOMAIN = ['./dev.sh', 'python', '-c', 'import os; print(os.environ["ROS_DOMAIN_ID"])']

pytestmark = pytest.mark.skipif(not (REPO / '.venv').is_dir(), reason='needs ./dev.sh setup')


def run_unset(argv):
    env = {k: v for k, v in os.environ.items() if k != 'ROS_DOMAIN_ID'}
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def demo_state():
    kept = STATE.read_bytes() if STATE.exists() else None
    yield
    if kept is None:
        STATE.unlink(missing_ok=True)
    else:
        STATE.write_bytes(kept)


def test_a_second_terminal_joins_the_running_demos_domain(demo_state):
    STATE.write_text(f'57 {os.getpid()}\n')     # a live process stands for the demo
    done = run_unset(PRINT_DOMAIN)
    assert done.stdout.strip() == '57', done.stderr
    assert 'joining the demo running in another terminal' in done.stderr


def test_a_finished_demos_domain_is_not_joined(demo_state):
    STATE.write_text('57 999999999\n')
    done = run_unset(PRINT_DOMAIN)
    assert 'random for this run' in done.stderr, done.stderr
    assert done.stdout.strip().isdigit()
