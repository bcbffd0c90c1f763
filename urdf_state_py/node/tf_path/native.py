"""The native extension (``_urdf_state_native``, C): whether this process may use it, and its decoder.

setup.py builds the extension where rcl's headers are (the venv of the PyPI
wheels, a sourced distro) and compiles in the rcl/rmw/rclpy versions and the
prefix it was built against. A build made for another ROS 2 must never run:
:func:`status` loads it only when the librcl this process resolved lies in that
prefix and the installed rcl, rmw and rclpy are the versions it was built for;
otherwise, or when it is not built, or with ``URDF_STATE_NATIVE=off``, the
Python code serves, exactly as before. :class:`NativeJointStateReader` is
``joint_state_cdr.JointStateReader`` in C (same checks, same verdicts, same
error texts: ``test_native_decoder.py`` fuzzes both against rclpy).

The native loop (not the decoder, pure C on the payload's bytes) also needs an
rclpy/rcl pair the tests cover (:data:`TESTED`: the wheels the suite runs on):
on any other -- Humble's, a newer release -- the Python hot path serves unless
``URDF_STATE_NATIVE=on`` starts the loop all the same (:attr:`NativeStatus.loop_refused`
says why not).

``URDF_STATE_NATIVE_MODULE=/path/to/_urdf_state_native*.so`` loads another
build of the same sources instead of the installed one (CI runs the fuzz and the
hostile-input tests on one built with AddressSanitizer and UBSan).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from types import ModuleType

import numpy as np

from .joint_state_cdr import JointStateReader, MalformedJointState

__all__ = ['TESTED', 'NativeJointStateReader', 'NativeStatus', 'joint_state_reader', 'loadable',
           'status', 'untested']

_MODULE = 'urdf_state_py.node.tf_path._urdf_state_native'
_OFF = ('off', '0', 'false', 'no')
_ON = ('on', '1', 'true', 'yes')

#: (rclpy, rcl) releases, as their package.xml give them, that the native loop's tests run
#: on: the ROS 2 wheels pinned in requirements/ros-*.txt (test_native.py fails when a pin
#: moves and this does not).
TESTED = frozenset({
    ('7.1.5', '9.2.7'),    # Jazzy: the ros-rclpy 7.1.6 and ros-rcl 9.2.8 wheels
    ('9.1.2', '10.1.3'),   # Kilted: ros-rclpy 9.1.2, ros-rcl 10.1.3
})


def untested(rclpy: str, rcl: str) -> str | None:
    """Why the native loop does not start on rclpy ``rclpy`` with rcl ``rcl`` unless forced
    (None: the tests cover that pair)."""
    if (rclpy, rcl) in TESTED:
        return None
    tested = ', '.join(f'rclpy {a} with rcl {b}' for a, b in sorted(TESTED))
    return (f'no test covers rclpy {rclpy} with rcl {rcl} (tested: {tested}); '
            'URDF_STATE_NATIVE=on starts the native loop anyway')


@dataclass(frozen=True)
class NativeStatus:
    """``module``: the loaded extension, or None; ``reason``: why (for the log and
    /diagnostics); ``loop_refused``: why the native loop must not start although the
    module loaded (None: it may)."""

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


def abi_mismatch(info: dict[str, str], rclpy_file: str) -> str | None:
    """Why a build described by ``build_info()`` must not run here (None: it may).

    ``rclpy_file``: the running rclpy's ``__file__`` (its prefix holds its package.xml).
    """
    prefix = info.get('prefix', '')
    loaded = os.path.realpath(info.get('loaded_rcl') or '')
    loaded_prefix = os.path.dirname(os.path.dirname(loaded))
    if not info.get('loaded_rcl') or loaded_prefix != os.path.realpath(prefix):
        return f'built against the rcl in {prefix}, but this process uses {loaded or "none"}'
    rclpy_prefix = os.path.realpath(os.path.join(os.path.dirname(rclpy_file), *['..'] * 4))
    if rclpy_prefix != os.path.realpath(prefix):
        return f'built against the ROS 2 in {prefix}, but rclpy comes from {rclpy_prefix}'
    for package in ('rcl', 'rmw', 'rclpy'):
        running = _package_version(prefix, package)
        if running is None or running != info.get(package):
            return (f'built against {package} {info.get(package)}, but {package} '
                    f'{running or "(version unknown)"} is installed')
    return None


@lru_cache(maxsize=1)
def status() -> NativeStatus:
    """Whether the native extension serves joint_states in this process, decided once."""
    switch = os.environ.get('URDF_STATE_NATIVE', '').strip().lower()
    if switch in _OFF:
        return NativeStatus(None, 'URDF_STATE_NATIVE=off')
    found = loadable()
    if found.module is None:
        return found
    info = found.module.build_info()   # the running versions: loadable() compared them
    refused = untested(info['rclpy'], info['rcl'])
    if refused is None:
        return found
    if switch in _ON:
        return replace(found, reason=f'{found.reason}; a pair no test covers, started as '
                                     'URDF_STATE_NATIVE=on asks')
    return replace(found, loop_refused=refused)


def loadable() -> NativeStatus:
    """The extension if it is built for the ROS 2 of this process, whatever
    ``URDF_STATE_NATIVE`` says (the benchmark's C floor runs beside a node without it)."""
    try:
        import rclpy  # the rcl it loads is the one the check compares against
        module = _import(os.environ.get('URDF_STATE_NATIVE_MODULE'))
        info = module.build_info()
    except ImportError as err:
        return NativeStatus(None, f'extension not built or not loadable: {err}')
    mismatch = abi_mismatch(info, rclpy.__file__)
    if mismatch:
        return NativeStatus(None, f'not used: {mismatch}')
    return NativeStatus(module, f'built for rcl {info["rcl"]}, rclpy {info["rclpy"]}')


class NativeJointStateReader:
    """:class:`JointStateReader`'s interface and behaviour, decoded in C.

    Keeps the names tuple of the last message: when the next one has the same
    encapsulation and name section (bytes 12 to the end of the names), the C
    side checks everything as before but builds no strings, and the same tuple
    object is returned (the fast path's route cache keys on it).
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
    """The decoder the node uses: the native one when :func:`status` allows, else Python's."""
    module = status().module
    return NativeJointStateReader(module) if module is not None else JointStateReader()
