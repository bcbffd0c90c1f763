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
Values typed on the command line: joint values such as ``-pi/2``, and the usage error.

Kept apart from :mod:`.cli` (which re-exports both) so the command table stays
readable; nothing here imports numpy or ROS.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
import math
import operator


class UsageError(Exception):
    """
    A command-line mistake found after argparse (e.g. a misspelt joint name).

    Kept apart from :class:`DescriptionError` so that "your file is broken"
    (exit 1) and "your command is wrong" (exit 2) stay distinguishable in scripts.
    """


_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_NAMES = {'pi': math.pi, 'tau': math.tau, 'inf': math.inf, 'nan': math.nan}


def parse_number(text: str) -> float:
    """
    Return a joint value: a float or a small arithmetic expression such as ``-pi/2``.

    Angles are naturally written in terms of pi, and typing 1.5707963267948966
    by hand is error prone; the expression is evaluated from its syntax tree
    (numbers, pi/tau/inf/nan, + - * / **), never with ``eval``.
    """
    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id in _NAMES:
            return _NAMES[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](value(node.operand))
        raise ValueError
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return value(ast.parse(text.strip(), mode='eval').body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        raise UsageError(f"'{text}' is not a number (use e.g. 0.5, -pi/2, 3*pi/4)") from None


def as_bool(name: str, text: str) -> bool:
    """
    Read a yes/no launch argument.

    ``true``/``false``, ``1``/``0``, ``on``/``off``, ``yes``/``no``; empty: false; ValueError
    naming the argument otherwise.
    """
    value = text.strip().lower()
    if value in ('true', '1', 'yes', 'on'):
        return True
    if value in ('false', '0', 'no', 'off', ''):
        return False
    raise ValueError(f"{name} must be true or false, not '{text}'")
