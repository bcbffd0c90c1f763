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
Turning joint transforms into tf2_msgs/TFMessage objects (messages, no node).

* :func:`static_message` builds the ``/tf_static`` message: every fixed joint
  in ONE TFMessage, so a late subscriber (transient local, depth 1) gets the
  whole set and frames removed by a reload disappear.
* :class:`MovingTransforms` serves the ``/tf`` messages: one preallocated
  TFMessage per set of joints (a JointState publisher repeats its joint set),
  whose frame ids are set once and whose numbers and stamp are overwritten in
  place for each update. Building 59 TransformStamped objects costs ~0.5 ms in
  rclpy; updating them in place ~40 us. rclpy serialises a message inside
  ``publish()``, so reusing the object afterwards is safe.

On top of that, :meth:`MovingTransforms.payload` returns the message already
serialised: the TFMessage of a joint set is serialised once by rclpy, the byte
offsets of its stamps and numbers read from those bytes by the TFMessage
layout walk (:func:`.tf_message_cdr.decode_layout`, which also gives the
alignment padding to clear), and each update writes the new numbers straight
into a copy of those bytes (one numpy scatter) for ``publisher.publish(bytes)``.
That skips rclpy's Python-to-C conversion, which reads every field through a
Python property (~150 us for TALOS). The layout is read, never assumed, and
checked by a deserialisation round trip; if anything does not match, the plain
message is used.

Frame ids are ``frame_prefix + link name`` (no separator added, as upstream).
"""

from __future__ import annotations

from collections.abc import Sequence

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
import numpy as np
from tf2_msgs.msg import TFMessage

from .tf_message_cdr import decode_layout, MalformedTf, TfLayout

__all__ = ['MovingTransforms', 'static_message']

_CACHE_SIZE = 64


def _fill(transform: TransformStamped, xyz, xyzw) -> None:
    t = transform.transform.translation
    t.x, t.y, t.z = xyz
    r = transform.transform.rotation
    r.x, r.y, r.z, r.w = xyzw


def static_message(joint_transforms, frame_prefix: str, stamp: Time) -> TFMessage:
    """One TFMessage with every transform of ``joint_transforms`` (a JointTransforms)."""
    transforms = []
    for parent, child, xyz, xyzw in zip(joint_transforms.parents, joint_transforms.children,
                                        joint_transforms.translations.tolist(),
                                        joint_transforms.rotations.tolist()):
        msg = TransformStamped()
        msg.header.stamp = stamp
        msg.header.frame_id = frame_prefix + parent
        msg.child_frame_id = frame_prefix + child
        _fill(msg, xyz, xyzw)
        transforms.append(msg)
    return TFMessage(transforms=transforms)


class _Serialized:
    """
    The CDR bytes of one preallocated TFMessage, with the offsets of its numbers.

    The bytes live in one buffer seen three ways: as doubles from offset 4 (CDR
    aligns doubles to 8 from the 4-byte encapsulation header, so every double
    sits at 4 + 8k) and as int32 / uint32 words (stamps are 4-aligned). An
    update is then three or four scatters of values into index arrays -- no
    per-byte index, no temporary arrays -- and one copy out as ``bytes``.
    """

    __slots__ = ('_size', '_bytes', '_doubles', '_int32', '_uint32', '_translation_at',
                 '_rotation_at', '_sec_at', '_nanosec_at', '_translations_written')

    def __init__(self, data: bytes, layout: TfLayout) -> None:
        """
        Hold a serialised template and where to patch it.

        ``data``: the template; ``layout``: its :func:`~.tf_message_cdr.decode_layout`,
        little-endian with every double 8-aligned (XCDR1). The alignment padding,
        which rclpy leaves uninitialised (heap leftovers), is cleared: the bytes
        are then the same for the same message.
        """
        self._size = len(data)
        buffer = np.zeros(4 + -(-(self._size - 4) // 8) * 8, dtype=np.uint8)  # 4 + 8k bytes
        buffer[:self._size] = np.frombuffer(data, dtype=np.uint8)
        buffer[layout.padding] = 0
        self._bytes = buffer
        self._doubles = buffer[4:].view('<f8')
        self._int32 = buffer.view('<i4')
        self._uint32 = buffer.view('<u4')
        at = layout.value_index.reshape(-1, 7)    # indices of doubles from offset 4
        self._translation_at, self._rotation_at = at[:, :3], at[:, 3:]
        self._sec_at = layout.stamp_words + 1     # words from offset 0, not 4
        self._nanosec_at = self._sec_at + 1
        self._translations_written = None

    def offsets(self) -> tuple[np.ndarray, np.ndarray, bytes]:
        """
        Return where an update writes, for a writer of its own (the native loop's plan).

        ``(rotation_at, sec_at, payload)``: ``rotation_at`` (n, 4) byte offsets of each
        transform's qx qy qz qw, ``sec_at`` (n,) byte offsets of each stamp's sec (its
        nanosec follows), ``payload`` the message with the translations of the last
        :meth:`update`.
        """
        return (4 + 8 * self._rotation_at, 4 * self._sec_at,
                self._bytes[:self._size].tobytes())

    @classmethod
    def build(cls, entry: '_Preallocated') -> '_Serialized | None':
        """Locate the numbers in the serialised message; None when that is not possible."""
        try:
            from rclpy.serialization import deserialize_message, serialize_message
        except ImportError:  # pragma: no cover
            return None
        n = len(entry.translations)
        if n == 0:
            return None
        data = serialize_message(entry.message)
        try:
            layout = decode_layout(data, max_frame_id=None)
        except MalformedTf:
            return None
        if layout.order != '<' or layout.value_bytes:   # what the views below assume
            return None
        result = cls(data, layout)
        # Round trip with other values: the bytes must decode to the message.
        trial = np.arange(n * 7, dtype=float).reshape(n, 7) * 0.25 + 0.5
        check = deserialize_message(result.update(trial[:, :3], trial[:, 3:], 12, 34),
                                    type(entry.message))
        expected = entry.update(trial[:, :3].tolist(), trial[:, 3:].tolist(), 12, 34)
        return result if check == expected else None

    def update(self, translations: np.ndarray, rotations: np.ndarray, sec: int,
               nanosec: int) -> bytes:
        # A read-only translations array is a constant (the joint origins when no
        # joint of the set translates): written once, then left in place.
        if translations is not self._translations_written:
            self._doubles[self._translation_at] = translations
            self._translations_written = (None if translations.flags.writeable
                                          else translations)
        self._doubles[self._rotation_at] = rotations
        self._int32[self._sec_at] = sec
        self._uint32[self._nanosec_at] = nanosec
        return self._bytes[:self._size].tobytes()


class _Preallocated:
    """A TFMessage for one joint set, with handles on the fields that change."""

    __slots__ = ('message', 'stamp', 'translations', 'rotations', 'serialized')

    def __init__(self, parents: Sequence[str], children: Sequence[str], prefix: str) -> None:
        self.stamp = Time()
        transforms, self.translations, self.rotations = [], [], []
        for parent, child in zip(parents, children):
            msg = TransformStamped()
            msg.header.stamp = self.stamp  # one shared Time object: one update per message
            msg.header.frame_id = prefix + parent
            msg.child_frame_id = prefix + child
            msg.transform.rotation.w = 1.0
            transforms.append(msg)
            self.translations.append(msg.transform.translation)
            self.rotations.append(msg.transform.rotation)
        self.message = TFMessage(transforms=transforms)
        self.serialized: _Serialized | None | bool = False  # False: not tried yet

    def template(self) -> _Serialized | None:
        """Return the serialised :attr:`message` (built on first use; None: not possible)."""
        if self.serialized is False:
            self.serialized = _Serialized.build(self)
        return self.serialized

    def update(self, translations: list, rotations: list, sec: int, nanosec: int) -> TFMessage:
        self.stamp.sec = sec
        self.stamp.nanosec = nanosec
        for t, r, (x, y, z), (qx, qy, qz, qw) in zip(self.translations, self.rotations,
                                                     translations, rotations):
            t.x = x
            t.y = y
            t.z = z
            r.x = qx
            r.y = qy
            r.z = qz
            r.w = qw
        return self.message


class MovingTransforms:
    """
    ``/tf`` messages for the movable joints of one kinematics, with a frame prefix.

    ``kinematics`` is a :class:`~urdf_state_py.core.kinematics.Kinematics`: its
    ``joint_index`` array for each joint set is cached along with the message.
    """

    def __init__(self, kinematics, frame_prefix: str = '') -> None:
        self._kin = kinematics
        self._prefix = frame_prefix
        self._cache: dict[tuple[str, ...], tuple] = {}  # joints -> (index array, _Preallocated)

    @property
    def frame_prefix(self) -> str:
        """Fix for the object's lifetime: a new prefix takes a new MovingTransforms."""
        return self._prefix

    def _entry(self, joints: tuple[str, ...]):
        entry = self._cache.get(joints)
        if entry is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            index = self._kin.joint_index(joints)
            sel = self._kin.selection(index)
            entry = self._cache[joints] = (
                index, _Preallocated(sel.parents, sel.children, self._prefix))
        return entry

    def serialized(self, joints: tuple[str, ...]) -> '_Serialized | None':
        """
        Return the serialised template of ``joints`` with their translations written in.

        None when the message cannot be pre-serialised, or when one of the joints
        translates (the translations then change with every update).
        """
        index, pre = self._entry(joints)
        template = pre.template()
        if template is None:
            return None
        jt = self._kin.moving_transforms(self._kin.default_positions(), index)
        if jt.translations.flags.writeable:   # not the constant joint origins
            return None
        template.update(jt.translations, jt.rotations, 0, 0)
        return template

    def message(self, joints: tuple[str, ...], q_effective, stamp: Time) -> TFMessage:
        """
        Return the TFMessage for ``joints`` at ``q_effective``, stamped ``stamp``.

        The returned object is reused by the next call with the same joints:
        publish it before asking again.
        """
        index, pre = self._entry(joints)
        jt = self._kin.moving_transforms(q_effective, index)
        return pre.update(jt.translations.tolist(), jt.rotations.tolist(),
                          stamp.sec, stamp.nanosec)

    def payload(self, joints: tuple[str, ...], q_effective, stamp: Time) -> bytes | TFMessage:
        """Like :meth:`message`, but serialised when possible (for ``publish(bytes)``)."""
        return self.payload_at(joints, q_effective, stamp.sec, stamp.nanosec)

    def payload_at(self, joints: tuple[str, ...], q_effective, sec: int,
                   nanosec: int) -> bytes | TFMessage:
        """:meth:`payload` with the stamp as two integers (what the node has at hand)."""
        index, pre = self._entry(joints)
        template = pre.template()
        if template is None:
            return self.message(joints, q_effective, Time(sec=sec, nanosec=nanosec))
        jt = self._kin.moving_transforms(q_effective, index)
        return template.update(jt.translations, jt.rotations, sec, nanosec)
