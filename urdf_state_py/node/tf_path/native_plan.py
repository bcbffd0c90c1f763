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
The native loop's plans: what the C loop needs to serve one name list without Python.

A JointState publisher repeats its name list, and almost every message of it
needs nothing but arithmetic: no warning to log, no non-finite value, no time
going backwards, and no value to clamp that was not clamped (and warned about)
before. The C loop (:mod:`.native_loop`) serves such a message from a *plan*:
the constants of one :class:`Route` per name list, copied and checked in C::

    raw    = positions[source]             each published joint's source value:
                                           its own, or its mimic master's
    w[:n]  = clip(raw, source bounds)      the master clamped first ...
    w[n:]  = clip(w[:n] * multiplier + offset, own bounds)
                                           ... then the mimic (1 and -0.0 for
                                           joints that are not mimic joints)
    nothing clipped, or only finite values of joints already warned about ?
    q[dst] = positions[src]                the merger's state, as update() does
    rotations = Re(exp(i w[n:] / 2) basis) as Kinematics.moving_transforms
    bytes: rotations and stamps scattered into the serialised /tf template

That is the general path (:meth:`JointStateMerger.update` ->
:meth:`Kinematics.resolve` -> :meth:`Kinematics.moving_transforms` -> the
serialised template) for one message, and the general path is its
specification: whenever a check fails, the loop hands the message to Python,
which runs the general path and does the reporting. A joint beyond its limits
thus takes the general path until it has been warned about (once per joint),
then the plan (H1_2's thumb mimic joints, beyond their own limits for much of
their master's range). ``test_native_loop.py`` checks the loop's bytes and
state against the general path's, message for message, and the node's
start-up self-test (:mod:`.native_selftest`) does the same before the loop
serves.

Limits are the subtle part: the general path resolves the WHOLE state and
reports every joint out of its bounds, while a plan only sees its own joints.
Hence :attr:`NativePlans.clean`: set by :meth:`NativePlans.resolved` after
each general resolve (every clamped joint is then warned about), cleared by
the loop on every update with ``ignore_limits`` (values then go in unchecked,
and warnings are re-armed when it is switched off); without ``ignore_limits``
a plan is installed only while it holds, so the rest of the state has nothing
left to report.

Eligible name lists: every published joint rotates (revolute or continuous:
constant translations), every mimic joint among them follows a rotating joint
the message drives (one mimic level), and the /tf message can be pre-serialised.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import JointType

from .joint_state_merger import JointStateMerger, WarnOnce
from .tf_publishing import MovingTransforms

__all__ = ['NativePlans', 'Route']

#: The route cache holds at most this many name lists, and about _ROUTE_CACHE_BYTES of
#: their constants (their native plans included): a peer cycling through eligible name
#: lists costs a bounded amount of memory, whatever the robot's size.
_ROUTE_CACHE_SIZE = 64
_ROUTE_CACHE_BYTES = 4 << 20
_BIG = float(np.finfo(float).max)  # "unbounded" that still catches +-inf (fmin/fmax)
_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)
#: Products numpy computes for a plan to learn how it rounds them (see _rounding_probe).
_PROBES = 256


class Route:
    """The constants of one name list (see the module docstring)."""

    __slots__ = ('names', 'src', 'dst', 'source', 'multiplier', 'offset', 'bounds',
                 'ignored_bounds', 'row_names', 'warned_generation', 'unwarned', 'half_gain',
                 'basis', 'rotation_at', 'sec_at', 'template', 'marked', 'native', 'nbytes')

    def __init__(self, names: tuple[str, ...], plan, kin: Kinematics,
                 moving: MovingTransforms) -> None:
        """``plan``: the merger's settled plan of ``names`` (which variable each value sets)."""
        joint_map = kin.model.joint_map
        position_of_var = {int(d): int(s) for s, d in zip(plan.src, plan.dst)}
        joints = plan.joints
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
        self.src, self.dst = plan.src, plan.dst
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
        self.native = None   # (key, plan) of the native loop (see NativePlans.plan)
        #: Its memory for the cache's budget: the constants and the names twice (a native
        #: plan copies them), and the plan's per-step buffers (4n doubles, 4n flags, the /tf).
        n_rows = len(self.source)
        self.nbytes = 2 * (sum(a.nbytes for a in (
            self.src, self.dst, self.source, self.multiplier, self.offset, lower, upper,
            self.unwarned, self.half_gain, self.basis, self.sec_at, self.rotation_at))
            + len(self.template) + sum(len(name) for name in names)) + 36 * n_rows \
            + len(self.template)


class _Ineligible(Exception):
    """A name list no plan serves (the general path always does)."""


class NativePlans:
    """The native plans of one loaded model, and the clamp state they share (see above)."""

    def __init__(self, merger: JointStateMerger, kinematics: Kinematics,
                 moving: MovingTransforms, warned: WarnOnce | None = None) -> None:
        """
        Set up an empty route cache (a route is built when a plan is first asked for).

        ``warned``: the joints already warned about as clamped (shared with the
        general path's reporting; a fresh one when None).
        """
        self._merger = merger
        self._kin = kinematics
        self._moving = moving
        self._warned = warned if warned is not None else WarnOnce()
        self._routes: dict[tuple[str, ...], Route | None] = {}  # None: ineligible
        self._routes_nbytes = 0   # of the routes cached (see _ROUTE_CACHE_BYTES)
        #: The name list of the last JointState the general path served.
        self.last_names: tuple[str, ...] | None = None
        #: The whole merged state is known to be within its bounds (see the module docstring).
        self.clean = False
        #: Updates the loop clamped itself (joints already warned about), and the last
        #: joints it clamped: what /diagnostics reports while a joint stays at its limit.
        self.clamps = 0
        self.last_clamped: list[str] = []

    def _route(self, names: tuple[str, ...]) -> Route | None:
        if names in self._routes:
            return self._routes[names]                      # None: known to be ineligible
        plan = self._merger.settled_plan(names)
        if plan is None:
            return None                                     # the general path goes first
        try:
            route = Route(names, plan, self._kin, self._moving)
        except _Ineligible:
            route = None
        size = route.nbytes if route is not None else 0
        if len(self._routes) >= _ROUTE_CACHE_SIZE or \
                self._routes_nbytes + size > _ROUTE_CACHE_BYTES:
            self._routes.clear()
            self._routes_nbytes = 0
        self._routes[names] = route
        self._routes_nbytes += size
        return route

    def resolved(self, clamped, ignore_limits: bool) -> list[str]:
        """
        Return the clamped joints to warn about after a general-path resolve.

        After a general-path resolve of the whole state: the clamped joints to warn
        about now (first time each), and a plan may run again (unless
        ``ignore_limits``) since nothing is left to report.
        """
        self.clean = not ignore_limits
        return self._warned.new(clamped) if len(clamped) else []

    def installable(self, ignore_limits: bool) -> Route | None:
        """
        Return the route of the last name list when the loop may serve it now, or None.

        Its ``unwarned`` rows are brought up to date.
        """
        if self.last_names is None or not (ignore_limits or self.clean):
            return None
        route = self._route(self.last_names)
        if route is None:
            return None
        warned = self._warned
        if route.warned_generation != warned.generation:
            route.unwarned = np.array([name not in warned for name in route.row_names])
            route.warned_generation = warned.generation
        return route

    def plan(self, module: ModuleType, ignore_limits: bool):
        """
        Return ``(route, plan)``: the native plan of the last name list; None: no plan now.

        Cached on the route, keyed on everything a plan copies that may change.
        """
        route = self.installable(ignore_limits)
        if route is None:
            return None
        merger = self._merger
        throttle = merger.throttle
        key = (ignore_limits, route.warned_generation, throttle.interval_ns,
               throttle.ignore_timestamp, id(merger.q), id(merger.seen_ns),
               id(throttle.last_stamps))
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
            rotation_at=_int64(route.rotation_at), stamp_at=_int64(route.sec_at),
            template=route.template, interval_ns=int(throttle.interval_ns),
            ignore_timestamp=bool(throttle.ignore_timestamp), ignore_limits=bool(ignore_limits),
            q=merger.q, seen_ns=merger.seen_ns, last=throttle.last_stamps,
            **_rounding_probe(route.basis))
        route.native = (key, plan)
        return route, plan


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
