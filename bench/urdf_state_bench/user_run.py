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
End to end as a user measures it: what the node costs while it runs, whole process.

The protocol of the independent measurement of 2026-11-30 (docs/benchmarks.md), for
each run:

* the node started as ``ros2 run urdf_state_py urdf_state`` starts it (the
  ament_python script in ``<prefix>/lib/urdf_state_py/``; ``python -m
  urdf_state_py.node`` where it is not installed), publish_frequency 0,
  ignore_timestamp true, ``URDF_STATE_EXECUTOR`` as asked;
* a separate driver process publishing JointState for every non-mimic movable
  joint at the given rate (0: as fast as it can), fresh stamps, in-limit values,
  reliable publisher -> the node's best-effort subscription;
* a /tf sink that only records receipt time and stamp (raw subscription);
* a warm-up, then a window of ``duration`` seconds of continuous input: node CPU
  = utime + stime of the node process from ``/proc/PID/stat`` (every thread,
  dead ones included) over the window, divided by the /tf messages stamped in
  it; latency stamp -> receipt over the window; losses = JointStates sent minus
  distinct stamps received over the whole run.

Executor ``floor``: instead of the node, :mod:`.floor_node` (the same thread
and topics, a pre-serialised /tf with the stamp copied in, no decoding, no
FK): the I/O floor no Python node goes below; ``cfloor``: the same in C (bench/floor,
the module urdf_state_floor), the floor of any node, against which the
table gives ratios. Each run starts fresh processes, the executors' runs
interleaved (run 1 of each, then run 2 ...); results are medians over runs. Why this and
not short windows: see the README (benchmark, "what a user pays").
"""

from __future__ import annotations

import json
from pathlib import Path
import sys
import sysconfig
import time

from .common import log, median, table
from .e2e import _drain, model_spec, rate_label, warm_up
from .procs import Proc, ProcError, start_driver, start_node, start_sink, stop_chain


def ros2_run_command(executable: str = 'urdf_state') -> list[str] | None:
    """Return what ``ros2 run urdf_state_py <executable>`` executes here, or None."""
    for base in {sys.prefix, sysconfig.get_config_var('prefix') or sys.prefix}:
        script = Path(base) / 'lib' / 'urdf_state_py' / executable
        if script.is_file():
            return [sys.executable, str(script)]
    return None


def proc_stat_cpu_s(pid: int) -> float:
    """Utime + stime of a process (all its threads, exited ones too), in seconds."""
    import os
    with open(f'/proc/{pid}/stat', encoding='ascii') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def start_floor(tf_spec: dict, env: dict, log_dir: Path, tag: str, c_floor: bool = False) -> Proc:
    """
    Start :mod:`.floor_node` for the robot of ``tf_spec``.

    :mod:`.floor_node` for the robot of ``tf_spec`` (stopped with SIGINT, as the node);
    ``c_floor``: its C loop (executor ``cfloor``).
    """
    path = log_dir / f'floor_{tag}.json'
    path.write_text(json.dumps(tf_spec), encoding='utf-8')
    return Proc(f'floor_{tag}', [sys.executable, '-m', 'urdf_state_bench.floor_node',
                                 str(path), *(['--c'] if c_floor else []),
                                 '--ros-args', '--disable-rosout-logs'],
                env, log_dir, stdin=False)


def source_specs(js_spec: dict, sources: int) -> tuple[list[dict], dict]:
    """
    Return the driver specs and the node's extra parameters for ``sources`` joint state sources.

    1: today's single ``joint_states`` publisher, no extra parameter. More: the
    joints split into that many groups, each published on its own topic
    (``bench_source_<k>``), the node merging them with ``source_list`` (and so
    also publishing the merged ``joint_states``).
    """
    if sources <= 1:
        return [js_spec], {}
    specs = []
    for k in range(sources):
        part = slice(k, None, sources)
        specs.append(dict(js_spec, topic=f'bench_source_{k}', names=js_spec['names'][part],
                          lower=js_spec['lower'][part], upper=js_spec['upper'][part]))
    return specs, {'source_list': [spec['topic'] for spec in specs]}


def one_run(robot, executor: str, rate: float, duration: float, warmup: float, env: dict,
            log_dir: Path, tag: str, sources: int = 1) -> dict:
    """
    Fresh node + sink + driver(s); one warm-up and one measured window.

    ``sources`` > 1: that many drivers on their own topics, each at ``rate / sources``
    (the node's input rate stays ``rate``), merged by the node (see :func:`source_specs`).
    """
    js_spec, tf_spec = model_spec(robot.urdf)
    specs, extra = source_specs(js_spec, sources)
    node = sink = None
    drivers = []
    try:
        if executor in ('floor', 'cfloor'):
            node = start_floor(tf_spec, env, log_dir, tag, c_floor=executor == 'cfloor')
        else:
            node = start_node(robot.urdf, executor, env, log_dir, tag,
                              command=ros2_run_command(), extra=extra)
        sink = start_sink(env, log_dir, tag)
        drivers = [start_driver(spec, env, log_dir, f'{tag}_{k}') for k, spec in enumerate(specs)]
        return measure(node, sink, drivers, rate, duration, warmup)
    finally:
        stop_chain(node, *drivers, sink)


def measure(node: Proc, sink: Proc, drivers: list[Proc], rate: float, duration: float,
            warmup: float) -> dict:
    """
    Run one warm-up and one measured window; return the figures of the window.

    One warm-up and one measured window of ``drivers`` (``rate`` Hz in all) feeding
    ``node`` (a process serving /tf), ``sink`` recording; the figures of the window.
    """
    for driver in drivers:
        driver.wait_event('ready', 60.0)
        warm_up(driver, sink)
    sink.request('report', 10.0, cmd='report')  # forget the discovery bursts
    for driver in drivers:
        driver.send(cmd='run', rate=rate / len(drivers), duration=warmup + duration)
    time.sleep(warmup)
    start_ns = time.time_ns()
    cpu0, live0 = proc_stat_cpu_s(node.pid), node.cpu()
    dones = [driver.wait_event('done', warmup + duration + 60.0) for driver in drivers]
    cpu1, live1 = proc_stat_cpu_s(node.pid), node.cpu()
    done = {'t_first_ns': min(d['t_first_ns'] for d in dones),
            't_last_ns': max(d['t_last_ns'] for d in dones),
            'sent': sum(d['sent'] for d in dones),
            'elapsed': max(d['elapsed'] for d in dones)}
    _drain(sink)
    rep = sink.request('report', 10.0, cmd='report', since_ns=done['t_first_ns'],
                       until_ns=done['t_last_ns'], window_ns=[start_ns, done['t_last_ns']])
    out_n = max(1, rep['window_received'] or 0)
    window_s = (done['t_last_ns'] - start_ns) / 1e9
    return {'rate': rate, 'sent': done['sent'], 'received': rep['received'],
            'lost': done['sent'] - rep['unique_stamps'],
            'in_hz': done['sent'] / done['elapsed'], 'out_hz': out_n / window_s,
            'cpu_us': (cpu1 - cpu0) / out_n * 1e6,
            'cpu_live_threads_us': (live1 - live0) / out_n * 1e6,
            'cpu_pct': 100.0 * (cpu1 - cpu0) / window_s,
            'lat_p50_us': rep['lat_p50_us'], 'lat_p99_us': rep['lat_p99_us'],
            'rss_mb': node.rss() / 2 ** 20}


def run(robots, executors: list[str], rates: list[float], runs: int, duration: float,
        warmup: float, env: dict, log_dir: Path, sources: int = 1) -> list[dict]:
    """Medians of ``runs`` runs per robot, executor and rate (``sources``: see one_run)."""
    results = []
    for robot in robots:
        for rate in rates:
            trials = {executor: [] for executor in executors}
            for k in range(runs):  # interleaved: run k of every executor, then run k + 1
                for executor in executors:
                    tag = f'user_{robot.name}_{executor}_{rate_label(rate)}_{k}'.replace('~', '')
                    if sources > 1:
                        tag += f'_{sources}src'
                    try:
                        t = one_run(robot, executor, rate, duration, warmup, env, log_dir, tag,
                                    sources)
                    except ProcError as exc:
                        log(f'user run {tag} failed: {exc}')
                        continue
                    trials[executor].append(t)
                    log(f'user {robot.name}/{executor} {rate_label(rate)} Hz run {k + 1}: '
                        f'{t["cpu_us"]:.0f} µs/update, out {t["out_hz"]:.0f} Hz, '
                        f'lost {t["lost"]}, p50/p99 {t["lat_p50_us"] or 0:.0f}/'
                        f'{t["lat_p99_us"] or 0:.0f} µs')
            for executor in executors:
                done = trials[executor]
                if not done:
                    continue
                keys = ('cpu_us', 'cpu_live_threads_us', 'cpu_pct', 'in_hz', 'out_hz',
                        'lat_p50_us', 'lat_p99_us', 'rss_mb')
                summary = {k: median([t[k] for t in done]) for k in keys}
                summary.update(robot=robot.name, executor=executor, rate=rate, sources=sources,
                               lost=sum(t['lost'] for t in done),
                               sent=sum(t['sent'] for t in done),
                               cpu_runs=[t['cpu_us'] for t in done], trials=done)
                results.append(summary)
    return results


def c_floor_ratio(results: list[dict], r: dict, key: str) -> str:
    """``r[key]`` over the C floor's for the same robot and rate ('' without a C floor)."""
    for f in results:
        if (f['executor'], f['robot'], f['rate']) == ('cfloor', r['robot'], r['rate']):
            return f'{r[key] / f[key]:.2f}' if r[key] and f[key] else ''
    return ''


def print_table(results: list[dict], runs: int, duration: float, warmup: float,
                loadavg: tuple[str, str] | None = None) -> None:
    rows = [[r['robot'], r['executor'], rate_label(r['rate']), r['in_hz'], r['out_hz'],
             r['cpu_us'], c_floor_ratio(results, r, 'cpu_us'),
             c_floor_ratio(results, r, 'lat_p99_us'),
             ' / '.join(f'{c:.0f}' for c in r['cpu_runs']),
             r['cpu_live_threads_us'], r['lat_p50_us'], r['lat_p99_us'], r['lost'], r['sent'],
             r['rss_mb']]
            for r in results]
    table(['robot', 'executor', 'rate', 'in Hz', 'out Hz', 'cpu µs/upd', '× C floor',
           'p99 × C floor', 'runs',
           'live-thr µs', 'lat p50', 'lat p99', 'lost', 'sent', 'RSS MB'], rows,
          title=f'\n== What a user pays: node process CPU per /tf message (median of {runs} '
                f'runs, {duration:g} s after {warmup:g} s warm-up, fresh processes each) ==')
    print('   cpu µs/upd = utime+stime of the node process (/proc/PID/stat, every thread '
          'incl. exited ones) / /tf messages in the window;\n   live-thr µs = the same from '
          "the schedstat of the threads alive at both ends (the old benchmark's method); "
          'latency µs over the window')
    if loadavg:
        print(f'   /proc/loadavg before: {loadavg[0]}; after: {loadavg[1]}')


def print_sources_table(single: list[dict], merged: list[dict]) -> None:
    """
    Print node CPU per update with one source beside N sources.

    Node CPU per update with one source (joint_states) beside N sources (source_list,
    /joint_states published too), same robot, executor and input rate.
    """
    rows = []
    for m in merged:
        s = next((r for r in single if (r['robot'], r['executor'], r['rate']) ==
                  (m['robot'], m['executor'], m['rate'])), None)
        rows.append([m['robot'], m['executor'], rate_label(m['rate']),
                     s['cpu_us'] if s else None, m['cpu_us'], m['sources'],
                     m['out_hz'], m['lost']])
    table(['robot', 'executor', 'in Hz', 'µs/update 1 source', 'µs/update merged',
           'sources', '/tf Hz', 'lost'], rows,
          title='Node CPU per update: joint_states vs source_list (+ /joint_states out)')


#: The native loop's targets, as ratios to the C floor of the same run (docs/native_loop.md):
#: (executor, what, limit); the latency and rate rows are the default executor's.
FLOOR_TARGETS = (('auto', 'cpu', 1.15), ('single', 'cpu', 1.25), ('auto', 'p99', 1.3),
                 ('auto', 'out Hz', 0.8))
#: H1_2's CPU per update within this factor of TALOS's (the same executor and run).
H1_2_VS_TALOS = 1.1


def floor_targets(results: list[dict], rate: float) -> list[list[str]]:
    """
    Return the floor target rows from this run's own figures.

    ``[target, limit, measured, PASS|FAIL]`` rows from this run's own figures: TALOS
    against the C floor measured beside it (CPU per update and p99 latency at ``rate``,
    the highest rate from the flat-out runs), nothing lost, H1_2 against TALOS. A row
    whose figures this run lacks is left out.
    """
    def find(robot, executor, at):
        return next((r for r in results if (r['robot'], r['executor'], r['rate']) ==
                     (robot, executor, at)), None)

    def row(target, limit, ratio, upper=True):
        passed = ratio <= limit if upper else ratio >= limit
        return [target, f"{'<=' if upper else '>='} {limit:g}x", f'{ratio:.2f}x',
                'PASS' if passed else 'FAIL']

    rows = []
    for executor, what, limit in FLOOR_TARGETS:
        at = 0.0 if what == 'out Hz' else rate   # the highest rate: the flat-out runs
        node, floor = find('talos', executor, at), find('talos', 'cfloor', at)
        key = {'cpu': 'cpu_us', 'p99': 'lat_p99_us', 'out Hz': 'out_hz'}[what]
        if node and floor and node[key] and floor[key]:
            label = f'{rate_label(at)} Hz' if at else 'flat out'
            rows.append(row(f'TALOS {what} / C floor, user protocol, {executor}, {label}', limit,
                            node[key] / floor[key], upper=what != 'out Hz'))
    for executor in ('auto', 'single'):
        node = find('talos', executor, rate)
        if node:
            rows.append([f'TALOS messages lost, user protocol, {executor}, {rate_label(rate)} Hz',
                         '0', str(node['lost']), 'PASS' if node['lost'] == 0 else 'FAIL'])
        h1_2 = find('h1_2', executor, rate)
        if node and h1_2 and node['cpu_us'] and h1_2['cpu_us']:
            rows.append(row(f'H1_2 / TALOS CPU per update, user protocol, {executor}',
                            H1_2_VS_TALOS, h1_2['cpu_us'] / node['cpu_us']))
    return rows
