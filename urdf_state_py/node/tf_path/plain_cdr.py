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
The plain CDR rules every hand-written codec of the node shares.

The node reads JointState (:mod:`.joint_state_cdr`) and TFMessage
(:mod:`.tf_message_cdr`) from their CDR bytes and writes /tf and
/diagnostics bytes itself, skipping rclpy's per-field conversions. They all
follow the same rules, kept here once so that the codecs cannot drift apart:

* a 4-byte encapsulation header: its first two bytes name the
  representation, which fixes the byte order and the alignment of 8-byte
  values (8 in XCDR1 ``CDR_LE``/``CDR_BE``, what ROS 2 publishers send; 4 in
  XCDR2 ``PLAIN_CDR2_LE``/``_BE``); its last two bits count padding bytes at
  the end of the payload;
* every offset after it is aligned relative to it (``at - 4``);
* a string: uint32 length including the NUL terminator, then the bytes.

The bytes come from the network: :func:`string_end` and :func:`read_string`
check every length against the payload and raise the caller's own
:class:`MalformedCdr` subclass, whose message names the field and the fault.
"""

from __future__ import annotations

import struct
from typing import NoReturn

__all__ = ['ENCAPSULATIONS', 'HEADER_SIZE', 'STAMP', 'UINT32', 'MalformedCdr', 'align',
           'content_end', 'read_string', 'string_end']


#: encapsulation id (the header's first two bytes) -> (byte order, alignment of doubles);
#: plain tuples: unpacking a tuple subclass is slower, and the JointState reader
#: unpacks one per message
ENCAPSULATIONS = {
    b'\x00\x01': ('<', 8),   # CDR_LE (XCDR1): what ROS 2 publishers send
    b'\x00\x00': ('>', 8),   # CDR_BE
    b'\x00\x07': ('<', 4),   # PLAIN_CDR2_LE (XCDR2, final types: 8-byte values aligned to 4)
    b'\x00\x06': ('>', 4),   # PLAIN_CDR2_BE
}
HEADER_SIZE = 4
#: builtin_interfaces/Time (int32 sec, uint32 nanosec), by byte order
STAMP = {'<': struct.Struct('<iI'), '>': struct.Struct('>iI')}
UINT32 = {'<': struct.Struct('<I'), '>': struct.Struct('>I')}


class MalformedCdr(ValueError):
    """
    A payload a codec will not read; each codec raises its own subclass.

    ``reason`` is a short, fixed category (``encapsulation``, ``truncated``,
    ``string``, ``oversized``) for counting; ``str(err)`` says what and where.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f'{reason}: {detail}')
        self.reason = reason


def align(at: int, to: int) -> int:
    """``at`` rounded up so that ``at - 4`` is a multiple of ``to``."""
    return at + (-(at - 4) % to)   # a literal: a global's lookup shows on the hot path


def content_end(data: bytes) -> int:
    """End of the payload without the end padding the encapsulation options declare."""
    return len(data) - (data[3] & 3)


def _field(what: str, index: int | None) -> str:
    return what if index is None else f'{what}[{index}]'


def string_end(data: bytes, at: int, uint32: struct.Struct, error: type[MalformedCdr],
               what: str, index: int | None = None) -> int:
    """
    End of the CDR string at ``at``, checked (bounds, NUL terminator).

    A string starts with its uint32 length, so at the first 4-aligned offset
    from ``at``. ``what`` (and ``index``, for a sequence's element:
    ``what[index]``) names the field in the ``error`` raised; it is formatted
    only then, as names are read by the dozen per message.
    """
    at += -(at - 4) % 4
    size = len(data)
    if at + 4 <= size:
        (length,) = uint32.unpack_from(data, at)
        end = at + 4 + length
        if end <= size and length and data[end - 1] == 0:
            return end
    _refuse(data, at, uint32, error, _field(what, index), None)


def read_string(data: bytes, at: int, uint32: struct.Struct, error: type[MalformedCdr],
                what: str, index: int | None = None,
                max_length: int | None = None) -> tuple[str, int]:
    """
    ``(text, end)`` of the CDR string at ``at``: :func:`string_end`, then its content checked.

    Stricter than rclpy, which truncates at an embedded NUL and substitutes
    what is not UTF-8: two different names would then read equal.
    ``max_length`` (bytes without the NUL) refuses a string over it. The
    accepting path is :func:`string_end`'s written out again: a full
    JointState decode reads every name through here, and the call costs it
    17 % (docs/benchmarks.md, "The Python JointState reader").
    """
    at += -(at - 4) % 4
    size = len(data)
    if at + 4 <= size:
        (length,) = uint32.unpack_from(data, at)
        end = at + 4 + length
        if end <= size and length and data[end - 1] == 0 and \
                (max_length is None or length <= max_length + 1):
            raw = data[at + 4:end - 1]
            if b'\x00' not in raw:
                try:
                    return raw.decode('utf-8'), end
                except UnicodeDecodeError:
                    pass
    _refuse(data, at, uint32, error, _field(what, index), max_length)


def _refuse(data: bytes, at: int, uint32: struct.Struct, error: type[MalformedCdr], what: str,
            max_length: int | None) -> NoReturn:
    """Raise ``error`` naming the first fault of the string at ``at`` (there is one)."""
    size = len(data)
    if at + 4 > size:
        raise error('truncated', f'{what}: no length at byte {at} of {size}')
    (length,) = uint32.unpack_from(data, at)
    if at + 4 + length > size:
        raise error('truncated',
                    f'{what}: {length} bytes at byte {at + 4}, beyond the {size}-byte payload')
    if not length or data[at + 4 + length - 1] != 0:
        raise error('string', f'{what}: no NUL terminator')
    if max_length is not None and length - 1 > max_length:
        raise error('oversized', f'{what}: longer than {max_length} bytes')
    if b'\x00' in data[at + 4:at + 3 + length]:
        raise error('string', f'{what}: embedded NUL')
    raise error('string', f'{what}: not UTF-8')
