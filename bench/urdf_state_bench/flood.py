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
A flood of JointStates: whether the node stays responsive, bounded and quick to recover.

Several driver processes publish one pre-serialised JointState (stamp patched) at a high
total rate (default 24,000 per second; 0: as fast as they can, which here reaches ~160,000
per second and then measures Fast DDS's own receive queue more than the node) for a few
seconds, while this process asks the node for a parameter (GetParameters, what
``ros2 param get`` calls) again and again, a sink counts /tf, and the node's RSS is sampled.
Reported: the input rate, /tf out during the flood, the parameter answer times (during, and
the first ones after), timeouts, RSS start/max/end and its slope, and how long after the
flood a parameter answer is prompt again.

Measured before the hot path and the parameter thread (EventsExecutor; docs/benchmarks.md,
``--only flood``): answers climbing to 10 s timeouts, RSS +2-2.7 MB/s, answers 29-55 s
after the flood.
"""

from __future__ import annotations

from pathlib import Path
import threading
import time
import uuid

from .common import ensure_loopback, log, median, table
from .e2e import model_spec
from .procs import ProcError, start_driver, start_node, start_sink, stop_chain

#: An answer at most this slow counts as "prompt" (recovery after the flood).
PROMPT_S = 0.1


class ParameterProbe:
    """GetParameters against the node, from a context of its own in this process."""

    def __init__(self, node_name: str = '/urdf_state') -> None:
        from rcl_interfaces.srv import GetParameters
        import rclpy
        from rclpy.executors import SingleThreadedExecutor
        ensure_loopback()
        self._rclpy = rclpy
        self._request = GetParameters.Request(names=['publish_frequency'])
        self.context = rclpy.Context()
        rclpy.init(context=self.context, args=['--ros-args', '--disable-rosout-logs'])
        self.node = rclpy.create_node('flood_probe_' + uuid.uuid4().hex[:8], context=self.context)
        self.client = self.node.create_client(GetParameters, f'{node_name}/get_parameters')
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    def wait_ready(self, timeout: float = 30.0) -> bool:
        return self.client.wait_for_service(timeout_sec=timeout)

    def ask(self, timeout: float) -> float | None:
        """Seconds until the answer, or None (no answer within ``timeout``)."""
        from urdf_state_py.node.process.spin import spin_until_done
        t0 = time.monotonic()
        future = self.client.call_async(self._request)
        if spin_until_done(self.executor, future, timeout) and future.result() is not None:
            return time.monotonic() - t0
        self.client.remove_pending_request(future)
        return None

    def close(self) -> None:
        self.executor.shutdown()
        self.node.destroy_node()
        self._rclpy.try_shutdown(context=self.context)


def run_flood(urdf: str, executor: str, env: dict, log_dir: Path, seconds: float = 20.0,
              publishers: int = 3, rate: float = 24000.0, after: float = 5.0,
              timeout: float = 10.0, tag: str = 'flood') -> dict:
    """
    Run one flood against a fresh node.

    One flood against a fresh node (``executor`` as :func:`procs.start_node`);
    ``rate``: JointStates per second, all publishers together (0: flat out).
    """
    js_spec, _ = model_spec(urdf)
    js_spec = dict(js_spec, raw=True)
    node = sink = probe = None
    drivers = []
    answers: list[tuple[float, float | None]] = []   # (time since flood start, latency)
    rss: list[tuple[float, int]] = []
    stop = threading.Event()
    try:
        node = start_node(urdf, executor, env, log_dir, tag)
        sink = start_sink(env, log_dir, tag)
        for k in range(publishers):
            drivers.append(start_driver(js_spec, env, log_dir, f'{tag}_{k}'))
        for driver in drivers:
            driver.wait_event('ready', 60.0)
        probe = ParameterProbe()
        if not probe.wait_ready():
            raise ProcError('the node never offered get_parameters')
        before = [probe.ask(timeout) for _ in range(5)]
        t0 = time.monotonic()

        def ask_forever():
            while not stop.is_set():
                t = time.monotonic() - t0
                answers.append((t, probe.ask(timeout)))
                stop.wait(0.1)

        asker = threading.Thread(target=ask_forever, daemon=True)
        rss.append((0.0, node.rss()))
        out0 = sink.request('count', 10.0, cmd='count')['received']
        for driver in drivers:
            driver.send(cmd='run', rate=rate / publishers, duration=seconds)
        asker.start()
        while time.monotonic() - t0 < seconds:
            time.sleep(0.5)
            rss.append((time.monotonic() - t0, node.rss()))
        dones = [driver.wait_event('done', 60.0) for driver in drivers]
        flood_end = time.monotonic() - t0
        out1 = sink.request('count', 10.0, cmd='count')['received']
        while time.monotonic() - t0 < flood_end + 0.5:    # in flight, and the DDS history
            time.sleep(0.05)
        out2 = sink.request('count', 10.0, cmd='count')['received']
        while time.monotonic() - t0 < flood_end + after:
            time.sleep(0.5)
            rss.append((time.monotonic() - t0, node.rss()))
        out3 = sink.request('count', 10.0, cmd='count')['received']
        stop.set()
        asker.join(timeout + 5.0)
    finally:
        stop.set()
        if probe is not None:
            probe.close()
        stop_chain(node, sink, *drivers)
    during = [lat for t, lat in answers if t <= flood_end]
    answered = [lat for lat in during if lat is not None]
    post = [(t - flood_end, lat) for t, lat in answers if t > flood_end]
    recovery = next((t + lat for t, lat in post if lat is not None and lat <= PROMPT_S), None)
    sent = sum(d['sent'] for d in dones)
    elapsed = max(d['elapsed'] for d in dones)
    mb = 1 / 2 ** 20
    flood_rss = [r for t, r in rss if t <= flood_end]
    half = [r for t, r in rss if flood_end / 2 <= t <= flood_end]
    return {
        'executor': executor, 'publishers': publishers, 'seconds': seconds, 'rate': rate,
        'in_hz': sent / elapsed, 'out_hz': (out1 - out0) / elapsed,
        'tf_after': out3 - out2,   # /tf still coming 0.5 s after the flood: a backlog
        'before_s': median([b for b in before if b is not None]),
        'answer_p50_s': median(answered), 'answer_max_s': max(answered) if answered else None,
        'asked': len(during), 'timeouts': len(during) - len(answered),
        'after_first_s': post[0][1] if post else None, 'recovery_s': recovery,
        'rss_start_mb': rss[0][1] * mb, 'rss_max_mb': max(flood_rss) * mb,
        'rss_end_mb': rss[-1][1] * mb,
        'rss_slope_mb_s': ((half[-1] - half[0]) * mb / max(1e-9, flood_end / 2)) if half else None,
    }


def run(robots, executors: list[str], env: dict, log_dir: Path, seconds: float,
        publishers: int, rate: float) -> list[dict]:
    results = []
    for robot in robots:
        for executor in executors:
            tag = f'flood_{robot.name}_{executor}'.replace('~', '')
            try:
                r = run_flood(robot.urdf, executor, env, log_dir, seconds, publishers, rate,
                              tag=tag)
            except ProcError as exc:
                log(f'flood {tag} failed: {exc}')
                continue
            r['robot'] = robot.name
            log(f'flood {robot.name}/{executor}: in {r["in_hz"]:.0f} Hz, out {r["out_hz"]:.0f} '
                f'Hz, answers p50/max {r["answer_p50_s"]}/{r["answer_max_s"]} s, '
                f'timeouts {r["timeouts"]}, RSS {r["rss_start_mb"]:.1f} -> {r["rss_max_mb"]:.1f}')
            results.append(r)
    return results


def print_table(results: list[dict]) -> None:
    rows = [[r['robot'], r['executor'], r['publishers'], r['in_hz'], r['out_hz'], r['tf_after'],
             r['before_s'] * 1e3 if r['before_s'] else None,
             r['answer_p50_s'] * 1e3 if r['answer_p50_s'] is not None else None,
             r['answer_max_s'] * 1e3 if r['answer_max_s'] is not None else None,
             f"{r['timeouts']}/{r['asked']}",
             r['recovery_s'], r['rss_start_mb'], r['rss_max_mb'], r['rss_slope_mb_s']]
            for r in results]
    seconds = results[0]['seconds'] if results else 0
    table(['robot', 'executor', 'pubs', 'in Hz', '/tf out Hz', '/tf after', 'param ms before',
           'param ms p50', 'param ms max', 'timeouts', 'recovery s', 'RSS MB start', 'RSS max',
           'MB/s 2nd half'], rows,
          title=f'\n== Flood: {seconds:g} s of JointStates from several publishers ('
                f"{results[0]['rate'] if results else 0:g}/s together, 0: flat out); "
                'GetParameters asked all along ==')
    print('   recovery s = after the flood, until a parameter answer within '
          f'{PROMPT_S * 1e3:g} ms;'
          ' MB/s = RSS slope over the second half of the flood;\n   /tf after = /tf messages '
          'from 0.5 s after the flood on (a backlog being worked off)')
