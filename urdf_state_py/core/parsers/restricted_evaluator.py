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
The ``${...}`` evaluator of the restricted xacro policy: an :mod:`ast` walk, never ``eval``.

:mod:`.xacro_sandbox` installs it into xacro for a description that arrives at
run time (its docstring lists what an expression may do). Each allowed operation
is kept cheap (bounded powers, repetitions and sizes); an expression that is
allowed but merely expensive is stopped by the parser process's limits.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
import math
import operator
from typing import Any

__all__ = ['RestrictedEvaluator', 'SandboxViolation', 'refuse']

# Bounds that keep one allowed operation cheap (the process limits catch the rest).
_MAX_POW_BITS = 4096
_MAX_TEXT = 1 << 20
_MAX_ITEMS = 10_000


class SandboxViolation(Exception):
    """A construct the restricted policy refuses; the message names it."""


def refuse(construct: str) -> SandboxViolation:
    """Return the error that refuses ``construct``, saying what the restricted policy allows."""
    return SandboxViolation(
        f'{construct} is not allowed in a description set at run time (restricted xacro '
        'policy: no code, no environment, no files outside xacro.base_dir/'
        'xacro.package_paths)')


_MATH = {name: value for name, value in vars(math).items()
         if not name.startswith('_') and (callable(value) or isinstance(value, float))}
# What xacro exposes by bare name (and as python.<name>, with abs), minus code and containers.
_BUILTINS: dict[str, Any] = {'min': min, 'max': max, 'round': round, 'int': int,
                             'float': float, 'str': str, 'bool': bool, 'len': len,
                             'list': list, 'dict': dict,
                             'True': True, 'False': False, 'None': None}
_PYTHON = {name: value for name, value in _BUILTINS.items() if callable(value)} | {'abs': abs}
_PLAIN = (int, float, str, bool, type(None))

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _is_data(value: Any) -> bool:
    """Plain data a run-time expression may hold: scalars and containers of them."""
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_data(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, _PLAIN) and _is_data(v) for k, v in value.items())
    return False


class RestrictedEvaluator:
    """
    Evaluates one ``${...}`` expression over a xacro symbol table without ``eval``.

    ``symbols`` is looked up by name (xacro's lazy property tables work as
    they are); ``functions`` adds callables reachable as ``xacro.<name>``
    (``arg``, ``load_yaml``) and by their bare name.
    """

    def __init__(self, symbols: Mapping[str, Any],
                 functions: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self._symbols = symbols
        self._functions = dict(functions or {})

    def evaluate(self, expression: str) -> Any:
        """Return the value of ``expression``; SandboxViolation or a plain error (SyntaxError)."""
        tree = ast.parse(expression.strip(), mode='eval')
        return self._eval(tree.body)

    # -- nodes -----------------------------------------------------------------

    def _eval(self, node: ast.AST) -> Any:
        method = getattr(self, '_eval_' + type(node).__name__, None)
        if method is None:
            raise refuse(f'the Python construct {_describe(node)}')
        return method(node)

    def _eval_Constant(self, node: ast.Constant) -> Any:
        if not isinstance(node.value, _PLAIN):
            raise refuse(f'the constant {node.value!r}')
        return node.value

    def _eval_Name(self, node: ast.Name) -> Any:
        name = node.id
        if name.startswith('_'):
            raise refuse(f"the name '{name}'")
        if name in _BUILTINS and name not in self._symbols_own(name):
            return _BUILTINS[name]
        try:
            value = self._symbols[name]
        except KeyError:
            raise NameError(f"name '{name}' is not defined") from None
        if _is_data(value) or _is_yaml(value):
            return value
        if name in _MATH:
            return _MATH[name]
        if name in self._functions:
            return self._functions[name]
        raise refuse(f"the name '{name}' ({type(value).__name__})")

    def _symbols_own(self, name: str) -> set[str]:
        """{name} when a property of that name shadows a builtin (xacro allows it)."""
        try:
            value = self._symbols[name]
        except KeyError:
            return set()
        return {name} if _is_data(value) else set()

    def _eval_Attribute(self, node: ast.Attribute) -> Any:
        attr = node.attr
        if attr.startswith('_'):
            raise refuse(f"the attribute '{attr}'")
        namespaces = {'math': _MATH, 'python': _PYTHON, 'xacro': self._functions}
        if isinstance(node.value, ast.Name) and node.value.id in namespaces \
                and not self._symbols_own(node.value.id):
            table = namespaces[node.value.id]
            if attr in table:
                return table[attr]
            raise refuse(f"'{node.value.id}.{attr}'")
        if isinstance(node.value, ast.Name) and not node.value.id.startswith('_'):
            try:
                base = self._symbols[node.value.id]
            except KeyError:
                raise NameError(f"name '{node.value.id}' is not defined") from None
            if type(base).__name__ != 'NameSpace':
                base = self._eval(node.value)
        else:
            base = self._eval(node.value)
        if _is_yaml(base) or type(base).__name__ == 'NameSpace':
            value = base[attr]
            if _is_data(value) or _is_yaml(value):
                return value
        raise refuse(f"the attribute '.{attr}' of a {type(base).__name__}")

    def _eval_Subscript(self, node: ast.Subscript) -> Any:
        base = self._eval(node.value)
        index = self._eval(node.slice)
        if not (_is_data(base) or _is_yaml(base)) or not isinstance(index, (int, str)):
            raise refuse('this subscript')
        return base[index]

    def _eval_Slice(self, node: ast.Slice) -> Any:
        raise refuse('a slice')

    def _eval_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self._items(node.elts))

    def _eval_List(self, node: ast.List) -> list:
        return self._items(node.elts)

    def _items(self, elements: list[ast.expr]) -> list:
        if len(elements) > _MAX_ITEMS:
            raise refuse(f'a literal of {len(elements)} items')
        return [self._eval(e) for e in elements]

    def _eval_BinOp(self, node: ast.BinOp) -> Any:
        op = _BINARY.get(type(node.op))
        if op is None:
            raise refuse(f'the operator {type(node.op).__name__}')
        left, right = self._eval(node.left), self._eval(node.right)
        _check_operands(node.op, left, right)
        return op(left, right)

    def _eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        op = _UNARY.get(type(node.op))
        if op is None:
            raise refuse(f'the operator {type(node.op).__name__}')
        operand = self._eval(node.operand)
        if not _is_data(operand):
            raise refuse(f'{type(node.op).__name__} of a {type(operand).__name__}')
        return op(operand)

    def _eval_BoolOp(self, node: ast.BoolOp) -> Any:
        value = None
        for expr in node.values:
            value = self._eval(expr)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def _eval_Compare(self, node: ast.Compare) -> bool:
        left = self._eval(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _COMPARE.get(type(op_node))
            if op is None:
                raise refuse(f'the comparison {type(op_node).__name__}')
            right = self._eval(right_node)
            if not (_is_data(left) and (_is_data(right) or _is_yaml(right))):
                raise refuse('a comparison of non-data values')
            if not op(left, right):
                return False
            left = right
        return True

    def _eval_IfExp(self, node: ast.IfExp) -> Any:
        return self._eval(node.body) if self._eval(node.test) else self._eval(node.orelse)

    def _eval_Dict(self, node: ast.Dict) -> dict:
        if None in node.keys:
            raise refuse('a ** expansion')
        keys, values = self._items(node.keys), self._items(node.values)
        if not all(isinstance(k, _PLAIN) for k in keys):
            raise refuse('a dict key that is not a number or a string')
        return dict(zip(keys, values))

    def _eval_Call(self, node: ast.Call) -> Any:
        if any(keyword.arg is None for keyword in node.keywords):
            raise refuse('a ** expansion')
        func = self._callable(node.func)
        args = [self._eval(arg) for arg in node.args]
        kwargs = {keyword.arg: self._eval(keyword.value) for keyword in node.keywords}
        if not all(_is_data(a) or _is_yaml(a) for a in args + list(kwargs.values())):
            raise refuse('a call with non-data arguments')
        result = func(*args, **kwargs)
        if not (_is_data(result) or _is_yaml(result)):
            raise refuse(f'a call returning {type(result).__name__}')
        return result

    def _callable(self, node: ast.expr) -> Callable[..., Any]:
        if isinstance(node, ast.Name):
            name = node.id
            for table in (_BUILTINS, _MATH, self._functions):
                if name in table and callable(table[name]) and not self._symbols_own(name):
                    return table[name]
            raise refuse(f"calling '{name}'")
        # Evaluating the callee first names what is wrong inside it (a '__' name...).
        target = self._eval_Attribute(node) if isinstance(node, ast.Attribute) \
            else self._eval(node)
        if isinstance(node, ast.Attribute) and callable(target) and not _is_yaml(target):
            return target
        raise refuse(f'calling {_describe(node)}')


def _is_yaml(value: Any) -> bool:
    """Xacro's wrappers of ``load_yaml`` data (dicts/lists with dotted access)."""
    return type(value).__name__ in ('YamlDictWrapper', 'YamlListWrapper') and _is_data(
        dict(value) if isinstance(value, dict) else list(value))


def _check_operands(op: ast.operator, left: Any, right: Any) -> None:
    """Only data operands; no power or repetition that blows up in one step."""
    if not (_is_data(left) and _is_data(right)):
        raise refuse(f'{type(op).__name__} of {type(left).__name__} and '
                     f'{type(right).__name__}')
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int) \
            and right > 0 and abs(left) > 1 and right * max(abs(left).bit_length(), 1) \
            > _MAX_POW_BITS:
        raise refuse(f'an integer power of more than {_MAX_POW_BITS} bits')
    if isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(count, int) \
                    and len(seq) * count > _MAX_TEXT:
                raise refuse(f'a repetition longer than {_MAX_TEXT} items')


def _describe(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # only for the message
        text = ''
    kind = {'ListComp': 'a list comprehension', 'GeneratorExp': 'a generator expression',
            'SetComp': 'a set comprehension', 'DictComp': 'a dict comprehension',
            'Lambda': 'a lambda', 'NamedExpr': 'an assignment expression',
            'Starred': 'a starred expression', 'JoinedStr': 'an f-string',
            'Set': 'a set literal'}.get(type(node).__name__,
                                        type(node).__name__)
    return f"{kind} '{text[:60]}'" if text else kind
