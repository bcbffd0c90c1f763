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
The raw JointState reader against rclpy's own deserialisation, value for value.

The fuzz tests feed it malformed payloads made from real serialised messages
(truncated, random, mutated, absurd counts, bad strings): it must either
return exactly what rclpy's ``deserialize_message`` returns or raise
:class:`MalformedJointState` -- never another exception, never a result rclpy
would not give, never an allocation out of proportion to the payload.
"""
import struct
import tracemalloc

import numpy as np
import pytest

pytestmark = pytest.mark.ros  # needs rclpy and DDS

pytest.importorskip('rclpy')

from rclpy.serialization import (  # noqa: E402 - after importorskip
    deserialize_message, serialize_message)
from sensor_msgs.msg import JointState  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.joint_state_cdr import (  # noqa: E402 - after importorskip
    JointStateReader)
from urdf_state_py.node.tf_path.joint_state_cdr import (  # noqa: E402 - after importorskip
    MalformedJointState)

ALPHABET = ['a', 'joint', '_', '1', 'é', 'ß', '関節', '🦾', ' ', '/']


def random_joint_state(rng) -> JointState:
    msg = JointState()
    msg.header.stamp.sec = int(rng.integers(-2**31, 2**31))
    msg.header.stamp.nanosec = int(rng.integers(0, 2**32))
    msg.header.frame_id = ''.join(rng.choice(ALPHABET, int(rng.integers(0, 6))))
    n = int(rng.integers(0, 12))
    msg.name = [''.join(rng.choice(ALPHABET, int(rng.integers(0, 7)))) for _ in range(n)]
    for field in ('position', 'velocity', 'effort'):
        count = n if rng.random() < 0.6 else int(rng.integers(0, 12))  # length mismatches too
        values = rng.normal(size=count) * 10.0 ** rng.integers(-3, 4)
        if count and rng.random() < 0.2:
            values[int(rng.integers(0, count))] = rng.choice([np.nan, np.inf, -np.inf, -0.0])
        setattr(msg, field, values.tolist())
    return msg


def assert_same(fields, msg):
    names, positions, sec, nanosec = fields
    assert list(names) == list(msg.name)
    assert (sec, nanosec) == (msg.header.stamp.sec, msg.header.stamp.nanosec)
    expected = np.asarray(msg.position, dtype=float)
    assert positions.dtype == np.float64 and positions.shape == expected.shape
    assert positions.tobytes() == expected.tobytes()  # bit for bit (NaN, -0.0 included)


def test_random_messages_decode_as_rclpy_does():
    rng = np.random.default_rng(7)
    reader = JointStateReader()
    for _ in range(300):
        data = serialize_message(random_joint_state(rng))
        fields = reader.read(data)
        assert fields is not None
        assert_same(fields, deserialize_message(data, JointState))


def test_repeated_names_hit_the_cache_and_keep_the_tuple():
    rng = np.random.default_rng(3)
    reader = JointStateReader()
    msg = random_joint_state(rng)
    msg.name = ['hip', 'knee', 'ankle', '関節']
    first = None
    for i in range(5):
        msg.position = rng.normal(size=4 + i % 2).tolist()  # also a length change
        msg.header.stamp.sec = i
        data = serialize_message(msg)
        fields = reader.read(data)
        assert_same(fields, deserialize_message(data, JointState))
        first = first or fields[0]
        assert fields[0] is first
    msg.name = ['hip', 'knee', 'ankle', 'toe']
    data = serialize_message(msg)
    assert_same(reader.read(data), deserialize_message(data, JointState))


def rclpy_decode(data):
    try:
        return deserialize_message(data, JointState)
    except Exception:  # rclpy's errors (RMWError...) vary by release
        return None


def check_against_rclpy(reader, data) -> bool:
    """Return the reader's verdict on ``data`` agrees with rclpy's; True when it accepted."""
    try:
        fields = reader.read(data)
    except MalformedJointState as err:
        assert err.reason in ('encapsulation', 'truncated', 'string', 'oversized'), err
        return False
    msg = rclpy_decode(data)
    assert msg is not None, f'accepted what rclpy rejects: {data.hex()}'
    assert_same(fields, msg)
    return True


def count_offsets(data):
    """Offsets of the name count and of every uint32 length/count of a LE XCDR1 JointState."""
    u32 = struct.Struct('<I')
    offsets = [12]
    at = 16 + u32.unpack_from(data, 12)[0]
    at += -(at - 4) % 4
    offsets.append(at)
    (n,) = u32.unpack_from(data, at)
    at += 4
    for _ in range(n):
        at += -(at - 4) % 4
        offsets.append(at)
        at += 4 + u32.unpack_from(data, at)[0]
    for _ in range(3):
        at += -(at - 4) % 4
        offsets.append(at)
        (n,) = u32.unpack_from(data, at)
        at += 4
        if n:
            at += -(at - 4) % 8 + 8 * n
    return offsets


def mutations(rng, data):
    """Malformed variants of one real payload, one per class of the hostile-input list."""
    size = len(data)
    yield data[:int(rng.integers(0, size))]                                  # truncated
    yield rng.bytes(int(rng.integers(0, 2 * size + 1)))                     # random bytes
    yield data[:4] + rng.bytes(int(rng.integers(0, 2 * size)))              # header + random
    yield data[:4]                                                          # header only
    yield bytes(rng.choice([0, 1, 6, 7, 3, 2, 0x12], 2).astype(np.uint8).tolist()) + data[2:]
    flipped = bytearray(data)
    for _ in range(int(rng.integers(1, 5))):
        flipped[int(rng.integers(0, size))] = int(rng.integers(0, 256))
    yield bytes(flipped)                                                    # mutated bytes
    for value in (2**31, 2**32 - 1, 2**31 - 1, 0, int(rng.integers(0, 2**32))):
        at = int(rng.choice(count_offsets(data)))
        yield data[:at] + struct.pack('<I', value) + data[at + 4:]         # absurd counts


def test_fuzz_malformed_payloads_raise_or_match_rclpy():
    rng = np.random.default_rng(11)
    accepted = rejected = 0
    for _ in range(400):
        data = serialize_message(random_joint_state(rng))
        for reader in (JointStateReader(), None):  # a fresh reader and one with a warm cache
            reader = reader or JointStateReader()
            assert check_against_rclpy(reader, data)  # the real message itself
            for bad in mutations(rng, data):
                if check_against_rclpy(reader, bad):
                    accepted += 1
                else:
                    rejected += 1
    # both verdicts occur (mutations that keep the message valid exist), so the oracle ran
    assert accepted > 100 and rejected > 2000, (accepted, rejected)


def names_payload(raw_names):
    """Return a JointState payload (LE XCDR1) whose name strings are the given raw bytes."""
    out = bytearray(b'\x00\x01\x00\x00' + struct.pack('<iI', 1, 2) + struct.pack('<I', 1)
                    + b'\0\0\0\0')
    out += struct.pack('<I', len(raw_names))
    for raw in raw_names:
        out += b'\0' * (-(len(out) - 4) % 4) + struct.pack('<I', len(raw)) + raw
    out += b'\0' * (-(len(out) - 4) % 4) + struct.pack('<I', 0) * 3
    return bytes(out)


@pytest.mark.parametrize('raw, reason', [
    (b'joint', 'string'),                 # no NUL terminator (rclpy keeps the bytes anyway)
    (b'', 'string'),                      # zero length: not even the terminator
    (b'jo\0int\0', 'string'),             # embedded NUL (rclpy truncates: 'jo')
    (b'\xff\xfejoint\0', 'string'),       # not UTF-8 (rclpy substitutes U+FFFD)
])
def test_bad_strings_are_rejected_naming_the_fault(raw, reason):
    good = names_payload([b'a\0'])
    assert JointStateReader().read(good)[0] == ('a',)
    with pytest.raises(MalformedJointState, match=r'name\[1\]') as err:
        JointStateReader().read(names_payload([b'a\0', raw]))
    assert err.value.reason == reason


@pytest.mark.parametrize('mangle', ['big endian header', 'truncated names', 'truncated positions',
                                    'huge count', 'empty', 'header only', 'huge position count'])
def test_what_it_cannot_read_raises(mangle):
    data = serialize_message(JointState(name=['a', 'b'], position=[1.0, 2.0]))
    # 12: frame_id length (1), 20: name count, 24/32: names, 40: position count, 44: doubles
    assert data[40:44] == b'\x02\x00\x00\x00' and data[44:52] == np.float64(1.0).tobytes()
    bad = {'big endian header': b'\x00\x00' + data[2:], 'truncated names': data[:30],
           'truncated positions': data[:52],
           'huge count': data[:20] + b'\xff\xff\xff\x7f' + data[24:], 'empty': b'',
           'header only': data[:4],
           'huge position count': data[:40] + struct.pack('<I', 2**31) + data[44:]}[mangle]
    with pytest.raises(MalformedJointState):
        JointStateReader().read(bad)
    assert rclpy_decode(bad) is None  # rclpy fails on these too (the node used to crash)


def test_big_endian_and_xcdr2_are_read():
    msg = JointState(name=['a', 'bc'], position=[1.5, -2.0], velocity=[3.0])
    msg.header.stamp.sec, msg.header.stamp.nanosec = 5, 6
    le = serialize_message(msg)
    u32, be = struct.Struct('<I'), bytearray(b'\x00\x00' + le[2:])
    for at in count_offsets(le) + [4, 8]:
        be[at:at + 4] = le[at:at + 4][::-1]
    for at in (44, 52, 64):  # the three doubles (position 2, velocity 1)
        be[at:at + 8] = le[at:at + 8][::-1]
    assert u32.unpack_from(le, 60)[0] == 1
    names, positions, sec, nanosec = JointStateReader().read(bytes(be))
    assert names == ('a', 'bc') and positions.tolist() == [1.5, -2.0] and (sec, nanosec) == (5, 6)
    assert_same(JointStateReader().read(bytes(be)), deserialize_message(bytes(be), JointState))


def test_oversized_name_list_is_rejected_before_decoding():
    data = serialize_message(JointState(name=[f'j{i}' for i in range(100)], position=[0.0] * 100))
    assert len(JointStateReader(max_names=100).read(data)[0]) == 100
    with pytest.raises(MalformedJointState, match='100 names, more than the 99') as err:
        JointStateReader(max_names=99).read(data)
    assert err.value.reason == 'oversized'


def test_absurd_counts_allocate_nothing_in_proportion():
    data = serialize_message(JointState(name=['a', 'b'], position=[1.0, 2.0]))
    reader = JointStateReader()
    tracemalloc.start()
    try:
        for at in count_offsets(data):
            for value in (2**31, 2**32 - 1):
                bad = data[:at] + struct.pack('<I', value) + data[at + 4:]
                tracemalloc.reset_peak()
                with pytest.raises(MalformedJointState):
                    reader.read(bad)
                assert tracemalloc.get_traced_memory()[1] < 16 * 1024, (at, value)
        # the worst case of a valid payload: tiny names, ~10 Python bytes per payload byte
        many = serialize_message(JointState(name=['x'] * 20000, position=[0.0] * 20000))
        tracemalloc.reset_peak()
        reader.read(many)
        assert tracemalloc.get_traced_memory()[1] < 16 * len(many)
    finally:
        tracemalloc.stop()
