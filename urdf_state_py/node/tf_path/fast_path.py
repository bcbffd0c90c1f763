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
The node's fused path from a JointState to /tf bytes, for the common case.

A JointState publisher repeats its name list, and almost every message of it
needs nothing but arithmetic: no warning to log, no non-finite value, no time
going backwards, and no value to clamp that was not clamped (and warned about)
before. For such a message the general
path (:meth:`JointStateMerger.update` -> :meth:`Kinematics.resolve` over the
whole state -> :meth:`Kinematics.moving_transforms` -> the serialised
template) builds several small objects and makes ~40 numpy calls.
:class:`FastPath` does the same work with ~15 from one cached :class:`_Route`
per name list, whose constants gather everything a message needs::

    raw    = positions[source]             each published joint's source value:
                                           its own, or its mimic master's
    w[:n]  = clip(raw, source bounds)      the master clamped first ...
    w[n:]  = clip(w[:n] * multiplier + offset, own bounds)
                                           ... then the mimic (1 and -0.0 for
                                           joints that are not mimic joints)
    nothing clipped, or only finite values of joints already warned about ?
    q[dst] = positions[src]                the merger's state, as update() does
    rotations = Re(exp(i w[n:] / 2) basis) as Kinematics.moving_transforms
    bytes: rotations and stamps scattered into the serialised template

That is :meth:`Kinematics.resolve`'s two-stage clip (master, then mimic),
with the same numpy operations, so the bytes are the general path's. Whenever
one of the checks fails, :meth:`FastPath.update` returns None having changed
nothing, and the caller runs the general path, which does the reporting. A
joint beyond its limits thus takes the general path until it has been warned
about (once per joint), then the fast path (H1_2's thumb mimic joints, beyond
their own limits for much of their master's range). So the fast path never changes what is published or logged;
``test_fast_path.py`` checks that its bytes are the general path's.

Limits are the subtle part: the general path resolves the WHOLE state and
reports every joint out of its bounds, while a route only sees its own
joints. Hence :attr:`FastPath.clean`: set by :meth:`FastPath.resolved` after
each general resolve (every clamped joint is then warned about), cleared on
every fast update with ``ignore_limits`` (values then go in unchecked, and
warnings are re-armed when it is switched off); without ``ignore_limits`` the
fast path runs only while it holds, so the rest of the state has nothing left
to report.

A zero of the other sign than a limit's (``-0.0`` against a lower limit of
``+0.0``) compares equal to it, so it is no clamp, as for the general path:
the byte comparison above may see one (numpy's ``fmax`` picks the limit's zero
in its SIMD loops, by array length), and the rows then show that nothing was
clamped. The rotation of either zero is the same, so are the bytes.

Eligible name lists: every published joint rotates (revolute or continuous:
constant translations), every mimic joint among them follows a rotating
joint the message drives (one mimic level), and the /tf message can be pre-serialised.
"""

from __future__ import annotations

import numpy as np
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import JointType

from .joint_state_merger import JointStateMerger, WarnOnce
from .tf_publishing import MovingTransforms

__all__ = ['FastPath']

#: The route cache holds at most this many name lists, and about _ROUTE_CACHE_BYTES of
#: their constants and buffers (their native plans included): a peer cycling through
#: eligible name lists costs a bounded amount of memory, whatever the robot's size
#: (TALOS: 64 routes of 32 joints, ~38 kB each by this count; 100 joints: 34 routes).
_ROUTE_CACHE_SIZE = 64
_ROUTE_CACHE_BYTES = 4 << 20
_BIG = float(np.finfo(float).max)  # "unbounded" that still catches +-inf (fmin/fmax)
_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)


class _Route:
    """The constants and buffers of one name list (see the module docstring)."""

    __slots__ = ('n_positions', 'src', 'dst', 'source', 'raw', 'w', 'w_source', 'w_effective',
                 'multiplier', 'offset', 'bounds', 'ignored_bounds', 'checked', 'row_names',
                 'warned_generation', 'unwarned',
                 'half_gain', 'phase', 'phase_column', 'basis', 'rotations', 'rotations_real',
                 'doubles', 'rotation_at', 'words', 'stamp_at', 'stamp', 'message',
                 'marked', 'names', 'native', 'nbytes')

    def __init__(self, names, plan, merger: JointStateMerger, kin: Kinematics,
                 moving: MovingTransforms) -> None:
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
        self.doubles, self.rotation_at, self.words, self.stamp_at, self.message = \
            serialized.views()

        self.names = names
        self.n_positions = len(names)
        self.src, self.dst = plan.src, plan.dst
        self.source = np.array(source, dtype=np.intp)
        self.raw = np.empty(n)
        self.w = np.empty(2 * n)
        self.w_source, self.w_effective = self.w[:n], self.w[n:]
        self.multiplier = np.array(multiplier)
        self.offset = np.array(offset)
        lower, upper = np.array(lower), np.array(upper)
        self.bounds = ((lower[:n], upper[:n]), (lower[n:], upper[n:]))
        self.ignored_bounds = ((np.full(n, -_BIG), np.full(n, _BIG)),) * 2
        self.checked = np.empty(n)
        self.row_names = tuple(row_names)
        self.warned_generation = -1
        self.unwarned = np.ones(2 * n, dtype=bool)  # rows whose joint was never warned about
        sel = kin.selection(kin.joint_index(joints))
        self.half_gain, self.basis = sel.half_gain, sel.rotation_basis
        self.phase = np.empty(n, dtype=complex)
        self.phase_column = self.phase[:, None]
        self.rotations = np.empty((n, 4), dtype=complex)
        self.rotations_real = self.rotations.real
        self.stamp = np.zeros(2, dtype=np.uint32)
        self.marked = None
        self.native = None  # (key, plan) of the native loop (native_loop.py)
        #: Its memory for the cache's budget: the arrays, twice (a native plan copies
        #: its constants and keeps buffers as large), and the names.
        self.nbytes = 2 * sum(a.nbytes for a in (
            self.src, self.dst, self.source, self.raw, self.w, self.multiplier, self.offset,
            lower, upper, self.checked, self.unwarned, self.half_gain, self.phase, self.basis,
            self.rotations, self.stamp_at, self.rotation_at, self.message)) + \
            sum(len(name) for name in names)


class _Ineligible(Exception):
    """A name list the fused path does not handle (the general path always does)."""


class FastPath:
    """The fused path of one loaded model (see the module docstring)."""

    def __init__(self, merger: JointStateMerger, kinematics: Kinematics,
                 moving: MovingTransforms, warned: WarnOnce | None = None) -> None:
        """
        ``warned``: the joints already warned about as clamped (shared with the
        general path's reporting; a fresh one when None).
        """
        self._merger = merger
        self._kin = kinematics
        self._moving = moving
        self._warned = warned if warned is not None else WarnOnce()
        self._routes: dict[tuple[str, ...], _Route | None] = {}  # None: ineligible
        self._routes_nbytes = 0   # of the routes cached (see _ROUTE_CACHE_BYTES)
        self._last_names: tuple[str, ...] | None = None
        self._last_route: _Route | None = None
        #: The whole merged state is known to be within its bounds (see the module docstring).
        self.clean = False
        #: Updates this path clamped itself (joints already warned about), and the last
        #: joints it clamped: what /diagnostics reports while a joint stays at its limit.
        self.clamps = 0
        self.last_clamped: list[str] = []

    def _route(self, names: tuple[str, ...]) -> _Route | None:
        if names in self._routes:
            route = self._routes[names]                     # None: known to be ineligible
        else:
            plan = self._merger.settled_plan(names)
            if plan is None:
                return None                                 # the general path goes first
            try:
                route = _Route(names, plan, self._merger, self._kin, self._moving)
            except _Ineligible:
                route = None
            size = route.nbytes if route is not None else 0
            if len(self._routes) >= _ROUTE_CACHE_SIZE or \
                    self._routes_nbytes + size > _ROUTE_CACHE_BYTES:
                self._routes.clear()
                self._routes_nbytes = 0
            self._routes[names] = route
            self._routes_nbytes += size
        self._last_names, self._last_route = names, route
        return route

    def resolved(self, clamped, ignore_limits: bool) -> list[str]:
        """
        After a general-path resolve of the whole state: the clamped joints to warn
        about now (first time each), and the fast path may run again (unless
        ``ignore_limits``) since nothing is left to report.
        """
        self.clean = not ignore_limits
        return self._warned.new(clamped) if len(clamped) else []

    def installable(self, ignore_limits: bool) -> _Route | None:
        """
        Return the route of the last name list, when :meth:`update` would run it now (the
        native loop serves it then); its ``unwarned`` rows brought up to date.
        """
        route = self._last_route
        if route is None or not (ignore_limits or self.clean):
            return None
        self._refresh_unwarned(route)
        return route

    def _refresh_unwarned(self, route: _Route) -> None:
        warned = self._warned
        if route.warned_generation != warned.generation:
            route.unwarned = np.array([name not in warned for name in route.row_names])
            route.warned_generation = warned.generation

    def _clipped(self, route: _Route, bounds) -> bool:
        """
        Return the two-stage clip into ``route.w``; False when the general path must run
        (a non-finite value, or a joint clamped that was never warned about).
        """
        (lower, upper), (own_lower, own_upper) = bounds
        raw, source, effective, checked = route.raw, route.w_source, route.w_effective, \
            route.checked
        np.fmax(raw, lower, out=source)
        np.fmin(source, upper, out=source)
        sources_clamped = raw.tobytes() != source.tobytes()
        if sources_clamped:
            if not np.isfinite(raw).all():
                return False
            # Again with the general path's own operations (fmax/fmin and
            # maximum/minimum may differ on the sign of a zero).
            np.maximum(raw, lower, out=source)
            np.minimum(source, upper, out=source)
        np.multiply(source, route.multiplier, out=effective)
        effective += route.offset
        np.fmax(effective, own_lower, out=checked)
        np.fmin(checked, own_upper, out=checked)
        if not sources_clamped and checked.tobytes() == effective.tobytes():
            return True                                     # nothing clamped: the usual case
        np.maximum(effective, own_lower, out=checked)
        np.minimum(checked, own_upper, out=checked)
        self._refresh_unwarned(route)
        rows = np.concatenate((raw != source, checked != effective))
        if (route.unwarned & rows).any():
            return False
        effective[:] = checked
        if rows.any():  # else only a zero's sign changed: no clamp (see the module docstring)
            self.clamps += 1    # for /diagnostics: which joints, and that it goes on
            self.last_clamped = [route.row_names[i] for i in np.flatnonzero(rows)]
        return True

    def update(self, names: tuple[str, ...], positions: np.ndarray, stamp_ns: int, now_ns: int,
               sec: int, nanosec: int, ignore_limits: bool) -> bytes | None:
        """
        Return the /tf payload for this JointState, ``b''`` when rate-limited, or None.

        None: not handled here (and nothing changed) -- run the general path.
        ``positions``: a float64 array (the raw reader's). ``sec``/``nanosec``:
        the header stamp, ``stamp_ns`` the same in ns; ``now_ns``: the node clock.
        """
        route = self._last_route if names is self._last_names else self._route(names)
        if route is None or len(positions) != route.n_positions or (
                not ignore_limits and not self.clean):
            return None
        # Effective values of the published joints; the clip also catches NaN / inf.
        positions.take(route.source, out=route.raw)
        if not self._clipped(route, route.ignored_bounds if ignore_limits else route.bounds):
            return None
        merger = self._merger
        publish = merger.throttle.check_quiet(stamp_ns, route.dst, now_ns, route.marked)
        if publish is None:
            return None
        merger.seen_ns[route.dst] = now_ns
        if not publish:
            return b''
        merger.q[route.dst] = positions[route.src]
        route.marked = merger.throttle.mark(stamp_ns, route.dst)
        if ignore_limits:
            self.clean = False
        # Rotations exactly as Kinematics.moving_transforms computes them, into the bytes.
        np.multiply(route.w_effective, route.half_gain, out=route.phase)
        np.exp(route.phase, out=route.phase)
        np.multiply(route.phase_column, route.basis, out=route.rotations)
        route.doubles[route.rotation_at] = route.rotations_real
        stamp = route.stamp
        stamp[0] = sec & 0xFFFFFFFF
        stamp[1] = nanosec
        route.words[route.stamp_at] = stamp
        return route.message.tobytes()
