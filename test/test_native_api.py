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
The native loop's Python API refuses what would crash it.

A refused install leaves the loop without a plan.

Only the node calls ``Plan`` and ``Loop.install``, but a plan is raw memory for the
loop: a ``Plan`` whose ``__init__`` never ran (or failed) would be dereferenced as
null pointers, and one whose merger state is shorter than its indices would be
written past its end (``plan_step`` writes ``q``, ``seen_ns`` and ``last`` in place).
The crashing cases run in a child process, so that a crash fails one test (and
.ci/sanitize's AddressSanitizer build reports where it happened).
"""
import os
from pathlib import Path
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

pytestmark = pytest.mark.ros

pytest.importorskip('rclpy')

import test_native_loop  # noqa: E402 - after importorskip
from test_native_loop import _payload, NativeTwin, NS  # noqa: E402 - after importorskip
from test_native_plan import chain, TOY  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after importorskip

#: test_native_loop's fixture, which the tests below take as an argument (pytest finds a
#: fixture as a module attribute; an import of the name would read as unused to flake8).
module = test_native_loop.module

#: A child process: the extension (URDF_STATE_NATIVE_MODULE's build, as in the parent),
#: a loop paused by this thread, the kwargs of a real plan of test_native_plan's TOY (_kwargs),
#: a payload it serves (_data), and try_plan(make) which prints "refused: ..." when
#: ``make()`` or its install raises, else runs the plan's step (the crash, before).
_PRELUDE = """
import os
from types import SimpleNamespace
import numpy as np
from test_native_plan import TOY
from test_native_loop import NativeTwin, _payload
from urdf_state_py.core.parsers import load_model
from urdf_state_py.node.tf_path import native

module = native._import(os.environ.get('URDF_STATE_NATIVE_MODULE'))
twin = NativeTwin(module, load_model(TOY), 0.0)
_data = _payload(('j1', 'j2'), (0.1, 0.2), 5 * 10**9)  # newer than the twin's: published
for k in range(3):                               # the plan of this name list
    twin.step(_payload(('j1', 'j2'), (0.1, 0.2), 10**9 + k), 2 * 10**9 + k, False)
plans = twin.sides[1].plans
plans.installable(False).native = None             # not the plan cached: its arguments
_kwargs = plans.plan(SimpleNamespace(Plan=lambda **kw: kw), False)[1]
loop = module.Loop()
loop.pause()


def try_plan(make, data=_data):
    try:
        loop.install(make(), 0, 0, None, True)
    except (TypeError, ValueError) as err:
        print('refused:', err)
        return
    print('accepted:', loop.step(data, 3 * 10**9)[0])
"""


def _child(script: str) -> str:
    """Run ``script`` after the prelude in a child process; its output (it must not crash)."""
    code = _PRELUDE + textwrap.dedent(script)
    done = subprocess.run([sys.executable, '-c', code], cwd=Path(__file__).parent,
                          env=os.environ, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr[-3000:])
    return done.stdout


def test_install_refuses_a_plan_whose_init_never_ran_or_failed(module):
    out = _child("""
        # no names: null name offsets match, then the rate limit reads null indices
        try_plan(lambda: module.Plan.__new__(module.Plan), _payload((), (), 10**9))

        def failed_init():   # names copied, then refused: the step would read null arrays
            plan = module.Plan.__new__(module.Plan)
            try:
                plan.__init__(**{**_kwargs, 'source': np.zeros(5, dtype=np.int64)})
            except ValueError as err:
                print('init failed:', err)
            return plan

        try_plan(failed_init)
    """)
    assert out.splitlines() == [
        'refused: install: a Plan whose __init__ did not complete',
        'init failed: source: expected 4 items of type q',
        'refused: install: a Plan whose __init__ did not complete'], out


@pytest.mark.parametrize('state', ['q', 'seen_ns', 'last'])
def test_a_plan_refuses_an_empty_or_short_state(module, state):
    out = _child(f"""
        for length in (0, 1):
            short = np.zeros(length, dtype=_kwargs[{state!r}].dtype)
            try_plan(lambda: module.Plan(**{{**_kwargs, {state!r}: short}}))
    """)
    assert [line.split(':')[0] for line in out.splitlines()] == ['refused', 'refused'], out


def test_a_refused_install_leaves_the_loop_without_a_plan(module):
    """
    Check a refused install leaves the loop without a plan.

    The loop resumes with no plan (Python serves) rather than with the one before,
    which may be the previous model's.
    """
    twin = NativeTwin(module, load_model(TOY), 0.0)
    recorded = []
    twin.sync._errors.record = recorded.append
    names = ('j1', 'j2')
    for k in range(3):
        twin.step(_payload(names, (0.1, 0.2), NS + k), 2 * NS + k, False)
    assert twin.native_hits >= 1 and twin.sync._installed is not None
    merger = twin.sides[1].merger
    with twin.lock:   # a state install cannot take: refused as the lock is released
        merger.throttle.set_loop_state(2**70, merger.throttle.loop_state()[1])
    assert [type(err) for err in recorded] == [OverflowError], recorded
    assert twin.sync._installed is None
    loop = twin.sync.loop
    loop.pause()
    try:
        with pytest.raises(RuntimeError, match='no plan installed'):
            loop.step(_payload(names, (0.1, 0.2), NS + 9), 2 * NS + 9)
        assert loop.counts()['no plan'] == 0
    finally:
        loop.resume()


def test_a_plan_keeps_no_rounding_probe(module):
    """
    Check a plan keeps no rounding probe.

    The probe (6 x 256 doubles per joint: 393 kB for 32 joints) is read by Plan()
    and not kept: 200 copies of a 32-joint plan take a few MB, not 80.
    """
    psutil = pytest.importorskip('psutil')
    names = tuple(f'j{i}' for i in range(32))
    twin = NativeTwin(module, load_model(chain(32)), 0.0)
    for k in range(3):   # the JointState step, then the plan of this name list
        twin.step(_payload(names, np.zeros(32), NS + k), 2 * NS + k, False)
    plans = twin.sides[1].plans
    plans.installable(False).native = None   # not the plan cached: its arguments
    kwargs = plans.plan(SimpleNamespace(Plan=lambda **kw: kw), False)[1]
    process = psutil.Process()
    plans = [module.Plan(**kwargs)]
    before = process.memory_info().rss
    plans += [module.Plan(**kwargs) for _ in range(200)]
    grown = process.memory_info().rss - before
    assert grown < 16 << 20, f'{grown / 1e6:.0f} MB for 200 plans'
