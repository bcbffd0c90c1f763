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
package.xml, LICENSE and CHANGELOG.rst: what rosdep, bloom and the build farm read.

Whether each key resolves is checked against ros/rosdistro by hand (it needs the network);
here: the shape that makes ``rosdep install`` and a release work, and that the native
build's dependencies (setup.py's NATIVE_DEPENDS) are declared.
"""
from __future__ import annotations

import ast
from pathlib import Path
import re
import xml.etree.ElementTree as ET

from robot_files import REPO_ROOT

MANIFEST = ET.parse(REPO_ROOT / 'package.xml').getroot()


def _depends(*tags: str) -> set[str]:
    return {e.text.strip() for tag in tags for e in MANIFEST.iter(tag)}


def _native_depends() -> set[str]:
    tree = ast.parse((REPO_ROOT / 'setup.py').read_text())
    value = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and any(getattr(t, 'id', None) == 'NATIVE_DEPENDS' for t in n.targets))
    return set(ast.literal_eval(value))


def test_the_build_type_is_no_dependency_key():
    """ament_python is a build type: as a buildtool_depend, rosdep stops at it."""
    assert MANIFEST.find('export/build_type').text == 'ament_python'
    assert 'ament_python' not in _depends('buildtool_depend', 'build_depend', 'depend')


def test_the_native_build_declares_what_it_compiles_against():
    native = _native_depends()
    # sensor_msgs: the extension links JointState's C type support for its subscription
    assert native == {'rcl', 'rmw', 'rcutils', 'rosidl_runtime_c', 'sensor_msgs'}
    assert native <= _depends('depend', 'build_depend')
    assert {'python3-dev', 'python3-setuptools', 'ament_index_python'} <= _depends('build_depend')


def test_every_package_the_extension_includes_is_a_native_dependency():
    sources = (REPO_ROOT / 'urdf_state_py' / 'node' / 'tf_path' / '_native').glob('*.[ch]')
    included = {m for path in sources
                for m in re.findall(r'^#include <(\w+)/', path.read_text(), re.MULTILINE)}
    assert included and included <= _native_depends(), included - _native_depends()


def test_the_linter_tests_declare_their_linters():
    """On a build farm, an undeclared linter makes its test skip without a word."""
    linters = {'ament_copyright', 'ament_flake8', 'ament_pep257'}
    assert linters <= _depends('test_depend')
    for linter in linters:
        assert (REPO_ROOT / 'test' / f"test_{linter.split('_')[1]}.py").is_file()


#: Import name -> the rosdep key of a dependency the tests use and the package must not.
TEST_ONLY = {'psutil': 'python3-psutil', 'pinocchio': 'pinocchio', 'pytest': 'python3-pytest',
             'selenium': 'python3-selenium', 'PIL': 'python3-pil'}


def imports_of_test_only_modules(package: Path) -> list[str]:
    """``file:line module`` of every import of a TEST_ONLY module below ``package``."""
    found = []
    for path in sorted(package.rglob('*.py')):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and \
                not node.level else []
            found += [f'{path.relative_to(package.parent)}:{node.lineno} {n}' for n in names
                      if n.split('.')[0] in TEST_ONLY]
    return found


def test_nothing_installed_imports_a_test_only_dependency():
    """From a deb, only run dependencies are there: the package imports none of the tests'."""
    assert set(TEST_ONLY.values()) <= _depends('test_depend')
    assert not set(TEST_ONLY.values()) & _depends('depend', 'exec_depend')
    found = imports_of_test_only_modules(REPO_ROOT / 'urdf_state_py')
    assert not found, found


def test_every_key_is_declared_once_per_kind():
    for tag in ('build_depend', 'exec_depend', 'test_depend', 'depend'):
        keys = [e.text.strip() for e in MANIFEST.iter(tag)]
        assert len(keys) == len(set(keys)), f'{tag} repeats a key: {keys}'


def test_license_file_is_the_license_package_xml_names():
    assert MANIFEST.find('license').text == 'Apache-2.0'
    text = (REPO_ROOT / 'LICENSE').read_text()
    assert 'Apache License' in text and 'Version 2.0, January 2004' in text
    assert 'END OF TERMS AND CONDITIONS' in text


def test_changelog_is_in_catkins_format():
    """catkin_generate_changelog and bloom read: the title block, then version sections."""
    lines = (REPO_ROOT / 'CHANGELOG.rst').read_text().splitlines()
    title = 'Changelog for package urdf_state_py'
    assert lines[:3] == ['^' * len(title), title, '^' * len(title)]
    sections = [(lines[i], lines[i + 1]) for i in range(3, len(lines) - 1)
                if lines[i + 1] and set(lines[i + 1]) == {'-'}]
    assert sections, 'no version section'
    assert all(len(underline) == len(heading) for heading, underline in sections)
    released = [heading for heading, _ in sections if heading != 'Forthcoming']
    for heading in released:
        assert re.fullmatch(r'\d+\.\d+\.\d+ \(\d{4}-\d\d-\d\d\)', heading), heading
    if released:   # bloom-release sets package.xml's version to the newest section's
        assert released[0].split()[0] == MANIFEST.find('version').text
