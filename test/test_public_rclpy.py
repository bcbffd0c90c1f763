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
The package uses rclpy's public API only.

A user's rclpy is whatever release their distro carries: a private attribute may
change in any patch release, and the package must work on all of them. So no file
of the package may import rclpy's implementation modules, nor touch (``x._name``,
``getattr(x, '_name')``, a class attribute ``_name = ...``) a private attribute that
rclpy's own Python sources define -- unless the package defines that name itself
(``self._lock`` of its own classes).
"""
from pathlib import Path
import re

import pytest

rclpy = pytest.importorskip('rclpy')

PACKAGE = Path(__file__).resolve().parent.parent / 'urdf_state_py'

_DEFINED = re.compile(r'\bself\.(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)|\bdef (_[A-Za-z]\w*)'
                      r'|^\s*(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)', re.M)
_MANGLED = re.compile(r'\b_[A-Z]\w*__[a-z]\w*')
_ACCESS = re.compile(r'\b(?!self\b|cls\b)\w+\)?\.(_[A-Za-z]\w*)')
_GETATTR = re.compile(r"\b(?:getattr|hasattr|setattr)\(\s*[\w.]+,\s*'(_[A-Za-z]\w*)'")
_CLASS_ATTRIBUTE = re.compile(r'^    (_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)', re.M)


def _sources(root: Path) -> dict[Path, str]:
    return {path: path.read_text(encoding='utf-8') for path in sorted(root.rglob('*.py'))}


def _rclpy_private_names() -> set[str]:
    names = set()
    for text in _sources(Path(rclpy.__file__).parent).values():
        for match in _DEFINED.finditer(text):
            names.update(filter(None, match.groups()))
    return {name for name in names if not name.startswith('__')}


def _package_names(sources: dict[Path, str]) -> set[str]:
    names = set()
    for text in sources.values():
        for match in _DEFINED.finditer(text):
            names.update(filter(None, match.groups()))
    return names


def _uses(text: str, private: set[str]) -> list[str]:
    found = [m.group(0) for m in _MANGLED.finditer(text)]
    found += ['implementation_singleton'] * text.count('implementation_singleton')
    found += ['_rclpy_pybind11'] * text.count('_rclpy_pybind11')
    for pattern in (_ACCESS, _GETATTR):
        found += [m.group(0) for m in pattern.finditer(text) if m.group(1) in private]
    return found


def test_no_file_of_the_package_uses_a_private_rclpy_attribute():
    sources = _sources(PACKAGE)
    assert len(sources) > 50
    private = _rclpy_private_names()
    assert {'_parameter_overrides', '_subscriptions', '_sigint_gc'} <= private, \
        "rclpy's private names were not found: the scan reads the wrong files"
    own = _package_names(sources)
    # A class attribute of the package that only rclpy defines (a default for rclpy's own
    # attribute, set on a subclass) counts as a use too.
    reported = {}
    for path, text in sources.items():
        uses = _uses(text, private - (own - set(_CLASS_ATTRIBUTE.findall(text))))
        uses += [f'class attribute {name}' for name in _CLASS_ATTRIBUTE.findall(text)
                 if name in private and f'self.{name}' not in text]
        if uses:
            reported[str(path.relative_to(PACKAGE.parent))] = uses
    assert reported == {}, reported


@pytest.mark.parametrize('text, flagged', [
    ('node._parameter_overrides.get(name)', True),
    ("getattr(node, '_parameter_overrides', {})", True),
    ("getattr(event, '_EventHandler__event', None)", True),
    ('from rclpy.impl.implementation_singleton import rclpy_implementation', True),
    ('self._subscriptions = []', False),
    ('node.subscriptions', False),
])
def test_the_scan_sees_each_kind_of_use(text, flagged):
    assert bool(_uses(text, _rclpy_private_names())) is flagged
