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
Finding parsers (built in and plugins), choosing one, and running it.

Plugins are Python entry points in the group ``urdf_state_py.parsers``: the
entry point name is the parser name, the value a :class:`Parser` subclass, e.g.
in a plugin's ``setup.py``::

    entry_points={'urdf_state_py.parsers': ['mjcf = my_pkg.mjcf:MjcfParser']}

The built-in parsers (``urdf``, ``xacro``, ``mjcf``) are always registered first, so
they are available even when this package is used from a source tree without
being installed (no entry points). A plugin cannot replace a built-in.

Choosing a parser (``parser='auto'``): every parser's ``might_handle(data)``
is asked; the lowest position wins. **Ties go to the parser whose name sorts
first** (plain string order), which does not depend on installation or
``sys.path`` order. When no parser is confident (every answer
``>= len(data)``), the ``urdf`` parser is used, as robot_state_publisher would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
import functools
import importlib.metadata
import inspect
import logging
import os
import threading
from typing import Any

from ._xml import decode
from .base import Parser
from .mjcf import MjcfParser
from .urdf_xml import UrdfXmlParser
from .xacro_parser import XacroParser
from ..errors import DescriptionError
from ..model import Model

ENTRY_POINT_GROUP = 'urdf_state_py.parsers'
FALLBACK_PARSER = 'urdf'
BUILTIN_PARSERS: tuple[type[Parser], ...] = (UrdfXmlParser, XacroParser, MjcfParser)

_logger = logging.getLogger(__name__)


class ParserRegistry:
    """A set of parsers by name, with format detection and uniform error reporting."""

    def __init__(self) -> None:
        self._parsers: dict[str, Parser] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_entry_points(cls, group: str = ENTRY_POINT_GROUP) -> ParserRegistry:
        """
        Return the built-in parsers plus every loadable plugin of ``group``.

        A plugin that cannot be loaded (import error, not a Parser subclass,
        constructor failure, name clash) is skipped with a warning naming it.
        """
        registry = cls()
        for parser_class in BUILTIN_PARSERS:
            registry.register(parser_class())
        try:
            entry_points = list(importlib.metadata.entry_points(group=group))
        except Exception as exc:  # broken metadata on sys.path
            _logger.warning('cannot list parser plugins (entry point group %r): %s', group, exc)
            return registry
        seen_values = set()
        for entry_point in sorted(entry_points, key=lambda ep: (ep.name, ep.value)):
            if (entry_point.name, entry_point.value) in seen_values:
                continue  # the same distribution found twice on sys.path
            seen_values.add((entry_point.name, entry_point.value))
            registry._register_entry_point(entry_point)
        return registry

    def _register_entry_point(self, entry_point: importlib.metadata.EntryPoint) -> None:
        label = f"parser plugin '{entry_point.name}' ({entry_point.value})"
        try:
            parser_class = entry_point.load()
        except Exception as exc:  # anything a plugin import can raise
            _logger.warning('skipping %s: cannot load it: %s: %s',
                            label, type(exc).__name__, exc)
            return
        if not (inspect.isclass(parser_class) and issubclass(parser_class, Parser)):
            _logger.warning('skipping %s: %r is not a Parser subclass', label, parser_class)
            return
        existing = self._parsers.get(entry_point.name)
        if existing is not None:
            if type(existing) is not parser_class:
                _logger.warning("skipping %s: a parser named '%s' is already registered (%s)",
                                label, entry_point.name, type(existing).__qualname__)
            return
        if parser_class.name != entry_point.name:
            _logger.warning("skipping %s: the class's name is %r, not the entry point name",
                            label, parser_class.name)
            return
        try:
            self.register(parser_class())
        except Exception as exc:  # plugin constructor / bad options
            _logger.warning('skipping %s: %s: %s', label, type(exc).__name__, exc)

    def register(self, parser: Parser | type[Parser]) -> Parser:
        """Add ``parser`` (an instance or a class to instantiate); names must be unique."""
        if inspect.isclass(parser):
            parser = parser()
        if not isinstance(parser, Parser):
            raise TypeError(f'{parser!r} is not a Parser')
        name = parser.name
        if not isinstance(name, str) or not name or name == 'auto' or '.' in name:
            raise ValueError(f'{type(parser).__qualname__}: invalid parser name {name!r} '
                             "(non-empty, no '.', not 'auto')")
        option_names = [option.name for option in parser.options]
        if len(set(option_names)) != len(option_names):
            raise ValueError(f"parser '{name}' declares an option twice: {option_names}")
        with self._lock:
            if name in self._parsers:
                raise ValueError(f"a parser named '{name}' is already registered")
            self._parsers[name] = parser
        return parser

    def names(self) -> tuple[str, ...]:
        """Register parser names, sorted."""
        return tuple(sorted(self._parsers))

    def get(self, name: str) -> Parser:
        """Return the parser called ``name``; DescriptionError listing the available ones."""
        try:
            return self._parsers[name]
        except KeyError:
            raise DescriptionError(
                f"unknown parser '{name}' (available: {', '.join(self.names()) or 'none'})"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._parsers

    def __iter__(self):
        return iter(self._parsers[name] for name in self.names())

    def scores(self, data: str | bytes) -> dict[str, int]:
        """Every parser's ``might_handle`` answer (a failing parser counts as "not mine")."""
        text = decode(data) if not isinstance(data, str) else data
        result = {}
        for name in self.names():
            try:
                result[name] = int(self._parsers[name].might_handle(text))
            except Exception as exc:  # a plugin's might_handle is untrusted
                _logger.warning("parser '%s' failed in might_handle: %s: %s",
                                name, type(exc).__name__, exc)
                result[name] = len(text)
        return result

    def select(self, data: str | bytes) -> str:
        """Name of the parser for ``data``: lowest score, ties by name, else ``urdf``."""
        text = decode(data) if not isinstance(data, str) else data
        scores = self.scores(text)
        confident = [(score, name) for name, score in scores.items() if score < len(text)]
        if confident:
            return min(confident)[1]
        if FALLBACK_PARSER in self._parsers:
            return FALLBACK_PARSER
        raise DescriptionError('no parser recognises the description and there is no '
                               f"'{FALLBACK_PARSER}' parser to fall back to")

    def parse(self, data: str | bytes, parser: str = 'auto',
              options: Mapping[str, Any] | None = None) -> Model:
        """
        Return the model of ``data`` built by ``parser`` (``'auto'``: see :meth:`select`).

        Every failure is a :class:`DescriptionError` whose ``parser`` names the
        parser that failed and whose message says why.
        """
        return self.parse_published(data, parser, options)[0]

    def parse_published(self, data: str | bytes, parser: str = 'auto',
                        options: Mapping[str, Any] | None = None) -> tuple[Model, str]:
        """
        Return :meth:`parse`'s result plus the text to publish as ``robot_description``.

        See :meth:`Parser.parse_published` (xacro: the expanded URDF).
        """
        text = decode(data)
        name = self.select(text) if parser == 'auto' else parser
        chosen = self.get(name)
        model, published = call_parser(
            name, lambda: chosen.parse_published(text, chosen.resolve_options(options)))
        if not isinstance(model, Model):
            raise DescriptionError(f'parser returned {type(model).__name__}, not a Model',
                                   parser=name)
        return model, published

    def parse_file(self, path: str | os.PathLike, parser: str = 'auto',
                   options: Mapping[str, Any] | None = None) -> Model:
        """Like :meth:`parse` for a file; a parser's ``base_dir`` option defaults to its folder."""
        path = os.fspath(path)
        data = read_file(path)
        name = self.select(data) if parser == 'auto' else parser
        chosen = self.get(name)
        options = dict(options or {})
        if any(option.name == 'base_dir' for option in chosen.options) \
                and not options.get('base_dir'):
            options['base_dir'] = os.path.dirname(os.path.abspath(path))
        return self.parse(data, name, options)


def call_parser(name: str, call: Callable[[], Any]) -> Any:
    """
    Run ``call()``, a parser's work, with every failure a DescriptionError.

    The error names parser ``name`` (a plugin may raise anything).
    """
    try:
        return call()
    except DescriptionError as exc:
        raise DescriptionError(exc.reason, parser=name, kind=exc.kind) from exc
    except RecursionError as exc:
        raise DescriptionError(f'description nested too deeply ({exc})', parser=name) from exc
    except Exception as exc:  # a plugin may raise anything
        raise DescriptionError(f'{type(exc).__name__}: {exc}', parser=name) from exc


def read_file(path: str | os.PathLike) -> bytes:
    """Return the bytes of a description file; DescriptionError naming it if unreadable."""
    try:
        with open(path, 'rb') as stream:
            return stream.read()
    except OSError as exc:
        raise DescriptionError(f"cannot read '{os.fspath(path)}': {exc.strerror}") from None


@functools.lru_cache(maxsize=None)
def default_registry() -> ParserRegistry:
    """Return the process-wide registry: built-ins plus installed plugins (built once)."""
    return ParserRegistry.from_entry_points()


def load_model(data: str | bytes, parser: str = 'auto',
               options: Mapping[str, Any] | None = None) -> Model:
    """Parse a robot description with the default registry (see :meth:`ParserRegistry.parse`)."""
    return default_registry().parse(data, parser, options)


def load_model_file(path: str | os.PathLike, parser: str = 'auto',
                    options: Mapping[str, Any] | None = None) -> Model:
    """Parse a robot description file; relative xacro includes resolve against its folder."""
    return default_registry().parse_file(path, parser, options)
