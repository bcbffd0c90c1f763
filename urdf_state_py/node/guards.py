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
No input ends the node: every callback runs inside a guard that drops what fails.

Everything on the DDS domain can reach the node, so a message, a parameter
request or a description may be malformed on purpose. A callback that fails
must cost that one input, never the process: :class:`CallbackGuard` reports
the failure as a dropped input -- a throttled warning naming the source (the
topic, "parameters", a timer) and the fault, plus a count in
:class:`~urdf_state_py.node.health.Health` for ``/diagnostics`` -- and the
node carries on with its last good model.

The JointState callback catches its own exceptions (a try block costs nothing
on the hot path) and calls :meth:`CallbackGuard.report`; the other callbacks
are wrapped with :meth:`CallbackGuard.wrap`.
"""

from __future__ import annotations

from collections.abc import Callable
import functools
from typing import Any

from rclpy.serialization import deserialize_message

from .health import Health, LogThrottle

__all__ = ['CallbackGuard', 'INTERNAL_ERROR']

#: The reason counted for an exception nobody anticipated (a bug, or an input nobody foresaw).
INTERNAL_ERROR = 'internal error'


class CallbackGuard:
    """
    Reports dropped inputs (throttled log + counts); wraps callbacks so they cannot raise.

    ``logger``: a callable returning the node's logger (looked up per report,
    so a test can record it); ``now_ns``: the node clock.
    """

    def __init__(self, logger: Callable[[], Any], health: Health,
                 now_ns: Callable[[], int], period_s: float = 5.0) -> None:
        self._logger = logger
        self._health = health
        self._now_ns = now_ns
        self._throttle = LogThrottle(period_s)

    def report(self, source: str, reason: str, detail: str) -> None:
        """Count one dropped input from ``source`` and log it, at most once per period."""
        now_ns = self._now_ns()
        self._health.reject_message(reason, f'{source}: {detail}', now_ns)
        self.log(source, reason, f"Dropped a message on '{source}': {detail}", now_ns)

    def log(self, source: str, reason: str, text: str, now_ns: int | None = None) -> None:
        """A warning, throttled per (source, reason), saying how many were held back."""
        held = self._throttle.allow((source, reason), self._now_ns() if now_ns is None else now_ns)
        if held is None:
            return
        if held:
            text += f' ({held} similar held back since the last report)'
        self._logger().warning(text)

    def deserialize(self, source: str, data: bytes, msg_type: type) -> Any:
        """
        ``data`` as a ``msg_type`` message, or None (reported as ``malformed``).

        A subscription made with ``raw=True`` gets the bytes, so a payload rclpy
        cannot deserialise fails here rather than inside the executor.
        """
        try:
            return deserialize_message(data, msg_type)
        except Exception as err:  # noqa: BLE001 - rclpy's errors differ between releases
            self.report(source, 'malformed', f'not a {msg_type.__name__} message '
                        f'({len(data)} bytes): {type(err).__name__}: {err}')
            return None

    def wrap(self, source: str, callback: Callable[..., Any],
             fallback: Callable[[Exception], Any] | None = None) -> Callable[..., Any]:
        """
        ``callback`` that reports any exception instead of raising it.

        The wrapper returns ``fallback(error)`` (e.g. a refused
        SetParametersResult) or None after a failure.
        """
        @functools.wraps(callback)
        def guarded(*args: Any) -> Any:
            try:
                return callback(*args)
            except Exception as err:  # noqa: BLE001 - the point: nothing escapes to the executor
                self.report(source, INTERNAL_ERROR, f'{type(err).__name__}: {err}')
                return fallback(err) if fallback is not None else None
        return guarded
