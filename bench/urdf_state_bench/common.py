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

"""Shared helpers: timing, tables, the machine header, quiet imports, loopback env."""

from __future__ import annotations

from collections.abc import Callable, Sequence
import contextlib
import datetime as _dt
import gc
import json
import os
import platform
import statistics
import sys
import time

# Child ROS processes and this one stay on loopback, in a domain of their own.
from urdf_state_py.node.process.loopback import (  # noqa: F401 - for the bench scripts
    ensure_loopback, loopback_env)


@contextlib.contextmanager
def quiet_stderr():
    """Silence C-level stderr (urdfdom inside pinocchio prints to fd 2)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, 'w') as null:
            os.dup2(null.fileno(), fd)
        yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


# ----------------------------------------------------------------------- timing

def time_per_call(fn: Callable[[], object], trials: int, trial_s: float = 0.05,
                  max_calls: int = 100_000) -> list[float]:
    """
    Seconds per call of ``fn``, one value per trial (each trial ~``trial_s`` long).

    The call count per trial is calibrated once; the garbage collector is off
    during a trial (as ``timeit`` does).
    """
    n = _calls_per_trial(fn, trial_s, max_calls)
    out = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(trials):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            out.append((time.perf_counter() - t0) / n)
    finally:
        if gc_was:
            gc.enable()
    return out


def _calls_per_trial(fn: Callable[[], object], trial_s: float, max_calls: int) -> int:
    """Warm ``fn`` up, then the number of calls that takes about ``trial_s``."""
    fn()  # warm-up (caches, lazy imports)
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= trial_s / 5 or n >= max_calls:
            break
        n = min(max_calls, n * 4)
    return max(1, min(max_calls, int(n * trial_s / max(dt, 1e-9))))


def command_lines(stream):
    """Yield the JSON commands read line by line from ``stream`` (a child's stdin) to 'quit'."""
    for line in stream:
        line = line.strip()
        if not line:
            continue
        cmd = json.loads(line)
        if cmd.get('cmd') == 'quit':
            return
        yield cmd


def time_interleaved(fns: dict[str, Callable[[], object]], trials: int, trial_s: float = 0.05,
                     max_calls: int = 100_000, on_error=None) -> dict[str, list[float]]:
    """
    Like :func:`time_per_call` for several functions, trials taken round-robin.

    Each round times every function once, so a burst of machine noise hits all
    of them alike and ratios between them stay meaningful.
    """
    counts = {}
    for key, fn in list(fns.items()):
        try:
            counts[key] = _calls_per_trial(fn, trial_s, max_calls)
        except Exception as exc:  # reported by the caller
            if on_error is None:
                raise
            on_error(key, exc)
    out: dict[str, list[float]] = {key: [] for key in counts}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(trials):
            for key, n in counts.items():
                fn = fns[key]
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                out[key].append((time.perf_counter() - t0) / n)
    finally:
        if gc_was:
            gc.enable()
    return out


def median(values: Sequence[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def percentile(sorted_values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile of an already sorted sequence."""
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[k]


# ----------------------------------------------------------------------- tables

def print_medians(rows: Sequence[dict], labels: Sequence[tuple[str, str]]) -> None:
    """
    Print one line per (key, label): the median of ``row[key]`` over ``rows``.

    Then the maximum in brackets (a shared machine's trials vary; both say how much).
    """
    for key, label in labels:
        values = [row[key] for row in rows]
        print(f'  {label:45s} {statistics.median(values):8.3f}  [{max(values):.3f}]')


def fmt(value, digits: int = 1) -> str:
    """Numbers for tables: None -> '-', floats with ``digits`` decimals, big ones grouped."""
    if value is None:
        return '-'
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    if isinstance(value, int):
        return f'{value:,}'.replace(',', ' ') if abs(value) >= 10_000 else str(value)
    if isinstance(value, float):
        if value != value:
            return 'nan'
        if abs(value) >= 10_000:
            return f'{value:,.0f}'.replace(',', ' ')
        return f'{value:.{digits}f}'
    return str(value)


def table(headers: Sequence[str], rows: Sequence[Sequence], title: str | None = None,
          out=None) -> str:
    """Return an aligned plain-text table: first column left-aligned, the others right."""
    cells = [[str(h) for h in headers]] + [[c if isinstance(c, str) else fmt(c) for c in row]
                                           for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row):
        return '  '.join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    text = []
    if title:
        text.append(title)
    text.append(line(cells[0]))
    text.append('  '.join('-' * w for w in widths))
    text += [line(r) for r in cells[1:]]
    result = '\n'.join(text)
    print(result, file=out or sys.stdout, flush=True)
    return result


# ----------------------------------------------------------------------- header

def machine_info() -> dict:
    """CPU model, cores, date, Python, numpy, pinocchio, rclpy RMW."""
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as f:
            for line in f:
                if line.startswith('model name'):
                    cpu = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    info = {
        'cpu': cpu,
        'cores': os.cpu_count(),
        'date': _dt.datetime.now().astimezone().isoformat(timespec='seconds'),
        'python': platform.python_version(),
        'platform': platform.platform(),
    }
    try:
        import numpy
        info['numpy'] = numpy.__version__
    except ImportError:
        info['numpy'] = None
    try:
        with quiet_stderr():
            import pinocchio
        info['pinocchio'] = pinocchio.__version__
    except ImportError:
        info['pinocchio'] = None
    try:
        import rclpy
        info['rmw'] = rclpy.get_rmw_implementation_identifier()
    except Exception as exc:  # report, do not fail the header
        info['rmw'] = f'unavailable ({type(exc).__name__})'
    info['ros_distro'] = os.environ.get('ROS_DISTRO')
    return info


def header_line(info: dict) -> str:
    return (f"urdf_state_py bench | {info['cpu']} x{info['cores']} cores | {info['date']} | "
            f"Python {info['python']} | numpy {info['numpy']} | pinocchio {info['pinocchio']} | "
            f"rclpy RMW {info['rmw']}")


def log(*args) -> None:
    """Progress lines go to stderr, the tables to stdout."""
    print('[bench]', *args, file=sys.stderr, flush=True)
