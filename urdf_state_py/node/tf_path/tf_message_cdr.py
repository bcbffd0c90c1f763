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
tf2_msgs/TFMessage's CDR layout: read fast enough for 1 kHz /tf, and written in place.

Reading (the view): rclpy's own deserialisation builds ~10 Python objects per
transform: for TALOS's /tf (44 transforms a message) at 1 kHz it took a whole
core and still fell behind (measured: 5,057 of 9,000 messages taken in 9 s).
The view subscribes raw instead. A publisher repeats its frame names, so
after one full decode (:func:`decode_layout`, every length and string
checked) a :class:`TfLayout` remembers where the numbers are and what every
other byte was; the next message of the same size whose non-number bytes are
equal (one masked numpy comparison) is read by gathering its stamps and
doubles from views of the payload (two numpy gathers), whatever their byte
order.

Writing (the node's /tf, :mod:`.tf_publishing`): the same walk over a message
rclpy serialised once gives the offsets of its stamps and doubles, and of the
alignment padding to clear; each update then scatters new numbers there.

Layout (plain CDR, :mod:`.plain_cdr`): uint32 count; per transform:
``header.stamp`` (int32 sec, uint32 nanosec), ``header.frame_id`` and
``child_frame_id`` (strings, each aligned to 4), ``translation`` (3 doubles),
``rotation`` (4 doubles, x y z w), the first double aligned to 8 (XCDR1) or 4
(XCDR2). Messages come from the network: every length is checked against the
payload before it is used, and what cannot be read raises
:class:`MalformedTf`.
"""

from __future__ import annotations

from dataclasses import dataclass
import struct

import numpy as np

from .plain_cdr import align, content_end, ENCAPSULATIONS, MalformedCdr, read_string, UINT32

__all__ = ['MAX_FRAME_ID', 'MalformedTf', 'TfLayout', 'TfReader', 'decode_layout']

#: Longest frame id kept (tf2 has no limit; a megabyte name is an attack).
MAX_FRAME_ID = 512
_MIN_TRANSFORM_BYTES = 8 + 5 + 5 + 56   # stamp, two 1-character strings, 7 doubles


class MalformedTf(MalformedCdr):
    """A serialised TFMessage that cannot be read (the message is dropped and counted)."""


@dataclass(frozen=True, eq=False)
class TfLayout:
    """
    Where one message's numbers are, and what the bytes around them must be.

    ``parents``/``children``: the frame ids of each transform (a leading ``/``
    removed, as tf2 does); ``mask``: 0xFF on every byte a message of this
    layout repeats (lengths, names; not the numbers, not the padding) and
    ``fixed`` those bytes; ``stamp_words``: index of each stamp's ``sec`` among
    the payload's 32-bit words; ``value_index``: where the 7 doubles of each
    transform are, as indices of the payload's 64-bit words when they are
    8-aligned (XCDR1), else of its bytes (``value_bytes``); ``padding``: the
    offsets of the alignment padding, which a serialiser may leave
    uninitialised (rclpy does), so a writer clears it.
    """

    size: int
    order: str
    parents: tuple[str, ...]
    children: tuple[str, ...]
    mask: np.ndarray
    fixed: np.ndarray
    stamp_words: np.ndarray
    value_index: np.ndarray
    value_bytes: bool
    padding: np.ndarray

    def matches(self, data: np.ndarray) -> bool:
        """Whether ``data`` (the message as uint8) has this layout."""
        return data.size == self.size and np.array_equal(data & self.mask, self.fixed)

    def numbers(self, raw: bytes) -> tuple[np.ndarray, np.ndarray]:
        """``(values (n, 7) [x y z qx qy qz qw], stamps (n,) [s])`` of a matching message."""
        words = np.frombuffer(raw, self.order + 'u4', count=(self.size - 4) // 4, offset=4)
        sec = words[self.stamp_words].view(self.order + 'i4')
        stamps = sec + words[self.stamp_words + 1] * 1e-9
        if self.value_bytes:
            values = np.frombuffer(raw, np.uint8)[self.value_index].view(self.order + 'f8')
        else:
            values = np.frombuffer(raw, self.order + 'f8', count=(self.size - 4) // 8,
                                   offset=4)[self.value_index]
        return values.astype(np.float64).reshape(-1, 7), stamps


def _frame_id(data: bytes, at: int, uint32: struct.Struct, what: str,
              max_frame_id: int | None) -> tuple[str, int]:
    """(frame id, offset after it) of the CDR string whose length is at ``at``."""
    text, end = read_string(data, at, uint32, MalformedTf, what, max_length=max_frame_id)
    return text.lstrip('/'), end


def decode_layout(data: bytes, max_frame_id: int | None = MAX_FRAME_ID) -> TfLayout:
    """
    Decode one message's structure, fully checked (raises :class:`MalformedTf`).

    ``max_frame_id``: the longest frame id accepted (None: any, for the
    node's own messages, whose names come from its model).
    """
    encapsulation = ENCAPSULATIONS.get(bytes(data[:2]))
    if encapsulation is None:
        raise MalformedTf('encapsulation', f'not a plain CDR payload ({len(data)} bytes)')
    if len(data) < 8:
        raise MalformedTf('truncated', f'{len(data)} bytes: no transform count')
    order, double_align = encapsulation
    uint32 = UINT32[order]
    size = content_end(data)
    (count,) = uint32.unpack_from(data, 4)
    if count * _MIN_TRANSFORM_BYTES > size - 8:
        raise MalformedTf('truncated', f'{count} transforms cannot fit in {size} bytes')
    stamp_at, double_at, padding, parents, children = [], [], [], [], []
    at = 8
    for index in range(count):
        if at + 8 > size:
            raise MalformedTf('truncated', f'transforms[{index}]: no stamp')
        stamp_at.append(at)
        parent, at = _frame_id(data, at + 8, uint32, f'transforms[{index}].header.frame_id',
                               max_frame_id)
        # alignment padding may be left uninitialised by a serialiser: never compared
        padding.extend(range(at, align(at, 4)))
        child, at = _frame_id(data, at, uint32, f'transforms[{index}].child_frame_id',
                              max_frame_id)
        padding.extend(range(at, align(at, double_align)))
        at = align(at, double_align)
        if at + 56 > size:
            raise MalformedTf('truncated', f'transforms[{index}]: no room for its transform')
        double_at.append(at)
        parents.append(parent)
        children.append(child)
        at += 56
    compared = np.ones(len(data), bool)   # the bytes a later message must repeat
    compared[size:] = False
    padding = np.asarray(padding, np.intp)
    compared[padding] = False
    compared[_spans(stamp_at, 8)] = False
    compared[_spans(double_at, 56)] = False
    mask = np.where(compared, np.uint8(0xFF), np.uint8(0))
    starts = np.asarray(double_at, np.intp)
    value_bytes = bool(((starts - 4) % 8).any())
    value_index = _spans(double_at, 56) if value_bytes else \
        ((starts[:, None] - 4) // 8 + np.arange(7)).ravel()
    return TfLayout(len(data), order, tuple(parents), tuple(children), mask,
                    np.frombuffer(data, np.uint8) & mask,
                    (np.asarray(stamp_at, np.intp) - 4) // 4, value_index, value_bytes, padding)


def _spans(starts: list[int], length: int) -> np.ndarray:
    """Return the byte positions of ``length`` bytes from each of ``starts``, in order."""
    if not starts:
        return np.zeros(0, np.intp)
    return (np.asarray(starts, np.intp)[:, None] + np.arange(length)).ravel()


class TfReader:
    """Reads messages, reusing the layouts of the last few publishers (at most :data:`KEEP`)."""

    KEEP = 8

    def __init__(self) -> None:
        self._layouts: list[TfLayout] = []

    def read(self, data: bytes) -> tuple[TfLayout, np.ndarray, np.ndarray]:
        """``(layout, values, stamps)`` of one message (see :meth:`TfLayout.numbers`)."""
        message = np.frombuffer(data, np.uint8)
        for layout in self._layouts:
            if layout.matches(message):
                return (layout, *layout.numbers(data))
        layout = decode_layout(data)
        self._layouts = [layout, *self._layouts[:self.KEEP - 1]]
        return (layout, *layout.numbers(data))
