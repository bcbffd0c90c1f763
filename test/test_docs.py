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
README.md and docs/: every relative link resolves and every command they name exists.

A user copies commands from the README as written, on a bare clone; a moved
file, a renamed heading or a removed ``dev.sh`` subcommand would break that
silently. No ROS needed: commands are checked against dev.sh's subcommands,
the module files of ``python -m`` and the CLI's command table.
"""
from __future__ import annotations

from pathlib import Path
import re

import pytest
from urdf_state_py.tools.cli import COMMANDS

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / 'README.md', *sorted((REPO / 'docs').glob('*.md'))]
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')


def _slug(heading: str) -> str:
    """Return GitHub's anchor for a heading: lower case, no punctuation, spaces to hyphens."""
    text = heading.strip().lower().replace('`', '')
    return re.sub(r'[^\w\- ]', '', text).replace(' ', '-')


def _anchors(path: Path) -> set[str]:
    text = re.sub(r'```.*?```', '', path.read_text(), flags=re.S)   # no headings in code
    return {_slug(m.group(1)) for m in re.finditer(r'^#+ (.+)$', text, re.M)}


def _links(path: Path) -> list[str]:
    text = re.sub(r'```.*?```', '', path.read_text(), flags=re.S)
    return [m.group(1) for m in LINK.finditer(text)
            if not re.match(r'[a-z]+:', m.group(1))]           # http(s), mailto: not checked here


def _dev_sh_commands() -> set[str]:
    case = (REPO / 'dev.sh').read_text().split('case "$cmd" in', 1)[1]
    return set(re.findall(r'^  ([a-z]+)\)', case, re.M))


def test_the_docs_exist_and_the_readme_is_short():
    names = {p.name for p in DOCS}
    assert {'README.md', 'design.md', 'security.md', 'benchmarks.md', 'distros.md',
            'parsers.md'} <= names
    assert len((REPO / 'README.md').read_text().splitlines()) <= 300


@pytest.mark.parametrize('doc', DOCS, ids=lambda p: p.name)
def test_relative_links_resolve(doc):
    broken = []
    for link in _links(doc):
        target, _, anchor = link.partition('#')
        path = (doc.parent / target).resolve() if target else doc
        if not path.exists():
            broken.append(f'{link}: no {path.relative_to(REPO) if REPO in path.parents else path}')
        elif anchor and path.suffix == '.md' and anchor not in _anchors(path):
            broken.append(f'{link}: no heading #{anchor} in {path.name}')
    assert not broken, broken


def test_the_slug_is_githubs():
    assert _slug('urdf_parser_py (urdfdom-py)') == 'urdf_parser_py-urdfdom-py'
    assert _slug('`ros2 urdf`: inspect a model') == 'ros2-urdf-inspect-a-model'


def test_quick_start_commands_exist():
    readme = (REPO / 'README.md').read_text()
    quick = readme.split('## Quick start', 1)[1].split('\n## ', 1)[0]
    block = re.search(r'```bash\n(.*?)```', quick, re.S).group(1)
    commands = [line.split('#')[0].split() for line in block.splitlines() if line.strip()]
    assert [c[:2] for c in commands] == [['./dev.sh', 'demo'], ['./dev.sh', 'test']]
    assert {'demo', 'test'} <= _dev_sh_commands()


@pytest.mark.parametrize('doc', DOCS, ids=lambda p: p.name)
def test_named_commands_exist(doc):
    text = doc.read_text()
    subcommands = _dev_sh_commands()
    unknown = [s for s in re.findall(r'\./dev\.sh (?:-\S+ )*([a-z]+)', text)
               if s not in subcommands]
    for module in re.findall(r'python -m ([\w.]+)', text):
        if module == 'pytest':
            continue
        bases = [root.joinpath(*module.split('.')) for root in (REPO, REPO / 'bench')]
        if not any(b.with_suffix('.py').is_file() or (b / '__main__.py').is_file()
                   for b in bases):
            unknown.append(f'python -m {module}')
    verbs = {c.name for c in COMMANDS}
    unknown += [f'ros2 urdf {v}'
                for v in re.findall(r'ros2 urdf ([a-z]+)', text) if v not in verbs]
    unknown += [f'python -m urdf_state_py {v}'
                for v in re.findall(r'python -m urdf_state_py ([a-z]+)', text) if v not in verbs]
    for path in re.findall(r'`((?:urdf_state_py|test|config|launch)/[\w/.]+\.(?:py|yaml))`', text):
        if not (REPO / path).is_file() and not (REPO / 'urdf_state_py' / path).is_file():
            unknown.append(path)
    assert not unknown, unknown
