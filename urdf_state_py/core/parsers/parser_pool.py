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
Parser processes shared by every robot of one process.

A parser process (:class:`~.isolated.IsolatedParser`) costs ~27 MB while it
lives, and it is kept alive between parses so a description set at run time
does not pay a process start. One kept per robot would make a process serving
twenty robots carry twenty of them; :class:`ParserPool` keeps them per process
instead:

* at most ``size`` parses run at once (each in a worker of its own), so a
  robot stuck in a slow or hostile parse (killed at its ``description.timeout``)
  holds one worker and the others still parse;
* at most ``keep`` idle workers stay alive; the others end when their parse does;
* a robot starting up has its worker started ahead (:meth:`ParserClient.prestart`, with
  the one that replaces it after a trusted start-up parse), so neither its start-up parse
  nor the first description set at run time waits for a process to start;
* each robot holds a :class:`ParserClient`, :class:`IsolatedParser`'s interface
  for one caller: its ``stop``/``close`` end *its* parse in progress (killing the
  worker that runs it), never another robot's.

A worker is reused only for the same parser classes and limits (its memory
limit is set when it starts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
import threading
from typing import Any

from .isolated import IsolatedParser, ParseLimits, ParseResult, STOPPED
from ..errors import DescriptionError

__all__ = ['ParserClient', 'ParserPool']


class ParserPool:
    """Workers for every :class:`ParserClient` of one process (see the module docstring)."""

    def __init__(self, size: int = 1, keep: int = 1) -> None:
        if size < 1 or keep < 0:
            raise ValueError(f'a parser pool needs size >= 1 and keep >= 0, not {size}, {keep}')
        self.size = size
        self._keep = keep
        self._cond = threading.Condition()
        self._idle: list[tuple[tuple, IsolatedParser]] = []   # most recently used last
        self._busy: dict[ParserClient, IsolatedParser] = {}
        self._stopped = False

    def client(self, parser_classes: Sequence[type], limits: ParseLimits) -> ParserClient:
        """Return what one robot parses with: ``parser_classes`` within ``limits``."""
        return ParserClient(self, parser_classes, limits)

    @property
    def workers(self) -> int:
        """Worker processes alive now (busy or idle)."""
        with self._cond:
            return sum(w.alive for w in self._busy.values()) + sum(w.alive for _, w in self._idle)

    def _parse(self, client: ParserClient, data: str, parser: str, options: Mapping[str, Any],
               policy: str) -> ParseResult:
        key = (tuple(client.classes), client.limits)
        with self._cond:
            while True:
                if self._stopped or client.stopped:
                    raise DescriptionError(STOPPED, kind='internal')
                if len(self._busy) < self.size:
                    break
                self._cond.wait()
            worker = self._idle_worker(key)
            if worker is None:
                worker = IsolatedParser(client.classes, client.limits)
            else:
                self._idle = [(k, w) for k, w in self._idle if w is not worker]
            self._busy[client] = worker
            closes = client.closes
        try:
            if client.stopped:   # stop() came before the worker was ours: it found none
                raise DescriptionError(STOPPED, kind='internal')
            # a close() before the worker had a process found nothing to kill: it ends
            # the parse once the process is ready
            return worker.parse(data, parser, options, policy,
                                cancelled=lambda: client.stopped or client.closes != closes)
        finally:
            with self._cond:
                del self._busy[client]
                self._idle.append((key, worker))
                retired = self._idle[:-self._keep] if self._keep else self._idle
                self._idle = self._idle[len(retired):]
                self._cond.notify()
            for _, old in retired:
                old.close()

    def _prestart(self, client: ParserClient, successor: bool) -> None:
        """
        Make an idle worker ready for ``client``'s classes and limits, its process started now.

        ``successor``: the one replacing it after a trusted parse (see IsolatedParser).
        """
        key = (tuple(client.classes), client.limits)
        with self._cond:
            if self._stopped or client.stopped:
                return
            worker = self._idle_worker(key)
            if worker is None:
                worker = IsolatedParser(client.classes, client.limits)
                self._idle.append((key, worker))   # the next parse of this key takes it
            worker.prestart(successor)             # idle: its lock is free, Popen only

    def _wait_ready(self, client: ParserClient) -> None:
        """
        Wait until the worker the next parse of ``client`` takes has started.

        Only if one is idle; not for a stopped client: its robot is shutting down and
        parses no more.
        """
        with self._cond:
            if self._stopped or client.stopped:
                return
            worker = self._idle_worker((tuple(client.classes), client.limits))
        if worker is not None:
            worker.wait_ready()

    def _idle_worker(self, key: tuple) -> IsolatedParser | None:
        """Return the idle worker a parse of ``key`` takes: the most recently used (locked)."""
        return next((w for k, w in reversed(self._idle) if k == key), None)

    def _end(self, client: ParserClient) -> None:
        """End ``client``'s parse in progress (signal-handler safe: no lock, no wait)."""
        worker = dict(self._busy).get(client)
        if worker is not None:
            worker.close()

    def stop(self) -> None:
        """
        End every parse in progress and refuse later ones: the process is shutting down.

        Signal-handler safe.
        """
        self._stopped = True
        for worker in list(dict(self._busy).values()):
            worker.stop()

    def close(self) -> None:
        """End every worker now (busy ones' parses fail); a later parse starts a new one."""
        for worker in list(dict(self._busy).values()) + [w for _, w in list(self._idle)]:
            worker.close()


class ParserClient:
    """:class:`IsolatedParser`'s interface for one robot, on a shared :class:`ParserPool`."""

    def __init__(self, pool: ParserPool, parser_classes: Sequence[type],
                 limits: ParseLimits) -> None:
        self._pool = pool
        self.classes = list(parser_classes)
        self.limits = limits
        self.stopped = False
        self.closes = 0   # close() calls: one during a parse ends it (see ParserPool._parse)

    def parse(self, data: str, parser: str, options: Mapping[str, Any],
              policy: str) -> ParseResult:
        """Parse in one of the pool's workers; raises DescriptionError with the reason."""
        return self._pool._parse(self, data, parser, options, policy)

    def prestart(self, successor: bool = False) -> None:
        """
        Start a worker process for this robot's next parse now, so it waits for none.

        With ``successor``, also the one that replaces it after a trusted parse.
        """
        self._pool._prestart(self, successor)

    def wait_ready(self) -> None:
        """Return once the worker process for this robot's next parse has started."""
        self._pool._wait_ready(self)

    def close(self) -> None:
        """End this robot's parse in progress, if any (it then fails); later ones still run."""
        self.closes += 1
        self._pool._end(self)

    def stop(self) -> None:
        """End this robot's parse in progress and refuse its later ones (signal-handler safe)."""
        self.stopped = True
        self._pool._end(self)
