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

"""Child processes speaking JSON lines, plus the node launcher."""

from __future__ import annotations

import json
import os
from pathlib import Path
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time

import psutil


class ProcError(RuntimeError):
    pass


class Proc:
    """A child process: JSON commands on stdin, JSON events on stdout, stderr to a log file."""

    def __init__(self, name: str, args: list[str], env: dict, log_dir: Path, stdin: bool = True):
        self.name = name
        self.log_path = log_dir / f'{name}.log'
        self._log = open(self.log_path, 'w', encoding='utf-8')
        self.popen = subprocess.Popen(args, env=env, text=True, bufsize=1,
                                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=self._log)
        self.ps = psutil.Process(self.popen.pid)
        self.events: queue.Queue = queue.Queue()
        self.other: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _read(self) -> None:
        for line in self.popen.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                self.events.put(json.loads(line))
            except json.JSONDecodeError:
                self.other.append(line)
        self.events.put({'event': 'eof'})

    def send(self, **cmd) -> None:
        try:
            self.popen.stdin.write(json.dumps(cmd) + '\n')
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise ProcError(
                f'{self.name}: cannot send {cmd} ({exc}); see {self.log_path}') from exc

    def wait_event(self, name: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProcError(f'{self.name}: no {name!r} event within {timeout:.0f} s; '
                                f'see {self.log_path}')
            try:
                event = self.events.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.popen.poll() is not None:
                    raise ProcError(f'{self.name} exited ({self.popen.returncode}) waiting for '
                                    f'{name!r}: {self.tail()}') from None
                continue
            if event.get('event') == name:
                return event
            if event.get('event') in ('error', 'eof'):
                raise ProcError(f'{self.name}: {event} waiting for {name!r}: {self.tail()}')

    def request(self, name: str, timeout: float = 10.0, **cmd) -> dict:
        self.send(**cmd)
        return self.wait_event(name, timeout)

    def cpu(self) -> float:
        """
        CPU seconds (user + system, all threads) of the process so far.

        Summed from ``/proc/PID/task/*/schedstat`` (nanosecond resolution) where
        available; psutil's ``cpu_times`` (clock ticks, 10 ms) otherwise: at
        100 Hz a tick would be 100 µs per update over a 1 s window.
        """
        total = _schedstat_s(self.pid)
        if total is not None:
            return total
        t = self.ps.cpu_times()
        return t.user + t.system

    def rss(self) -> int:
        return self.ps.memory_info().rss

    def tail(self, n: int = 12) -> str:
        try:
            if not self._log.closed:
                self._log.flush()
            lines = self.log_path.read_text(encoding='utf-8', errors='replace').splitlines()
        except OSError:
            return ''
        return ' | '.join(lines[-n:])

    def stop(self, quit_cmd: bool = True, timeout: float = 5.0) -> None:
        """Ask politely (quit command / SIGINT), then terminate, then kill — this pid only."""
        if self.popen.poll() is None:
            if quit_cmd and self.popen.stdin:
                try:
                    self.send(cmd='quit')
                except ProcError:
                    pass
            else:
                self.popen.send_signal(signal.SIGINT)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.terminate()
                try:
                    self.popen.wait(timeout)
                except subprocess.TimeoutExpired:
                    self.popen.kill()
                    self.popen.wait()
        try:
            if self.popen.stdin:
                self.popen.stdin.close()
        except OSError:
            pass
        self._log.close()


def stop_chain(node: Proc | None, *others: Proc | None) -> None:
    """Stop the helper processes (quit command), then the node (SIGINT, as Ctrl-C)."""
    for proc in others:
        if proc is not None:
            proc.stop()
    if node is not None:
        node.stop(quit_cmd=False)


def _schedstat_s(pid: int) -> float | None:
    try:
        tasks = os.listdir(f'/proc/{pid}/task')
    except OSError:
        return None
    total = 0
    for tid in tasks:
        try:
            with open(f'/proc/{pid}/task/{tid}/schedstat', encoding='ascii') as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # thread gone meanwhile
    return total / 1e9


def params_yaml(params: dict) -> str:
    """Return a ROS 2 params file for any node name; strings as literal blocks (URDF-safe)."""
    lines = ['/**:', '  ros__parameters:']
    for key, value in params.items():
        if isinstance(value, str) and '\n' in value:
            lines.append(f'    {key}: |')
            lines += ['      ' + ln if ln.strip() else '' for ln in value.splitlines()]
        else:
            lines.append(f'    {key}: {json.dumps(value)}')
    return '\n'.join(lines) + '\n'


#: Bench executor name -> URDF_STATE_EXECUTOR of the node (auto: what `ros2 run` picks).
EXECUTORS = {'auto': None, 'single': 'single', 'events': 'events', 'pyhot': None}
#: Executors run with the native extension switched off (Python code only: the executor
#: serves joint_states).
PYTHON_HOT_PATH = ('pyhot',)


def start_node(urdf: str, executor: str, env: dict, log_dir: Path, tag: str,
               command: list[str] | None = None, extra: dict | None = None) -> Proc:
    """
    Start the project's node through its real entry point.

    Start the project's node through its real entry point, ``python -m urdf_state_py.node``
    (or ``command``, e.g. the script ``ros2 run`` runs), with ``URDF_STATE_EXECUTOR``
    set from ``executor`` (see :data:`EXECUTORS`; ``pyhot``: the default executor with
    ``URDF_STATE_NATIVE=off``); under cProfile
    (:mod:`urdf_state_bench.node_runner`) when the environment asks for it.
    """
    params = {'robot_description': urdf, 'publish_frequency': 0.0, 'ignore_timestamp': True,
              **(extra or {})}   # extra: e.g. source_list (see user_run.source_specs)
    fd, path = tempfile.mkstemp(prefix=f'bench_params_{tag}_', suffix='.yaml', dir=log_dir)
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(params_yaml(params))
    env = dict(env)
    env.pop('URDF_STATE_EXECUTOR', None)
    if EXECUTORS[executor] is not None:
        env['URDF_STATE_EXECUTOR'] = EXECUTORS[executor]
    if executor in PYTHON_HOT_PATH:
        env['URDF_STATE_NATIVE'] = 'off'
    module = ('urdf_state_bench.node_runner' if env.get('URDF_STATE_BENCH_CPROFILE')
              else 'urdf_state_py.node')
    if command is None or env.get('URDF_STATE_BENCH_CPROFILE'):
        command = [sys.executable, '-m', module]
    args = list(command) + ['--ros-args', '--params-file', path]
    return Proc(f'node_{tag}', args, env, log_dir, stdin=False)


def start_sink(env: dict, log_dir: Path, tag: str, executor: str = 'events') -> Proc:
    proc = Proc(f'sink_{tag}', [sys.executable, '-m', 'urdf_state_bench.sink',
                                '--executor', executor], env, log_dir)
    proc.wait_event('ready', 30.0)
    return proc


def start_driver(spec: dict, env: dict, log_dir: Path, tag: str) -> Proc:
    path = log_dir / f'driver_{tag}.json'
    path.write_text(json.dumps(spec), encoding='utf-8')
    return Proc(f'driver_{tag}',
                [sys.executable, '-m', 'urdf_state_bench.driver', str(path)],
                env, log_dir)
