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
The node's address-space ceiling (urdf_state_py/node/process/address_space.py).

In child processes: the limit is set from the size at the call, the environment turns it
off, a lower limit stays.
"""
import os
import subprocess
import sys

import pytest

resource = pytest.importorskip('resource')

PROBE = """
import os, resource
from urdf_state_py.node.process.address_space import limit_address_space, _current_size
before = _current_size()
limit, text = limit_address_space({arg})
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
print(limit, soft, before, text, sep='|')
if limit:
    try:
        bytearray(600 << 20)        # more than the headroom of 256 MB: refused
        print('allocated')
    except MemoryError:
        print('refused')
"""


def run(arg='None', env=None, preexec=None):
    done = subprocess.run([sys.executable, '-c', PROBE.format(arg=arg)], capture_output=True,
                          text=True, env=env, preexec_fn=preexec, timeout=60, check=True)
    return done.stdout.split('\n')


def test_the_soft_limit_is_the_size_now_plus_the_headroom():
    first, outcome, _ = run('256')
    limit, soft, before, text = first.split('|')
    assert int(limit) == int(soft)
    assert 0 <= int(limit) - int(before) - (256 << 20) < 64 << 20   # imports between the two
    assert 'address space limited to' in text and outcome == 'refused'


def test_the_environment_sets_the_headroom_and_zero_turns_it_off():
    env = dict(os.environ, URDF_STATE_ADDRESS_SPACE_HEADROOM_MB='0')
    limit, soft, _, text = run(env=env)[0].split('|')
    assert limit == 'None' and int(soft) == resource.RLIM_INFINITY
    assert 'not limited' in text
    env['URDF_STATE_ADDRESS_SPACE_HEADROOM_MB'] = 'lots'
    assert 'is not a whole number' in run(env=env)[0]


def test_a_lower_limit_is_kept():
    low = 8 << 30
    limit, soft, _, text = run('1 << 20', preexec=lambda: resource.setrlimit(
        resource.RLIMIT_AS, (low, resource.RLIM_INFINITY)))[0].split('|')
    assert int(limit) == int(soft) == low and 'already limited' in text
