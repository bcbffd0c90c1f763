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

setup.py builds the extension where rcl's headers are (the venv of the PyPI
wheels, a sourced distro) and compiles in the rcl and rmw versions it was built
against. It uses rcl's and rmw's C API only -- no rclpy internals -- and ROS 2
keeps that API and ABI stable within a distribution, so a build serves any
release of its distro: :func:`status` checks, at load, that the librcl and
librmw this process loaded are of the distro the build was made for (rcl's
major version, rmw's major.minor: each distro has its own), then the native
loop's start-up self-test (:mod:`.native_selftest`: synthetic messages through
the C plan and the Python specification must give the same /tf bytes). A check
that fails says which and why (log and /diagnostics): a failed load check
leaves the Python code to serve, a failed self-test the native decoder and wait
with the Python path behind them. ``URDF_STATE_NATIVE=off`` leaves everything to
the Python code. :class:`NativeJointStateReader` is
``joint_state_cdr.JointStateReader`` in C (same checks, same verdicts, same
error texts: ``test_native_decoder.py`` fuzzes both against rclpy).

``URDF_STATE_NATIVE_MODULE=/path/to/_urdf_state_native*.so`` loads another
build of the same sources instead of the installed one (CI runs the fuzz and the
hostile-input tests on one built with AddressSanitizer and UBSan).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
import importlib
import importlib.util
import os
import re
from types import ModuleType

import numpy as np

from .joint_state_cdr import JointStateReader, MalformedJointState

__all__ = ['NativeJointStateReader', 'NativeStatus', 'abi_mismatch', 'joint_state_reader',
           'loadable', 'status']

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
    from .native_selftest import self_test_failure
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
    """Return the node's decoder: the native one when :func:`status` allows, else Python's."""
    module = status().module
    return NativeJointStateReader(module) if module is not None else JointStateReader()
