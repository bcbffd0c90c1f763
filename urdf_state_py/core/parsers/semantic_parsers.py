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
Semantic description formats: SRDF built in, others as plugins, chosen as parsers are.

The semantic half of a robot (groups, named states, end effectors, passive
joints) has formats too. They follow the description parsers' contract
(:mod:`.registry`): a parser has a ``name``, scores a text with
``might_handle(data)`` (the lowest position wins, ``>= len(data)`` means "not
mine", SRDF is the fallback) and ``read(data)`` turns it into a
:class:`~.srdf.Semantic`, which :func:`~.srdf.check_semantic` then checks
against the robot's URDF. A plugin is an entry point of the group
``urdf_state_py.semantic_parsers`` whose name is the parser's name, e.g. in a
plugin's ``setup.py``::

    entry_points={'urdf_state_py.semantic_parsers': ['my_format = my_pkg:MyReader']}

The node reads semantic descriptions in its parser process
(:data:`SEMANTIC_REQUEST`), where a plugin's code runs under the same limits
as a description parser's.
"""

from __future__ import annotations

import functools
import importlib.metadata
import logging
from typing import Any

from ._xml import decode
from .registry import call_parser
from .srdf import check_semantic, Semantic, SrdfParser
from ..errors import DescriptionError
from ..model import Model

SEMANTIC_ENTRY_POINT_GROUP = 'urdf_state_py.semantic_parsers'
FALLBACK_SEMANTIC_PARSER = SrdfParser.name
#: What the parser process is asked to parse for "a semantic description, any format"
#: (a name no description parser can have: they may not contain a dot).
SEMANTIC_REQUEST = 'semantic.auto'

_logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=None)
def semantic_parsers() -> dict[str, Any]:
    """
    Return the built-in SRDF parser plus every loadable plugin.

    A broken plugin is skipped with a warning naming it; a plugin cannot replace the
    built-in.
    """
    parsers: dict[str, Any] = {SrdfParser.name: SrdfParser()}
    try:
        entry_points = list(importlib.metadata.entry_points(group=SEMANTIC_ENTRY_POINT_GROUP))
    except Exception as exc:  # noqa: BLE001 (broken metadata on sys.path)
        _logger.warning('cannot list semantic parser plugins: %s', exc)
        return parsers
    for entry_point in sorted(entry_points, key=lambda ep: (ep.name, ep.value)):
        label = f"semantic parser plugin '{entry_point.name}' ({entry_point.value})"
        if entry_point.name in parsers:
            _logger.warning('skipping %s: the name is taken', label)
            continue
        try:
            parser = entry_point.load()()
            if getattr(parser, 'name', None) != entry_point.name or not callable(
                    getattr(parser, 'read', None)) or not callable(
                    getattr(parser, 'might_handle', None)):
                raise TypeError('needs name (the entry point name), might_handle() and read()')
        except Exception as exc:  # noqa: BLE001 (anything a plugin can raise)
            _logger.warning('skipping %s: %s: %s', label, type(exc).__name__, exc)
            continue
        parsers[entry_point.name] = parser
    return parsers


def select_semantic(text: str) -> str:
    """Name of the semantic parser for ``text``: lowest score, ties by name, else SRDF."""
    scores = []
    for name, parser in sorted(semantic_parsers().items()):
        try:
            scores.append((int(parser.might_handle(text)), name))
        except Exception as exc:  # noqa: BLE001 (a plugin's might_handle is untrusted)
            _logger.warning("semantic parser '%s' failed in might_handle: %s", name, exc)
    confident = [item for item in scores if item[0] < len(text)]
    return min(confident)[1] if confident else FALLBACK_SEMANTIC_PARSER


def read_semantic(data: str | bytes, parser: str = 'auto') -> Semantic:
    """
    Read ``data`` with ``parser`` ('auto': :func:`select_semantic`).

    Not yet checked against a robot; DescriptionError naming the parser and the problem.
    """
    text = decode(data)
    name = select_semantic(text) if parser == 'auto' else parser
    parsers = semantic_parsers()
    if name not in parsers:
        raise DescriptionError(f"unknown semantic parser '{name}' "
                               f"(available: {', '.join(sorted(parsers))})")
    semantic = call_parser(name, lambda: parsers[name].read(text))
    if not isinstance(semantic, Semantic):
        raise DescriptionError(f'parser returned {type(semantic).__name__}, not a Semantic',
                               parser=name)
    return semantic


def load_semantic(data: str | bytes, model: Model, parser: str = 'auto') -> Semantic:
    """Read a semantic description (SRDF or a plugin's format), check it against ``model``."""
    return check_semantic(read_semantic(data, parser), model)
