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

"""TFMessage building (messages only, no DDS): static set, in-place and serialised updates."""
import numpy as np
import pytest

pytestmark = pytest.mark.ros  # needs rclpy and DDS

pytest.importorskip('rclpy')
Time = pytest.importorskip('builtin_interfaces.msg').Time  # installed with rclpy

from rclpy.serialization import (  # noqa: E402 - after importorskip
    deserialize_message, serialize_message)
from robot_files import big_robot_params  # noqa: E402 - after importorskip
from tf2_msgs.msg import TFMessage  # noqa: E402 - after importorskip
from urdf_state_py.core.kinematics import Kinematics  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers import load_model  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.tf_message_cdr import (  # noqa: E402 - after importorskip
    decode_layout)
from urdf_state_py.node.tf_path.tf_publishing import (  # noqa: E402 - after importorskip
    MovingTransforms, static_message)


@pytest.fixture(scope='module', params=big_robot_params())
def talos(request):
    """Return a big real robot with mimic joints: the bundled H1_2, and TALOS with the corpus."""
    return Kinematics(load_model(request.param.read_text()))


def random_q(kin, seed):
    rng = np.random.default_rng(seed)
    q, _ = kin.resolve(kin.default_positions() + rng.uniform(-0.5, 0.5, kin.n_variables))
    return q


def test_static_message_has_every_fixed_joint(talos):
    msg = static_message(talos.fixed_transforms(), 'p/', Time(sec=3))
    fixed = [j for j in talos.model.joints if not j.is_movable]
    assert (sorted(t.child_frame_id for t in msg.transforms)
            == sorted('p/' + j.child for j in fixed))
    assert all(t.header.frame_id.startswith('p/') and t.header.stamp.sec == 3
               for t in msg.transforms)


def test_payload_bytes_decode_to_the_same_message(talos):
    moving = MovingTransforms(talos, 'r/')
    joints = talos.movable_joint_names
    for seed in range(3):
        q = random_q(talos, seed)
        stamp = Time(sec=100 + seed, nanosec=999_999_999)
        payload = moving.payload(joints, q, stamp)
        assert isinstance(payload, bytes)
        decoded = deserialize_message(payload, TFMessage)
        assert decoded == moving.message(joints, q, stamp)
        # byte for byte what rclpy itself puts on the wire, but for the alignment
        # padding, which rclpy leaves uninitialised and the payload keeps zeroed
        reference = bytearray(serialize_message(moving.message(joints, q, stamp)))
        padding = decode_layout(reference).padding.tolist()
        assert padding and all(payload[at] == 0 for at in padding)
        for at in padding:
            reference[at] = 0
        assert payload == bytes(reference)
        jt = talos.moving_transforms(q, joints)
        got = np.array([[t.transform.translation.x, t.transform.translation.y,
                         t.transform.translation.z] for t in decoded.transforms])
        assert np.array_equal(got, jt.translations)
        assert decoded.transforms[0].header.frame_id == 'r/' + jt.parents[0]


def test_message_reused_in_place_and_prefix_fixed_per_object(talos):
    moving = MovingTransforms(talos)
    joints = talos.movable_joint_names[:3]
    first = moving.message(joints, random_q(talos, 1), Time(sec=1))
    again = moving.message(joints, random_q(talos, 2), Time(sec=2))
    assert first is again and again.transforms[0].header.stamp.sec == 2
    # a prefix change takes a new MovingTransforms (the node swaps it in); the old
    # one keeps its frame names
    prefixed = MovingTransforms(talos, 'x/')
    assert prefixed.frame_prefix == 'x/' and moving.frame_prefix == ''
    other = prefixed.message(joints, random_q(talos, 2), Time(sec=2))
    assert other is not first and other.transforms[0].header.frame_id.startswith('x/')
    assert not moving.message(joints, random_q(talos, 3),
                              Time(sec=3)).transforms[0].header.frame_id.startswith('x/')
