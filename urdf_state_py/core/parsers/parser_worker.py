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
The parser worker process of :class:`~.isolated.IsolatedParser`, and the messages both send.

It runs as ``python -m urdf_state_py.core.parsers.parser_worker MAX_MEMORY_MB CLASSES``
(the registry's parser classes, as JSON), sets its own memory limit, imports the
parsers, sends an empty frame once ready, then answers one framed request after
another on stdin/stdout: the model as JSON (see :mod:`..model_codec`), never
pickle, or the reason the parse failed. Anything it prints goes to stderr, so a
parser's output cannot corrupt a reply.
"""

from __future__ import annotations

import importlib
import json
import os
import struct
import sys
from typing import Any

from .semantic_parsers import read_semantic, select_semantic, SEMANTIC_REQUEST
from .srdf import semantic_to_data
from ..errors import DescriptionError, find_cause
from ..model_codec import model_to_data

__all__ = ['HEADER', 'frame', 'unframe']

#: Length prefix of every message, either way.
HEADER = struct.Struct('>Q')


def frame(meta: dict, text: str) -> bytes:
    """
    One message: a JSON line (no raw newline: JSON escapes them) then ``text`` as is.

    A description travels as raw UTF-8, not as a JSON string: no escaping of
    its quotes and no second copy in the JSON parser.
    """
    return json.dumps(meta).encode() + b'\n' + text.encode('utf-8')


def unframe(payload: bytes) -> tuple[dict, str]:
    """Split a message made by :func:`frame` into its JSON part and its text."""
    meta, _, text = payload.partition(b'\n')
    return json.loads(meta), text.decode('utf-8')


def _serve(max_memory_mb: int, classes: list[list[str]]) -> None:  # pragma: no cover (child)
    import resource  # noqa: PLC0415 (POSIX only, child only)

    limit = max_memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    out = os.fdopen(os.dup(1), 'wb')
    os.dup2(2, 1)   # prints of a parser must not corrupt the replies
    from .registry import ParserRegistry  # noqa: PLC0415 (child only)
    from .xacro_sandbox import limit_expansion, policy  # noqa: PLC0415 (child only)

    registry = ParserRegistry()
    for module, qualname in classes:
        target: Any = importlib.import_module(module)
        for part in qualname.split('.'):
            target = getattr(target, part)
        registry.register(target)
    source = sys.stdin.buffer
    out.write(HEADER.pack(0))   # ready
    out.flush()
    while True:
        header = source.read(HEADER.size)
        if len(header) < HEADER.size:
            return
        request, data = unframe(source.read(HEADER.unpack(header)[0]))
        request['data'] = data
        reply = _handle(registry, request, policy, limit_expansion, max_memory_mb)
        out.write(HEADER.pack(len(reply)) + reply)
        out.flush()


def _handle(registry: Any, request: dict, policy: Any, limit_expansion: Any,
            max_memory_mb: int) -> bytes:  # pragma: no cover (child)
    name = request['parser']
    try:
        if name == SEMANTIC_REQUEST:
            name = select_semantic(request['data'])
            semantic = read_semantic(request['data'], name)
            return frame({'ok': True, 'parser': name, 'semantic': semantic_to_data(semantic)}, '')
        if name == 'auto':
            name = registry.select(request['data'])
        with policy(request['policy']), limit_expansion(request['max_bytes']):
            model, published = registry.parse_published(request['data'], name,
                                                        request['options'])
        size = len(published.encode('utf-8'))
        if size > request['max_bytes']:
            raise DescriptionError(f'expanded description is {size} bytes, over the limit of '
                                   f"{request['max_bytes']} (description.max_bytes)", name,
                                   kind='size limit')
        same = published == request['data']   # plain URDF: not sent back
        return frame({'ok': True, 'parser': name, 'model': model_to_data(model), 'same': same},
                     '' if same else published)
    except DescriptionError as exc:
        if find_cause(exc, MemoryError) is not None:
            return _failure(name, _OUT_OF_MEMORY.format(max_memory_mb), 'memory limit')
        return _failure(exc.parser or name, exc.reason, exc.kind)
    except MemoryError:
        return _failure(name, _OUT_OF_MEMORY.format(max_memory_mb), 'memory limit')
    except Exception as exc:  # noqa: BLE001 (reported, the worker carries on)
        return _failure(name, f'{type(exc).__name__}: {exc}', 'invalid')


_OUT_OF_MEMORY = 'out of memory (description.max_memory_mb={})'


def _failure(parser: str | None, reason: str, kind: str) -> bytes:  # pragma: no cover (child)
    return frame({'ok': False, 'parser': parser, 'error': reason, 'kind': kind}, '')


if __name__ == '__main__':  # pragma: no cover (child)
    _serve(int(sys.argv[1]), json.loads(sys.argv[2]))
