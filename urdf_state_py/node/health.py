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
What the node counts about its inputs, and the one-line status made from it: no ROS in here.

The node bumps counters in :class:`Health` as things happen (a rejected
message or description, a clamp, a /tf message): plain attribute and dict
updates, cheap enough for the JointState hot path. Once per second
:func:`node_status` turns them, with the current model's view, into the
level, one-line message and key/values that :mod:`.diagnostics` publishes on
``/diagnostics``. Every key set here is bounded: reasons are fixed categories
(never text from a message), joint names come from the model.

:class:`LogThrottle` keeps a noisy source from flooding the log: one line per
key and period, saying how many were suppressed since the last one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = ['OK', 'WARN', 'ERROR', 'Health', 'LogThrottle', 'ModelView', 'Status', 'node_status']

OK, WARN, ERROR = 0, 1, 2
_NS = 1_000_000_000

#: A rejection or clamp keeps the status at WARN for this long (then only the counts remain).
RECENT_S = 10.0
#: Joint names listed in one key/value (the count is always complete).
_LISTED = 10
#: Longest text of the last rejection shown (it may quote a message's content).
_DETAIL_CHARS = 240


def _listed(names: Sequence[str]) -> str:
    more = f' (+{len(names) - _LISTED} more)' if len(names) > _LISTED else ''
    return ', '.join(names[:_LISTED]) + more


@dataclass
class Health:
    """Counters of one node's inputs, updated as they arrive (see the module docstring)."""

    rejected_messages: Counter = field(default_factory=Counter)      # reason -> count
    rejected_descriptions: Counter = field(default_factory=Counter)  # reason -> count
    last_rejection: str = ''
    last_rejection_ns: int = 0
    tf_published: int = 0
    messages_with_unknown_names: int = 0
    non_finite_values: int = 0
    clamped: dict = field(default_factory=dict)  # joint name -> last clamp (ns); model-bounded
    last_clamp_ns: int = 0
    joint_states_decoder: str = ''  # decoder of joint_states, why (tf_path.native)
    joint_states_path: str = ''     # loop serving joint_states, why (tf_path.native_loop)
    #: Messages the native loop handed to Python, by reason (LoopSync copies them in).
    joint_states_handed: dict = field(default_factory=dict)
    native_loop_errors: int = 0     # rcl take/publish/clock failures in the native loop
    native_loop_retries: int = 0    # failed waits of the native loop (each retried)
    native_loop_served: int = 0     # messages the native loop served without Python

    def reject_message(self, reason: str, detail: str, now_ns: int) -> int:
        """Count a dropped message; returns how many were dropped for ``reason`` so far."""
        self.rejected_messages[reason] += 1
        self._last(detail, now_ns)
        return self.rejected_messages[reason]

    def reject_description(self, reason: str, detail: str, now_ns: int) -> None:
        """Count a refused description (the last good model stays)."""
        self.rejected_descriptions[reason] += 1
        self._last(detail, now_ns)

    def clamp(self, joints: Iterable[str], now_ns: int) -> None:
        for name in joints:
            self.clamped[name] = now_ns
        self.last_clamp_ns = now_ns

    def new_model(self) -> None:
        """Forget what belongs to the previous model (its joint names)."""
        self.clamped.clear()
        self.last_clamp_ns = 0

    def fingerprint(self, now_ns: int) -> tuple | None:
        """
        Return a cheap fingerprint of what the status shows of these counters.

        What the status shows of these counters, cheaply (equal: the same status); None
        while a rejection or clamp is recent, when the status changes with time alone.

        Counters LoopSync copies from the native loop are left out: the loop's activity
        stands for them.
        """
        if _recent(self.last_rejection_ns, now_ns) or _recent(self.last_clamp_ns, now_ns):
            return None
        return (self.tf_published, self.last_rejection_ns, self.last_clamp_ns,
                self.messages_with_unknown_names, self.non_finite_values,
                self.joint_states_decoder, self.joint_states_path)

    def _last(self, detail: str, now_ns: int) -> None:
        self.last_rejection = detail if len(detail) <= _DETAIL_CHARS \
            else detail[:_DETAIL_CHARS - 3] + '...'
        self.last_rejection_ns = now_ns


@dataclass(frozen=True)
class ModelView:
    """What the status needs to know about the current model and joint state."""

    robot: str
    parser: str
    links: int
    joints: int
    movable: int
    never_received: Sequence[str]   # movable joints without a value yet
    stale: Sequence[str]            # received once, but not for longer than stale_after_s
    clamps: int = 0                 # updates the native loop clamped (it does not warn again)
    last_clamped: Sequence[str] = ()
    parts: Sequence[str] = ()       # the parts attached in the model, in order


@dataclass(frozen=True)
class Status:
    level: int
    message: str
    values: list[tuple[str, str]]


def _recent(then_ns: int, now_ns: int) -> bool:
    return then_ns > 0 and now_ns - then_ns <= RECENT_S * _NS


def node_status(health: Health, view: ModelView | None, *, stale_after_s: float,
                tf_rate_hz: float, now_ns: int) -> Status:
    """
    Return the status now: ERROR without a model, WARN while something needs a look, else OK.

    WARN: joints never received (the complete state is not yet known), stale
    joints, or a rejection or clamp within the last :data:`RECENT_S` seconds.
    The message names the worst things first; the values give the detail.
    """
    values: list[tuple[str, str]] = []
    problems: list[str] = []
    level = OK
    if view is None:
        level = ERROR
        problems.append('no valid robot description loaded')
    else:
        values += [('robot', view.robot), ('parser', view.parser), ('links', str(view.links)),
                   ('joints', f'{view.joints} ({view.movable} movable)')]
        if view.parts:
            values.append(('parts', ', '.join(view.parts)))
        if view.never_received:
            problems.append(f'{len(view.never_received)} joint(s) never received: '
                            'the complete state is not yet known')
        values += [('joints never received', str(len(view.never_received))),
                   ('joints never received (names)', _listed(view.never_received))]
        if view.stale:
            problems.append(f'{len(view.stale)} joint(s) stale (no update for more than '
                            f'{stale_after_s:g} s)')
        values += [('stale joints', str(len(view.stale))),
                   ('stale joints (names)', _listed(view.stale)),
                   ('stale after [s]', f'{stale_after_s:g}' if stale_after_s > 0 else 'off')]
    # A copy first (one C call, whole under the GIL): the JointState path clamps from its own
    # thread, and a new name added while Python code walks the dict fails the walk.
    clamped = dict(health.clamped)
    clamped_now = sorted(n for n, t in clamped.items() if _recent(t, now_ns))
    if clamped_now:
        problems.append(f'{len(clamped_now)} joint(s) clamped to their limits')
    values += [('joints clamped', str(len(clamped))),
               ('joints clamped (names)', _listed(sorted(clamped)))]
    if _recent(health.last_rejection_ns, now_ns):
        problems.append(f'input rejected: {health.last_rejection}')
    for title, counts in (('rejected messages', health.rejected_messages),
                          ('rejected descriptions', health.rejected_descriptions)):
        values.append((title, str(sum(counts.values()))))
        values += [(f'{title}: {reason}', str(n)) for reason, n in sorted(counts.items())]
    values += [('messages with names not in the model', str(health.messages_with_unknown_names)),
               ('non-finite values dropped', str(health.non_finite_values)),
               ('/tf rate [Hz]', f'{tf_rate_hz:.1f}'),
               ('/tf messages published', str(health.tf_published)),
               ('last rejection', health.last_rejection or 'none')]
    if health.joint_states_decoder:
        values.append(('joint_states decoder', health.joint_states_decoder))
    if health.joint_states_path:
        values.append(('joint_states path', health.joint_states_path))
    values += [(f'joint_states handed to Python: {reason}', str(n))
               for reason, n in sorted(health.joint_states_handed.items())]
    if health.joint_states_handed:
        values += [('joint_states served by the native loop', str(health.native_loop_served)),
                   ('native loop errors (rcl)', str(health.native_loop_errors)),
                   ('native loop wait retries', str(health.native_loop_retries))]
    if problems and level == OK:
        level = WARN
    if problems:
        message = '; '.join(problems)
    elif view is not None:
        message = f"publishing {view.links} links of '{view.robot}'"
    else:  # pragma: no cover - view None always adds a problem
        message = ''
    return Status(level, message, values)


class LogThrottle:
    """
    At most one log line per key and ``period_s``; counts what it held back.

    Keys must be bounded (a source and a fixed reason), never message content.
    """

    def __init__(self, period_s: float = 5.0) -> None:
        self._period_ns = int(period_s * _NS)
        self._state: dict = {}   # key -> (last emitted ns, suppressed since)

    def allow(self, key, now_ns: int) -> int | None:
        """None: hold this line back. Else the number of lines held back since the last one."""
        last, held = self._state.get(key, (None, 0))
        if last is not None and now_ns - last < self._period_ns:
            self._state[key] = (last, held + 1)
            return None
        self._state[key] = (now_ns, 0)
        return held
