"""The node's fused path from a JointState to /tf bytes, for the common case.

A JointState publisher repeats its name list, and almost every message of it
needs nothing but arithmetic: no warning to log, no value to clamp, no
non-finite value, no time going backwards. For such a message the general
path (:meth:`JointStateMerger.update` -> :meth:`Kinematics.resolve` over the
whole state -> :meth:`Kinematics.moving_transforms` -> the serialised
template) builds several small objects and makes ~40 numpy calls.
:class:`FastPath` does the same work with ~15 from one cached :class:`_Route`
per name list, whose constants gather everything a message needs::

    w[:n]  = positions[source]             each published joint's source value:
                                           its own, or its mimic master's
    w[n:]  = w[:n] * multiplier + offset   effective values (1 and -0.0 for
                                           joints that are not mimic joints)
    fmin(fmax(w, lower), upper) == w ?     nothing to clamp, everything finite
    q[dst] = positions[src]                the merger's state, as update() does
    rotations = Re(exp(i w[n:] / 2) basis) as Kinematics.moving_transforms
    bytes: rotations and stamps scattered into the serialised template

Whenever one of the checks fails, :meth:`FastPath.update` returns None having
changed nothing, and the caller runs the general path, which does the
reporting. So the fast path never changes what is published or logged;
``test_fast_path.py`` checks that its bytes are the general path's.

Limits are the subtle part: the general path resolves the WHOLE state and
reports every joint out of its bounds, while a route only sees its own
joints. Hence :attr:`FastPath.clean`: set by the caller after each general
resolve (True when nothing was clamped), cleared on every fast update with
``ignore_limits`` (values then go in unchecked); without ``ignore_limits`` the
fast path runs only while it holds, so the rest of the state is known to be
within bounds.

Eligible name lists: every published joint rotates (revolute or continuous:
constant translations), every mimic joint among them follows a rotating
joint the message drives (one mimic level), and the /tf message can be pre-serialised.
"""

from __future__ import annotations

import numpy as np

from .joint_states import JointStateMerger
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.model import JointType
from .tf_publishing import MovingTransforms

__all__ = ['FastPath']

_ROUTE_CACHE_SIZE = 64
_BIG = float(np.finfo(float).max)  # "unbounded" that still catches +-inf (fmin/fmax)
_REVOLUTE_LIKE = (JointType.REVOLUTE, JointType.CONTINUOUS)


class _Route:
    """The constants and buffers of one name list (see the module docstring)."""

    __slots__ = ('n_positions', 'src', 'dst', 'source', 'w', 'w_source', 'w_effective',
                 'multiplier', 'offset', 'bounds', 'ignored_bounds', 'checked',
                 'half_gain', 'phase', 'phase_column', 'basis', 'rotations', 'rotations_real',
                 'doubles', 'rotation_at', 'words', 'stamp_at', 'stamp', 'message',
                 'marked')

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
        for name in joints:
            joint = joint_map[name]
            lower.append(joint.limits.lower if joint.is_bounded else -_BIG)
            upper.append(joint.limits.upper if joint.is_bounded else _BIG)
        serialized = moving.serialized(joints)
        if serialized is None:
            raise _Ineligible('no pre-serialised /tf message')
        self.doubles, self.rotation_at, self.words, self.stamp_at, self.message = \
            serialized.views()

        self.n_positions = len(names)
        self.src, self.dst = plan.src, plan.dst
        self.source = np.array(source, dtype=np.intp)
        self.w = np.empty(2 * n)
        self.w_source, self.w_effective = self.w[:n], self.w[n:]
        self.multiplier = np.array(multiplier)
        self.offset = np.array(offset)
        self.bounds = (np.array(lower), np.array(upper))
        self.ignored_bounds = (np.full(2 * n, -_BIG), np.full(2 * n, _BIG))
        self.checked = np.empty(2 * n)
        sel = kin.selection(kin.joint_index(joints))
        self.half_gain, self.basis = sel.half_gain, sel.rotation_basis
        self.phase = np.empty(n, dtype=complex)
        self.phase_column = self.phase[:, None]
        self.rotations = np.empty((n, 4), dtype=complex)
        self.rotations_real = self.rotations.real
        self.stamp = np.zeros(2, dtype=np.uint32)
        self.marked = None


class _Ineligible(Exception):
    """A name list the fused path does not handle (the general path always does)."""


class FastPath:
    """The fused path of one loaded model (see the module docstring)."""

    def __init__(self, merger: JointStateMerger, kinematics: Kinematics,
                 moving: MovingTransforms) -> None:
        self._merger = merger
        self._kin = kinematics
        self._moving = moving
        self._routes: dict[tuple[str, ...], _Route | None] = {}  # None: ineligible
        self._last_names: tuple[str, ...] | None = None
        self._last_route: _Route | None = None
        #: The whole merged state is known to be within its bounds (see the module docstring).
        self.clean = False

    def _route(self, names: tuple[str, ...]) -> _Route | None:
        if names in self._routes:
            route = self._routes[names]                     # None: known to be ineligible
        else:
            plan = self._merger.settled_plan(names)
            if plan is None:
                return None                                 # the general path goes first
            if len(self._routes) >= _ROUTE_CACHE_SIZE:
                self._routes.clear()
            try:
                route = _Route(names, plan, self._merger, self._kin, self._moving)
            except _Ineligible:
                route = None
            self._routes[names] = route
        self._last_names, self._last_route = names, route
        return route

    def update(self, names: tuple[str, ...], positions: np.ndarray, stamp_ns: int, now_ns: int,
               sec: int, nanosec: int, ignore_limits: bool) -> bytes | None:
        """The /tf payload for this JointState, ``b''`` when rate-limited, or None.

        None: not handled here (and nothing changed) -- run the general path.
        ``positions``: a float64 array (the raw reader's). ``sec``/``nanosec``:
        the header stamp, ``stamp_ns`` the same in ns; ``now_ns``: the node clock.
        """
        route = self._last_route if names is self._last_names else self._route(names)
        if route is None or len(positions) != route.n_positions or (
                not ignore_limits and not self.clean):
            return None
        # Effective values of the published joints; the bounds check also catches NaN / inf.
        w = route.w
        positions.take(route.source, out=route.w_source)
        np.multiply(route.w_source, route.multiplier, out=route.w_effective)
        route.w_effective += route.offset
        lower, upper = route.ignored_bounds if ignore_limits else route.bounds
        checked = route.checked
        np.fmax(w, lower, out=checked)
        np.fmin(checked, upper, out=checked)
        if checked.tobytes() != w.tobytes():
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
