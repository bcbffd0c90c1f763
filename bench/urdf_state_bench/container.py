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
The container's costs: memory per added robot, idle CPU, load times, CPU per /tf message.

``./dev.sh bench --only container``. Two measurements, each with fresh processes:

* **memory** (:func:`memory`): a container (``urdf_state_container`` as ``ros2 run``
  starts it) with one robot, then with ``count`` (a mix of real robots, TALOS among
  them, loaded through LoadNode by :mod:`.fleet_loader`); the RSS of the container and
  of every process it started (the parser process), per robot beyond the first; the
  container's CPU while idle (no joint states) over a window; the LoadNode answer times;
  and, in the same run, the standalone node's RSS and idle CPU (same window) with TALOS:
  what one robot costs when it has a process of its own.
* **CPU per /tf message** (:func:`cpu`): ``robots`` TALOS in one container, each at
  ``rate / robots`` Hz (one driver sending to their ``joint_states`` in turn), beside
  the standalone node with TALOS at ``rate`` and the C floor at ``rate``, with
  :mod:`.user_run`'s protocol (container process CPU over the window / /tf messages),
  runs interleaved, medians of runs.
"""

from __future__ import annotations

from pathlib import Path
import sys
import time

from .common import log, median, table
from .e2e import model_spec, rate_label
from .procs import Proc, ProcError, start_driver, start_node, start_sink, stop_chain
from .user_run import measure, one_run, proc_stat_cpu_s, ros2_run_command

#: The name the benchmark gives its containers.
CONTAINER = 'bench_container'
#: Idle CPU of a container serving 20 robots: the goal [ms/s], and at most what three
#: standalone nodes (one robot each) cost, where twenty would cost twenty times one.
IDLE_MS_LIMIT = 5.0
IDLE_RATIO_LIMIT = 3.0
#: RSS is read this long after the last load (Fast DDS settles its discovery).
SETTLE_S = 3.0


def start_container(env: dict, log_dir: Path, tag: str) -> tuple[Proc, Proc]:
    """Return a container and its loader process (both ready)."""
    command = ros2_run_command('urdf_state_container') or [
        sys.executable, '-m', 'urdf_state_py.node.process.container']
    container = Proc(f'container_{tag}', command + ['--ros-args', '-r', f'__node:={CONTAINER}',
                                                    '--disable-rosout-logs'],
                     env, log_dir, stdin=False)
    loader = Proc(f'loader_{tag}', [sys.executable, '-m',
                                    'urdf_state_bench.fleet_loader', f'/{CONTAINER}'],
                  env, log_dir)
    loader.wait_event('ready', 120.0)
    return container, loader


def load(loader: Proc, robots: list[dict]) -> list[float]:
    """Send LoadNode for each of ``robots`` (namespace, parameters); the answer times [s]."""
    loader.send(cmd='load', robots=robots)
    event = loader.wait_event('loaded', 120.0 + 30.0 * len(robots))
    if event.get('error'):
        raise ProcError(f'LoadNode refused: {event["error"]}')
    return event['seconds']


def rss_with_children(proc: Proc) -> int:
    """RSS of ``proc`` and every process it started [bytes]."""
    total = proc.ps.memory_info().rss
    for child in proc.ps.children(recursive=True):
        try:
            total += child.memory_info().rss
        except Exception:  # a child that just ended
            pass
    return total


def idle_cpu_ms(proc: Proc, window_s: float) -> float:
    """Return the CPU ``proc`` spends per second of wall time over ``window_s`` [ms/s]."""
    cpu0 = proc_stat_cpu_s(proc.pid)
    time.sleep(window_s)
    return (proc_stat_cpu_s(proc.pid) - cpu0) / window_s * 1000.0


def memory(fleet: list, count: int, idle_s: float, standalone, env: dict,
           log_dir: Path) -> dict:
    """
    Measure the container and the standalone node.

    Container RSS with 1 and with ``count`` robots (``fleet`` taken in turn), idle CPU,
    load times, and the standalone node's RSS and idle CPU with ``standalone`` (see the
    module).
    """
    entries = [{'namespace': f'/m{k}', 'parameters': {
        'robot_description': fleet[k % len(fleet)].urdf, 'frame_prefix': f'm{k}/'}}
        for k in range(count)]
    container, loader = start_container(env, log_dir, 'mem')
    node = None
    try:
        seconds = load(loader, entries[:1])
        time.sleep(SETTLE_S)
        one = rss_with_children(container)
        seconds += load(loader, entries[1:])
        time.sleep(SETTLE_S)
        many = rss_with_children(container)
        threads = container.ps.num_threads()
        idle_ms = idle_cpu_ms(container, idle_s)
        node = start_node(standalone.urdf, 'auto', env, log_dir, 'mem_standalone',
                          command=ros2_run_command())
        time.sleep(SETTLE_S * 3)
        alone = rss_with_children(node)
        alone_idle_ms = idle_cpu_ms(node, idle_s)
    finally:
        stop_chain(container, loader, node)
    return {'count': count, 'robots': [fleet[k % len(fleet)].name for k in range(count)],
            'rss_one_mb': one / 2 ** 20, 'rss_many_mb': many / 2 ** 20,
            'per_robot_mb': (many - one) / (count - 1) / 2 ** 20, 'threads': threads,
            'idle_ms_per_s': idle_ms, 'load_median_ms': median(seconds) * 1000.0,
            'load_first_ms': seconds[0] * 1000.0, 'standalone_rss_mb': alone / 2 ** 20,
            'standalone_idle_ms_per_s': alone_idle_ms,
            'standalone_robot': standalone.name}


def container_run(robot, robots: int, rate: float, duration: float, warmup: float,
                  env: dict, log_dir: Path, tag: str) -> dict:
    """``robots`` copies of ``robot`` in one container, fed ``rate`` Hz in all."""
    js_spec, _ = model_spec(robot.urdf)
    container = loader = sink = driver = None
    try:
        container, loader = start_container(env, log_dir, tag)
        load(loader, [{'namespace': f'/b{k}', 'parameters': {
            'robot_description': robot.urdf, 'publish_frequency': 0.0,
            'ignore_timestamp': True, 'frame_prefix': f'b{k}/'}} for k in range(robots)])
        sink = start_sink(env, log_dir, tag)
        spec = dict(js_spec, topics=[f'/b{k}/joint_states' for k in range(robots)])
        driver = start_driver(spec, env, log_dir, tag)
        return measure(container, sink, [driver], rate, duration, warmup)
    finally:
        stop_chain(container, loader, driver, sink)


def cpu(robot, robots: int, rate: float, runs: int, duration: float, warmup: float,
        env: dict, log_dir: Path, floor: bool) -> dict:
    """
    Measure the container beside the standalone node, interleaved.

    Medians over ``runs`` interleaved runs of the container, the standalone node and
    (``floor``) the C floor, at ``rate`` Hz in all.
    """
    kinds = ['container', 'standalone'] + (['cfloor'] if floor else [])
    trials: dict[str, list[dict]] = {kind: [] for kind in kinds}
    for k in range(runs):
        for kind in kinds:
            tag = f'container_cpu_{kind}_{k}'
            try:
                if kind == 'container':
                    t = container_run(robot, robots, rate, duration, warmup, env, log_dir, tag)
                else:
                    t = one_run(robot, 'auto' if kind == 'standalone' else kind, rate,
                                duration, warmup, env, log_dir, tag)
            except ProcError as exc:
                log(f'container cpu run {tag} failed: {exc}')
                continue
            trials[kind].append(t)
            log(f'container cpu {kind} run {k + 1}: {t["cpu_us"]:.0f} µs per /tf, '
                f'out {t["out_hz"]:.0f} Hz, lost {t["lost"]}')
    summary = {kind: {'cpu_us': median([t['cpu_us'] for t in done]),
                      'runs': [t['cpu_us'] for t in done],
                      'lost': sum(t['lost'] for t in done),
                      'out_hz': median([t['out_hz'] for t in done])}
               for kind, done in trials.items() if done}
    return {'robot': robot.name, 'robots': robots, 'rate': rate, 'runs': runs,
            'kinds': summary, 'trials': trials}


def print_tables(mem: dict | None, cpu_result: dict | None) -> None:
    if mem:
        table(['robots', 'RSS 1 robot MB', f'RSS {mem["count"]} MB', 'per added robot MB',
               'threads', 'idle ms CPU/s', 'LoadNode median ms', 'first ms',
               f'standalone ({mem["standalone_robot"]}) MB', 'standalone idle ms CPU/s'],
              [[mem['count'], mem['rss_one_mb'], mem['rss_many_mb'], mem['per_robot_mb'],
                mem['threads'], mem['idle_ms_per_s'], mem['load_median_ms'],
                mem['load_first_ms'], mem['standalone_rss_mb'],
                mem['standalone_idle_ms_per_s']]],
              title='\n== Container memory (RSS of the container and its parser process) ==')
        print(f'   robots: {", ".join(mem["robots"])}')
    if cpu_result:
        kinds = cpu_result['kinds']
        floor = kinds.get('cfloor', {}).get('cpu_us')
        alone = kinds.get('standalone', {}).get('cpu_us')
        rows = [[kind, r['cpu_us'], f'{r["cpu_us"] / alone:.2f}' if alone else '',
                 f'{r["cpu_us"] / floor:.2f}' if floor else '',
                 ' / '.join(f'{c:.0f}' for c in r['runs']), r['out_hz'], r['lost']]
                for kind, r in kinds.items()]
        table(['process', 'CPU µs per /tf', '× standalone', '× C floor', 'runs', 'out Hz',
               'lost'], rows,
              title=f'\n== {cpu_result["robots"]} × {cpu_result["robot"]} in one container, '
                    f'{rate_label(cpu_result["rate"])} Hz in all, beside the standalone '
                    f'node at the same rate (median of {cpu_result["runs"]} runs) ==')


def targets(mem: dict | None, cpu_result: dict | None) -> list[list[str]]:
    """Return the container's targets: ``[target, limit, measured, PASS|FAIL]``."""
    rows = []

    def row(what, limit, value, unit=''):
        rows.append([what, f'<= {limit:g}{unit}', f'{value:.2f}{unit}',
                     'PASS' if value <= limit else 'FAIL'])

    if mem:
        row(f'container RSS per robot beyond the first ({mem["count"]} robots)', 1.5,
            mem['per_robot_mb'], ' MB')
        row(f'idle container with {mem["count"]} robots, CPU', IDLE_MS_LIMIT,
            mem['idle_ms_per_s'], ' ms/s')
        if mem['standalone_idle_ms_per_s'] > 0:   # 0: below /proc's 10 ms tick over the window
            row(f'idle CPU: container with {mem["count"]} robots / one standalone node',
                IDLE_RATIO_LIMIT, mem['idle_ms_per_s'] / mem['standalone_idle_ms_per_s'], 'x')
    if cpu_result:
        kinds = cpu_result['kinds']
        if 'container' in kinds and 'standalone' in kinds:
            row('container CPU per /tf / standalone node', 1.2,
                kinds['container']['cpu_us'] / kinds['standalone']['cpu_us'], 'x')
        if 'container' in kinds and 'cfloor' in kinds:
            row('container CPU per /tf / C floor', 1.3,
                kinds['container']['cpu_us'] / kinds['cfloor']['cpu_us'], 'x')
    return rows
