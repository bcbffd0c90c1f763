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
Parsing in a worker process (no ROS): limits on time, memory and output, and recovery.

A macro bomb and a loop are stopped at the time limit (the worker is killed),
an allocation beyond the memory limit fails in the worker, an expansion
beyond the size limit is refused, and the next parse works again. Durations
are bounded generously (the machine is shared); the assertion that matters is
the reason and that the caller got control back.
"""
import time

import pytest
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.parsers.isolated import IsolatedParser, ParseLimits
from urdf_state_py.core.parsers.xacro_sandbox import RESTRICTED, TRUSTED

pytest.importorskip('xacro')

SMALL = """<robot name="small"><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 2"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/><origin xyz="0.1 0 0" rpy="0 0 0.5"/>
</joint></robot>"""


def macro_bomb(levels=7):
    """10**(levels-1) link expansions from a ~1 kB document."""
    names = 'abcdefghij'
    body = ['<xacro:macro name="a"><link name="x"/></xacro:macro>']
    for low, high in zip(names, names[1:levels]):
        body.append(f'<xacro:macro name="{high}">' + f'<xacro:{low}/>' * 10 + '</xacro:macro>')
    body.append(f'<xacro:{names[levels - 1]}/>')
    return ('<robot name="bomb" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            + ''.join(body) + '</robot>')


@pytest.fixture
def parser():
    isolated = IsolatedParser([type(p) for p in default_registry()],
                              ParseLimits(timeout_s=2.0, max_memory_mb=512, max_bytes=1 << 20))
    yield isolated
    isolated.close()


def test_result_equals_the_in_process_parse(parser):
    result = parser.parse(SMALL, 'auto', {}, RESTRICTED)
    expected = default_registry().parse(SMALL)
    assert result.parser == 'urdf'
    assert result.model == expected
    assert result.published == SMALL


def test_macro_bomb_is_stopped_at_the_time_limit(parser):
    started = time.monotonic()
    with pytest.raises(DescriptionError) as info:
        parser.parse(macro_bomb(), 'auto', {}, RESTRICTED)
    assert info.value.kind == 'time limit'
    assert 'description.timeout' in str(info.value)
    assert time.monotonic() - started < 30.0
    assert parser.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'  # a new worker


def test_a_loop_in_trusted_xacro_is_stopped_too(parser):
    text = SMALL.replace('<robot name="small">',
                         '<robot name="small" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                         '<xacro:property name="n" value="${python.sum(python.range(10**12))}"/>'
                         '<link name="${n}"/>'.replace('<link name="${n}"/>', ''))
    text = text.replace('<link name="a"/>', '<link name="a${n}"/>', 1).replace(
        '<parent link="a"/>', '<parent link="a${n}"/>')
    with pytest.raises(DescriptionError) as info:
        parser.parse(text, 'xacro', {}, TRUSTED)
    assert info.value.kind == 'time limit'


def test_memory_limit(parser):
    text = SMALL.replace('<robot name="small">',
                         '<robot name="$(eval \'x\' * 2**31)" '
                         'xmlns:xacro="http://www.ros.org/wiki/xacro">')
    with pytest.raises(DescriptionError) as info:
        parser.parse(text, 'xacro', {}, TRUSTED)
    assert info.value.kind == 'memory limit', str(info.value)
    assert 'description.max_memory_mb=512' in str(info.value)
    assert parser.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'


def test_size_limits(parser):
    big = SMALL.replace('<link name="a"/>', '<link name="a"/>' + ' ' * (1 << 20))
    with pytest.raises(DescriptionError) as info:
        parser.parse(big, 'auto', {}, RESTRICTED)
    assert info.value.kind == 'size limit' and 'description.max_bytes' in str(info.value)
    # a small document whose expansion is over the limit: 10**3 links of 1.1 kB names
    with pytest.raises(DescriptionError) as info:
        parser.parse(macro_bomb(4).replace('name="x"', 'name="${\'x\' * 1100}"'), 'auto', {},
                     RESTRICTED)
    assert info.value.kind == 'size limit', str(info.value)
    assert 'expanded description' in str(info.value)


def test_errors_come_back_with_the_parser_name(parser):
    with pytest.raises(DescriptionError) as info:
        parser.parse('<robot name="x"><link name="a"/><link name="a"/></robot>', 'auto', {},
                     RESTRICTED)
    assert info.value.parser == 'urdf' and "link name 'a' is not unique" in str(info.value)


def bomb_in_a_thread(parser):
    """Return the started thread parsing a macro bomb, and the list its error goes to."""
    import threading
    errors = []

    def run():
        try:
            parser.parse(macro_bomb(), 'auto', {}, RESTRICTED)
        except DescriptionError as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, errors


def test_close_during_a_parse_returns_at_once(parser):
    thread, errors = bomb_in_a_thread(parser)
    # the parse has its worker (a close() before that is undone by the parse's start)
    deadline = time.monotonic() + 60.0
    while parser._worker is None or not parser._worker._ready:
        assert time.monotonic() < deadline and thread.is_alive(), 'the parse never got a worker'
        time.sleep(0.01)
    parser.close()
    thread.join(timeout=60.0)
    # ended by close(), not by the 2 s time limit it would otherwise reach
    assert not thread.is_alive() and errors
    assert 'closed' in str(errors[0]) and errors[0].kind == 'internal'


def test_stop_while_the_worker_starts_ends_the_parse_and_every_later_one(parser, monkeypatch):
    """
    A stop() while the worker is being started ends the parse as soon as the worker exists.

    stop() runs in a signal handler (Ctrl-C during the node's start-up parse), which
    may come while the worker is being started, before close() can find it to kill: the
    parse ends as soon as the worker exists, and no later parse starts one.
    """
    import subprocess
    real_popen, started = subprocess.Popen, []

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        parser.stop()
        return started[-1]
    monkeypatch.setattr(subprocess, 'Popen', popen)
    for _ in range(2):
        with pytest.raises(DescriptionError, match='shutting down') as error:
            parser.parse(SMALL, 'auto', {}, RESTRICTED)
        assert error.value.kind == 'internal'
    assert len(started) == 1 and started[0].poll() is not None   # killed and reaped


TRUSTED_SMALL = SMALL.replace('<robot name="small">', '<robot name="$(eval \'sm\' + \'all\')" '
                              'xmlns:xacro="http://www.ros.org/wiki/xacro">')


def test_a_trusted_parse_never_shares_its_process_with_a_later_one(parser):
    """Whatever code a trusted model ran dies with its worker; restricted parses share one."""
    parser.parse(SMALL, 'auto', {}, RESTRICTED)
    before = parser._worker
    assert parser.parse(TRUSTED_SMALL, 'xacro', {}, TRUSTED).model.name == 'small'
    assert not before.alive()   # the worker that ran it is gone
    parser.parse(SMALL, 'auto', {}, RESTRICTED)
    restricted_worker = parser._worker
    parser.parse(SMALL, 'auto', {}, RESTRICTED)
    assert restricted_worker is not before and parser._worker is restricted_worker


def no_new_process(monkeypatch):
    """From here on, starting a worker process fails the test."""
    import subprocess

    def popen(*args, **kwargs):
        pytest.fail('a parse had to start a parser process')
    monkeypatch.setattr(subprocess, 'Popen', popen)


def test_prestarted_workers_take_the_first_two_parses(parser, monkeypatch):
    """
    A node's start-up: the worker and its successor start at once.

    The successor replaces the worker after the trusted start-up parse, so neither that
    parse nor the first one set at run time waits for a process to start (a few hundred
    ms on a busy machine).
    """
    parser.prestart(successor=True)
    worker, successor = parser._worker, parser._successor
    assert worker.alive() and successor.alive() and worker.pid != successor.pid
    no_new_process(monkeypatch)
    assert parser.parse(TRUSTED_SMALL, 'xacro', {}, TRUSTED).model.name == 'small'
    assert not worker.alive() and parser._worker is successor
    assert parser.wait_ready()
    assert parser.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'
    assert parser._worker is successor


def test_a_parse_that_replaces_its_worker_starts_the_next_one_meanwhile(parser, monkeypatch):
    """
    The next parse finds its worker already started.

    Also after a trusted or large parse, or one stopped at the time limit.
    """
    parser.parse(SMALL, 'auto', {}, RESTRICTED)
    for text, policy in ((TRUSTED_SMALL, TRUSTED), (macro_bomb(), RESTRICTED)):
        retired = parser._worker
        try:
            parser.parse(text, 'auto', {}, policy)
        except DescriptionError as err:
            assert err.kind == 'time limit'
        assert not retired.alive() and parser._worker.alive()
    no_new_process(monkeypatch)
    assert parser.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'


def test_a_worker_killed_from_outside_is_not_blamed_on_the_memory_limit():
    import os
    import signal
    parser = IsolatedParser([type(p) for p in default_registry()],
                            ParseLimits(timeout_s=60.0, max_memory_mb=512, max_bytes=1 << 20))
    try:
        parser.parse(SMALL, 'auto', {}, RESTRICTED)      # the worker is up
        worker = parser._worker
        cpu0 = _cpu_s(worker.pid)
        thread, errors = bomb_in_a_thread(parser)
        busy = time.monotonic() + 30.0                    # killed in the parse, not before it
        while _cpu_s(worker.pid) < cpu0 + 0.3:
            assert time.monotonic() < busy and thread.is_alive(), 'the worker never got busy'
            time.sleep(0.02)
        os.kill(worker.pid, signal.SIGKILL)
        thread.join(timeout=30.0)
        assert not thread.is_alive() and errors
        assert errors[0].kind == 'killed', str(errors[0])
        assert 'killed by signal 9 (SIGKILL) from outside' in str(errors[0])
        assert 'max_memory_mb' not in str(errors[0])
        assert parser.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'
    finally:
        parser.close()


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    import os
    with open(f'/proc/{pid}/stat', encoding='ascii') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
