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
The restricted xacro policy: what a description that arrives at run time may do.

A description set at run time (``ros2 param set``, the ``robot_description``
topic) comes from anyone on the DDS domain. xacro evaluates ``${...}`` and
``$(eval ...)`` with Python's ``eval``, reads the environment (``$(env)``,
``$(optenv)``, ``$(cwd)``) and any file (``xacro:include``,
``xacro.load_yaml``, ``$(find)``). Filtering spellings does not make ``eval``
safe (xacro 2.1.1's own ``__`` filter is bypassed through list comprehensions
and string keys), so under this policy nothing is handed to ``eval`` at all:

* ``${...}`` is evaluated by :class:`~.restricted_evaluator.RestrictedEvaluator`, which walks the
  expression's :mod:`ast` and allows only numbers, strings, booleans, tuples
  and lists of them, arithmetic, comparisons, ``and``/``or``/``not``,
  ``a if c else b``, property names, subscripts of plain data, the math
  functions xacro documents (``sin``, ``math.pi``, ``radians``...), ``min``,
  ``max``, ``round``, ``int``, ``float``, ``str``, ``bool``, ``len``, ``list``,
  ``dict`` (also as ``python.<name>``, with ``python.abs``), dict literals,
  ``xacro.arg(...)`` and ``xacro.load_yaml(...)`` (files as below). Anything
  else (calls of other names, attributes beyond those, comprehensions,
  lambdas, names starting with ``_``) is refused, naming the construct.
* ``$(...)`` may only be ``$(arg name)``, ``$(dirname)`` and ``$(find pkg)``
  for a package in ``xacro.package_paths``; ``$(eval)``, ``$(env)``,
  ``$(optenv)``, ``$(cwd)`` and ament-index lookups are refused.
* Files (includes, ``load_yaml``) are read only below ``xacro.base_dir`` or a
  ``xacro.package_paths`` folder, after resolving symbolic links.

The sandbox is installed into xacro's module globals by
:func:`restricted_session` for one expansion; the expansion itself runs in a
separate process with time and memory limits (see :mod:`.isolated`), so an
expression this evaluator allows but that is merely expensive is stopped there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
import os
import re
from typing import Any

from .restricted_evaluator import refuse, RestrictedEvaluator, SandboxViolation

__all__ = ['RESTRICTED', 'TRUSTED', 'POLICIES', 'RestrictedEvaluator', 'SandboxViolation',
           'arg_value_problem', 'current_policy', 'expansion_limit', 'limit_expansion', 'policy',
           'restricted_session']

#: All of xacro, as the ``xacro`` command (a model file chosen by the operator at launch).
TRUSTED = 'full'
#: The sandbox above (descriptions that arrive at run time).
RESTRICTED = 'restricted'
POLICIES = (RESTRICTED, TRUSTED)

_POLICY: ContextVar[str] = ContextVar('urdf_state_py_xacro_policy', default=TRUSTED)


def current_policy() -> str:
    """Return the xacro policy of the expansion running in this context (default: trusted)."""
    return _POLICY.get()


@contextmanager
def policy(name: str) -> Iterator[None]:
    """Expand xacro under ``name`` (:data:`RESTRICTED` or :data:`TRUSTED`) in this context."""
    if name not in POLICIES:
        raise ValueError(f'unknown xacro policy {name!r} (known: {", ".join(POLICIES)})')
    token = _POLICY.set(name)
    try:
        yield
    finally:
        _POLICY.reset(token)


_MAX_EXPANSION: ContextVar[int | None] = ContextVar('urdf_state_py_xacro_max_bytes', default=None)


def expansion_limit() -> int | None:
    """Return the largest expansion (bytes) allowed in this context; None: no limit."""
    return _MAX_EXPANSION.get()


@contextmanager
def limit_expansion(max_bytes: int | None) -> Iterator[None]:
    """Refuse xacro expansions larger than ``max_bytes`` in this context (before parsing them)."""
    token = _MAX_EXPANSION.set(max_bytes)
    try:
        yield
    finally:
        _MAX_EXPANSION.reset(token)


# -- $(...) and files -----------------------------------------------------------------

_EXTENSION = re.compile(r'^\$\((\w+)((?:\s+[^\s$()]+)*)\s*\)$')


def _within(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


@contextmanager
def restricted_session(xacro: Any, packages: Mapping[str, str], base_dir: str | None,
                       context: dict[str, Any]) -> Iterator[None]:
    """
    Install the restricted policy into the ``xacro`` module for one expansion.

    ``packages``: the declared ``$(find)`` folders; ``base_dir``: the declared
    include folder or None (then relative files are refused too);
    ``context``: xacro's substitution-args context (``context['arg']``).
    """
    roots = [os.path.realpath(p) for p in list(packages.values()) + ([base_dir] if base_dir
                                                                     else [])]

    def check_file(filename: str, construct: str) -> str:
        if not _within(filename, roots):
            declared = ', '.join(roots) or 'none declared'
            raise refuse(f"{construct} of '{filename}' (outside xacro.base_dir/"
                         f'xacro.package_paths: {declared})')
        return filename

    original_load_yaml = xacro.load_yaml

    def load_yaml(filename: Any) -> Any:
        if not isinstance(filename, str):
            raise refuse('load_yaml of a non-string')
        check_file(xacro.abs_filename_spec(filename), 'xacro.load_yaml')
        return original_load_yaml(filename)

    def arg(name: Any) -> Any:
        return context['arg'][name]

    functions = {'arg': arg, 'load_yaml': load_yaml}

    def safe_eval(expr: str, symbols: Mapping[str, Any], _locals: Any = None) -> Any:
        if not isinstance(expr, str):
            return expr
        return RestrictedEvaluator(symbols, functions).evaluate(expr)

    def eval_extension(text: str) -> str:
        command = re.match(r'\$\((\w*)', text)
        if command is not None and command.group(1) not in ('arg', 'find', 'dirname'):
            raise refuse(f'$({command.group(1)} ...)' if command.group(1) else f"'{text[:40]}'")
        match = _EXTENSION.match(text)
        if match is None:
            raise refuse(f"the substitution '{text[:80]}' (only $(arg name), $(find pkg) "
                         'and $(dirname), one per $(...))')
        command, args = match.group(1), match.group(2).split()
        if command == 'arg' and len(args) == 1:
            try:
                return context['arg'][args[0]]
            except KeyError:
                raise xacro.XacroException(f'Undefined substitution argument {args[0]}') \
                    from None
        if command == 'find' and len(args) == 1:
            if args[0] not in packages:
                raise refuse(f'$(find {args[0]}) (package not in xacro.package_paths)')
            return packages[args[0]]
        if command == 'dirname' and not args and base_dir:
            return os.path.dirname(os.path.abspath(xacro.filestack[-1] or '.'))
        raise refuse(f'$({command}{" ..." if args else ""}) here')

    saved = {name: getattr(xacro, name) for name in ('safe_eval', 'eval_extension', 'load_yaml')}
    xacro.safe_eval = safe_eval
    xacro.eval_extension = eval_extension
    xacro.load_yaml = load_yaml
    context['check_file'] = check_file
    try:
        yield
    finally:
        context.pop('check_file', None)
        for name, value in saved.items():
            setattr(xacro, name, value)


# -- xacro arguments set at run time ----------------------------------------------------

#: Characters an argument value set at run time may not contain. xacro pastes a
#: ``$(arg)`` value into the text of an enclosing ``${...}`` before evaluating it,
#: so in a trusted model a value could otherwise become code; without brackets,
#: parentheses, quotes, ``$`` and backslashes no call, subscript or string can be
#: formed, whatever the surrounding expression.
_ARG_FORBIDDEN = set('()[]{}\'"`$\\;\n\r')


def arg_value_problem(item: str) -> str | None:
    """Why the run-time xacro argument ``name:=value`` is refused, or None."""
    _, _, value = item.partition(':=')
    bad = sorted(set(value) & _ARG_FORBIDDEN)
    if bad:
        shown = ' '.join(repr(c) for c in bad)
        return (f"xacro argument '{item[:60]}': a value set at run time may not contain "
                f'{shown} (argument values are data, never code)')
    return None
