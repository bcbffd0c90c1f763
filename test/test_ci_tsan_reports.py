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
.ci/tsan_reports.py: which ThreadSanitizer reports fail CI (ours) and which are set aside.

The reports are shaped as TSan writes them (gcc 12's libtsan), cut to their frames.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from robot_files import REPO_ROOT

SCRIPT = REPO_ROOT / '.ci' / 'tsan_reports.py'
OURS = '_urdf_state_native'
SO = f'{OURS}.cpython-311-x86_64-linux-gnu.so'
TSAN = '../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:827'


def _load():
    spec = importlib.util.spec_from_file_location('tsan_reports', SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reports = _load()


def race(first: list[str], second: list[str], location: list[str] | None = None) -> str:
    """Return a data race report whose two access stacks and allocation stack have these frames."""
    def frames(entries):
        return ''.join(f'    #{i} {e}\n' for i, e in enumerate(entries))
    text = ('WARNING: ThreadSanitizer: data race (pid=1)\n'
            f'  Write of size 8 at 0x7b08000b35c0 by thread T25:\n{frames(first)}\n'
            f'  Previous read of size 8 at 0x7b08000b35c0 by main thread:\n{frames(second)}\n')
    if location is not None:
        text += ('  Location is heap block of size 24 allocated by main thread:\n'
                 f'{frames(location)}\n')
    return text + 'SUMMARY: ThreadSanitizer: data race\n'


MEMCPY = f'memcpy {TSAN} (libtsan.so+0x5dda6)'
SERIALIZE = 'rmw_fastrtps_shared_cpp::TypeSupport::serialize(void*) <null> ' \
            '(librmw_fastrtps_shared_cpp.so+0x65a78)'
DESERIALIZE = 'rmw_fastrtps_shared_cpp::TypeSupport::deserialize(void*) <null> ' \
              '(librmw_fastrtps_shared_cpp.so+0x65725)'
POOL = 'eprosima::fastrtps::rtps::TopicPayloadPool::do_get_payload() <null> ' \
       '(libfastrtps.so.2.14+0x34561e)'
OUR_LOOP = f'loop_run_py urdf_state_py/node/tf_path/_native/loop_py.c:143 ({SO}+0x7359)'
OUR_STATUS = f'loop_status urdf_state_py/node/tf_path/_native/loop_py.c:80 ({SO}+0x7000)'
OUR_INIT = f'loop_init urdf_state_py/node/tf_path/_native/loop_py.c:42 ({SO}+0x5a7a)'
OUR_CLOSE = f'sub_close urdf_state_py/node/tf_path/_native/subscription_py.c:60 ({SO}+0x8100)'
OUR_ALLOC = f'plan_new urdf_state_py/node/tf_path/_native/plan.c:20 ({SO}+0x3000)'
MALLOC = 'malloc ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:647 ' \
         '(libtsan.so+0x3ebb8)'
PYTHON = 'method_vectorcall_VARARGS Objects/descrobject.c:330 (libpython3.11.so.1.0+0x164525)'


@pytest.mark.parametrize('text, ours', [
    # Fast DDS hands a payload from the publishing thread to our loop's take: both copies are
    # Fast DDS's, of Fast DDS's memory; our loop is only the caller of the take
    (race([MEMCPY, SERIALIZE], [MEMCPY, DESERIALIZE, OUR_LOOP, PYTHON], [MALLOC, POOL]), False),
    # our loop's code writes what another thread reads
    (race([OUR_LOOP, PYTHON], [OUR_STATUS, PYTHON]), True),
    # a memcpy called by our code is our access
    (race([MEMCPY, OUR_LOOP], [MEMCPY, SERIALIZE]), True),
    # Fast DDS's copies of a block from its own payload pool, taken while our module closed
    # its subscription: our code is only the caller of the allocation
    (race([MEMCPY, SERIALIZE], [MEMCPY, DESERIALIZE], [MALLOC, POOL, OUR_CLOSE, PYTHON]), False),
    # Fast DDS's copies, but of memory our module allocated
    (race([MEMCPY, SERIALIZE], [MEMCPY, DESERIALIZE], [MALLOC, OUR_ALLOC, PYTHON]), True),
])
def test_a_report_is_ours_when_our_code_touched_or_made_the_memory(text, ours):
    assert [reports.is_ours(block, OURS) for _, block in reports.reports(text)] == [ours]


def test_a_mutex_report_made_with_our_mutex_is_ours():
    text = ('WARNING: ThreadSanitizer: unlock of an unlocked mutex (pid=1)\n'
            '    #0 pthread_mutex_unlock x.inc:1 (libtsan.so+0x1)\n'
            f'    #1 {SERIALIZE}\n\n'
            '  Mutex M110 (0x7b480011dc10) created at:\n'
            '    #0 pthread_mutex_init x.cpp:1295 (libtsan.so+0x50468)\n'
            f'    #1 {OUR_INIT}\n')
    assert [reports.is_ours(b, OURS) for _, b in reports.reports(text)] == [True]
    foreign = text.replace(OUR_INIT, POOL)
    assert [reports.is_ours(b, OURS) for _, b in reports.reports(foreign)] == [False]


def test_the_script_fails_on_ours_and_counts_the_others(tmp_path):
    theirs = race([MEMCPY, SERIALIZE], [MEMCPY, DESERIALIZE, OUR_LOOP], [MALLOC, POOL])
    (tmp_path / 'tsan-report.1').write_text(('==================\n' + theirs) * 2)
    done = subprocess.run([sys.executable, str(SCRIPT), OURS, str(tmp_path / 'tsan-report.1')],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert 'suppressed 2 x data race, not ours (frames in _urdf_state_native' in done.stderr
    ours = race([OUR_LOOP], [OUR_STATUS])
    (tmp_path / 'tsan-report.2').write_text('==================\n' + ours)
    done = subprocess.run([sys.executable, str(SCRIPT), OURS, *map(str, tmp_path.iterdir())],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert 'loop_status' in done.stderr and '1 report(s) with a frame of ours' in done.stderr
