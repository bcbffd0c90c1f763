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
The chaos soak's schedule (test_chaos_soak.py): what it does every 5 s, in its own threads.

Parameter changes, description swaps, hostile descriptions, floods, a second
joint-state publisher and the parser worker killed mid-parse, in the order the
soak's docstring gives; each step records what it did and, for a refusal, the
reason the node gave, for chaos_report to print and check.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from typing import TYPE_CHECKING

from chaos_checks import Ledger
from chaos_report import DURATION_S
from node_harness import wait_until
from test_hostile_inputs import KEEP_ALL, PREFIX, TOY
from test_isolated_parser import macro_bomb
from test_node_descriptions import robot
from test_xacro_sandbox import CODE_ATTACKS

if TYPE_CHECKING:
    from test_chaos_soak import Soak

FLOOD_S, FLOOD_RATE, FLOOD_PUBLISHERS = 10.0, 24000.0, 3
KILL_EVERY_S = 300.0
# model B: the same joints, other links, other origins and axes
OTHER = TOY.replace('"toy"', '"yot"').replace('"la"', '"ka"').replace('"lm"', '"km"') \
    .replace('"lb"', '"kb"').replace('<parent link="base"/><child link="ka"/>',
                                     '<parent link="base"/><child link="ka"/>'
                                     '<origin xyz="0.1 0.2 0.3" rpy="0.1 0 0.2"/>') \
    .replace('<axis xyz="1 0 0"/>', '<axis xyz="0 1 0"/>')


def _parameter_changes():
    """Return the rotating parameter changes between swaps: (name, two values)."""
    return [('frame_prefix', (PREFIX, 'cx/')), ('ignore_limits', (True, False)),
            ('publish_frequency', (50.0, 20.0)), ('urdf_parser_py.strict', (True, False))]


def _hostile_descriptions(tmp_path):
    """(text, what the refusal names), in turn."""
    marker = tmp_path / 'marker'
    template, construct = CODE_ATTACKS['eval']
    return [(macro_bomb(), ''), (robot(x=template.format(m=marker)), construct)]


def run_thread(soak: Soak, name: str, target, *args) -> threading.Thread:
    """Run ``target(soak, *args)`` in a thread; a failure is recorded for the end, not lost."""
    def body():
        try:
            target(soak, *args)
        except BaseException as exc:  # pytest.fail too: reported at the end
            soak.errors.append(f'{name}: {type(exc).__name__}: {exc}')
    thread = threading.Thread(target=body, name=name, daemon=True)
    thread.start()
    return thread


def _flood(soak: Soak, drivers) -> None:
    soak.flooding.set()
    start = time.monotonic()
    soak.events.append(f'flood from {time.monotonic() - soak.t0:.1f} s')
    try:
        for driver in drivers:
            driver.send(cmd='run', rate=FLOOD_RATE / len(drivers), duration=FLOOD_S)
        dones = [driver.wait_event('done', 120.0) for driver in drivers]
        rate = sum(d['sent'] for d in dones) / max(d['elapsed'] for d in dones)
        soak.flood_sent += sum(d['sent'] for d in dones)
        refused = sum(d.get('refused', 0) for d in dones)
        soak.events.append(f'flood: {rate:.0f} JointStates/s ({refused} writes refused)')
    finally:
        soak.flood_end = time.monotonic()
        soak.flood_windows.append((start, soak.flood_end))
        soak.events.append(f'flood until {soak.flood_end - soak.t0:.1f} s')
        soak.flooding.clear()


def _toggle_second(soak: Soak, present: bool) -> None:
    """
    Make the second publisher appear or go.

    It is used once matched, and goes after its samples are acked.
    """
    from rclpy.duration import Duration
    if present:
        pub = soak.second_node.create_publisher(soak.JointState, 'joint_states', KEEP_ALL)
        wait_until(lambda: pub.get_subscription_count() > 0, 20.0, 'the second publisher matched')
        with soak.second_lock:
            soak.second = pub
    else:
        with soak.second_lock:
            pub, soak.second = soak.second, None
        if pub is not None:
            pub.wait_for_all_acked(Duration(seconds=10))
            soak.second_node.destroy_publisher(pub)
    soak.events.append(f'second publisher {"on" if present else "off"}')


def _kill_parse(soak: Soak) -> None:
    """Send a slow description; SIGKILL its parser worker once it is busy with it."""
    import psutil
    workers = [c for c in psutil.Process(soak.node.proc.pid).children()
               if 'parser_worker' in ' '.join(c.cmdline())]
    cpu0 = [sum(w.cpu_times()[:2]) for w in workers]
    result = []
    setter = threading.Thread(
        target=lambda: result.append(soak.set_params(robot_description=macro_bomb())))
    setter.start()

    def busy():
        return result or next((w for w, c in zip(workers, cpu0)
                               if sum(w.cpu_times()[:2]) > c + 0.3), None)
    worker = wait_until(busy, 20.0, 'the parse')
    killed = not result
    if killed:
        os.kill(worker.pid, signal.SIGKILL)
    setter.join(30.0)
    (answer,) = result[0]
    assert not answer.successful, 'the killed parse was accepted'
    soak.refusals.append(('killed parse' if killed else 'bomb (parse ended before the kill)',
                          answer.reason))
    soak.events.append(f'parser worker {"SIGKILLed" if killed else "missed"}: {answer.reason}')


def conduct(soak: Soak, ledger: Ledger, t0: float, drivers, tmp_path) -> None:
    """Run the schedule: one step every 5 s (see the module docstring)."""
    changes, hostile = _parameter_changes(), _hostile_descriptions(tmp_path)
    models = [TOY, OTHER]
    state = {'description': TOY, 'frame_prefix': PREFIX}
    n_change = n_swap = n_hostile = 0
    next_kill = 50.0
    step = 1
    while True:
        at = 5.0 * step
        if at >= DURATION_S - 5.0 or soak.stop.wait(max(0.0, t0 + at - time.monotonic())):
            return
        step += 1
        if int(at) % 30 == 0:
            _toggle_second(soak, present=int(at) // 30 % 2 == 1)
        if int(at) % 10 == 5:           # a parameter change
            name, values = changes[n_change % len(changes)]
            value = values[n_change // len(changes) % 2]
            n_change += 1
            config = ledger.config(state['description'], value, time.monotonic()) \
                if name == 'frame_prefix' else None
            (result,) = soak.set_params(**{name: value})
            assert result.successful, f'{name}={value!r}: {result.reason}'
            if config is not None:
                ledger.ack(config, time.monotonic())
                state['frame_prefix'] = value
            soak.events.append(f'{name} = {value!r}')
            continue
        n_swap += 1                     # a swap
        description = models[n_swap % 2]
        config = ledger.config(description, state['frame_prefix'], time.monotonic())
        (result,) = soak.set_params(robot_description=description)
        assert result.successful, result.reason
        ledger.ack(config, time.monotonic())
        state['description'] = description
        soak.swaps += 1
        soak.events.append(f'{time.monotonic() - t0:.1f} s: swap to {config.kin.model.name}')
        if int(at) % 60 == 30:          # a hostile description and a flood
            run_thread(soak, 'flood', _flood, drivers)
            text, construct = hostile[n_hostile % len(hostile)]
            n_hostile += 1
            (result,) = soak.set_params(robot_description=text)
            assert not result.successful and construct in result.reason, result.reason
            soak.refusals.append(('hostile description', result.reason))
            soak.events.append(f'hostile description refused: {result.reason[:80]}')
        if at >= next_kill:
            next_kill += KILL_EVERY_S
            _kill_parse(soak)
