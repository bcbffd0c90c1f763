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
The parser plugin interface: what every description format implements.

A parser turns the text of a robot description into a validated
:class:`~urdf_state_py.core.model.Model`. Choosing a parser follows ROS 2's
``urdf_parser_plugin`` contract: each parser reports, through
:meth:`Parser.might_handle`, the position in the text at which it became
confident that the text is its format; the lowest position wins and a position
``>= len(data)`` means "not mine".

Parsers may take options (:class:`ParserOption`); the node declares each one as
the ROS parameter ``<parser name>.<option name>`` with the type of the
option's default value.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import DescriptionError
from ..model import Model

#: Python types an option default may have (they map 1:1 to ROS parameter types).
OPTION_TYPES = (bool, int, float, str, list)


@dataclass(frozen=True)
class ParserOption:
    """
    One option of a parser.

    ``default`` also fixes the option's type: ``str``, ``bool``, ``int``,
    ``float`` or ``list[str]`` (a list default must hold only strings; use
    ``[]`` for an empty one).
    """

    name: str
    default: Any
    description: str = ''

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace('_', 'a').isalnum():
            raise ValueError(f'option name {self.name!r} must be a non-empty identifier')
        if not isinstance(self.default, OPTION_TYPES):
            raise TypeError(f'option {self.name!r}: default must be str, bool, int, float '
                            f'or list[str], not {type(self.default).__name__}')
        if isinstance(self.default, list):
            if not all(isinstance(item, str) for item in self.default):
                raise TypeError(f'option {self.name!r}: a list default must hold only strings')
            # Frozen dataclass with a mutable default: keep a private copy.
            object.__setattr__(self, 'default', list(self.default))

    @property
    def type(self) -> type:  # noqa: A003 (a public property; a method, no builtin hidden)
        """Return the Python type of the option (``list`` stands for ``list[str]``)."""
        return type(self.default)

    def check(self, value: Any, parser: str) -> Any:
        """``value`` converted to the option's type, or DescriptionError naming the option."""
        what = f"option '{parser}.{self.name}'"
        expected = self.type
        if expected is bool:
            if isinstance(value, bool):
                return value
        elif expected is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif expected is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        elif expected is str:
            if isinstance(value, str):
                return value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        type_name = 'list[str]' if expected is list else expected.__name__
        raise DescriptionError(f'{what} must be {type_name}, got {value!r}', parser=parser)


class Parser(abc.ABC):
    """
    A robot description format.

    Subclasses set ``name`` (also the entry point name and the ROS parameter
    prefix of the options) and ``options``, and implement :meth:`might_handle`
    and :meth:`parse`. A parser must be usable from several threads at once
    (keep no per-call state on ``self``).
    """

    name: ClassVar[str] = ''
    options: ClassVar[tuple[ParserOption, ...]] = ()

    @abc.abstractmethod
    def might_handle(self, data: str) -> int:
        """
        Position in ``data`` where this parser became confident it can parse it.

        Lower is more confident; ``>= len(data)`` means "not mine".
        """

    @abc.abstractmethod
    def parse(self, data: str, options: Mapping[str, Any]) -> Model:
        """
        Build the model; raise :class:`DescriptionError` for a bad description.

        ``options`` is keyed by option name; missing options take their
        default (see :meth:`resolve_options`).
        """

    def parse_published(self, data: str, options: Mapping[str, Any]) -> tuple[Model, str]:
        """
        Return the model plus the text to publish as ``robot_description`` (``data`` itself).

        A format other tools cannot read overrides this to return what it turns
        ``data`` into (xacro: the expanded URDF), so the work is done once.
        """
        return self.parse(data, options), data

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """
        Every declared option: given values checked, missing ones defaulted.

        Unknown option names are a :class:`DescriptionError` naming them.
        """
        declared = {option.name: option for option in self.options}
        given = dict(options or {})
        unknown = sorted(set(given) - set(declared))
        if unknown:
            known = ', '.join(sorted(declared)) or 'none'
            raise DescriptionError(
                f"unknown option(s) for parser '{self.name}': {', '.join(unknown)} "
                f'(known: {known})', parser=self.name)
        resolved = {}
        for name, option in declared.items():
            if name in given:
                resolved[name] = option.check(given[name], self.name)
            else:
                default = option.default
                resolved[name] = list(default) if isinstance(default, list) else default
        return resolved

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.name!r}>'
