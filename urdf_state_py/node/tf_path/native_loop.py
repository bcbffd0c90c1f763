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

Why: rclpy's wait/take/publish and the general path's numpy calls cost more
than Fast DDS itself (docs/native_loop.md). :class:`~.hot_path.HotPath`'s
thread calls ``Loop.run`` of the extension, which waits, takes and -- for a
message its installed plan fits -- decodes, matches, clamps, computes and
publishes without the GIL. Every other message
(another name list, malformed, non-finite, a joint to warn about, the rate
limit warning, no plan) is handed to the Python handler with its bytes, so
everything else behaves and reports exactly as before.

What the loop runs is a *plan* (:mod:`.native_plan`: the constants of the
last name list, copied and checked in C; the merger's ``q``, ``seen_ns`` and
``throttle._last`` written in place). The rest of what serving a message
changes -- the throttle's scalars, the route's mark, ``clean``, the clamp
counters, ``tf_published``, ``last_tf_ns`` -- the loop keeps while it runs.
:class:`LoopSync` is the one place where both sides meet: :class:`PausingLock`
(``JointStateInput.lock``) calls :meth:`LoopSync.pause` when a thread takes it
(the loop finishes its message and waits; what it changed is pulled into the
Python objects) and :meth:`LoopSync.resume` when it is released (the plan valid
for the state as it now is, or none, is installed with that state, then the
loop goes on). So
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

__all__ = ['LoopSync', 'PausingLock']


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
        Turn into a plain lock: the loop of :attr:`sync` has ended.

        A plain lock from now on: the loop of :attr:`sync` has ended (what it changed
        is pulled in, and it keeps no plan).
        """
        with self:
            sync, self.sync = self.sync, None
            if sync is not None:
                sync.retire()


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
        self._installed = None   # (plans, route, merger) of the installed plan

    @property
    def installed(self) -> bool:
        """Return whether a plan is in place (the loop serves the messages it fits)."""
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
        plans, route, merger = self._installed
        published, clamps, rows, last_tf_ns, last_now, writes, marked, clean = \
            self.loop.take_state()
        if published:
            self._health.tf_published += published
            self._input.last_tf_ns = last_tf_ns
        plans.clamps += clamps
        if rows is not None:
            plans.last_clamped = [route.row_names[i] for i in np.flatnonzero(np.frombuffer(
                rows, dtype=np.uint8))]
        merger.throttle.set_loop_state(last_now, writes)
        route.marked = marked
        plans.clean = clean

    def _push(self) -> None:
        self._installed = None
        try:
            loaded, cfg = self._current()
            found = None
            if loaded is not None and not cfg['publish_default_positions']:
                found = loaded.plans.plan(self._module, cfg['ignore_limits'])
            if found is not None:
                (route, plan), plans, merger = found, loaded.plans, loaded.merger
                last_now, writes = merger.throttle.loop_state()
                self.loop.install(plan, int(last_now), int(writes), route.marked,
                                  bool(plans.clean))
                self._installed = (plans, route, merger)
                return
        except Exception as exc:  # no plan then: Python serves every message
            self._errors.record(exc)
        self.loop.install(None, 0, 0, None, False)   # (a refused install has dropped the old)

    def activity(self) -> int:
        """
        Return a count of what the loop has seen.

        Messages, events and failures the loop has seen (any thread, without a pause):
        unchanged, the loop has changed nothing there is to pull.
        """
        return self.loop.activity()

    def counts(self) -> dict[str, int]:
        """
        Return the loop's counters.

        Return the loop's counters (call under the lock): messages handed to Python by reason,
        and ``served`` (by the plan), ``errors`` (rcl take/clock/publish), ``retries``
        (failed waits).
        """
        return self.loop.counts()
