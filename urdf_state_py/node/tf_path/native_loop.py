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
The native JointState -> /tf loop: its plans, and the state it shares with Python.

A :class:`Plan` holds the constants of one name list that the C loop
(``_native/loop.c``) needs to serve a message of it without Python; the
extension's ``Plan`` is its checked copy. :class:`NativePlans` holds a model's
plans and the clamp state they share. :class:`LoopSync` is the one place where
what the loop changes meets the Python objects, through :class:`PausingLock`
(``JointStateInput.lock``). The specification every plan must match is
:func:`~.joint_state_step.joint_state_step`; how a plan computes it, when it may
run and how the state moves: docs/native_loop.md.
"""

from __future__ import annotations

import threading
from types import ModuleType

import numpy as np
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import JointType

from .hot_path import MessageErrors
from .joint_state_merger import JointStateMerger, WarnOnce
from .tf_publishing import MovingTransforms

__all__ = ['LoopSync', 'NativePlans', 'PausingLock', 'Plan']

#: The plan cache holds at most this many name lists, and about _PLAN_CACHE_BYTES of
#: their constants (their native copies included): a peer cycling through eligible name
#: lists costs a bounded amount of memory, whatever the robot's size.
_PLAN_CACHE_SIZE = 64
_PLAN_CACHE_BYTES = 4 << 20
_BIG = float(np.finfo(float).max)  # "unbounded" that still catches +-inf (fmin/fmax)
_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)
#: Products numpy computes for a plan to learn how it rounds them (see _rounding_probe).
_PROBES = 256


class Plan:
    """The constants of one name list the loop serves it with (see docs/native_loop.md)."""

    __slots__ = ('names', 'src', 'dst', 'source', 'multiplier', 'offset', 'bounds',
                 'ignored_bounds', 'row_names', 'warned_generation', 'unwarned', 'half_gain',
                 'basis', 'rotation_at', 'sec_at', 'template', 'marked', 'native', 'nbytes')

    def __init__(self, names: tuple[str, ...], settled, kin: Kinematics,
                 moving: MovingTransforms) -> None:
        """``settled``: what the merger settled for ``names`` (which variable each value sets)."""
        joint_map = kin.model.joint_map
        position_of_var = {int(d): int(s) for s, d in zip(settled.src, settled.dst)}
        joints = settled.joints
        n = len(joints)
        source, multiplier, offset = [], [], []
        lower, upper = [], []    # per row: source bounds, then own bounds (w layout)
        for name in joints:
            joint = joint_map[name]
            if joint.type not in _REVOLUTE_LIKE:
                raise _Ineligible(f'{name} is a {joint.type.value} joint')
            if joint.is_mimic:
                master = joint_map[joint.mimic.joint]
                if master.is_mimic or master.type not in _REVOLUTE_LIKE:
                    raise _Ineligible(f'{name}: mimic chain or unusual master')
                var, mult, off = kin.variable_index[master.name], joint.mimic.multiplier, \
                    joint.mimic.offset
            else:
                master, var, mult, off = joint, kin.variable_index[name], 1.0, -0.0
            if var not in position_of_var:
                raise _Ineligible(f'{name}: its value does not come from the message')
            source.append(position_of_var[var])
            multiplier.append(mult)
            offset.append(off)
            lower.append(master.limits.lower if master.is_bounded else -_BIG)
            upper.append(master.limits.upper if master.is_bounded else _BIG)
        row_names = [joint_map[name].mimic.joint if joint_map[name].is_mimic else name
                     for name in joints]                     # w[:n]: the source joints
        for name in joints:
            joint = joint_map[name]
            lower.append(joint.limits.lower if joint.is_bounded else -_BIG)
            upper.append(joint.limits.upper if joint.is_bounded else _BIG)
            row_names.append(name)                          # w[n:]: the joints themselves
        serialized = moving.serialized(joints)
        if serialized is None:
            raise _Ineligible('no pre-serialised /tf message')
        self.rotation_at, self.sec_at, self.template = serialized.offsets()
        self.names = names
        self.src, self.dst = settled.src, settled.dst
        self.source = np.array(source, dtype=np.intp)
        self.multiplier = np.array(multiplier)
        self.offset = np.array(offset)
        lower, upper = np.array(lower), np.array(upper)
        self.bounds = ((lower[:n], upper[:n]), (lower[n:], upper[n:]))
        self.ignored_bounds = ((np.full(n, -_BIG), np.full(n, _BIG)),) * 2
        self.row_names = tuple(row_names)
        self.warned_generation = -1
        self.unwarned = np.ones(2 * n, dtype=bool)  # rows whose joint was never warned about
        sel = kin.selection(kin.joint_index(joints))
        self.half_gain, self.basis = sel.half_gain, sel.rotation_basis
        self.marked = None   # the rate limit's mark of this list (kept by the loop)
        self.native = None   # (key, the extension's Plan) (see NativePlans.plan)
        #: Its memory for the cache's budget: the constants and the names twice (a native
        #: plan copies them), and the plan's per-step buffers (4n doubles, 4n flags, the /tf).
        n_rows = len(self.source)
        self.nbytes = 2 * (sum(a.nbytes for a in (
            self.src, self.dst, self.source, self.multiplier, self.offset, lower, upper,
            self.unwarned, self.half_gain, self.basis, self.sec_at, self.rotation_at))
            + len(self.template) + sum(len(name) for name in names)) + 36 * n_rows \
            + len(self.template)


class _Ineligible(Exception):
    """A name list no plan serves (the JointState step always does)."""


class NativePlans:
    """The plans of one loaded model, and the clamp state they share."""

    def __init__(self, merger: JointStateMerger, kinematics: Kinematics,
                 moving: MovingTransforms, warned: WarnOnce | None = None) -> None:
        """
        Set up an empty plan cache (a plan is built when it is first asked for).

        ``warned``: the joints already warned about as clamped (shared with the
        JointState step's reporting; a fresh one when None).
        """
        self._merger = merger
        self._kin = kinematics
        self._moving = moving
        self._warned = warned if warned is not None else WarnOnce()
        self._plans: dict[tuple[str, ...], Plan | None] = {}  # None: ineligible
        self._plans_nbytes = 0   # of the plans cached (see _PLAN_CACHE_BYTES)
        #: The name list of the last JointState the JointState step served.
        self.last_names: tuple[str, ...] | None = None
        #: The whole merged state is known to be within its bounds (see the module docstring).
        self.clean = False
        #: Updates the loop clamped itself (joints already warned about), and the last
        #: joints it clamped: what /diagnostics reports while a joint stays at its limit.
        self.clamps = 0
        self.last_clamped: list[str] = []

    def _plan_of(self, names: tuple[str, ...]) -> Plan | None:
        if names in self._plans:
            return self._plans[names]                       # None: known to be ineligible
        settled = self._merger.settled(names)
        if settled is None:
            return None                                     # the JointState step goes first
        try:
            plan = Plan(names, settled, self._kin, self._moving)
        except _Ineligible:
            plan = None
        size = plan.nbytes if plan is not None else 0
        if len(self._plans) >= _PLAN_CACHE_SIZE or \
                self._plans_nbytes + size > _PLAN_CACHE_BYTES:
            self._plans.clear()
            self._plans_nbytes = 0
        self._plans[names] = plan
        self._plans_nbytes += size
        return plan

    def resolved(self, clamped, ignore_limits: bool) -> list[str]:
        """
        Return the clamped joints to warn about after a resolve of the step.

        After a resolve of the step of the whole state: the clamped joints to warn
        about now (first time each), and a plan may run again (unless
        ``ignore_limits``) since nothing is left to report.
        """
        self.clean = not ignore_limits
        return self._warned.new(clamped) if len(clamped) else []

    def installable(self, ignore_limits: bool) -> Plan | None:
        """
        Return the plan of the last name list when the loop may serve it now, or None.

        Its ``unwarned`` rows are brought up to date.
        """
        if self.last_names is None or not (ignore_limits or self.clean):
            return None
        plan = self._plan_of(self.last_names)
        if plan is None:
            return None
        warned = self._warned
        if plan.warned_generation != warned.generation:
            plan.unwarned = np.array([name not in warned for name in plan.row_names])
            plan.warned_generation = warned.generation
        return plan

    def plan(self, module: ModuleType, ignore_limits: bool):
        """
        Return ``(plan, native)``: the plan of the last name list and the extension's copy.

        None: no plan now. The copy is cached on the plan, keyed on everything it copies
        that may change.
        """
        plan = self.installable(ignore_limits)
        if plan is None:
            return None
        merger = self._merger
        throttle = merger.throttle
        key = (ignore_limits, plan.warned_generation, throttle.interval_ns,
               throttle.ignore_timestamp, id(merger.q), id(merger.seen_ns),
               id(throttle.last_stamps))
        if plan.native is not None and plan.native[0] == key:
            return plan, plan.native[1]
        (lower, upper), (own_lower, own_upper) = (plan.ignored_bounds if ignore_limits
                                                  else plan.bounds)
        native = module.Plan(
            names=tuple(plan.names), source=_int64(plan.source),
            multiplier=_float64(plan.multiplier), offset=_float64(plan.offset),
            lower=_float64(np.concatenate((lower, own_lower))),
            upper=_float64(np.concatenate((upper, own_upper))),
            unwarned=np.ascontiguousarray(plan.unwarned, dtype=np.uint8),
            src=_int64(plan.src), dst=_int64(plan.dst),
            half_gain=_float64(np.ascontiguousarray(plan.half_gain, dtype=complex).view(float)),
            basis=_float64(np.ascontiguousarray(plan.basis, dtype=complex).view(float)),
            rotation_at=_int64(plan.rotation_at), stamp_at=_int64(plan.sec_at),
            template=plan.template, interval_ns=int(throttle.interval_ns),
            ignore_timestamp=bool(throttle.ignore_timestamp), ignore_limits=bool(ignore_limits),
            q=merger.q, seen_ns=merger.seen_ns, last=throttle.last_stamps,
            **_rounding_probe(plan.basis))
        plan.native = (key, native)
        return plan, native


def _rounding_probe(basis: np.ndarray) -> dict[str, np.ndarray]:
    """
    Probe how numpy rounds the specification's ``Re(phase * basis)``.

    Random unit phases through :meth:`Kinematics.moving_transforms`'s own
    expression: numpy's SIMD loops fuse the multiply-add where the CPU has FMA
    (and maybe only for some elements), so the plan learns, per element, which
    rounding to reproduce.
    """
    phases = np.exp(1j * np.random.default_rng(0).uniform(-np.pi, np.pi,
                                                          (_PROBES, len(basis))))
    real = np.empty((_PROBES,) + basis.shape)
    for trial, phase in enumerate(phases):
        real[trial] = (phase[..., None] * basis).real
    return {'probe_phase': _float64(phases.view(float)), 'probe_real': _float64(real)}


def _float64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).ravel()


def _int64(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64).ravel()


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

        What the loop changed is pulled in, and it keeps no plan.
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
        self._installed = None   # (plans, plan, merger) of the installed plan

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
        plans, plan, merger = self._installed
        published, clamps, rows, last_tf_ns, last_now, writes, marked, clean = \
            self.loop.take_state()
        if published:
            self._health.tf_published += published
            self._input.last_tf_ns = last_tf_ns
        plans.clamps += clamps
        if rows is not None:
            plans.last_clamped = [plan.row_names[i] for i in np.flatnonzero(np.frombuffer(
                rows, dtype=np.uint8))]
        merger.throttle.set_loop_state(last_now, writes)
        plan.marked = marked
        plans.clean = clean

    def _push(self) -> None:
        self._installed = None
        try:
            loaded, cfg = self._current()
            found = None
            if loaded is not None and not cfg['publish_default_positions']:
                found = loaded.plans.plan(self._module, cfg['ignore_limits'])
            if found is not None:
                (plan, native), plans, merger = found, loaded.plans, loaded.merger
                last_now, writes = merger.throttle.loop_state()
                self.loop.install(native, int(last_now), int(writes), plan.marked,
                                  bool(plans.clean))
                self._installed = (plans, plan, merger)
                return
        except Exception as exc:  # no plan then: Python serves every message
            self._errors.record(exc)
        self.loop.install(None, 0, 0, None, False)   # (a refused install has dropped the old)

    def activity(self) -> int:
        """
        Return a count of what the loop has seen.

        Of messages, events and failures, read from any thread without a pause:
        unchanged, the loop has changed nothing there is to pull.
        """
        return self.loop.activity()

    def counts(self) -> dict[str, int]:
        """
        Return the loop's counters.

        Call under the lock. Messages handed to Python by reason, and ``served`` (by the
        plan), ``errors`` (rcl take/clock/publish), ``retries`` (failed waits).
        """
        return self.loop.counts()
