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
The latest transform of every TF frame: /tf at any rate in, a few dozen snapshots a second out.

/tf may come at 1 kHz (TALOS: 44 transforms a message) while a browser draws
at most 60 frames a second, so the view keeps only the newest transform per
child frame, like tf2's buffer with a cache of one. Each frame has a slot in
a few numpy arrays; a message is read by the node's TFMessage codec
(:mod:`urdf_state_py.node.tf_path.tf_message_cdr`) and written into them with
array assignments (the slots of a layout are looked up once), and each slot
carries the number of the last write, so a reader asks for what changed
since the last number it saw (:meth:`TfStore.changes`).

As tf2 does, a transform whose values are not finite or whose quaternion is
not normalised (|q|^2 off by more than 0.01) is ignored, as is one that names
its own frame as parent. At most :data:`MAX_FRAMES` frames are kept: a
publisher inventing names cannot grow the view's memory; later frames are
counted as dropped.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from urdf_state_py.node.tf_path.tf_message_cdr import MalformedTf, TfLayout, TfReader

__all__ = ['TfStore', 'FrameRow', 'MAX_FRAMES']

MAX_FRAMES = 10_000
#: [child, parent, x, y, z, qx, qy, qz, qw, stamp [s], static (0/1), age [s]]
FrameRow = list


class TfStore:
    """Latest transform per child frame, written by the ROS thread, read by the page streams."""

    def __init__(self, max_frames: int = MAX_FRAMES) -> None:
        self._lock = threading.Lock()
        self._reader = TfReader()
        self._max = max_frames
        self._slot: dict[str, int] = {}
        self._children: list[str] = []
        self._parents: list[str] = []
        self._values = np.zeros((16, 7))
        self._stamps = np.zeros(16)
        self._received = np.zeros(16)
        self._static = np.zeros(16, bool)
        self._written = np.zeros(16, np.int64)
        self._layout_slots: dict[TfLayout, np.ndarray] = {}
        self._parents_from: TfLayout | None = None
        self.version = 0
        self.messages = 0
        self.malformed = 0
        self.dropped_frames = 0

    # ---------------------------------------------------------------- writing

    def ingest(self, data: bytes, static: bool = False) -> None:
        """Take one serialised TFMessage (from /tf, or /tf_static with ``static``)."""
        now = time.monotonic()
        with self._lock:
            self.messages += 1
            try:
                layout, values, stamps = self._reader.read(data)
            except MalformedTf:
                self.malformed += 1
                return
            slots = self._layout_slots.get(layout)
            if slots is None:
                slots = self._slots_of(layout)
            keep = slots >= 0
            keep &= np.isfinite(values).all(axis=1)
            keep &= np.abs((values[:, 3:] ** 2).sum(axis=1) - 1.0) <= 0.01
            if not keep.all():
                slots, values, stamps = slots[keep], values[keep], stamps[keep]
            if self._parents_from is not layout:
                # a frame's parent comes from the last publisher of its transform
                for slot, parent in zip(self._layout_slots[layout], layout.parents):
                    if slot >= 0:
                        self._parents[slot] = parent
                self._parents_from = layout
            self.version += 1
            self._values[slots] = values
            self._stamps[slots] = stamps
            self._received[slots] = now
            self._static[slots] = static
            self._written[slots] = self.version

    def _slots_of(self, layout: TfLayout) -> np.ndarray:
        """Return the slot of each transform of ``layout`` (-1: dropped), adding frames."""
        slots = np.full(len(layout.children), -1, np.intp)
        for i, (parent, child) in enumerate(zip(layout.parents, layout.children)):
            if not child or child == parent:
                continue
            slot = self._slot.get(child)
            if slot is None:
                if len(self._children) >= self._max:
                    self.dropped_frames += 1
                    continue
                slot = self._slot[child] = len(self._children)
                self._children.append(child)
                self._parents.append(parent)
                self._grow(slot + 1)
            slots[i] = slot
        if len(self._layout_slots) > 4 * TfReader.KEEP:
            self._layout_slots.clear()
        self._layout_slots[layout] = slots
        return slots

    def _grow(self, size: int) -> None:
        if size <= len(self._written):
            return
        new = max(size, 2 * len(self._written))
        for name in ('_values', '_stamps', '_received', '_static', '_written'):
            old = getattr(self, name)
            grown = np.zeros((new, *old.shape[1:]), old.dtype)
            grown[:len(old)] = old
            setattr(self, name, grown)

    # ---------------------------------------------------------------- reading

    def changes(self, since: int) -> tuple[int, list[FrameRow]]:
        """``(version, rows)``: every frame written after ``since`` (0: all frames)."""
        now = time.monotonic()
        with self._lock:
            count = len(self._children)
            changed = np.flatnonzero(self._written[:count] > since)
            values = self._values[changed].tolist()
            stamps = self._stamps[changed].tolist()
            static = self._static[changed].tolist()
            ages = (now - self._received[changed]).tolist()
            rows = [[self._children[slot], self._parents[slot], *values[i], stamps[i],
                     int(static[i]), round(ages[i], 3)]
                    for i, slot in enumerate(changed.tolist())]
            return self.version, rows

    def counts(self) -> dict[str, int]:
        """Counters for the page and the log."""
        with self._lock:
            return {'messages': self.messages, 'malformed': self.malformed,
                    'frameCount': len(self._children), 'droppedFrames': self.dropped_frames}
