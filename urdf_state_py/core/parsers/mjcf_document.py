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
An MJCF document made ready for reading: includes spliced in, compiler settings, defaults.

* ``<include file>`` is replaced by the children of the included file's
  ``<mujoco>`` root, as MuJoCo does; relative names resolve against the
  parser's ``base_dir`` (MuJoCo: the main model's folder). Descriptions that
  arrive at run time (the restricted policy of :mod:`.xacro_sandbox`) may
  include only files below a declared ``base_dir``.
* ``<compiler>``: ``angle`` (degrees by default), ``eulerseq``, ``autolimits``,
  ``meshdir``/``assetdir``.
* ``<default>`` classes: each class holds, per element type, the attributes
  inherited from its parent class and overridden by its own; an element takes
  its own ``class``, else the ``childclass`` of its nearest body or frame,
  else ``main``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
import math
import os
import re
from xml.etree.ElementTree import Element

from ._xml import read_tree
from .mjcf_orientation import FORMS, IDENTITY, orientation, Pose
from .xacro_sandbox import current_policy, expansion_limit, RESTRICTED
from ..errors import DescriptionError

#: Elements that add or move bodies in ways this reader does not follow.
UNSUPPORTED = ('replicate', 'composite', 'flexcomp', 'attach')
MAIN_CLASS = 'main'
_MAX_INCLUDE_DEPTH = 8
_MAX_INCLUDES = 64
_NUMBER = re.compile(r'[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?')


@dataclass(frozen=True)
class Compiler:
    """The ``<compiler>`` settings that change what the kinematics reads."""

    degrees: bool = True
    eulerseq: str = 'xyz'
    autolimits: bool = True
    meshdir: str = ''


@dataclass
class Document:
    """The ``<mujoco>`` root with includes spliced in, and what it declares once."""

    root: Element
    base_dir: str
    compiler: Compiler = field(default_factory=Compiler)
    classes: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)

    def attributes(self, element: Element, childclass: str) -> dict[str, str]:
        """
        ``element``'s attributes over those of its class (own ``class``, else ``childclass``).

        An orientation written on the element replaces any the class sets.
        """
        name = element.get('class', childclass)
        if name not in self.classes:
            raise DescriptionError(f"<{element.tag}> uses unknown default class '{name}'")
        merged = dict(self.classes[name].get(element.tag, {}))
        if any(form in element.attrib for form in FORMS):
            for form in FORMS:
                merged.pop(form, None)
        merged.update(element.attrib)
        return merged

    def pose(self, attributes: Mapping[str, str], what: str) -> Pose:
        """Return the ``pos`` and orientation (any one form) of an element in its parent."""
        position = numbers(attributes.get('pos'), f'{what} pos', 3, (0.0, 0.0, 0.0))
        forms = [form for form in FORMS if form in attributes]
        if len(forms) > 1:
            raise DescriptionError(f"{what} has several orientations ({', '.join(forms)})")
        if not forms:
            return position, IDENTITY
        values = numbers(attributes[forms[0]], f'{what} {forms[0]}', FORMS[forms[0]])
        return position, orientation(forms[0], list(values), self.compiler.degrees,
                                     self.compiler.eulerseq, what)


def read_document(data: str | bytes, base_dir: str) -> Document:
    """Return the document of ``data``; DescriptionError for what MuJoCo would refuse."""
    root = read_tree(data)
    if root.tag != 'mujoco':
        raise DescriptionError(f'root element is <{root.tag}>, expected <mujoco>')
    base = os.path.abspath(base_dir) if base_dir else os.path.abspath(os.curdir)
    _splice_includes(root, base, bool(base_dir), [], [0, 0])
    for element in root.iter():
        if element.tag in UNSUPPORTED:
            raise DescriptionError(f'<{element.tag}> is not supported by the mjcf parser '
                                   '(it adds or moves bodies; expand the model first)')
    document = Document(root, base, _compiler(root))
    main: dict[str, dict[str, str]] = {}
    document.classes[MAIN_CLASS] = main
    for section in root.findall('default'):
        name = section.get('class', MAIN_CLASS)
        if name != MAIN_CLASS:
            raise DescriptionError(f"top-level <default> must be class '{MAIN_CLASS}', "
                                   f"not '{name}'")
        _read_class(section, main, document.classes)
    return document


def _splice_includes(parent: Element, base: str, declared: bool, chain: list[str],
                     count: list[int]) -> None:
    """Replace each ``<include>`` below ``parent``; ``count``: includes and bytes so far."""
    index = 0
    while index < len(parent):
        child = parent[index]
        if child.tag != 'include':
            _splice_includes(child, base, declared, chain, count)
            index += 1
            continue
        path, included = _read_include(child.get('file'), base, declared, chain, count)
        _splice_includes(included, base, declared, chain + [path], count)
        parent.remove(child)
        for offset, element in enumerate(list(included)):
            parent.insert(index + offset, element)
        index += len(included)


def _read_include(name: str | None, base: str, declared: bool, chain: list[str],
                  count: list[int]) -> tuple[str, Element]:
    if not name:
        raise DescriptionError("<include> has no 'file' attribute")
    path = os.path.realpath(os.path.join(base, name))
    if current_policy() == RESTRICTED:
        root = os.path.realpath(base)
        if not declared or os.path.commonpath([root, path]) != root:
            raise DescriptionError(f"<include file='{name}'>: a description set at run time "
                                   f'may include only files below mjcf.base_dir '
                                   f"({root if declared else 'not set'})", kind='policy')
    if path in chain:
        raise DescriptionError(f"<include file='{name}'> includes itself")
    count[0] += 1
    if len(chain) >= _MAX_INCLUDE_DEPTH or count[0] > _MAX_INCLUDES:
        raise DescriptionError(f"<include file='{name}'>: more than {_MAX_INCLUDES} includes "
                               f'or nested deeper than {_MAX_INCLUDE_DEPTH}')
    limit = expansion_limit()
    try:
        with open(path, 'rb') as stream:   # no more than the limit allows, plus one byte
            data = stream.read() if limit is None else stream.read(limit - count[1] + 1)
    except OSError as exc:
        raise DescriptionError(f"<include file='{name}'>: cannot read '{path}': "
                               f'{exc.strerror}') from None
    count[1] += len(data)
    if limit is not None and count[1] > limit:
        raise DescriptionError(f"<include file='{name}'>: the included files are over the "
                               f'limit of {limit} bytes (description.max_bytes)',
                               kind='size limit')
    try:
        included = read_tree(data)
    except DescriptionError as exc:
        raise DescriptionError(f"<include file='{name}'>: {exc.reason}") from None
    if included.tag != 'mujoco':
        raise DescriptionError(f"<include file='{name}'>: root element is <{included.tag}>, "
                               'expected <mujoco>')
    return path, included


def _compiler(root: Element) -> Compiler:
    settings: dict[str, str] = {}
    for element in root.findall('compiler'):
        settings.update(element.attrib)
    if settings.get('coordinate', 'local') != 'local':
        raise DescriptionError("<compiler coordinate='global'> is not supported "
                               '(MuJoCo itself removed it; use local coordinates)')
    angle = settings.get('angle', 'degree')
    if angle not in ('degree', 'radian'):
        raise DescriptionError(f"<compiler angle='{angle}'>: expected 'degree' or 'radian'")
    eulerseq = settings.get('eulerseq', 'xyz')
    if len(eulerseq) != 3 or any(c not in 'xyzXYZ' for c in eulerseq):
        raise DescriptionError(f"<compiler eulerseq='{eulerseq}'>: expected 3 letters "
                               'of xyzXYZ')
    meshdir = settings.get('meshdir', settings.get('assetdir', ''))
    return Compiler(degrees=angle == 'degree', eulerseq=eulerseq,
                    autolimits=flag(settings.get('autolimits', 'true'), 'compiler autolimits'),
                    meshdir=meshdir)


def _read_class(section: Element, inherited: dict[str, dict[str, str]],
                classes: dict[str, dict[str, dict[str, str]]]) -> None:
    """Fill ``inherited`` (this class's table) from ``section``; recurse into child classes."""
    for child in section:
        if child.tag != 'default':
            merged = dict(inherited.get(child.tag, {}))
            if any(form in child.attrib for form in FORMS):
                for form in FORMS:
                    merged.pop(form, None)
            merged.update(child.attrib)
            inherited[child.tag] = merged
    for child in section.findall('default'):
        name = child.get('class')
        if not name:
            raise DescriptionError('a nested <default> has no class attribute')
        if name in classes:
            raise DescriptionError(f"default class '{name}' is defined twice")
        table = {tag: dict(values) for tag, values in inherited.items()}
        classes[name] = table
        _read_class(child, table, classes)


def numbers(text: str | None, what: str, count: int | None = None,
            default: tuple[float, ...] = ()) -> tuple[float, ...]:
    """
    Return the numbers of an attribute (``default`` when absent).

    ``count``: exactly that many (None: 1 to 3, as a geom's ``size``).
    """
    if text is None:
        return default
    parts = text.split()
    for part in parts:
        if not _NUMBER.fullmatch(part):
            raise DescriptionError(f"{what}: '{part}' is not a number")
    values = tuple(float(part) for part in parts)
    if any(not math.isfinite(value) for value in values):
        raise DescriptionError(f"{what}: '{text}' is out of range")
    if not values or (count is None and len(values) > 3):
        raise DescriptionError(f"{what} must be 1 to 3 numbers, not '{text}'")
    if count is not None and len(values) != count:
        raise DescriptionError(f'{what} must be {count} numbers, found {len(values)} '
                               f"in '{text}'")
    return values


def flag(text: str, what: str) -> bool:
    """Return an MJCF boolean (``true``/``false``)."""
    if text not in ('true', 'false'):
        raise DescriptionError(f"{what}: '{text}' is not true or false")
    return text == 'true'
