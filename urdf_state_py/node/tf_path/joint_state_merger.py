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
Joint states in, "which transforms to publish" out: no ROS in here.

:class:`JointStateMerger` keeps the robot's current variable vector and merges
each incoming JointState (name/position lists, possibly a subset of the joints,
possibly from one of several publishers) into it. It also applies
robot_state_publisher's rate limit (``publish_frequency`` / ``ignore_timestamp``,
see :class:`~.publish_throttle.PublishThrottle`) and decides which movable joints the resulting
``/tf`` message must hold: the joints named in the message plus the mimic joints
that follow them (plus, on request, the joints that never received a state).

Everything that deserves a log line comes back as data in an :class:`Update`
(``warnings``: log once each; ``error``: the message was rejected, log
throttled; ``ignored``: names not in the model, log throttled), so the node
only logs and tests can assert on the text.

Hostile input: a message costs time in proportion to the model, not to the
message. A name list longer than :func:`max_names` is rejected before it is
looked at, and names that are not in the model are summarised in one line
(count and the first few) instead of one line each; nothing remembers them
by name, so no set grows with what the network sends.

Speed: a publisher repeats the same name list, so everything derived from a
name list (index arrays, warnings, the joints to publish) is computed once per
distinct list and cached (:class:`_NameList`); the per-message work is a few numpy
operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from urdf_state_py.core.model import Model

from .publish_throttle import PublishThrottle

__all__ = ['JointStateMerger', 'Update', 'WarnOnce', 'max_names']

#: Distinct name lists remembered; a publisher sending ever-changing lists
#: only costs a cache rebuild, never unbounded memory.
_LIST_CACHE_SIZE = 64

#: Names quoted in the one-line summary of the names a message has beyond the model.
_QUOTED_NAMES = 5


def max_names(n_variables: int) -> int:
    """
    Return the longest name list accepted for a model with ``n_variables`` joint variables.

    4x the model, plus 64: room for a publisher that also sends other robots'
    or grippers' joints, while a list far beyond the model is refused at once.
    """
    return 4 * n_variables + 64


@dataclass
class Update:
    """
    What one JointState message did.

    ``publish``: publish ``joints`` now (False when rejected, rate-limited or
    there was nothing of the model in the message). ``joints``: movable joint
    names, in the model's topological order. ``warnings``: new, each to be
    logged once. ``error``: why the whole message was rejected (log throttled),
    ``reason`` its category (for counting). ``ignored``: a one-line summary of
    the names not in the model, new with this name list (log throttled).
    ``non_finite``: joints whose NaN/inf value was dropped. ``backwards``: time
    went backwards (the throttle reset, the message published); logged throttled,
    since a publisher can make every message do it.
    """

    publish: bool = False
    joints: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    reason: str | None = None
    ignored: str | None = None
    non_finite: int = 0
    backwards: str | None = None


class WarnOnce:
    """Remembers keys already warned about; :meth:`new` filters them out."""

    def __init__(self) -> None:
        self._seen: set = set()
        #: Bumped by every change, so a user can cache what it derived from the set.
        self.generation = 0

    def __contains__(self, key) -> bool:
        return key in self._seen

    def new(self, keys: Iterable) -> list:
        """Return the keys not seen before (in order), now marked as seen."""
        fresh = []
        for key in keys:
            if key not in self._seen:
                self._seen.add(key)
                fresh.append(key)
        if fresh:
            self.generation += 1
        return fresh

    def reset(self) -> None:
        self._seen.clear()
        self.generation += 1


@dataclass
class _NameList:
    """Everything derived from one name list (see :meth:`JointStateMerger._plan`)."""

    src: np.ndarray          # positions in the message to read ...
    dst: np.ndarray          # ... into these variables of the state vector
    src_joint: tuple[str, ...]  # the joint owning each read variable
    driven: tuple[str, ...]  # joints set by the message (topological order)
    joints: tuple[str, ...]  # driven + their mimic followers (topological order)
    warnings: list[str]      # first-time warnings this name list produces
    ignored: str | None      # summary of the names not in the model (returned once)
    complete: bool = False   # all driven joints already marked as received
    with_pending: tuple[int, tuple[str, ...]] | None = None  # (generation, joints + pending)


class JointStateMerger:
    """
    The current joint values of one model, merged from JointState messages.

    ``variable_index`` maps every variable name (``model.variable_names``;
    ``joint/x`` etc. for planar/floating joints, MoveIt style) to its index in
    the state vector; ``defaults`` is the initial state vector.
    """

    def __init__(self, model: Model, variable_index: Mapping[str, int], defaults: np.ndarray,
                 *, frequency: float = 20.0, ignore_timestamp: bool = False) -> None:
        self.model = model
        self.q = np.array(defaults, dtype=float, copy=True)
        #: node-clock time (ns) each variable last arrived (0: never); for staleness
        self.seen_ns = np.zeros(len(self.q), dtype=np.int64)
        self.max_names = max_names(len(self.q))
        self._index = dict(variable_index)
        self.throttle = PublishThrottle(len(self.q), frequency, ignore_timestamp)
        self._order = {name: i for i, name in enumerate(model.joint_names)}
        self._var_joint: dict[str, str] = {}
        for joint in model.joints:
            for var in joint.variable_names:
                self._var_joint[var] = joint.name
        self._var_owner = {i: self._var_joint[v] for v, i in self._index.items()
                           if v in self._var_joint}
        # Mimic followers, transitively: master -> every joint moving with it.
        direct: dict[str, list[str]] = {}
        for joint in model.joints:
            if joint.is_mimic:
                direct.setdefault(joint.mimic.joint, []).append(joint.name)
        self._followers: dict[str, tuple[str, ...]] = {}
        for name in model.joint_names:
            found, todo = [], list(direct.get(name, ()))
            while todo:
                child = todo.pop()
                if child not in found:
                    found.append(child)
                    todo.extend(direct.get(child, ()))
            self._followers[name] = tuple(found)
        self._lists: dict[tuple[str, ...], _NameList] = {}
        self._warned = WarnOnce()
        self._received: set[str] = set()
        self._generation = 0
        self._pending_cache: tuple[int, tuple[str, ...]] | None = None

    # -- introspection ------------------------------------------------------

    @property
    def received_generation(self) -> int:
        """
        Return how many times a joint received its first value.

        One int, so a reader without the JointState lock (the /diagnostics quiet key)
        sees the pending set change without iterating a set that a JointState may be
        growing.
        """
        return self._generation

    def pending_joints(self) -> tuple[str, ...]:
        """Movable joints that never received a state (a mimic joint: its master), in order."""
        if self._pending_cache is None or self._pending_cache[0] != self._generation:
            covered = set(self._received)
            for name in self._received:
                covered.update(self._followers[name])
            pending = tuple(j.name for j in self.model.joints
                            if j.is_movable and j.name not in covered)
            self._pending_cache = (self._generation, pending)
        return self._pending_cache[1]

    def with_followers(self, joints: Iterable[str]) -> tuple[str, ...]:
        """``joints`` plus the mimic joints that follow them, in topological order."""
        chosen = set()
        for name in joints:
            chosen.add(name)
            chosen.update(self._followers[name])
        return tuple(sorted(chosen, key=self._order.__getitem__))

    def adopt(self, old: 'JointStateMerger') -> None:
        """
        Take over the values ``old`` received.

        For a settings change that rebuilt the model: joints of both that are not mimic
        joints here keep their value; the rest stay at their (new) defaults. Call it where
        no JointState can change ``old`` (under the node's JointState lock): its values
        would mix two messages, its received set change size while it is read.
        """
        for name in old._received:
            joint = self.model.joint_map.get(name)
            if joint is None or joint.is_mimic or joint.variable_names != \
                    old.model.joint_map[name].variable_names:
                continue
            for var in joint.variable_names:
                self.q[self._index[var]] = old.q[old._index[var]]
                self.seen_ns[self._index[var]] = old.seen_ns[old._index[var]]
            self._mark_received((name,))

    # -- the per-message entry point ------------------------------------------

    def update(self, names: Sequence[str], positions: Sequence[float], stamp_ns: int = 0,
               now_ns: int | None = None, include_pending: bool = False) -> Update:
        """
        Merge one JointState (``name``, ``position``, header stamp in ns).

        ``now_ns``: the node clock (for upstream's clock-went-backwards check).
        ``include_pending``: also list the joints that never received a state
        (``publish_default_positions``).
        """
        if len(names) > self.max_names:
            return Update(error=f'Ignored a JointState message with {len(names)} names: robot '
                                f"'{self.model.name}' accepts at most {self.max_names}.",
                          reason='oversized')
        if len(names) != len(positions):
            if len(positions) == 0:
                first = names[0] if len(names) else ''
                error = (f'Ignored a JointState message about joint(s) "{first}"(,...) whose '
                         f'position member was empty ({len(names)} names).')
            else:
                error = (f'Ignored an invalid JointState message: {len(names)} names but '
                         f'{len(positions)} positions.')
            return Update(error=error, reason='length mismatch')
        key = tuple(names)
        entry = self._lists.get(key)
        if entry is None:
            entry = self._name_list(key)
        warnings = entry.warnings  # first-time warnings: returned once, then forgotten
        if warnings:
            entry.warnings = []
        else:
            warnings = []
        ignored, entry.ignored = entry.ignored, None
        if not len(entry.src):
            return Update(warnings=warnings, ignored=ignored)

        values = np.asarray(positions, dtype=float)[entry.src]
        dst, joints, driven = entry.dst, entry.joints, entry.driven
        non_finite = 0
        if not np.isfinite(values).all():
            bad = {entry.src_joint[i] for i in np.flatnonzero(~np.isfinite(values))}
            non_finite = len(bad)
            for joint in self._warned.new(('non-finite', j) for j in sorted(bad)):
                warnings.append(f"Ignored a non-finite position for joint '{joint[1]}' "
                                '(reported once per joint).')
            keep = np.array([j not in bad for j in entry.src_joint], dtype=bool)
            values, dst = values[keep], dst[keep]
            driven = tuple(j for j in driven if j not in bad)
            joints = self.with_followers(driven)
            if not len(dst):
                return Update(warnings=warnings, ignored=ignored, non_finite=non_finite)

        if now_ns is not None:
            self.seen_ns[dst] = now_ns
        publish, backwards = self.throttle.check(stamp_ns, dst, now_ns)
        if not publish:
            return Update(warnings=warnings, ignored=ignored, non_finite=non_finite)
        self.q[dst] = values
        self.throttle.mark(stamp_ns, dst)
        if not entry.complete or driven is not entry.driven:
            self._mark_received(driven)
            entry.complete = driven is entry.driven
        if include_pending:
            joints = self._add_pending(entry, joints)
        return Update(publish=True, joints=joints, warnings=warnings, ignored=ignored,
                      non_finite=non_finite, backwards=backwards)

    # -- internals ------------------------------------------------------------

    def _mark_received(self, driven: Iterable[str]) -> None:
        fresh = set(driven) - self._received
        if fresh:
            self._received |= fresh
            self._generation += 1

    def _add_pending(self, entry: _NameList, joints: tuple[str, ...]) -> tuple[str, ...]:
        pending = self.pending_joints()
        if not pending:
            return joints
        if joints is entry.joints:
            cached = entry.with_pending
            if cached is None or cached[0] != self._generation:
                entry.with_pending = cached = (
                    self._generation,
                    tuple(sorted(set(joints) | set(pending), key=self._order.__getitem__)))
            return cached[1]
        return tuple(sorted(set(joints) | set(pending), key=self._order.__getitem__))

    def _name_list(self, key: tuple[str, ...]) -> _NameList:
        """Index arrays, first-time warnings and joints to publish for one name list."""
        position_of: dict[str, int] = {}
        for i, name in enumerate(key):
            position_of[name] = i  # a repeated name: the last one wins
        unknown, mimic, fixed = [], [], []
        src, dst, src_joint = [], [], []
        for name, i in position_of.items():
            joint_name = self._var_joint.get(name)
            if joint_name is None:
                if name in self.model.joint_map:
                    joint = self.model.joint_map[name]
                    if joint.is_movable:  # a planar/floating joint by its bare name
                        unknown.append(name)
                    else:
                        fixed.append(name)
                else:
                    unknown.append(name)
                continue
            joint = self.model.joint_map[joint_name]
            if joint.is_mimic:
                mimic.append(name)
                continue
            src.append(i)
            dst.append(self._index[name])
            src_joint.append(joint_name)
        warnings = []
        for name in self._warned.new(('bare', n) for n in unknown if n in self.model.joint_map):
            joint = self.model.joint_map[name[1]]   # a planar/floating joint: bounded by the model
            warnings.append(f"Ignored joint '{name[1]}': not a joint variable of robot "
                            f"'{self.model.name}' ({joint.type.value} joint: send its variables "
                            f'{", ".join(joint.variable_names)}) (reported once).')
        unknown = [n for n in unknown if n not in self.model.joint_map]
        for name in self._warned.new(('mimic', n) for n in mimic):
            master = self.model.joint_map[name[1]].mimic.joint
            warnings.append(f"Ignored the value given for mimic joint '{name[1]}': it follows "
                            f"joint '{master}' (reported once).")
        for name in self._warned.new(('fixed', n) for n in fixed):
            warnings.append(f"Ignored the value given for fixed joint '{name[1]}' "
                            '(reported once).')
        driven = tuple(sorted(set(src_joint), key=self._order.__getitem__))
        entry = _NameList(src=np.array(src, dtype=np.intp), dst=np.array(dst, dtype=np.intp),
                          src_joint=tuple(src_joint), driven=driven,
                          joints=self.with_followers(driven), warnings=warnings,
                          ignored=self._ignored_summary(unknown))
        if len(self._lists) >= _LIST_CACHE_SIZE:
            self._lists.clear()
        self._lists[key] = entry
        return entry

    def _ignored_summary(self, unknown: list[str]) -> str | None:
        """One line for the names of a list that are not in the model (None: there are none)."""
        if not unknown:
            return None
        quoted = ', '.join(repr(n[:64]) for n in unknown[:_QUOTED_NAMES])
        more = f' (+{len(unknown) - _QUOTED_NAMES} more)' if len(unknown) > _QUOTED_NAMES else ''
        return (f'Ignored {len(unknown)} name(s) that are not joints of robot '
                f"'{self.model.name}': {quoted}{more}.")

    def next_stale_ns(self, now_ns: int, timeout_ns: int) -> int | None:
        """
        Return when :meth:`stale_joints` next changes with time alone.

        That is, with no value arriving: the first instant a joint that is fresh now
        counts as stale; None when none is fresh.
        """
        seen = self.seen_ns
        fresh = seen[(seen > 0) & (now_ns - seen <= timeout_ns)]
        return int(fresh.min()) + timeout_ns + 1 if fresh.size else None

    def stale_joints(self, now_ns: int, timeout_ns: int) -> tuple[str, ...]:
        """Joints that received a value once, but none for more than ``timeout_ns``."""
        seen = self.seen_ns
        if not seen.any():   # nothing received yet (an idle robot): nothing stale
            return ()
        stale = np.flatnonzero((seen > 0) & (now_ns - seen > timeout_ns))
        if not len(stale):
            return ()
        return self.with_followers({self._var_owner[i] for i in stale.tolist()})

    def settled(self, names: tuple[str, ...]) -> _NameList | None:
        """
        Return what ``names`` sets, once that has nothing left to report (for a plan).

        That is: its first-time warnings were returned, every joint it drives
        has been marked as received (so :meth:`update` would only copy values,
        check the rate limit and mark), and it reads at least one variable.
        """
        entry = self._lists.get(names)
        if entry is None or entry.warnings or not len(entry.src):
            return None
        if not self._received.issuperset(entry.driven):
            return None
        return entry
