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
The native JointState -> /tf loop's plans, and its state sync.

Why: rclpy's wait/take/publish and the fast path's numpy calls cost more than
Fast DDS itself (docs/native_loop.md). :class:`~.hot_path.HotPath`'s thread
calls ``Loop.run`` of the extension, which waits, takes and -- for a message
the fast path would serve, when a plan is installed -- decodes, matches,
clamps, computes and publishes without the GIL. Every other message
(another name list, malformed, non-finite, a joint to warn about, the rate
limit warning, no plan) is handed to the Python handler with its bytes, so
everything else behaves and reports exactly as before.

What the loop runs is a *plan*: :func:`plan_of` turns the fast path's last
:class:`~.fast_path._Route` into a ``Plan`` (constants copied and checked in C;
the merger's ``q``, ``seen_ns`` and ``throttle._last`` written in place). The
rest of what ``FastPath.update`` changes -- the throttle's scalars, the route's
mark, ``clean``, the clamp counters, ``tf_published``, ``last_tf_ns`` -- the
loop keeps while it runs. :class:`LoopSync` is the one place where both sides
meet: :class:`PausingLock` (``JointStateInput.lock``) calls
:meth:`LoopSync.pause` when a thread takes it (the loop finishes its message
and waits; what it changed is pulled into the Python objects) and
:meth:`LoopSync.resume` when it is released (the plan valid for the state as it
now is, or none, is installed with that state, then the loop goes on). So
Python code under the lock sees exactly the state the Python path would have,
and a /tf never mixes two plans.

Failures: the loop retries a failed wait itself, and counts it. Should it end
all the same, the node detaches the loop from its lock (:meth:`PausingLock.detach`),
says which path serves now and why, and :class:`~.hot_path.HotPath` hands the
subscriptions back to the executor.
"""

from __future__ import annotations

import threading
from types import ModuleType

import numpy as np

from .hot_path import MessageErrors

__all__ = ['LoopSync', 'PausingLock', 'plan_of']


class PausingLock:
    """
    A re-entrant lock whose outermost holder pauses the native loop (``sync``).

    ``sync`` (a :class:`LoopSync`, or None without the native loop) is set once,
    before any thread uses the lock.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self.sync: LoopSync | None = None

    def __enter__(self) -> 'PausingLock':
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1 and self.sync is not None:
            try:
                self.sync.pause()
            except BaseException:
                self._depth -= 1
                self._lock.release()
                raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self._depth == 1 and self.sync is not None:
                self.sync.resume()
        finally:
            self._depth -= 1
            self._lock.release()

    def detach(self) -> None:
        """
        A plain lock from now on: the loop of :attr:`sync` has ended (what it changed
        is pulled in, and it keeps no plan).
        """
        with self:
            sync, self.sync = self.sync, None
            if sync is not None:
                sync.retire()


def plan_of(module: ModuleType, fast, merger, ignore_limits: bool):
    """
    ``(route, plan)``: the native plan of ``fast``'s last route; None when the fast
    path would not run it (the loop then hands every message over).

    Cached on the route, keyed on everything a plan copies that may change.
    """
    route = fast.installable(ignore_limits)
    if route is None:
        return None
    throttle = merger.throttle
    key = (ignore_limits, route.warned_generation, throttle._interval, throttle.ignore_timestamp,
           id(merger.q), id(merger.seen_ns), id(throttle._last))
    if route.native is not None and route.native[0] == key:
        return route, route.native[1]
    (lower, upper), (own_lower, own_upper) = (route.ignored_bounds if ignore_limits
                                              else route.bounds)
    plan = module.Plan(
        names=tuple(route.names), source=_int64(route.source),
        multiplier=_float64(route.multiplier), offset=_float64(route.offset),
        lower=_float64(np.concatenate((lower, own_lower))),
        upper=_float64(np.concatenate((upper, own_upper))),
        unwarned=np.ascontiguousarray(route.unwarned, dtype=np.uint8),
        src=_int64(route.src), dst=_int64(route.dst),
        half_gain=_float64(np.ascontiguousarray(route.half_gain, dtype=complex).view(float)),
        basis=_float64(np.ascontiguousarray(route.basis, dtype=complex).view(float)),
        rotation_at=_int64(4 + 8 * np.asarray(route.rotation_at)),
        stamp_at=_int64(4 * np.asarray(route.stamp_at)[:, 0]),
        template=route.message.tobytes(), interval_ns=int(throttle._interval),
        ignore_timestamp=bool(throttle.ignore_timestamp), ignore_limits=bool(ignore_limits),
        q=merger.q, seen_ns=merger.seen_ns, last=throttle._last, **_rounding_probe(route))
    route.native = (key, plan)
    return route, plan


#: Products numpy computes for the plan to learn how it rounds them (see _rounding_probe).
_PROBES = 256


def _rounding_probe(route) -> dict[str, np.ndarray]:
    """
    Numpy's ``Re(phase * basis)`` for random unit phases, computed by the route's own
    call: numpy's SIMD loops fuse the multiply-add where the CPU has FMA (and maybe only
    for some elements), so the plan learns, per element, which rounding to reproduce.
    """
    phases = np.exp(1j * np.random.default_rng(0).uniform(-np.pi, np.pi,
                                                          (_PROBES, len(route.phase))))
    real = np.empty((_PROBES,) + route.rotations_real.shape)
    for trial, phase in enumerate(phases):
        route.phase[:] = phase     # scratch: every update overwrites it
        np.multiply(route.phase_column, route.basis, out=route.rotations)
        real[trial] = route.rotations_real
    return {'probe_phase': _float64(phases.view(float)), 'probe_real': _float64(real)}


def _float64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).ravel()


def _int64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64).ravel()


class LoopSync:
    """
    Moves the state between the loop and the Python objects (see the module docstring).

    ``current()``: the node's ``(loaded, cfg)``; ``health``: the node's counters;
    ``joint_input``: the :class:`~.joint_state_input.JointStateInput` (its
    ``last_tf_ns``).
    """

    def __init__(self, module: ModuleType, current, health, joint_input,
                 errors: MessageErrors) -> None:
        self._module = module
        self.loop = module.Loop()
        self._current = current
        self._health = health
        self._input = joint_input
        self._errors = errors
        self._installed = None   # (fast, route, merger) of the installed plan

    @property
    def installed(self) -> bool:
        """Return a plan is installed (the loop serves the messages it fits)."""
        return self._installed is not None

    def pause(self) -> None:
        """Hold the loop between two messages and pull what it changed."""
        self.loop.pause()
        try:
            self._pull()
        except BaseException:
            self.loop.resume()
            raise

    def resume(self) -> None:
        """Install the plan valid now (or none) with the current state, and let the loop go."""
        try:
            self._push()
        finally:
            self.loop.resume()

    def retire(self) -> None:
        """Let the paused loop go without a plan, for good (see :meth:`PausingLock.detach`)."""
        try:
            self.loop.install(None, 0, 0, None, False)
            self._installed = None
        finally:
            self.loop.resume()

    def _pull(self) -> None:
        handed = self.counts()
        health = self._health
        health.native_loop_errors = handed.pop('errors', 0)
        health.native_loop_retries = handed.pop('retries', 0)
        health.native_loop_served = handed.pop('served', 0)
        health.joint_states_handed = handed
        if self._installed is None:
            return
        fast, route, merger = self._installed
        published, clamps, rows, last_tf_ns, last_now, writes, marked, clean = \
            self.loop.take_state()
        if published:
            self._health.tf_published += published
            self._input.last_tf_ns = last_tf_ns
        fast.clamps += clamps
        if rows is not None:
            fast.last_clamped = [route.row_names[i] for i in np.flatnonzero(np.frombuffer(
                rows, dtype=np.uint8))]
        merger.throttle._last_now = last_now
        merger.throttle._writes = writes
        route.marked = marked
        fast.clean = clean

    def _push(self) -> None:
        self._installed = None
        try:
            loaded, cfg = self._current()
            found = None
            if loaded is not None and not cfg['publish_default_positions']:
                found = plan_of(self._module, loaded.fast, loaded.merger, cfg['ignore_limits'])
            if found is not None:
                (route, plan), fast, merger = found, loaded.fast, loaded.merger
                self.loop.install(plan, int(merger.throttle._last_now),
                                  int(merger.throttle._writes), route.marked, bool(fast.clean))
                self._installed = (fast, route, merger)
                return
        except Exception as exc:  # noqa: BLE001 - no plan then: Python serves every message
            self._errors.record(exc)
        self.loop.install(None, 0, 0, None, False)   # (a refused install has dropped the old)

    def activity(self) -> int:
        """
        Messages, events and failures the loop has seen (any thread, without a pause):
        unchanged, the loop has changed nothing there is to pull.
        """
        return self.loop.activity()

    def counts(self) -> dict[str, int]:
        """
        Return the loop's counters (call under the lock): messages handed to Python by reason,
        and ``served`` (by the plan), ``errors`` (rcl take/clock/publish), ``retries``
        (failed waits).
        """
        return self.loop.counts()
