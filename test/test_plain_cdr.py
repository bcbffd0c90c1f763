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
The shared plain CDR rules, through both codecs that use them (JointState and TFMessage).

The payloads are encoded by hand here, in each of the four encapsulations
rclpy never writes (big-endian, XCDR2 with 4-aligned doubles, end padding
declared by the options), with 0xAA in every alignment padding byte, as a
serialiser that leaves it uninitialised would: both readers must give the
same values whatever the encapsulation, and refuse the same bad string for
the same reason.
"""
import struct

import numpy as np
import pytest
from urdf_state_py.node.tf_path.joint_state_cdr import JointStateReader, MalformedJointState
from urdf_state_py.node.tf_path.tf_message_cdr import (
    decode_layout, MalformedTf, MAX_FRAME_ID, TfReader)

#: (encapsulation id, byte order, alignment of doubles, options)
ENCAPSULATIONS = [(1, '<', 8, 0), (0, '>', 8, 0), (7, '<', 4, 2), (6, '>', 4, 3)]
PAD = b'\xaa'


class Writer:
    """A plain CDR encoder for the tests: alignment relative to the 4-byte header."""

    def __init__(self, encapsulation: int, order: str, double_align: int, options: int):
        self.order, self.double_align, self.options = order, double_align, options
        self.out = bytearray(bytes([0, encapsulation, 0, options]))

    def align(self, to: int) -> None:
        self.out += PAD * (-(len(self.out) - 4) % to)

    def pack(self, fmt: str, *values) -> None:
        self.out += struct.pack(self.order + fmt, *values)

    def string(self, raw: bytes) -> None:
        self.align(4)
        self.pack('I', len(raw))
        self.out += raw

    def doubles(self, values) -> None:
        self.align(4)
        self.pack('I', len(values))
        if values:
            self.align(self.double_align)
            self.pack(f'{len(values)}d', *values)

    def payload(self) -> bytes:
        return bytes(self.out + b'\0' * (self.options & 3))


def joint_state(encapsulation, names, positions) -> bytes:
    w = Writer(*encapsulation)
    w.pack('iI', 7, 8)
    w.string(b'base\0')
    w.align(4)
    w.pack('I', len(names))
    for raw in names:
        w.string(raw)
    w.doubles(positions)
    w.doubles([])
    w.doubles(positions)
    return w.payload()


def tf_message(encapsulation, transforms) -> bytes:
    w = Writer(*encapsulation)
    w.pack('I', len(transforms))
    for k, (parent, child, values) in enumerate(transforms):
        w.align(4)
        w.pack('iI', 100 + k, 5)
        w.string(parent)
        w.string(child)
        w.align(w.double_align)
        w.pack('7d', *values)
    return w.payload()


@pytest.mark.parametrize('encapsulation', ENCAPSULATIONS)
def test_both_codecs_read_every_encapsulation_alike(encapsulation):
    positions = [1.5, -2.25, 3.0]
    names, got, sec, nanosec = JointStateReader().read(
        joint_state(encapsulation, [b'a\0', b'bc\0', 'é\0'.encode()], positions))
    assert names == ('a', 'bc', 'é') and got.tolist() == positions and (sec, nanosec) == (7, 8)

    transforms = [(b'/base\0', b'a\0', [0.5, 1.0, 2.0, 0.0, 0.0, 0.0, 1.0]),
                  (b'a\0', b'bc\0', [-1.0, 0.25, 4.0, 0.0, 0.0, 1.0, 0.0])]
    data = tf_message(encapsulation, transforms)
    layout, values, stamps = TfReader().read(data)
    assert layout.parents == ('base', 'a') and layout.children == ('a', 'bc')
    assert values.tolist() == [t[2] for t in transforms]
    assert stamps.tolist() == [100 + 5e-9, 101 + 5e-9]
    # the padding the walk reports (what the /tf writer clears) is exactly the 0xAA bytes
    padded = {at for at, byte in enumerate(data) if byte == PAD[0]}
    assert padded and set(layout.padding.tolist()) == padded


@pytest.mark.parametrize('raw, reason', [
    (b'joint', 'string'),                 # no NUL terminator
    (b'', 'string'),                      # zero length: not even the terminator
    (b'jo\0int\0', 'string'),             # embedded NUL
    (b'\xff\xfejoint\0', 'string'),       # not UTF-8
    (b'j' * (MAX_FRAME_ID + 1) + b'\0', 'oversized'),
])
def test_both_codecs_refuse_a_bad_string_for_the_same_reason(raw, reason):
    encapsulation = ENCAPSULATIONS[0]
    if reason != 'oversized':   # a JointState has no limit on its names but the message's size
        with pytest.raises(MalformedJointState, match=r'name\[1\]') as err:
            JointStateReader().read(joint_state(encapsulation, [b'a\0', raw], [0.0, 0.0]))
        assert err.value.reason == reason
    pose = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    for transforms, field in (([(b'base\0', b'a\0', pose), (raw, b'b\0', pose)],
                               r'transforms\[1\]\.header\.frame_id'),
                              ([(b'base\0', raw, pose)], r'transforms\[0\]\.child_frame_id')):
        with pytest.raises(MalformedTf, match=field) as err:
            decode_layout(tf_message(encapsulation, transforms))
        assert err.value.reason == reason


def test_the_writer_walk_takes_any_frame_id_length():
    pose = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    long_name = b'j' * (MAX_FRAME_ID + 1) + b'\0'
    layout = decode_layout(tf_message(ENCAPSULATIONS[0], [(b'base\0', long_name, pose)]),
                           max_frame_id=None)
    assert layout.children == ('j' * (MAX_FRAME_ID + 1),)
    assert np.array_equal(layout.value_index, np.arange(7) + layout.value_index[0])
