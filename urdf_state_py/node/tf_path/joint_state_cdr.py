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
Reading the fields the node needs straight from a serialised sensor_msgs/JointState.

The node subscribes with ``raw=True`` and gets the CDR bytes: building the
rclpy message (JointState, two Headers, three Times, four sequences) costs more
than the rest of the decoding. A JointState publisher repeats its frame id and
joint names, so :class:`JointStateReader` keeps the bytes from the frame id to
the end of the name sequence of the last message: when the next message starts
with the same bytes, the names are known (the same tuple object as before) and
only the stamp and the positions are read (``np.frombuffer``, no copy). The
serialiser may leave alignment padding between names uninitialised: differing
padding only costs a full decode (the names then compare equal and the cached
tuple is kept).

Layout (plain CDR, what rmw implementations use for ROS 2 messages; the rules
it shares with the other codecs are in :mod:`.plain_cdr`):
``header.stamp`` (int32 sec, uint32 nanosec), ``header.frame_id`` (uint32
length incl. NUL, bytes), ``name`` (uint32 count, then per name: align 4,
uint32 length incl. NUL, bytes), ``position``, ``velocity``, ``effort`` (each:
align 4, uint32 count, then -- if not empty -- align 8, doubles). XCDR1
(``CDR_LE``/``CDR_BE``) and XCDR2 plain (``PLAIN_CDR2_LE``/``_BE``: doubles
aligned to 4) are read; anything after ``effort`` is ignored, as rclpy does,
except the padding the encapsulation options declare (their last two bits).

Every message arrives from the network, so it is hostile until proven
otherwise: every count and length is checked against the payload before
anything is read or allocated, and what cannot be read raises
:class:`MalformedJointState` (never another exception, never a partial
result). The reader is stricter than rclpy where rclpy silently repairs
(a string without its NUL terminator, with an embedded NUL, a name that is not
UTF-8: rclpy truncates or substitutes, which would make two different names
equal); whatever it accepts, it returns exactly as rclpy's
``deserialize_message`` would (``test_joint_state_cdr.py`` fuzzes this).
``max_names`` rejects an oversized name list before a single name is decoded.
"""

from __future__ import annotations

import struct

import numpy as np

from .plain_cdr import (align, content_end, ENCAPSULATIONS, MalformedCdr, read_string,
                        STAMP, string_end, UINT32)

__all__ = ['JointStateReader', 'MalformedJointState']

_DOUBLES = {'<': np.dtype('<f8'), '>': np.dtype('>f8')}
#: ENCAPSULATIONS.get, bound once: CPython compiles a method call on an imported name as an
#: attribute load that builds a bound method on every call, which a cached read shows
_encapsulation_of = ENCAPSULATIONS.get
_NAMES_START = 12          # encapsulation (4) + stamp (8): frame_id's length comes next


class MalformedJointState(MalformedCdr):
    """
    A serialised JointState the node will not read; the message is dropped.

    ``reason``: ``encapsulation``, ``truncated``, ``string`` or ``oversized``
    (the C decoder gives the same reason and message for the same payload).
    """


def _doubles(data: bytes, at: int, uint32: struct.Struct, double_align: int,
             field: str) -> tuple[int, int, int]:
    """(count, start, end) of the double sequence whose count is at ``at``, checked."""
    size = len(data)
    if at + 4 > size:
        raise MalformedJointState('truncated', f'{field}: no count at byte {at} of {size}')
    (count,) = uint32.unpack_from(data, at)
    start = align(at + 4, double_align) if count else at + 4   # an empty sequence is not aligned
    end = start + 8 * count
    if end > size:
        raise MalformedJointState(
            'truncated', f'{field}: {count} values beyond the {size}-byte payload')
    return count, start, end


class JointStateReader:
    """
    Decodes (names, positions, stamp) from JointState CDR bytes, caching the name section.

    ``max_names``: name lists longer than this are rejected (``oversized``)
    before any name is decoded, so a message costs time in proportion to the
    model rather than to the message (None: no limit).
    """

    __slots__ = ('_section', '_names', '_count_at', '_encapsulation', 'max_names')

    def __init__(self, max_names: int | None = None) -> None:
        self._section: bytes | None = None  # data[12:end of names] of the last full decode
        self._encapsulation: tuple[str, int] | None = None  # ... and its encapsulation
        self._names: tuple[str, ...] = ()
        self._count_at = 0                  # where position's element count is
        self.max_names = max_names

    def read(self, data: bytes) -> tuple[tuple[str, ...], np.ndarray, int, int]:
        """
        ``(names, positions, sec, nanosec)`` of the message; raises :class:`MalformedJointState`.

        ``positions`` is a read-only float64 array (for little-endian data a
        view of ``data``); ``names`` is the same tuple object as long as the
        publisher sends the same name section.
        """
        encapsulation = _encapsulation_of(data[:2])
        if encapsulation is None:
            raise MalformedJointState(
                'encapsulation', f'not a plain CDR payload (header {bytes(data[:4]).hex()}, '
                f'{len(data)} bytes)')
        if len(data) < 4:
            raise MalformedJointState('truncated', f'{len(data)} bytes: not even a header')
        if data[3] & 3:  # XCDR: the options' last two bits count padding bytes at the end
            data = data[:content_end(data)]
        order, double_align = encapsulation
        section = self._section
        if encapsulation is self._encapsulation and data.startswith(section, _NAMES_START):
            names, at = self._names, self._count_at
            self._check_count(len(names))   # the cap may have shrunk since (a model swap)
        else:
            names, at = self._read_names(data, encapsulation)
        uint32 = UINT32[order]
        count, start, end = _doubles(data, at, uint32, double_align, 'position')
        # velocity and effort are not needed, but rclpy rejects them truncated, and so do we
        end = _doubles(data, align(end, 4), uint32, double_align, 'velocity')[2]
        _doubles(data, align(end, 4), uint32, double_align, 'effort')
        positions = np.frombuffer(data, dtype=_DOUBLES[order], count=count, offset=start)
        if order == '>':
            positions = positions.astype(np.float64)
        sec, nanosec = STAMP[order].unpack_from(data, 4)
        return names, positions, sec, nanosec

    def read_all(self, data: bytes) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray,
                                             int, int]:
        """
        Read the message with its velocity and effort arrays.

        ``(names, positions, velocities, efforts, sec, nanosec)``: :meth:`read` plus the
        velocity and effort arrays (for the several-sources path, which publishes them).

        :meth:`read` has checked every count against the payload, so the second
        walk over the arrays cannot fail.
        """
        names, positions, sec, nanosec = self.read(data)
        if data[3] & 3:
            data = data[:content_end(data)]
        order, double_align = ENCAPSULATIONS[data[:2]]
        uint32 = UINT32[order]
        end = _doubles(data, self._count_at, uint32, double_align, 'position')[2]
        arrays = []
        for field in ('velocity', 'effort'):
            count, start, end = _doubles(data, align(end, 4), uint32, double_align, field)
            arrays.append(np.frombuffer(data, dtype=_DOUBLES[order], count=count,
                                        offset=start).astype(np.float64))
        return names, positions, arrays[0], arrays[1], sec, nanosec

    def _check_count(self, count: int) -> None:
        """Refuse a name list over :attr:`max_names` (cached or not: the C decoder's verdict)."""
        if self.max_names is not None and count > self.max_names:
            raise MalformedJointState(
                'oversized', f'{count} names, more than the {self.max_names} this model accepts')

    def _read_names(self, data: bytes,
                    encapsulation: tuple[str, int]) -> tuple[tuple[str, ...], int]:
        """Full decode of frame_id and names; remembers the section for the next message."""
        uint32 = UINT32[encapsulation[0]]
        size = len(data)
        if size < _NAMES_START:
            raise MalformedJointState('truncated', f'{size} bytes: not even a stamp')
        at = align(string_end(data, _NAMES_START, uint32, MalformedJointState, 'header.frame_id'),
                   4)
        if at + 4 > size:
            raise MalformedJointState('truncated', f'no name count ({size} bytes)')
        (count,) = uint32.unpack_from(data, at)
        at += 4
        self._check_count(count)
        if count * 5 > size - at:  # each name takes >= 5 bytes (length + NUL)
            raise MalformedJointState(
                'truncated', f'{count} names cannot fit in the {size}-byte payload')
        names = []
        for i in range(count):
            name, at = read_string(data, at, uint32, MalformedJointState, 'name', i)
            names.append(name)
        self._section = data[_NAMES_START:at]
        self._encapsulation = encapsulation
        if tuple(names) != self._names:  # else: same names, other padding bytes
            self._names = tuple(names)
        self._count_at = align(at, 4)
        return self._names, self._count_at
