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
The description a :mod:`.cli` command reads: FILE (or stdin), the parser and its options.

The flags are the node's parameters spelt for a shell (``--xacro-arg``,
``--package-path``, ``--option PARSER.OPTION=VALUE``), so the command parses a
file exactly as the node would with those parameters; ``--part`` attaches a
part as the node's ``parts.<name>.*`` do.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers import Parser, ParserRegistry
from urdf_state_py.core.parsers._xml import decode
from urdf_state_py.core.robot_parts import compose, Part, part_name_problem

from . import srdf_summary
from .cli_values import UsageError

__all__ = ['add_load_arguments', 'load_description', 'option_type_name', 'part_spec',
           'read_input', 'warn']


def read_input(path: str) -> bytes:
    """Return the description's bytes; ``-`` reads stdin so xacro output can be piped in."""
    if path == '-':
        return sys.stdin.buffer.read()
    try:
        with open(path, 'rb') as stream:
            return stream.read()
    except OSError as exc:
        raise DescriptionError(f"cannot read '{path}': {exc.strerror}") from None


def _parser_options(parser: Parser, args: argparse.Namespace, path: str) -> dict[str, Any]:
    """
    Map the xacro-style flags onto the chosen parser's declared options.

    Only options the parser declares are passed (a parser rejects unknown
    ones); flags the chosen parser cannot use are reported rather than
    silently dropped, because a user who passes ``--xacro-arg`` to a file that
    was detected as plain URDF is most likely debugging exactly that mismatch.
    """
    declared = {option.name for option in parser.options}
    options: dict[str, Any] = {}
    for flag, option, values in (('--xacro-arg', 'args', args.xacro_arg),
                                 ('--package-path', 'package_paths', args.package_path)):
        if not values:
            continue
        if option in declared:
            # A relative PKG=PATH is relative to the shell's folder, not to the file's.
            options[option] = list(values) if option == 'args' else [
                f'{pkg}={os.path.abspath(path)}' if sep else item
                for item in values for pkg, sep, path in [item.partition('=')]]
        else:
            warn(f"{flag} ignored: parser '{parser.name}' has no '{option}' option")
    if 'base_dir' in declared:
        # Same rule as ParserRegistry.parse_file: relative includes resolve
        # against the file's folder (stdin: the current directory).
        options['base_dir'] = os.getcwd() if path == '-' else \
            os.path.dirname(os.path.abspath(path))
    for item in args.option:
        owner, name, value = _option_assignment(item)
        if owner != parser.name:
            warn(f"--option {item} ignored: the description is read by parser '{parser.name}'")
            continue
        option = next((o for o in parser.options if o.name == name), None)
        if option is None:
            raise UsageError(f"--option {item}: parser '{owner}' has no option '{name}' "
                             f"(see the 'parsers' command)")
        if option.type is list:
            options.setdefault(name, []).append(value)
        else:
            options[name] = _option_value(option.type, value, item)
    return options


def _option_assignment(item: str) -> tuple[str, str, str]:
    """``PARSER.OPTION=VALUE`` (the node's parameter name, then the value) split in three."""
    key, sep, value = item.partition('=')
    owner, dot, name = key.strip().partition('.')
    if not sep or not dot or not owner or not name:
        raise UsageError(f'--option {item!r} is not of the form PARSER.OPTION=VALUE')
    return owner, name, value


_BOOLEANS = {'true': True, '1': True, 'yes': True, 'on': True,
             'false': False, '0': False, 'no': False, 'off': False}


def _option_value(option_type: type, text: str, item: str) -> Any:
    """``text`` as the option's type (lists are handled by the caller: one item per flag)."""
    try:
        if option_type is bool:
            return _BOOLEANS[text.strip().lower()]
        if option_type in (int, float):
            return option_type(text)
    except (KeyError, ValueError):
        raise UsageError(f'--option {item}: not a {option_type_name(option_type)}') from None
    return text


def load_description(args: argparse.Namespace,
                     registry: ParserRegistry) -> tuple[Model, str, dict[str, int], int]:
    """
    Parse ``args.file`` and return the model plus how the parser was chosen.

    Returns ``(model, parser_name, scores, data_length)``; the scores are
    computed even when ``--parser`` forces a parser, since "would auto-detection
    have picked the same one?" is a common debugging question.
    """
    # Decode once, as the registry does, so scores and the "not mine"
    # threshold (len(text)) are the numbers the registry compared.
    data = decode(read_input(args.file))
    scores = registry.scores(data)
    length = len(data)
    name = registry.select(data) if args.parser == 'auto' else args.parser
    parser = registry.get(name)
    model = registry.parse(data, name, _parser_options(parser, args, args.file))
    return _with_parts(model, args, registry), name, scores, length


def _with_parts(model: Model, args: argparse.Namespace, registry: ParserRegistry) -> Model:
    """Return ``model`` with the ``--part`` files attached (each read with its own folder)."""
    if not getattr(args, 'part', None):
        return model
    prefixes = {}
    for item in args.part_prefix:
        name, sep, prefix = item.partition('=')
        if not sep:
            raise UsageError(f'--part-prefix {item!r} is not of the form NAME=PREFIX')
        prefixes[name] = prefix
    parts = []
    for item in args.part:
        part, path = part_spec(item)
        part = Part(part.name, part.parent, part.xyz, part.rpy, prefixes.pop(part.name, ''))
        parts.append((part, registry.parse_file(path)))
    if prefixes:
        raise UsageError(f'--part-prefix {sorted(prefixes)[0]}=...: no --part of that name')
    return compose(model, parts)


def part_spec(item: str) -> tuple[Part, str]:
    """``NAME=FILE@PARENT[:X,Y,Z[:R,P,Y]]`` -> (the part, its file); UsageError if malformed."""
    name, sep, rest = item.partition('=')
    path, at, where = rest.rpartition('@')
    parent, *numbers = where.split(':')
    problem = part_name_problem(name) if sep and at and parent else \
        'expected NAME=FILE@PARENT[:X,Y,Z[:R,P,Y]]'
    if problem is None and len(numbers) > 2:
        problem = 'at most two triples (xyz, then rpy) after the parent'
    triples = []
    for text in numbers:
        try:
            triple = tuple(float(x) for x in text.split(','))
        except ValueError:
            triple = ()
        if len(triple) != 3:
            problem = problem or f"'{text}' is not three numbers X,Y,Z"
        triples.append(triple)
    if problem:
        raise UsageError(f'--part {item!r}: {problem}')
    triples += [(0.0, 0.0, 0.0)] * (2 - len(triples))
    return Part(name, parent, triples[0], triples[1]), path


def option_type_name(option_type: type) -> str:
    """Return the option's type as a user writes it in a ROS parameter file."""
    return 'list[str]' if option_type is list else option_type.__name__


def warn(message: str) -> None:
    """Print a warning on stderr: the command goes on, stdout keeps only its answer."""
    print(f'warning: {message}', file=sys.stderr)


def add_load_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE and how to parse it: the arguments of every command that reads a description."""
    parser.add_argument('file', metavar='FILE', help="robot description file ('-' = stdin)")
    srdf_summary.add_arguments(parser)
    parser.add_argument('--parser', default='auto', metavar='NAME',
                        help="parser to use (default: auto; see the 'parsers' command)")
    parser.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                        help='xacro argument (repeatable)')
    parser.add_argument('--package-path', action='append', default=[], metavar='PKG=/PATH',
                        help='location of a package for $(find PKG) (repeatable)')
    parser.add_argument('--option', action='append', default=[], metavar='PARSER.OPTION=VALUE',
                        help="any parser option, named as the node's parameter, e.g. "
                             'urdf_parser_py.strict=true (repeatable; a list option takes one '
                             'item per flag)')
    parser.add_argument('--part', action='append', default=[],
                        metavar='NAME=FILE@PARENT[:X,Y,Z[:R,P,Y]]',
                        help='attach the description FILE at link PARENT, at that offset '
                             '[m, rad], as the node does with parts.NAME.* (repeatable, in '
                             'the order they attach)')
    parser.add_argument('--part-prefix', action='append', default=[], metavar='NAME=PREFIX',
                        help='prefix of every link and joint name of part NAME (repeatable)')
