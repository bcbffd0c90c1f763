"""The native loop's start-up self-test: the C plan against the Python specification.

Why: the extension is admitted by distro (:mod:`.native`), not by patch release,
so before the loop serves, this process checks that the build it loaded computes
what the Python path computes here -- with this numpy, this libm, this CPU's
rounding. A small robot (revolute, continuous, mimic and fixed joints) gets
:data:`_MESSAGES` synthetic JointStates, each serialised as DDS would deliver it.
The Python specification (merge, rate limit, ``Kinematics.resolve``, the /tf
writer) computes each /tf; the native side runs them as the node does
(:class:`~.native_loop.LoopSync` installs the plan, ``Loop.step`` runs it, a
handed-over message takes the Python path). Every /tf must be identical, byte
for byte, and the C plan must have served some of them. A failure names the
message and what differed; :func:`~.native.status` then refuses the native loop.
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import numpy as np

__all__ = ['SELF_TEST_ROBOT', 'self_test_failure']

#: Synthetic messages (the first installs the plan; the rest the plan serves).
_MESSAGES = 24
_NS = 1_000_000_000

#: The robot the self-test drives (the unit tests of the fused path use it too).
SELF_TEST_ROBOT = """<robot name="urdf_state_self_test">
  <link name="base"/><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
  <link name="e"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.1" rpy="0.1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="0.2 0 0" rpy="0 0.3 0"/><axis xyz="0 1 0"/></joint>
  <joint name="j3" type="revolute"><parent link="b"/><child link="c"/>
    <origin xyz="0 0.1 0" rpy="0 0 0.2"/><axis xyz="1 0 0"/>
    <limit lower="-1.5" upper="1.5" effort="1" velocity="1"/>
    <mimic joint="j1" multiplier="2" offset="0.1"/></joint>
  <joint name="j4" type="continuous"><parent link="b"/><child link="d"/>
    <axis xyz="0 0 1"/><mimic joint="j2" multiplier="-1"/></joint>
  <joint name="f" type="fixed"><parent link="d"/><child link="e"/>
    <origin xyz="0 0 0.3"/></joint>
</robot>"""


class _Raise:
    """LoopSync's error sink: a failure inside it fails the self-test."""

    def record(self, exc: BaseException) -> None:
        raise exc


def self_test_failure(module: ModuleType) -> str | None:
    """Why the native loop of ``module`` must not serve (None: it passed)."""
    try:
        return _run(module)
    except Exception as exc:  # noqa: BLE001 - any failure refuses the loop, with its reason
        return f'{type(exc).__name__}: {exc}'


def _run(module: ModuleType) -> str | None:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    from ...core.kinematics import Kinematics
    from ...core.parsers.urdf_xml import UrdfXmlParser
    from ..health import Health
    from .fast_path import FastPath
    from .joint_state_cdr import JointStateReader
    from .joint_state_merger import JointStateMerger
    from .native_loop import LoopSync, PausingLock
    from .tf_publishing import MovingTransforms

    model = UrdfXmlParser().parse(SELF_TEST_ROBOT)
    kin = Kinematics(model)
    sides = []
    for _ in range(2):
        merger = JointStateMerger(model, kin.variable_index, kin.default_positions(),
                                  frequency=0.0)
        moving = MovingTransforms(kin, '')
        sides.append((merger, moving, FastPath(merger, kin, moving)))
    cfg = {'publish_default_positions': False, 'ignore_limits': False}
    loaded = SimpleNamespace(merger=sides[1][0], fast=sides[1][2])
    holder = SimpleNamespace(last_tf_ns=0)
    sync = LoopSync(module, lambda: (loaded, cfg), Health(), holder, _Raise())
    lock = PausingLock()
    lock.sync = sync
    reader = JointStateReader()
    names = ['j1', 'j2']
    rng = np.random.default_rng(20261206)
    served = 0
    for k in range(_MESSAGES):
        msg = JointState(name=names, position=[float(rng.uniform(-0.6, 0.6)),
                                               float(rng.uniform(-3.0, 3.0))])
        stamp = 5 * _NS + 1_000_000 * k + int(rng.integers(0, 1000))
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp, _NS)
        data = serialize_message(msg)
        now = 7 * _NS + 1_000_000 * k
        want = _specification(sides[0], kin, reader, data, now)
        loop = sync.loop
        loop.pause()
        try:
            result, payload = loop.step(data, now) if sync.installed else ('none', None)
        finally:
            loop.resume()
        if result == 'publish':
            served += 1
            got = payload
        elif result == 'throttled':
            got = None
        else:                        # handed over: the node's Python path
            with lock:
                got = _python(sides[1], kin, reader, data, now)
        if got != want:
            return (f'message {k + 1} of {_MESSAGES}: the native /tf differs from the Python '
                    f'specification ({result})')
    with lock:
        if not np.array_equal(sides[0][0].q, sides[1][0].q):
            return 'the merged joint state differs from the Python specification'
    return None if served else 'the C plan served none of the messages'


def _specification(side, kin, reader, data: bytes, now: int) -> bytes | None:
    """What the node publishes for ``data``, by the definition: the general path."""
    return _general(side, kin, reader, data, now)


def _general(side, kin, reader, data: bytes, now: int, fast=None) -> bytes | None:
    """The general path (``fast``: the fused path, told of the resolve as the node tells it)."""
    merger, moving, _ = side
    names, positions, sec, nanosec = reader.read(data)
    update = merger.update(names, positions, sec * _NS + nanosec, now)
    if not (update.publish and update.joints):
        return None
    q_eff, clamped = kin.resolve(merger.q, False)
    if fast is not None:
        fast.resolved(clamped, False)
    return moving.payload_at(update.joints, q_eff, sec, nanosec)


def _python(side, kin, reader, data: bytes, now: int) -> bytes | None:
    """The node's Python path for a message the loop hands over (fused, else general)."""
    _, _, fast = side
    names, positions, sec, nanosec = reader.read(data)
    got = fast.update(names, positions, sec * _NS + nanosec, now, sec, nanosec, False)
    if got is None:
        got = _general(side, kin, reader, data, now, fast)
    return got or None
