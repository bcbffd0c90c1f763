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
robot_state_publisher's rate limit for turning JointStates into /tf, on its own.

Kept apart from the merger (:mod:`.joint_state_merger`) because it is the one piece of
upstream behaviour that the native loop reimplements (``_native/plan.c``,
``PublishThrottle.check_quiet``): this module is its specification.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ['PublishThrottle', 'upstream_interval_ns']

_NS = 1_000_000_000


def upstream_interval_ns(frequency: float) -> int:
    """
    Return the minimum interval between two publications of a joint, as upstream computes it.

    robot_state_publisher truncates ``1000 / publish_frequency`` to whole
    milliseconds; 0 (or less) means "no limit" here.
    """
    if frequency <= 0.0 or not math.isfinite(frequency):
        return 0
    return int(1000.0 / frequency) * 1_000_000


class PublishThrottle:
    """
    robot_state_publisher's rule for when a JointState is turned into /tf.

    Upstream (``callbackJointState``): take the oldest last-publish stamp among
    the message's joints (0 for a joint never published, and never later than
    the node's clock "now"); publish when ``ignore_timestamp`` or when the
    message stamp is at least that plus the interval (``1000/f`` ms, truncated
    to whole ms). ``f = 0`` means no limit (upstream rejects 0).

    Time going backwards resets every joint's last-publish stamp (bag played in
    a loop), then the message is published: upstream detects it on the node's
    clock; here a message stamp earlier than the last one published for one of
    its joints counts too.
    """

    def __init__(self, n_variables: int, frequency: float = 20.0,
                 ignore_timestamp: bool = False) -> None:
        self._last = np.full(n_variables, -1, dtype=np.int64)  # -1: never published
        self._last_now = -1
        self._writes = 0   # bumped by every change of _last (see check_quiet)
        self.frequency = frequency
        self.ignore_timestamp = ignore_timestamp

    @property
    def frequency(self) -> float:
        return self._frequency

    @frequency.setter
    def frequency(self, value: float) -> None:
        self._frequency = float(value)
        self._interval = upstream_interval_ns(self._frequency)

    @property
    def interval_ns(self) -> int:
        """Return the minimum interval between two publications of a joint (0: no limit)."""
        return self._interval

    @property
    def last_stamps(self) -> np.ndarray:
        """Return each variable's last published stamp (-1: never); the native loop writes it."""
        return self._last

    def loop_state(self) -> tuple[int, int]:
        """Return the scalars the native loop carries on from: ``(last node clock, writes)``."""
        return self._last_now, self._writes

    def set_loop_state(self, last_now: int, writes: int) -> None:
        """Take back the scalars the native loop kept while it served (see loop_state)."""
        self._last_now, self._writes = last_now, writes

    def reset(self) -> None:
        """Forget every last-publish stamp."""
        self._last.fill(-1)
        self._writes += 1

    def check(self, stamp_ns: int, indices: np.ndarray,
              now_ns: int | None = None) -> tuple[bool, str | None]:
        """(publish?, warning) for a message stamped ``stamp_ns`` about variables ``indices``."""
        warning = None
        if now_ns is not None:
            if self._last_now > now_ns:
                warning = 'Moved backwards in time (node clock), re-publishing joint transforms!'
                self.reset()
            self._last_now = now_ns
        last = self._last[indices]
        if warning is None and len(last) and stamp_ns < int(last.max()):
            warning = ('Moved backwards in time (joint state stamp '
                       f'{stamp_ns / _NS:.9f} s is earlier than the last one published, '
                       f'{int(last.max()) / _NS:.9f} s), re-publishing joint transforms!')
            self.reset()
            return True, warning
        if self.ignore_timestamp or self._interval == 0:
            return True, warning
        if warning is not None:
            return True, warning
        oldest = 0 if not len(last) or int(last.min()) < 0 else int(last.min())
        if now_ns is not None:
            oldest = min(oldest, now_ns)
        return stamp_ns >= oldest + self._interval, None

    def check_quiet(self, stamp_ns: int, indices: np.ndarray, now_ns: int,
                    marked: tuple[int, int] | None = None) -> bool | None:
        """
        Run :meth:`check` for the common case, without its warnings.

        None (and nothing changed) when :meth:`check` would warn, else whether to
        publish.

        ``marked``: what :meth:`mark` returned for the same ``indices``; while no
        other mark or reset happened since, their stamps are known without numpy.
        """
        if self._last_now > now_ns:
            return None
        if marked is not None and marked[0] == self._writes:
            newest = oldest = marked[1]
        else:
            last = self._last[indices]
            newest, oldest = int(last.max()), int(last.min())
        if stamp_ns < newest:
            return None
        self._last_now = now_ns
        if self.ignore_timestamp or self._interval == 0:
            return True
        return stamp_ns >= min(max(oldest, 0), now_ns) + self._interval

    def mark(self, stamp_ns: int, indices: np.ndarray) -> tuple[int, int]:
        """
        Record that variables ``indices`` were published with stamp ``stamp_ns``.

        Returns a token for :meth:`check_quiet` (``marked``).
        """
        self._last[indices] = stamp_ns
        self._writes += 1
        return self._writes, stamp_ns
