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
Parsing in a separate process with a time, memory and output limit.

A description can be expensive by design (a xacro macro bomb, ``${...}`` that
loops) and a parser cannot be interrupted from inside the process that runs
it. :class:`IsolatedParser` runs :meth:`ParserRegistry.parse_published` in a
worker process (:mod:`.parser_worker`):

* **time**: the caller waits at most ``timeout_s``, then the worker is killed
  (SIGKILL) and the parse fails with that reason;
* **memory**: the worker sets ``RLIMIT_AS`` to ``max_memory_mb`` on start, so
  an allocation beyond it fails there (MemoryError), not in the caller;
* **output**: the expanded text may be at most ``max_bytes`` (checked in the
  worker), and a reply larger than the limits allow is not read.

The worker stays alive between parses (no start-up cost per description) and
is replaced after a large one, so the memory a 10 MB description needed goes
back to the system and the caller never holds its XML tree, and after a
trusted one (which may run code), so a restricted parse never shares a process
with it. Results come back
as JSON (see :mod:`..model_codec`), never pickle.

Starting a worker (a Python process importing the parsers) takes a few hundred
milliseconds on a busy machine, far longer than parsing a small robot, so no
parse should wait for one: :meth:`IsolatedParser.prestart` starts the worker
ahead of the first parse, a parse that will replace its worker starts the
successor when it begins (it imports while the parse runs), and a worker
replaced for another reason (a time limit, a large expansion) is followed at
once by a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any, BinaryIO

from . import parser_worker
from .parser_worker import frame, HEADER, unframe
from .srdf import Semantic, semantic_from_data
from .xacro_sandbox import TRUSTED
from ..errors import DescriptionError
from ..model import Model
from ..model_codec import model_from_data

__all__ = ['IsolatedParser', 'ParseLimits', 'ParseResult', 'STOPPED']

#: Longest a new worker may take to start (imports on a cold, busy machine).
_START_TIMEOUT_S = 60.0
#: A worker that handled more than this (input or output) is replaced afterwards.
RECYCLE_BYTES = 1 << 20
#: Why a parse ended when close() or stop() ended it.
STOPPED = 'parsing stopped: the parser was closed (shutting down)'


@dataclass(frozen=True)
class ParseLimits:
    """Limits of one parse; the README names the node parameters that set them."""

    timeout_s: float = 10.0
    max_memory_mb: int = 2048
    max_bytes: int = 64 << 20


@dataclass(frozen=True)
class ParseResult:
    """
    What a parse produced: the model, the text to publish, the parser that made it.

    A semantic description (``parser`` :data:`~.semantic_parsers.SEMANTIC_REQUEST`:
    SRDF or a semantic plugin's format, not registry parsers: it means nothing
    without its URDF) is read here too, as safely; its ``model`` is the
    :class:`~.srdf.Semantic`, not yet checked against a robot.
    """

    model: Model | Semantic
    published: str
    parser: str


class _Worker:
    """One worker process: started at once, ready once its imports are done."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env, close_fds=True)
        self._ready = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self) -> None:
        """
        Return once the worker's imports are done (its empty frame).

        Raises TimeoutError, EOFError or OSError if it does not get there within
        _START_TIMEOUT_S.
        """
        if not self._ready:
            _read(self.process.stdout, HEADER.size, time.monotonic() + _START_TIMEOUT_S)
            self._ready = True

    def kill(self) -> None:
        """Kill it now (no wait: safe in a signal handler)."""
        if self.alive():
            self.process.kill()

    def stop(self) -> int | None:
        """Kill it, reap it and close its pipes; its exit code."""
        self.kill()
        code = self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        return code


class IsolatedParser:
    """Parses in a worker process; one parse at a time (callers are serialised)."""

    def __init__(self, parser_classes: Sequence[type], limits: ParseLimits) -> None:
        self.limits = limits
        self._classes = [[cls.__module__, cls.__qualname__] for cls in parser_classes]
        self._lock = threading.Lock()
        self._worker: _Worker | None = None      # takes the next parse
        self._successor: _Worker | None = None   # takes over once the worker is replaced
        self._closing = False   # close() killed the worker: a failing parse says so
        self._stopped = False   # stop(): no parse any more (shutting down)

    def prestart(self, successor: bool = False) -> None:
        """
        Start the worker now, so that no parse waits for a process to start.

        With ``successor``, also the one that replaces it after the first parse (a trusted
        one).
        """
        with self._lock:
            if self._worker is None:
                self._worker = self._spawn_ahead()
            if successor and self._successor is None:
                self._successor = self._spawn_ahead()

    def wait_ready(self) -> bool:
        """
        Wait until the worker that takes the next parse has started.

        False if it could not (the next parse then says why) or a parse is using it now
        (nothing to wait for).
        """
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._ready_worker()
        except DescriptionError:
            return False
        finally:
            self._lock.release()
        return True

    def parse(self, data: str, parser: str, options: Mapping[str, Any], policy: str,
              cancelled: Callable[[], bool] | None = None) -> ParseResult:
        """
        Parse ``data`` (``parser``: a name or 'auto') under the xacro ``policy``.

        Raises DescriptionError with the reason, including a limit reached.
        ``cancelled``: asked once the worker is ready; True ends the parse there (a
        close() meant for this parse that came before it had a worker to kill).
        """
        limits = self.limits
        size = len(data.encode('utf-8'))
        if size > limits.max_bytes:
            raise DescriptionError(f'description is {size} bytes, over the limit of '
                                   f'{limits.max_bytes} (description.max_bytes)',
                                   kind='size limit')
        request = frame({'parser': parser, 'options': dict(options), 'policy': policy,
                         'max_bytes': limits.max_bytes}, data)
        # Replaced after a large parse (memory back to the system) and after a trusted
        # one (whatever its code did to the process, a restricted parse never runs in it).
        replaced = size > RECYCLE_BYTES or policy == TRUSTED
        with self._lock:
            if self._stopped:
                raise DescriptionError(STOPPED, kind='internal')
            self._closing = False
            if replaced and self._successor is None:
                self._successor = self._spawn_ahead()
            try:
                reply = self._exchange(request, limits.timeout_s, cancelled)
            except DescriptionError:
                if self._closing or self._stopped:
                    raise DescriptionError(STOPPED, kind='internal') from None
                raise
            if replaced or len(reply) > RECYCLE_BYTES:
                self._replace_worker()
        try:
            answer, published = unframe(reply)
            if not answer.get('ok'):
                raise DescriptionError(str(answer.get('error', 'parser process failed')),
                                       parser=answer.get('parser'),
                                       kind=str(answer.get('kind', 'invalid')))
            if 'semantic' in answer:
                return ParseResult(semantic_from_data(answer['semantic']), '',
                                   str(answer['parser']))
            model = model_from_data(answer['model'])
            return ParseResult(model, data if answer['same'] else published,
                               str(answer['parser']))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            if isinstance(exc, DescriptionError):
                raise
            raise DescriptionError(f'malformed reply from the parser process ({exc!r})',
                                   kind='internal') from None

    @property
    def alive(self) -> bool:
        """Whether the worker process is running (started ahead or by the first parse)."""
        worker = self._worker
        return worker is not None and worker.alive()

    def close(self) -> None:
        """
        Stop the workers now, also in the middle of a parse (which then fails).

        A new worker starts with the next parse. No lock is taken, so shutting
        down never waits for a parse to end.
        """
        self._closing = True
        for worker in (self._worker, self._successor):
            if worker is not None:
                worker.kill()

    def stop(self) -> None:
        """
        Stop the parse in progress and refuse every later one: the owner is shutting down.

        Safe in a signal handler (no lock, no wait), which may run at any point
        of a parse in the same thread, even before its worker exists: the
        parse checks again once it has one.
        """
        self._stopped = True
        self.close()

    # -- the workers (under the lock) ------------------------------------------------

    def _exchange(self, request: bytes, timeout_s: float,
                  cancelled: Callable[[], bool] | None) -> bytes:
        worker = self._ready_worker()
        if cancelled is not None and cancelled():
            raise DescriptionError(STOPPED, kind='internal')
        try:
            deadline = time.monotonic() + timeout_s   # the worker's start-up does not count
            worker.process.stdin.write(HEADER.pack(len(request)) + request)
            worker.process.stdin.flush()
            header = _read(worker.process.stdout, HEADER.size, deadline)
            (length,) = HEADER.unpack(header)
            # published text + its model (a few times the text at most) + slack
            if length > 4 * self.limits.max_bytes + (1 << 20):
                raise DescriptionError(f'parser output of {length} bytes is over the limit '
                                       f'(description.max_bytes={self.limits.max_bytes})',
                                       kind='size limit')
            return _read(worker.process.stdout, length, deadline)
        except TimeoutError:
            self._replace_worker()
            raise DescriptionError(
                f'parsing took longer than {self.limits.timeout_s:g} s '
                '(description.timeout): stopped', kind='time limit') from None
        except (BrokenPipeError, EOFError, OSError):
            code = self._replace_worker()
            reason, kind = _ended(code, self.limits)
            raise DescriptionError(reason, kind=kind) from None
        except DescriptionError:
            self._replace_worker()
            raise

    def _ready_worker(self) -> _Worker:
        """Return the worker for this parse (started now if there is none), once it is ready."""
        if self._stopped:
            raise DescriptionError(STOPPED, kind='internal')
        if self._worker is not None and not self._worker.alive():
            self._replace_worker()   # killed since its last parse: its successor or a new one
        try:
            if self._worker is None:
                self._worker = self._spawn()
            self._worker.wait_ready()
        except (TimeoutError, EOFError, OSError) as exc:
            code = self._drop_worker()
            raise DescriptionError(f'the parser process did not start ({type(exc).__name__}, '
                                   f'exit code {code})', kind='internal') from None
        return self._worker

    def _spawn(self) -> _Worker:
        env = dict(os.environ, OPENBLAS_NUM_THREADS='1', OMP_NUM_THREADS='1',
                   PYTHONUNBUFFERED='1')
        if 'san' in os.path.basename(env.get('LD_PRELOAD', '').split(':')[0]):
            # A preloaded sanitizer runtime (libasan: a sanitized build's tests) reserves
            # terabytes of address space, which RLIMIT_AS refuses; the worker runs no native code.
            del env['LD_PRELOAD']
        worker = _Worker([sys.executable, '-m', parser_worker.__name__,
                          str(self.limits.max_memory_mb), json.dumps(self._classes)], env)
        if self._stopped:   # stop() came while the worker started: it found none to kill
            worker.stop()
            raise DescriptionError(STOPPED, kind='internal')
        return worker

    def _spawn_ahead(self) -> _Worker | None:
        """
        Return a worker started ahead of need, or None if none can start now.

        The parse that needs one then starts it and reports why it cannot.
        """
        if self._closing or self._stopped:
            return None
        try:
            return self._spawn()
        except (OSError, DescriptionError):
            return None

    def _drop_worker(self) -> int | None:
        """Stop the worker without a replacement; its exit code."""
        worker, self._worker = self._worker, None
        return worker.stop() if worker is not None else None

    def _replace_worker(self) -> int | None:
        """
        Stop the worker and return its exit code.

        The successor, or a worker started now, takes its place unless the parser is
        closing.
        """
        code = self._drop_worker()
        successor, self._successor = self._successor, None
        if successor is not None and (self._closing or self._stopped or not successor.alive()):
            successor.stop()   # closing, or killed with the worker by an earlier close()
            successor = None
        if not (self._closing or self._stopped):
            self._worker = successor or self._spawn_ahead()
        return code


def _ended(code: int | None, limits: ParseLimits) -> tuple[str, str]:
    """
    (reason, kind) for a worker that died in a parse.

    Its own memory limit (RLIMIT_AS) makes an allocation fail, which ends the
    parse with an error or, in native code, may end the process; it never sends
    SIGKILL. A SIGKILL comes from outside (the system's OOM killer, an operator),
    so that reason does not blame the limit.
    """
    if code == -signal.SIGKILL:
        return ('the parser process was killed by signal 9 (SIGKILL) from outside the node '
                '(its own memory limit makes a parse fail, it does not kill it)', 'killed')
    how = f'was killed by signal {-code}' if code is not None and code < 0 else \
        f'ended with exit code {code}'
    return (f'the parser process {how} (memory limit description.max_memory_mb='
            f'{limits.max_memory_mb} reached?)', 'memory limit')


def _read(stream: BinaryIO, size: int, deadline: float) -> bytes:
    """Exactly ``size`` bytes from ``stream`` by ``deadline`` (TimeoutError, EOFError)."""
    fd = stream.fileno()
    chunks = []
    left = size
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b''.join(chunks)
