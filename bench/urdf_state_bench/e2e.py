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
End-to-end: driver (JointState) -> node -> sink (/tf), in separate processes.

Per robot and executor, for each input rate (repeated trials): the node's
CPU per update (psutil user+sys delta of the node process over the window,
divided by the TF messages the sink received), stamp -> receipt latency
p50/p99 in the sink, messages in/out/dropped (dropped = sent - distinct
stamps received), and the highest rate sustained with nothing dropped.

The floor: the same sink fed TFMessages with the same number of transforms by
a process that does no FK (pre-serialised bytes, stamps patched) at the same
rates; node minus floor is the node's own cost.
"""

from __future__ import annotations

from pathlib import Path
import shutil
import subprocess
import sys
import time

from .common import log, median, table
from .procs import Proc, ProcError, start_driver, start_node, start_sink, stop_chain

MAX = 0  # "as fast as it can"


def rate_label(rate: float) -> str:
    return 'max' if rate <= 0 else f'{rate:g}'


def model_spec(urdf: str) -> tuple[dict, dict]:
    """(JointState spec for the driver, TF frame spec for the floor) from the project's model."""
    from urdf_state_py.core.kinematics import Kinematics
    from urdf_state_py.core.parsers import load_model
    model = load_model(urdf)
    kin = Kinematics(model)
    bounds = model.variable_bounds()
    names = list(model.active_joint_names)
    js = {'mode': 'js', 'topic': 'joint_states', 'names': names,
          'lower': [bounds[n][0] for n in names], 'upper': [bounds[n][1] for n in names]}
    tr = kin.moving_transforms(kin.resolve(kin.default_positions())[0])
    tf = {'mode': 'tf', 'topic': '/tf', 'parents': list(tr.parents), 'children': list(tr.children)}
    return js, tf


def _drain(sink: Proc, timeout: float = 3.0) -> None:
    """Wait until the sink's count stops moving (all in-flight messages delivered)."""
    last = -1
    stable = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        n = sink.request('count', 5.0, cmd='count')['received']
        if n == last:
            stable += 1
            if stable >= 2:
                return
        else:
            stable = 0
        last = n
        time.sleep(0.05)


def measure(driver: Proc, sink: Proc, rate: float, duration: float, target: Proc | None,
            sample=None) -> dict:
    """One timed window. ``target``: the process whose CPU is charged per message out."""
    c0 = target.cpu() if target is not None else None
    s0 = sink.cpu()
    driver.send(cmd='run', rate=rate, duration=duration)
    if sample is not None:
        end = time.monotonic() + duration
        while time.monotonic() < end:
            sample()
            time.sleep(min(1.0, max(0.0, end - time.monotonic())))
    done = driver.wait_event('done', duration + 60.0)
    _drain(sink)
    c1 = target.cpu() if target is not None else None
    s1 = sink.cpu()
    rep = sink.request('report', 10.0, cmd='report', since_ns=done['t_first_ns'],
                       until_ns=done['t_last_ns'])
    sent = done['sent']
    got = rep['unique_stamps']
    out = {
        'rate': rate, 'sent': sent, 'received': rep['received'], 'dropped': sent - got,
        'elapsed': done['elapsed'], 'in_hz': sent / done['elapsed'],
        'out_hz': rep['received'] / done['elapsed'],
        'lat_p50_us': rep['lat_p50_us'], 'lat_p99_us': rep['lat_p99_us'],
        'lat_max_us': rep['lat_max_us'], 'n_tf': rep['n_tf'],
        'driver_cpu_us': done['cpu_s'] / max(1, sent) * 1e6,
        'sink_cpu_pct': 100.0 * (s1 - s0) / done['elapsed'],
    }
    if target is not None:
        out['cpu_us'] = (c1 - c0) / max(1, rep['received']) * 1e6
        out['cpu_pct'] = 100.0 * (c1 - c0) / done['elapsed']
    return out


def summarise(trials: list[dict]) -> dict:
    keys = ('in_hz', 'out_hz', 'lat_p50_us', 'lat_p99_us', 'cpu_us', 'cpu_pct', 'driver_cpu_us',
            'sink_cpu_pct')
    s = {k: median([t.get(k) for t in trials]) for k in keys}
    s['rate'] = trials[0]['rate']
    s['sent'] = sum(t['sent'] for t in trials)
    s['received'] = sum(t['received'] for t in trials)
    s['dropped'] = sum(t['dropped'] for t in trials)
    s['lat_max_us'] = max((t['lat_max_us'] or 0) for t in trials)
    s['n_tf'] = trials[0].get('n_tf')
    s['trials'] = trials
    return s


def sustained(steps: list[dict]) -> float | None:
    """Highest target rate with nothing dropped in any trial and >= 95 % of it achieved."""
    best = None
    for s in steps:
        if s['rate'] > 0 and s['dropped'] == 0 and (s['in_hz'] or 0) >= 0.95 * s['rate']:
            best = s['rate'] if best is None else max(best, s['rate'])
    return best


def warm_up(driver: Proc, sink: Proc, timeout: float = 30.0) -> dict:
    """Send short bursts until the sink sees the output (discovery done end to end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = driver.request('done', 30.0, cmd='run', rate=200, duration=0.25)
        _drain(sink, 1.0)
        rep = sink.request('report', 10.0, cmd='report', since_ns=done['t_first_ns'],
                           until_ns=done['t_last_ns'])
        if rep['received'] > 0 and done['sent'] - rep['unique_stamps'] == 0:
            return rep
    raise ProcError(f'no /tf output reached the sink within {timeout:.0f} s '
                    f'(driver log {driver.log_path}, sink log {sink.log_path})')


def py_spy_profile(pid: int, seconds: float, out: Path) -> list[str] | None:
    """Return the py-spy command recording ``pid`` as raw collapsed stacks (None: no py-spy)."""
    exe = shutil.which('py-spy') or str(Path(sys.executable).with_name('py-spy'))
    if not Path(exe).exists():
        log('py-spy not found: profile skipped')
        return None
    cmd = [exe, 'record', '--pid', str(pid), '--duration', str(int(max(1, seconds))),
           '--rate', '1000', '--format', 'raw', '--output', str(out), '--nonblocking']
    return cmd  # started by the caller so that it overlaps the load


def parse_collapsed(path: Path, top: int = 15) -> list[tuple[str, float, float]]:
    self_counts: dict[str, int] = {}
    total_counts: dict[str, int] = {}
    n = 0
    for line in path.read_text(encoding='utf-8', errors='replace').splitlines():
        stack, _, count = line.rpartition(' ')
        if not count.isdigit():
            continue
        c = int(count)
        n += c
        frames = stack.split(';')
        # drop the process/thread label frames py-spy adds at the root
        frames = [f for f in frames if '(' in f]
        if not frames:
            continue
        self_counts[frames[-1]] = self_counts.get(frames[-1], 0) + c
        for f in set(frames):
            total_counts[f] = total_counts.get(f, 0) + c
    if not n:
        return []
    ranked = sorted(self_counts.items(), key=lambda kv: -kv[1])[:top]
    return [(name, 100.0 * c / n, 100.0 * total_counts.get(name, 0) / n) for name, c in ranked]


def _start_chain(robot, executor: str, js_spec: dict, env: dict, log_dir: Path,
                 tag: str) -> tuple[Proc, Proc, Proc]:
    """
    Node, sink and driver started, the driver matched with the node.

    On failure the processes already started are stopped before re-raising.
    """
    started: list[Proc] = []
    try:
        started.append(start_node(robot.urdf, executor, env, log_dir, tag))
        started.append(start_sink(env, log_dir, tag))
        started.append(start_driver(js_spec, env, log_dir, tag))
        started[2].wait_event('ready', 60.0)
    except BaseException:
        for proc in reversed(started):
            proc.stop(quit_cmd=proc is not started[0])
        raise
    node, sink, driver = started
    return node, sink, driver


def run_node_session(robot, executor: str, rates: list[float], trials: int, duration: float,
                     env: dict, log_dir: Path, profile_s: float = 0.0,
                     mem_rate: float = 0.0, mem_duration: float = 0.0) -> dict:
    """Node + sink + driver for one robot/executor: rate steps, optional profile and memory run."""
    tag = f'{robot.name}_{executor}'.replace('~', '')
    js_spec, _ = model_spec(robot.urdf)
    res: dict = {'robot': robot.name, 'executor': executor, 'steps': [],
                 'active_joints': len(js_spec['names'])}
    node = sink = driver = None
    try:
        node, sink, driver = _start_chain(robot, executor, js_spec, env, log_dir, tag)
        res['rss_loaded'] = node.rss()
        rep = warm_up(driver, sink)
        res['n_tf'] = rep['n_tf']
        c0 = node.cpu()
        time.sleep(0.5)
        res['idle_cpu_pct'] = 100.0 * (node.cpu() - c0) / 0.5
        for rate in rates:
            ts = []
            for _ in range(trials):
                ts.append(measure(driver, sink, rate, duration, node))
            s = summarise(ts)
            res['steps'].append(s)
            log(f'e2e {robot.name}/{executor} {rate_label(rate)} Hz: in {s["in_hz"]:.0f} Hz, '
                f'out {s["out_hz"]:.0f} Hz, dropped {s["dropped"]}, '
                f'cpu {s.get("cpu_us") or 0:.0f} µs/update')
        res['sustained_hz'] = sustained(res['steps'])
        if profile_s > 0:
            out = log_dir / f'pyspy_{tag}.txt'
            cmd = py_spy_profile(node.pid, profile_s, out)
            if cmd:
                spy = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       text=True)
                time.sleep(0.3)
                m = measure(driver, sink, 1000.0, profile_s + 1.0, node)
                try:
                    _, err = spy.communicate(timeout=profile_s + 30)
                except subprocess.TimeoutExpired:
                    spy.terminate()
                    err = spy.communicate()[1]
                if out.exists():
                    res['profile'] = parse_collapsed(out)
                    res['profile_file'] = str(out)
                    res['profile_cpu_us'] = m.get('cpu_us')
                else:
                    log(f'py-spy produced no output: {err.strip()[-300:]}')
        if mem_duration > 0:
            samples = []
            driver.request('done', 30.0, cmd='run', rate=mem_rate, duration=1.0)  # settle
            _drain(sink)
            sink.request('report', 10.0, cmd='report')
            t0 = time.monotonic()
            res['rss_start'] = node.rss()

            def sample():
                samples.append((time.monotonic() - t0, node.rss()))
            m = measure(driver, sink, mem_rate, mem_duration, node, sample=sample)
            res['rss_end'] = node.rss()
            samples.append((time.monotonic() - t0, res['rss_end']))
            res['rss_samples'] = samples
            res['rss_max'] = max(r for _, r in samples)
            res['mem_window'] = m
    finally:
        stop_chain(node, driver, sink)
        if node is not None:
            res['node_log_tail'] = node.tail(5)
    return res


def run_cprofile(robot, seconds: float, env: dict, log_dir: Path, top: int = 14,
                 executor: str = 'single') -> dict:
    """
    Profile the node (its real main, ``executor``: :data:`procs.EXECUTORS`) at 1 kHz.

    cProfile times the spinning thread's CPU (``time.thread_time``); it inflates
    code that makes many Python calls (the executor's wait-set rebuild most), so
    read the shares, not the absolute numbers. Returns the top functions by self
    time, normalised per TF message out.
    """
    import pstats
    tag = f'cprofile_{robot.name}'.replace('~', '')
    prof_path = log_dir / f'{tag}.prof'
    env = dict(env, URDF_STATE_BENCH_CPROFILE=str(prof_path))
    js_spec, _ = model_spec(robot.urdf)
    node = sink = driver = None
    try:
        node, sink, driver = _start_chain(robot, executor, js_spec, env, log_dir, tag)
        warm_up(driver, sink)
        m = measure(driver, sink, 1000.0, seconds, node)
    finally:
        for p in (driver, sink):
            if p is not None:
                p.stop()
        if node is not None:
            node.stop(quit_cmd=False, timeout=15.0)  # SIGINT: node_runner dumps the profile
    updates = max(1, m['received'])
    stats = pstats.Stats(str(prof_path))
    total = stats.total_tt
    rows = []
    for (filename, line, func), (cc, nc, tt, ct, _callers) in sorted(
            stats.stats.items(), key=lambda kv: -kv[1][2])[:top]:
        short = filename.split('site-packages/')[-1].split('/work/main/')[-1]
        rows.append((f'{func} ({short}:{line})', nc / updates, tt / updates * 1e6,
                     ct / updates * 1e6, 100.0 * tt / total if total else None))
    wanted = {'_wait_for_ready_callbacks': 'executor wait-set + wait',
              'take_message': 'take_message (deserialise)',
              'on_raw': 'node callback', 'publish_raw': 'publish_raw',
              'publish': 'Publisher.publish'}
    parts = {}
    for (filename, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.stats.items():
        for key, label in wanted.items():
            if func == key or func.endswith('.' + key) or func.endswith(key + '>'):
                parts[label] = parts.get(label, 0.0) + ct / updates * 1e6
    return {'robot': robot.name, 'updates': updates, 'cpu_us_profiled': m.get('cpu_us'),
            'thread_s': total, 'thread_us_per_update': total / updates * 1e6,
            'rows': rows, 'parts': parts, 'file': str(prof_path)}


def print_cprofile(prof: dict) -> None:
    table(['function (cProfile, spinning thread CPU)', 'calls/upd', 'self µs/upd', 'cum µs/upd',
           'self %'],
          [[name[:88], c, s, cum, pct] for name, c, s, cum, pct in prof['rows']],
          title=f"\n-- profile: {prof['robot']}, node under cProfile at 1 kHz "
                f"({prof['updates']} updates; {prof['cpu_us_profiled'] or 0:.0f} µs/update "
                f"with the profiler on); stats: {prof['file']} --")
    print(f"   spinning thread {prof['thread_us_per_update']:.0f} µs/update under cProfile, "
          'cumulative: ' + '; '.join(f'{k} {v:.0f}' for k, v in prof['parts'].items()))


def run_floor(robot, rates: list[float], trials: int, duration: float, env: dict,
              log_dir: Path) -> dict:
    tag = f'floor_{robot.name}'.replace('~', '')
    _, tf_spec = model_spec(robot.urdf)
    res: dict = {'robot': robot.name, 'n_tf': len(tf_spec['children']), 'steps': []}
    sink = driver = None
    try:
        sink = start_sink(env, log_dir, tag)
        driver = start_driver(tf_spec, env, log_dir, tag)
        ready = driver.wait_event('ready', 60.0)
        res['msg_build_us'] = ready.get('msg_build_us')
        warm_up(driver, sink)
        for rate in rates:
            ts = [measure(driver, sink, rate, duration, None) for _ in range(trials)]
            s = summarise(ts)
            res['steps'].append(s)
            log(f'floor {robot.name} {rate_label(rate)} Hz: in {s["in_hz"]:.0f} Hz, '
                f'dropped {s["dropped"]}')
        res['sustained_hz'] = sustained(res['steps'])
    finally:
        for p in (driver, sink):
            if p is not None:
                p.stop()
    return res


def _lat(x):
    return None if x is None else x


def print_tables(sessions: list[dict], floors: list[dict], trials: int, duration: float) -> None:
    rows = []
    floor_by = {(f['robot'], s['rate']): s for f in floors for s in f['steps']}
    for sess in sessions:
        for s in sess['steps']:
            fl = floor_by.get((sess['robot'], s['rate']))
            rows.append([sess['robot'], sess['executor'], rate_label(s['rate']), s['in_hz'],
                         s['out_hz'], s['sent'], s['received'], s['dropped'], s.get('cpu_us'),
                         s.get('cpu_pct'), _lat(s['lat_p50_us']), _lat(s['lat_p99_us']),
                         fl['lat_p50_us'] if fl else None, fl['lat_p99_us'] if fl else None,
                         fl['dropped'] if fl else None, fl['driver_cpu_us'] if fl else None,
                         s.get('sink_cpu_pct')])
    table(['robot', 'executor', 'rate', 'in Hz', 'out Hz', 'in', 'out', 'dropped', 'cpu µs/upd',
           'node cpu%', 'lat p50', 'lat p99', 'floor p50', 'floor p99', 'floor drop',
           'floor pub µs', 'sink cpu%'], rows,
          title=f'\n== End to end: JointState -> node -> /tf (median of {trials} x '
                f'{duration:g} s; in/out/dropped summed; latency µs) ==')
    print('   cpu µs/upd = node user+sys CPU (all threads) over the window / TF messages out; '
          'floor = same sink fed pre-serialised\n   TFMessages of the same size, no FK; '
          'floor pub µs = CPU per message of that publisher (incl. its rate-pinning sleeps)')
    rows = []
    for sess in sessions:
        fl = next((f for f in floors if f['robot'] == sess['robot']), None)
        rows.append([sess['robot'], sess['executor'], sess.get('active_joints'), sess.get('n_tf'),
                     rate_label(sess['sustained_hz']) if sess.get('sustained_hz') else 'none',
                     rate_label(fl['sustained_hz']) if fl and fl.get('sustained_hz') else '-',
                     sess.get('idle_cpu_pct'), fl.get('msg_build_us') if fl else None])
    table(['robot', 'executor', 'joints in', 'tf/msg', 'sustained Hz', 'floor sustained',
           'idle cpu%', 'py msg build µs'], rows,
          title='\n-- highest input rate with nothing dropped (steps tried: see above) --')
    print('   py msg build µs = cost of filling + serialising that TFMessage with rclpy '
          'message objects (measured in the floor process)')
    for sess in sessions:
        if sess.get('profile'):
            table(['function (py-spy, node process)', 'self %', 'total %'],
                  [[name[:90], s, t] for name, s, t in sess['profile']],
                  title=f"\n-- profile: {sess['robot']} / {sess['executor']} at 1 kHz "
                        f"({sess.get('profile_cpu_us') or 0:.0f} µs/update); "
                        f"raw stacks: {sess['profile_file']} --")


def print_mem(sessions: list[dict], duration: float) -> None:
    rows = []
    for sess in sessions:
        if 'rss_start' not in sess:
            continue
        mb = 1 / (1024 * 1024)
        delta = (sess['rss_end'] - sess['rss_start']) * mb
        m = sess['mem_window']
        samples = sess.get('rss_samples') or []
        mid = min(samples, key=lambda s: abs(s[0] - duration / 2))[1] if samples else None
        second = None if mid is None else (sess['rss_end'] - mid) * mb
        sess['rss_second_half_delta_mb'] = second
        limit = max(1.0, 0.01 * sess['rss_start'] * mb)
        if delta <= limit:
            stable = 'stable'
        elif second is not None and second <= limit / 2:
            stable = 'step, flat'
        else:
            stable = 'GROWS'
        rows.append([sess['robot'], sess['rss_loaded'] * mb, sess['rss_start'] * mb,
                     sess['rss_end'] * mb, delta, second, sess['rss_max'] * mb, m['sent'],
                     m['received'], m['dropped'], m['out_hz'], m.get('cpu_us'), stable])
    table(['robot', 'RSS loaded MB', 'RSS start', f'RSS +{duration:g}s', 'delta MB',
           '2nd half MB', 'max', 'in', 'out', 'dropped', 'out Hz', 'cpu µs/upd', 'verdict'], rows,
          title=f'\n== Memory: node RSS after loading, then {duration:g} s of JointState '
                'at 1 kHz ==')
    print('   stable = growth <= max(1 MB, 1 %) over the window; step, flat = more than that, '
          'but flat over the second half')
