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
Parser processes shared by the robots of a process (no ROS).

Reuse, concurrency, and each robot ending only its own parse.

The long parses are held open by :mod:`gated_parser` (a parse that waits for a file),
so what is asserted is an order of events, never a duration.
"""
import os
from pathlib import Path
import re
import threading

from gated_parser import GatedParser
import pytest
from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.parsers.isolated import ParseLimits, STOPPED
from urdf_state_py.core.parsers.parser_pool import ParserPool
from urdf_state_py.core.parsers.xacro_sandbox import RESTRICTED

SMALL = '<robot name="small"><link name="a"/></robot>'
CLASSES = [type(p) for p in default_registry()] + [GatedParser]
LIMITS = ParseLimits(timeout_s=60.0, max_memory_mb=512, max_bytes=1 << 20)


@pytest.fixture(autouse=True)
def importable_plugin(monkeypatch):
    """Let the worker process import the test plugin by module name."""
    here = str(Path(__file__).parent)
    monkeypatch.setenv('PYTHONPATH', os.pathsep.join(filter(None, [here, os.environ.get(
        'PYTHONPATH')])))


@pytest.fixture
def pool():
    p = ParserPool(size=2, keep=1)
    yield p
    p.close()


class Held:
    """A gated parse of ``client`` running on a thread until :meth:`release`."""

    def __init__(self, client, tmp_path: Path, name: str) -> None:
        self.gate = tmp_path / name
        self.result: list = []
        self.thread = threading.Thread(target=self._run, args=(client,), daemon=True)
        self.thread.start()

    def _run(self, client) -> None:
        try:
            self.result.append(client.parse(f'<gate path="{self.gate}"/>', 'auto', {},
                                            RESTRICTED))
        except DescriptionError as err:
            self.result.append(err)

    def release(self):
        self.gate.touch()
        self.thread.join(timeout=60.0)
        assert not self.thread.is_alive()
        return self.result[0]


def wait_for(predicate):
    event = threading.Event()
    for _ in range(6000):
        if predicate():
            return
        event.wait(0.01)
    pytest.fail('condition not reached within 60 s')


def test_robots_share_one_kept_worker(pool):
    first, second = pool.client(CLASSES, LIMITS), pool.client(CLASSES, LIMITS)
    assert first.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'
    assert second.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'
    assert pool.workers == 1


def test_a_held_parse_does_not_hold_back_another_robot(pool, tmp_path):
    slow, quick = pool.client(CLASSES, LIMITS), pool.client(CLASSES, LIMITS)
    held = Held(slow, tmp_path, 'slow')
    wait_for(lambda: pool.workers == 1 and held.thread.is_alive())
    assert quick.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'
    assert held.thread.is_alive()          # the other robot's parse finished first
    assert held.release().model.name == 'gated'
    assert pool.workers == 1               # the second worker ended with its parse


def test_closing_a_robot_ends_only_its_own_parse(pool, tmp_path):
    gone, staying = pool.client(CLASSES, LIMITS), pool.client(CLASSES, LIMITS)
    ended = Held(gone, tmp_path, 'never')
    kept = Held(staying, tmp_path, 'later')
    wait_for(lambda: len(pool._busy) == 2)
    gone.close()
    ended.thread.join(timeout=60.0)
    assert isinstance(ended.result[0], DescriptionError)
    assert kept.thread.is_alive()
    assert kept.release().model.name == 'gated'
    assert gone.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'   # close: not stop


def test_a_stopped_robot_parses_no_more_and_others_still_do(pool):
    stopped, other = pool.client(CLASSES, LIMITS), pool.client(CLASSES, LIMITS)
    stopped.stop()
    with pytest.raises(DescriptionError, match=re.escape(STOPPED)):
        stopped.parse(SMALL, 'auto', {}, RESTRICTED)
    assert other.parse(SMALL, 'auto', {}, RESTRICTED).model.name == 'small'


def test_a_third_parse_waits_for_a_free_worker(pool, tmp_path):
    clients = [pool.client(CLASSES, LIMITS) for _ in range(3)]
    first, second = Held(clients[0], tmp_path, 'one'), Held(clients[1], tmp_path, 'two')
    wait_for(lambda: len(pool._busy) == 2)
    third = Held(clients[2], tmp_path, 'three')
    (tmp_path / 'three').touch()           # its gate is open, but no worker is free
    third.thread.join(timeout=0.5)
    assert third.thread.is_alive() and clients[2] not in pool._busy
    assert first.release().model.name == 'gated'
    assert third.release().model.name == 'gated'
    assert second.release().model.name == 'gated'


def test_stopping_the_pool_ends_every_parse_and_refuses_new_ones(pool, tmp_path):
    client = pool.client(CLASSES, LIMITS)
    held = Held(client, tmp_path, 'stopped')
    wait_for(lambda: len(pool._busy) == 1)
    pool.stop()
    held.thread.join(timeout=60.0)
    assert isinstance(held.result[0], DescriptionError)
    with pytest.raises(DescriptionError, match=re.escape(STOPPED)):
        pool.client(CLASSES, LIMITS).parse(SMALL, 'auto', {}, RESTRICTED)


def test_other_limits_get_a_worker_of_their_own(pool):
    pool.client(CLASSES, LIMITS).parse(SMALL, 'auto', {}, RESTRICTED)
    tighter = ParseLimits(timeout_s=5.0, max_memory_mb=256, max_bytes=1 << 16)
    assert pool.client(CLASSES, tighter).parse(SMALL, 'auto', {}, RESTRICTED).model
    assert pool.workers == 1               # keep=1: the older one ended
