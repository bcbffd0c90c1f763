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
The page's live feed: Server-Sent Events carrying model changes and coalesced TF.

One stream per open page, on its own server thread. Every :data:`PERIOD_S`
it asks the :class:`~.tf_store.TfStore` for the frames written since its
last push and sends them as one ``tf`` event, so the page gets at most 60
updates a second with the newest transform of each frame, however fast /tf
arrives; nothing queues in the server (a slow page gets fewer, fresher
updates). A ``model`` event says a robot's description or frame prefix
changed (the page then fetches ``/api/model?robot=K`` for the robot K it
names). When nothing changes, a ``tf`` event without frames is sent once a
second: it carries the counters, and a failed write ends the stream of a
page that went away.
"""

from __future__ import annotations

import json
import time
from typing import BinaryIO

from .view_state import ViewState

__all__ = ['stream', 'PERIOD_S']

#: Seconds between two pushes: the display rate of a 60 Hz screen.
PERIOD_S = 1.0 / 60.0
HEARTBEAT_S = 1.0


def _event(name: str, data: dict) -> bytes:
    return f'event: {name}\ndata: {json.dumps(data, separators=(",", ":"))}\n\n'.encode()


def stream(out: BinaryIO, state: ViewState) -> None:
    """Write events to ``out`` until the state closes or the page goes (a write fails)."""
    out.write(b'retry: 1000\n\n')
    revisions = [-1] * len(state.robots)
    tf_version = 0
    last_write = 0.0
    while not state.closed.is_set():
        started = time.monotonic()
        chunks = []
        for index, robot in enumerate(state.robots):
            if robot.revision != revisions[index]:
                revisions[index] = robot.revision
                chunks.append(_event('model', {'robot': index,
                                               'version': robot.current[0].version}))
        version, rows = state.tf.changes(tf_version)
        if rows or started - last_write >= HEARTBEAT_S:
            tf_version = version
            chunks.append(_event('tf', {'frames': rows, **state.tf.counts()}))
        if chunks:
            out.write(b''.join(chunks))
            out.flush()
            last_write = started
        state.closed.wait(max(0.0, PERIOD_S - (time.monotonic() - started)))
