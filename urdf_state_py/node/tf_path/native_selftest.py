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
The native loop's start-up self-test: the C plan against the Python specification.

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

__all__ = ['SELF_TEST_MODEL', 'self_test_failure']

#: Synthetic messages (the first installs the plan; the rest the plan serves).
_MESSAGES = 24
_NS = 1_000_000_000

#: The robot the self-test drives, as the parser process hands a model over
#: (``model_codec``: no XML parser in the node's start-up): revolute, continuous, mimic
#: and fixed joints. test_native_plan's TOY is the same robot in URDF (a test checks).
SELF_TEST_MODEL = [
    'urdf_state_self_test', ['base', 'a', 'b', 'c', 'd', 'e'], [
        ['j1', 'revolute', 'base', 'a', [0, 0, 0.1], [0.1, 0, 0], [0, 0, 1], [-1, 1, 1, 1],
         None, None],
        ['j2', 'continuous', 'a', 'b', [0.2, 0, 0], [0, 0.3, 0], [0, 1, 0], None, None, None],
        ['j3', 'revolute', 'b', 'c', [0, 0.1, 0], [0, 0, 0.2], [1, 0, 0], [-1.5, 1.5, 1, 1],
         None, ['j1', 2.0, 0.1]],
        ['j4', 'continuous', 'b', 'd', [0, 0, 0], [0, 0, 0], [0, 0, 1], None, None,
         ['j2', -1.0, 0.0]],
        ['f', 'fixed', 'd', 'e', [0, 0, 0.3], [0, 0, 0], [1, 0, 0], None, None, None]]]


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

    from .joint_state_cdr import JointStateReader
    from .joint_state_merger import JointStateMerger
    from .native_loop import LoopSync, PausingLock
    from .native_plan import NativePlans
    from .tf_publishing import MovingTransforms
    from ..health import Health
    from ...core.kinematics import Kinematics
    from ...core.model_codec import model_from_data

    model = model_from_data(SELF_TEST_MODEL)
    kin = Kinematics(model)
    sides = []
    for _ in range(2):
        merger = JointStateMerger(model, kin.variable_index, kin.default_positions(),
                                  frequency=0.0)
        moving = MovingTransforms(kin, '')
        sides.append(SimpleNamespace(merger=merger, kinematics=kin, moving=moving,
                                     plans=NativePlans(merger, kin, moving)))
    cfg = {'publish_default_positions': False, 'ignore_limits': False}
    loaded = sides[1]
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
        want = _specification(sides[0], reader, data, now)
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
                got = _specification(sides[1], reader, data, now)
        if got != want:
            return (f'message {k + 1} of {_MESSAGES}: the native /tf differs from the Python '
                    f'specification ({result})')
    with lock:
        if not np.array_equal(sides[0].merger.q, sides[1].merger.q):
            return 'the merged joint state differs from the Python specification'
    return None if served else 'the C plan served none of the messages'


def _specification(side, reader, data: bytes, now: int) -> bytes | None:
    """Return the /tf the node publishes for ``data``, by its specification (the step)."""
    from .joint_state_step import joint_state_step

    names, positions, sec, nanosec = reader.read(data)
    return joint_state_step(side, names, positions, sec, nanosec, now).payload
