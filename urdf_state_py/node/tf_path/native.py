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
The native extension (``_urdf_state_native``, C): whether this process may use it, and its decoder.

:func:`status` admits the build once per process: the librcl and librmw loaded here
must be of the distro it was built for, then the native loop's start-up self-test
must pass (synthetic messages through the C plan and through
:func:`~.joint_state_step.joint_state_step` give the same /tf bytes). A failed load
check leaves the Python code to serve, a failed self-test the native decoder and
wait with the Python path behind them; either is logged and on /diagnostics.
:class:`NativeJointStateReader` is ``joint_state_cdr.JointStateReader`` in C.
``URDF_STATE_NATIVE=off`` and ``URDF_STATE_NATIVE_MODULE`` are in docs/native_loop.md.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
import importlib
import importlib.util
import os
import re
from types import ModuleType, SimpleNamespace

import numpy as np

from .joint_state_cdr import JointStateReader, MalformedJointState

__all__ = ['NativeJointStateReader', 'NativeStatus', 'SELF_TEST_MODEL', 'abi_mismatch',
           'joint_state_reader', 'loadable', 'self_test_failure', 'status']

_MODULE = 'urdf_state_py.node.tf_path._urdf_state_native'
_OFF = ('off', '0', 'false', 'no')
#: rcl's major version -> the ROS 2 distribution (for the messages only).
_DISTROS = {'5': 'Humble', '9': 'Jazzy', '10': 'Kilted'}
#: How much of each version names the distro: rcl's major, rmw's major.minor.
_DISTRO_PARTS = {'rcl': 1, 'rmw': 2}


@dataclass(frozen=True)
class NativeStatus:
    """
    Whether the native extension serves joint_states here, and why.

    ``module``: the loaded extension, or None; ``reason``: why (for the log and
    /diagnostics); ``loop_refused``: why the native loop must not start although the
    module loaded (None: it may).
    """

    module: ModuleType | None
    reason: str
    loop_refused: str | None = None

    @property
    def summary(self) -> str:
        """One line naming what decodes joint_states and why."""
        which = 'native (C)' if self.module is not None else 'Python'
        return f'joint_states decoder: {which} ({self.reason})'


def _package_version(prefix: str, package: str) -> str | None:
    try:
        with open(os.path.join(prefix, 'share', package, 'package.xml'), encoding='utf-8') as f:
            found = re.search(r'<version>\s*([^<\s]+)\s*</version>', f.read())
    except OSError:
        return None
    return found.group(1) if found else None


def _import(path: str | None) -> ModuleType:
    if not path:
        return importlib.import_module(_MODULE)
    spec = importlib.util.spec_from_file_location(_MODULE, path)
    if spec is None or spec.loader is None:
        raise ImportError(f'{path}: not an extension module')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _distro_of(package: str, version: str | None) -> tuple[str, ...] | None:
    parts = (version or '').split('.')
    wanted = _DISTRO_PARTS[package]
    return tuple(parts[:wanted]) if len(parts) >= wanted and all(
        p.isdigit() for p in parts[:wanted]) else None


def abi_mismatch(info: dict[str, str]) -> str | None:
    """
    Return why a build described by ``build_info()`` must not run here (None: it may).

    The librcl and librmw loaded in this process must be of the distro it was built for.
    """
    for package in ('rcl', 'rmw'):
        loaded = info.get(f'loaded_{package}') or ''
        if not loaded:
            return f'no lib{package} is loaded in this process'
        loaded = os.path.realpath(loaded)
        running = _package_version(os.path.dirname(os.path.dirname(loaded)), package)
        built = info.get(package)
        if running is None:
            return (f'cannot tell the version of {loaded} '
                    f'(no share/{package}/package.xml beside it)')
        if _distro_of(package, running) is None or \
                _distro_of(package, running) != _distro_of(package, built):
            distro = _DISTROS.get((info.get('rcl') or '').split('.')[0], 'another ROS 2')
            return (f'built against {package} {built} ({distro}), but this process loaded '
                    f'{package} {running} from {loaded}')
    return None


@lru_cache(maxsize=1)
def status() -> NativeStatus:
    """
    Return whether the native extension serves joint_states in this process.

    Decided once: the load checks, then the native loop's self-test.
    """
    switch = os.environ.get('URDF_STATE_NATIVE', '').strip().lower()
    if switch in _OFF:
        return NativeStatus(None, 'URDF_STATE_NATIVE=off')
    found = loadable()
    if found.module is None:
        return found
    failure = self_test_failure(found.module)
    if failure is None:
        return replace(found, reason=f'{found.reason}; self-test passed')
    return replace(found, loop_refused=f'the native loop failed its self-test: {failure}')


def loadable() -> NativeStatus:
    """
    Return the extension if it is built for the ROS 2 of this process.

    This holds whatever ``URDF_STATE_NATIVE`` says (that switches the node only: the
    benchmark's Python floor and the native tests load the extension all the same).
    """
    try:
        import rclpy  # noqa: F401 - loads the librcl whose version the check compares
        module = _import(os.environ.get('URDF_STATE_NATIVE_MODULE'))
        info = module.build_info()
    except ImportError as err:
        if getattr(err, 'name', None) == _MODULE:  # the builder's opt-out, or no ROS 2 at build
            return NativeStatus(None, 'running without the native extension: not built '
                                '(URDF_STATE_BUILD_NATIVE=0 or no rcl at build time)')
        return NativeStatus(None, f'extension not built or not loadable: {err}')
    mismatch = abi_mismatch(info)
    if mismatch:
        return NativeStatus(None, f'not used: {mismatch}')
    return NativeStatus(module, f'built for rcl {info["rcl"]}, rmw {info["rmw"]}')


class NativeJointStateReader:
    """
    :class:`JointStateReader`'s interface and behaviour, decoded in C.

    Keeps the names tuple of the last message: when the next one has the same
    encapsulation and name section (bytes 12 to the end of the names), the C
    side checks everything as before but builds no strings, and the same tuple
    object is returned (the name-list caches then find it by identity).
    """

    __slots__ = ('_decode', '_key', '_names', 'max_names')

    def __init__(self, module: ModuleType, max_names: int | None = None) -> None:
        self._decode = module.decode
        self._key = b''          # encapsulation id + name section of the last message
        self._names: tuple[str, ...] = ()
        self.max_names = max_names

    def read(self, data: bytes) -> tuple[tuple[str, ...], np.ndarray, int, int]:
        """``(names, positions, sec, nanosec)``; raises :class:`MalformedJointState`."""
        result = self._decode(data, -1 if self.max_names is None else self.max_names, self._key)
        if len(result) == 2:
            raise MalformedJointState(*result)
        names, positions, sec, nanosec, key = result
        if names is not None:
            if names != self._names:
                self._names = names
            self._key = key
        return self._names, np.frombuffer(positions, dtype=np.float64), sec, nanosec


def joint_state_reader() -> JointStateReader | NativeJointStateReader:
    """Return the node's decoder: the native one when :func:`status` allows, else Python's."""
    module = status().module
    return NativeJointStateReader(module) if module is not None else JointStateReader()


# -- the native loop's start-up self-test: the C plan against the specification --------

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
    """
    Why the native loop of ``module`` must not serve (None: it passed).

    The build is admitted by distro, not by patch release: this checks that it computes,
    with this numpy, libm and CPU, the /tf bytes the specification computes here.
    """
    try:
        return _run(module)
    except Exception as exc:  # noqa: BLE001 - any failure refuses the loop, with its reason
        return f'{type(exc).__name__}: {exc}'


def _run(module: ModuleType) -> str | None:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    from .joint_state_merger import JointStateMerger
    from .native_loop import LoopSync, NativePlans, PausingLock
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
