"""Reading the fields the node needs straight from a serialised sensor_msgs/JointState.

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

Layout (plain CDR, little endian, what rmw implementations use for ROS 2
messages; offsets after the 4-byte encapsulation header are aligned relative
to it): ``header.stamp`` (int32 sec, uint32 nanosec), ``header.frame_id``
(uint32 length incl. NUL, bytes), ``name`` (uint32 count, then per name:
align 4, uint32 length incl. NUL, bytes), ``position`` (align 4, uint32
count, align 8, doubles), then ``velocity`` and ``effort`` (not needed).
Anything else (another encapsulation, a malformed or truncated buffer) makes
:meth:`JointStateReader.read` return None: the caller then deserialises the
message with rclpy, which also reports malformed data as rclpy does.
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ['JointStateReader']

_CDR_LE = b'\x00\x01'      # encapsulation id of plain little-endian CDR
_STAMP = struct.Struct('<iI')
_UINT32 = struct.Struct('<I')
_NAMES_START = 12          # encapsulation (4) + stamp (8): frame_id's length comes next


def _align(at: int, to: int) -> int:
    """``at`` rounded up so that ``at - 4`` is a multiple of ``to``."""
    return at + (-(at - 4) % to)


class JointStateReader:
    """Decodes (names, positions, stamp) from JointState CDR bytes, caching the name section."""

    __slots__ = ('_section', '_names', '_count_at')

    def __init__(self) -> None:
        self._section: bytes | None = None  # data[12:end of names] of the last full decode
        self._names: tuple[str, ...] = ()
        self._count_at = 0                  # where position's element count is

    def read(self, data: bytes) -> tuple[tuple[str, ...], np.ndarray, int, int] | None:
        """``(names, positions, sec, nanosec)`` of the message, or None (use rclpy).

        ``positions`` is a read-only float64 view of ``data``; ``names`` is the
        same tuple object as long as the publisher sends the same name section.
        """
        try:
            if data[:2] != _CDR_LE:
                return None
            section = self._section
            if section is not None and data.startswith(section, _NAMES_START):
                names, count_at = self._names, self._count_at
            else:
                names, count_at = self._read_names(data)
            sec, nanosec = _STAMP.unpack_from(data, 4)
            (count,) = _UINT32.unpack_from(data, count_at)
            positions = np.frombuffer(data, dtype='<f8', count=count,
                                      offset=_align(count_at + 4, 8))
        except (ValueError, struct.error, UnicodeDecodeError):
            return None
        return names, positions, sec, nanosec

    def _read_names(self, data: bytes) -> tuple[tuple[str, ...], int]:
        """Full decode of frame_id and names; remembers the section for the next message."""
        at = _NAMES_START
        (length,) = _UINT32.unpack_from(data, at)
        at += 4 + length                               # frame_id (not needed)
        at = _align(at, 4)
        (count,) = _UINT32.unpack_from(data, at)
        at += 4
        if count > len(data):                          # garbage: each name takes >= 5 bytes
            raise ValueError('name count beyond the buffer')
        names = []
        for _ in range(count):
            at = _align(at, 4)
            (length,) = _UINT32.unpack_from(data, at)
            end = at + 4 + length
            if length == 0 or end > len(data) or data[end - 1] != 0:
                raise ValueError('malformed string')
            names.append(data[at + 4:end - 1].decode('utf-8'))
            at = end
        self._section = data[_NAMES_START:at]
        if tuple(names) != self._names:  # else: same names, other padding bytes
            self._names = tuple(names)
        self._count_at = _align(at, 4)
        return self._names, self._count_at
