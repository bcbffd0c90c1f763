"""The raw JointState reader against rclpy's own deserialisation, value for value."""
import numpy as np
import pytest

pytest.importorskip('rclpy')

from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from urdf_state_py.node.joint_state_cdr import JointStateReader  # noqa: E402

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


@pytest.mark.parametrize('mangle', ['big endian', 'truncated names', 'truncated positions',
                                    'huge count', 'empty'])
def test_what_it_cannot_read_is_left_to_rclpy(mangle):
    data = serialize_message(JointState(name=['a', 'b'], position=[1.0, 2.0]))
    # 12: frame_id length (1), 20: name count, 24/32: names, 40: position count, 44: doubles
    assert data[40:44] == b'\x02\x00\x00\x00' and data[44:52] == np.float64(1.0).tobytes()
    bad = {'big endian': b'\x00\x00' + data[2:], 'truncated names': data[:30],
           'truncated positions': data[:52],
           'huge count': data[:20] + b'\xff\xff\xff\x7f' + data[24:], 'empty': b''}[mangle]
    assert JointStateReader().read(bad) is None
