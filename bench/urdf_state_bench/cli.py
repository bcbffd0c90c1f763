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
Command line of the benchmark: runs the sections, prints tables and targets, writes JSON.

``python -m urdf_state_bench [--quick] [--only fk|e2e|mem ...] [--robots NAME ...]``

Sections:

- ``fk``: :mod:`urdf_state_bench.fk` (in this process);
- ``e2e``: :mod:`urdf_state_bench.e2e`, node + driver + sink processes, the node
  through its real entry point with rclpy's default executor and EventsExecutor
  (``--executors``), plus the no-FK floor;
- ``mem``: the node's RSS after loading and after a minute (``--quick``: 10 s)
  of JointState at 1 kHz;
- ``user``: :mod:`urdf_state_bench.user_run`, what a user pays: the
  node process's whole CPU per /tf message over long windows, fresh processes
  per run, medians of runs (the protocol of the independent measurement of
  2026-11-30 in docs/benchmarks.md), at 1 kHz and
  flat out. E.g. ``./dev.sh bench --only user --robots talos h1_2``;
- ``sources``: the user protocol at 1 kHz with one ``joint_states`` source beside two
  sources merged with ``source_list`` (the node then also publishes ``/joint_states``);
- ``flood``: :mod:`urdf_state_bench.flood`, several publishers as fast
  as they can for 20 s: parameter answer times, /tf out, RSS, recovery;
- ``container``: :mod:`urdf_state_bench.container`, RSS per robot of a
  container with 20 real robots, its idle CPU and load times, and CPU per /tf of
  10 TALOS in one container beside the standalone node and the C floor.

Progress goes to stderr, tables to stdout, everything to
``.bench/results-<date>.json``; child-process logs to ``.bench/logs-<date>/``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
from pathlib import Path
import sys
import time

from . import trees
from .common import header_line, log, loopback_env, machine_info, table

FULL = {'fk_trials': 7, 'fk_trial_s': 0.05, 'e2e_trials': 3, 'e2e_duration': 1.5,
        'mem_seconds': 60.0, 'rates': [100, 250, 500, 1000, 2000, 4000, 0],
        'executors': ['single', 'events'], 'user_runs': 3, 'user_seconds': 12.0,
        'flood_seconds': 20.0}
QUICK = {'fk_trials': 3, 'fk_trial_s': 0.03, 'e2e_trials': 2, 'e2e_duration': 0.75,
         'mem_seconds': 10.0, 'rates': [100, 1000, 4000, 0], 'executors': ['single', 'events'],
         'user_runs': 1, 'user_seconds': 3.0, 'flood_seconds': 5.0}

TARGETS = {
    'talos_cpu_default': 250.0,   # µs per update, default executor (SingleThreadedExecutor)
    'talos_cpu_events': 150.0,    # µs per update, EventsExecutor
    'talos_fk_vs_pin': 10.0,      # x pinocchio (fk + frames)
    'tree1000_cpu': 3000.0,       # µs per update
}
TARGET_RATE = 1000.0  # CPU per update targets are read at this input rate


def repo_root() -> Path:
    here = Path(__file__).resolve().parents[2]
    return here if (here / 'setup.py').is_file() else Path.cwd()


def parse_args(argv):
    ap = argparse.ArgumentParser(prog='python -m urdf_state_bench', description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--quick', action='store_true', help='shorter run (< 2 min)')
    ap.add_argument('--only', action='append',
                    choices=('fk', 'e2e', 'mem', 'user', 'sources', 'flood', 'container'),
                    help='run only this section (repeatable)')
    ap.add_argument('--robots', nargs='+', metavar='ROBOT',
                    help='robots for every selected section: talos, h1_2, panda, anymal, romeo, '
                         'tree:N or a .urdf path (default: per section)')
    ap.add_argument('--robots-dir', help='robot corpus (default: $URDF_STATE_ROBOTS or '
                                         '<work>/shared/robots)')
    ap.add_argument('--trials', type=int, help='trials per measurement')
    ap.add_argument('--duration', type=float, help='seconds per e2e trial')
    ap.add_argument('--mem-seconds', type=float, help='length of the memory window')
    ap.add_argument('--rates', type=float, nargs='+', help='e2e input rates, Hz (0 = max)')
    ap.add_argument('--executors', nargs='+',
                    choices=('auto', 'single', 'events', 'pyhot', 'floor', 'cfloor'),
                    help='node executors for e2e, set through URDF_STATE_EXECUTOR (auto: what '
                         'the node picks itself; default: single events; user: auto single '
                         'pyhot floor cfloor, pyhot = auto with URDF_STATE_NATIVE=off, floor = '
                         'the I/O floor in Python, cfloor = in C, see user_run)')
    ap.add_argument('--no-floor', action='store_true', help='skip the no-FK floor')
    ap.add_argument('--user-runs', type=int, help='runs per user measurement (default 3)')
    ap.add_argument('--flood-seconds', type=float, help='length of the flood (default 20 s)')
    ap.add_argument('--flood-publishers', type=int, default=3, help='flooding processes')
    ap.add_argument('--flood-rate', type=float, default=24000.0,
                    help='JointStates per second of all flooding processes (0: flat out)')
    ap.add_argument('--user-seconds', type=float,
                    help='measured window of a user run, after a 1 s warm-up (default 12 s)')
    ap.add_argument('--user-rates', type=float, nargs='+', default=[1000.0, 0.0],
                    help='input rates of the user runs, Hz (0 = as fast as the driver can)')
    ap.add_argument('--container-robots', type=int, default=20,
                    help='robots of the container memory measurement (default 20)')
    ap.add_argument('--container-cpu-robots', type=int, default=10,
                    help='TALOS robots of the container CPU measurement (default 10)')
    ap.add_argument('--profile', type=float, nargs='?', const=5.0, default=0.0, metavar='S',
                    help='cProfile the node (first e2e robot) for S s at 1 kHz input')
    ap.add_argument('--profile-executor', choices=('auto', 'single', 'events'), default='single',
                    help='executor of the --profile run (default: single)')
    ap.add_argument('--py-spy', type=float, default=0.0, metavar='S',
                    help='also py-spy the node (first robot, first executor) for S s at 1 kHz')
    ap.add_argument('--json', help='results file (default .bench/results-<date>.json)')
    ap.add_argument('--no-json', action='store_true', help='do not write the results file')
    return ap.parse_args(argv)


def _native_built() -> bool:
    """Whether the native extension is built for this ROS 2 (its C floor can run)."""
    from urdf_state_py.node.tf_path.native import loadable
    return loadable().module is not None


def _verdict(value, limit) -> str:
    if value is None:
        return 'n/a'
    return 'PASS' if value <= limit else 'FAIL'


def _step_at(session, rate):
    for s in session.get('steps', []):
        if s['rate'] == rate:
            return s
    return None


def targets(results: dict) -> list[list]:
    rows = []
    sessions = (results.get('e2e', {}).get('sessions', [])
                + results.get('mem', {}).get('sessions', []))

    def session(robot, executor):
        return next((s for s in sessions if s['robot'] == robot and s['executor'] == executor
                     and s.get('steps')), None)

    for executor, key, label in (('single', 'talos_cpu_default', 'default executor'),
                                 ('events', 'talos_cpu_events', 'EventsExecutor')):
        sess = session('talos', executor)
        step = _step_at(sess, TARGET_RATE) if sess else None
        value = step.get('cpu_us') if step else None
        rows.append([f'TALOS node CPU per update, {label}, {TARGET_RATE:g} Hz in',
                     f'<= {TARGETS[key]:g} µs', '-' if value is None else f'{value:.0f} µs',
                     _verdict(value, TARGETS[key])])
    from .user_run import floor_targets
    rows += floor_targets(results.get('user', {}).get('results', []), TARGET_RATE)
    fk = next((r for r in results.get('fk', {}).get('robots', []) if r['robot'] == 'talos'), None)
    value = fk.get('hot_ratio') if fk else None
    rows.append(['TALOS FK (resolve + moving_transforms) vs pin fk+frames',
                 f'<= {TARGETS["talos_fk_vs_pin"]:g}x', '-' if value is None else f'{value:.1f}x',
                 _verdict(value, TARGETS['talos_fk_vs_pin'])])
    value, where = None, ''
    for sess in sessions:
        if sess['robot'] == 'tree1000':
            if sess.get('steps'):
                step = sess['steps'][0]
                value, where = step.get('cpu_us'), f"e2e {step['rate']:g} Hz"
            elif sess.get('mem_window'):
                value, where = sess['mem_window'].get('cpu_us'), 'memory run, 1 kHz in'
            break
    rows.append([f'1,000-link tree node CPU per update ({where or "not run"})',
                 f'<= {TARGETS["tree1000_cpu"]:g} µs', '-' if value is None else f'{value:.0f} µs',
                 _verdict(value, TARGETS['tree1000_cpu'])])
    return rows


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    cfg = dict(QUICK if args.quick else FULL)
    if args.trials:
        cfg['fk_trials'] = cfg['e2e_trials'] = args.trials
    if args.duration:
        cfg['e2e_duration'] = args.duration
    if args.mem_seconds:
        cfg['mem_seconds'] = args.mem_seconds
    if args.rates:
        cfg['rates'] = args.rates
    if args.executors:
        cfg['executors'] = list(args.executors)
    for key in ('user_runs', 'user_seconds', 'flood_seconds'):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    sections = args.only or ['fk', 'user', 'flood', 'e2e', 'mem']
    corpus = trees.robots_dir(args.robots_dir)
    started = time.monotonic()
    stamp = _dt.datetime.now().strftime('%Y%m%d-%H%M%S')
    root = repo_root()
    log_dir = root / '.bench' / f'logs-{stamp}'
    log_dir.mkdir(parents=True, exist_ok=True)

    info = machine_info()
    print(header_line(info), flush=True)
    mode = 'quick' if args.quick else 'full'
    print(f'mode {mode}; sections {", ".join(sections)}; corpus {corpus}', flush=True)
    results: dict = {'machine': info, 'mode': mode, 'config': cfg, 'sections': sections}

    def robots_for(default):
        names = args.robots or list(default)
        out = []
        for name in names:
            try:
                out.append(trees.resolve_robot(name, corpus))
            except FileNotFoundError as exc:
                log(f'skipped: {exc}')
        return out

    if 'fk' in sections:
        from . import fk
        rs = robots_for(trees.FK_QUICK if args.quick else trees.FK_DEFAULT)
        results['fk'] = fk.run(rs, cfg['fk_trials'], cfg['fk_trial_s'])

    env = loopback_env()
    results['ros_domain_id'] = env.get('ROS_DOMAIN_ID')
    if 'e2e' in sections or 'mem' in sections:
        from . import e2e
        e2e_robots = robots_for(trees.E2E_DEFAULT) if 'e2e' in sections else []
        mem_robots = robots_for(trees.MEM_DEFAULT) if 'mem' in sections else []
        sessions = []
        floors = []
        mem_sessions = []
        mem_done = set()
        for i, robot in enumerate(e2e_robots):
            for executor in cfg['executors']:
                first = executor == cfg['executors'][0]
                with_mem = robot.name in {r.name for r in mem_robots} and first
                try:
                    sess = e2e.run_node_session(
                        robot, executor, cfg['rates'], cfg['e2e_trials'], cfg['e2e_duration'],
                        env, log_dir,
                        profile_s=args.py_spy if (i == 0 and first) else 0.0,
                        mem_rate=1000.0, mem_duration=cfg['mem_seconds'] if with_mem else 0.0)
                except Exception as exc:  # report and go on
                    log(f'e2e {robot.name}/{executor} failed: {type(exc).__name__}: {exc}')
                    sess = {'robot': robot.name, 'executor': executor, 'steps': [],
                            'error': f'{type(exc).__name__}: {exc}'}
                sessions.append(sess)
                if with_mem and 'rss_start' in sess:
                    mem_sessions.append(sess)
                    mem_done.add(robot.name)
            if not args.no_floor:
                try:
                    floors.append(e2e.run_floor(robot, cfg['rates'], cfg['e2e_trials'],
                                                cfg['e2e_duration'], env, log_dir))
                except Exception as exc:
                    log(f'floor {robot.name} failed: {type(exc).__name__}: {exc}')
        for robot in mem_robots:
            if robot.name in mem_done:
                continue
            try:
                mem_sessions.append(e2e.run_node_session(
                    robot, 'auto', [], 1, 0.0, env, log_dir, mem_rate=1000.0,
                    mem_duration=cfg['mem_seconds']))
            except Exception as exc:
                log(f'mem {robot.name} failed: {type(exc).__name__}: {exc}')
        prof = None
        if args.profile and e2e_robots:
            try:
                prof = e2e.run_cprofile(e2e_robots[0], args.profile, env, log_dir,
                                        executor=args.profile_executor)
            except Exception as exc:
                log(f'profile failed: {type(exc).__name__}: {exc}')
        if sessions:
            e2e.print_tables(sessions, floors, cfg['e2e_trials'], cfg['e2e_duration'])
            results['e2e'] = {'sessions': sessions, 'floors': floors}
        if prof:
            e2e.print_cprofile(prof)
            results['profile'] = prof
        if mem_sessions:
            e2e.print_mem(mem_sessions, cfg['mem_seconds'])
            results['mem'] = {'sessions': [s for s in mem_sessions if s not in sessions]}
            results['mem']['robots'] = [s['robot'] for s in mem_sessions]

    if 'user' in sections:
        from . import user_run
        load_before = open('/proc/loadavg', encoding='ascii').read().strip()
        executors = args.executors or ['auto', 'single'] + (
            ['pyhot'] if _native_built() else []) + ['floor'] + (
            ['cfloor'] if _native_built() else [])
        user = user_run.run(robots_for(trees.E2E_DEFAULT), executors, args.user_rates,
                            cfg['user_runs'], cfg['user_seconds'], 1.0, env, log_dir)
        loads = (load_before, open('/proc/loadavg', encoding='ascii').read().strip())
        user_run.print_table(user, cfg['user_runs'], cfg['user_seconds'], 1.0, loads)
        results['user'] = {'results': user, 'loadavg': loads}

    if 'sources' in sections:
        from . import user_run
        robots = robots_for(('h1_2',))
        runs = (cfg['user_runs'], cfg['user_seconds'], 1.0, env, log_dir)
        single = user_run.run(robots, ['auto'], [TARGET_RATE], *runs)
        merged = user_run.run(robots, ['auto'], [TARGET_RATE], *runs, sources=2)
        user_run.print_sources_table(single, merged)
        results['sources'] = {'single': single, 'merged': merged}

    if 'flood' in sections:
        from . import flood
        kinds = [e for e in args.executors or ['auto', 'single'] if e not in ('floor', 'cfloor')]
        floods = flood.run(robots_for(('talos',)), kinds, env,
                           log_dir, cfg['flood_seconds'], args.flood_publishers,
                           args.flood_rate)
        flood.print_table(floods)
        results['flood'] = floods

    if 'container' in sections:
        from . import container
        fleet = robots_for(trees.FLEET_MIX) or [trees.resolve_robot('romeo', corpus)]
        talos = next((r for r in fleet if r.name == 'talos'), fleet[0])
        mem = container.memory(fleet, args.container_robots, 10.0 if args.quick else 30.0,
                               talos, env, log_dir)
        cpu = container.cpu(talos, args.container_cpu_robots, TARGET_RATE,
                            cfg['user_runs'], cfg['user_seconds'], 1.0, env, log_dir,
                            floor=_native_built())
        container.print_tables(mem, cpu)
        results['container'] = {'memory': mem, 'cpu': cpu,
                                'targets': container.targets(mem, cpu)}

    rows = [row for row in targets(results) if row[3] != 'n/a']   # only what this run measured
    rows += results.get('container', {}).get('targets', [])
    table(['target', 'limit', 'measured', 'verdict'], rows, title='\n== Targets ==')
    results['targets'] = [dict(zip(('target', 'limit', 'measured', 'verdict'), r)) for r in rows]
    elapsed = time.monotonic() - started
    results['elapsed_s'] = elapsed
    print(f'\ntotal {elapsed:.0f} s; process logs in {log_dir}', flush=True)
    if not args.no_json:
        path = Path(args.json) if args.json else root / '.bench' / f'results-{stamp}.json'
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1, default=str), encoding='utf-8')
        print(f'results written to {path}', flush=True)
    return 0
