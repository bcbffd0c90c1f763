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
The 3D view's JavaScript: from npm's lockfile to an installed package that needs no internet.

* ``web/assets.json`` lists every file the page's imports reach (checked by
  following every ``import ... from '...'`` of the listed files and of the
  page's own modules), so nothing is fetched from elsewhere;
* the lockfile pins exactly the versions package.json asks for;
* ``setup.py install_data`` (what colcon and pip run) puts the page and the
  lockfile under ``share/urdf_state_py/web``, no library (the build has no
  network); ``view --install-assets`` puts the listed files in a user folder,
  where the view finds and serves them (tests of that step:
  test_view_npm_install.py).
"""
from __future__ import annotations

import json
from pathlib import Path
import re
import subprocess
import sys

import pytest
from urdf_state_py.tools.view.assets import load_assets
from urdf_state_py.tools.view.npm_install import COMMAND, default_dir

REPO = Path(__file__).resolve().parents[1]
LISTED = json.loads((REPO / 'web' / 'assets.json').read_text())['libraries']
IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\b[^'"`]*?\bfrom\s*['"]([^'"]+)['"]""")
IMPORT_MAP = json.loads(re.search(r'<script type="importmap">(.*?)</script>',
                                  (REPO / 'web' / 'index.html').read_text(), re.S).group(1))


def _libraries() -> Path:
    """
    Return the folder holding the listed files.

    The folder holding the listed files: ``view --install-assets``'s (./dev.sh setup runs it
    into $URDF_STATE_WEB_LIB), else node_modules after ``npm ci``.
    """
    for root in (default_dir(), REPO / 'node_modules'):
        if all((root / lib / path).is_file() for lib, paths in LISTED.items() for path in paths):
            return root
    pytest.skip(f"the view's libraries are not installed ({COMMAND})")


def _url_of(specifier: str, importer_url: str) -> str:
    """Return the URL the browser fetches for ``specifier`` imported by ``importer_url``."""
    if specifier.startswith(('./', '../')):
        from posixpath import dirname, join, normpath
        return normpath(join(dirname(importer_url), specifier))
    imports = IMPORT_MAP['imports']
    if specifier in imports:
        return imports[specifier]
    prefix = max((p for p in imports if p.endswith('/') and specifier.startswith(p)),
                 key=len, default=None)
    assert prefix is not None, f'{importer_url} imports {specifier!r}: not in the import map'
    return imports[prefix] + specifier[len(prefix):]


def test_every_import_is_a_listed_file():
    root = _libraries()
    served = {f'/lib/{lib}/{path}': root / lib / path for lib, paths in LISTED.items()
              for path in paths}
    served.update({f'/app/{p.name}': p for p in (REPO / 'web').glob('*.js')})
    pending, seen = ['/app/main.js'], set()
    while pending:
        url = pending.pop()
        if url in seen:
            continue
        seen.add(url)
        assert url in served, f'{url} is imported but not served (add it to web/assets.json)'
        for specifier in IMPORT.findall(served[url].read_text(encoding='utf-8')):
            pending.append(_url_of(specifier, url))
    assert {'/lib/three/build/three.core.js', '/lib/urdf-loader/src/URDFClasses.js',
            '/lib/three/examples/jsm/loaders/collada/ColladaParser.js'} <= seen


def test_the_lockfile_pins_what_package_json_asks_for():
    wanted = json.loads((REPO / 'package.json').read_text())['dependencies']
    locked = json.loads((REPO / 'package-lock.json').read_text())['packages']
    assert set(wanted) == set(LISTED)
    for name, version in wanted.items():
        entry = locked[f'node_modules/{name}']
        assert entry['version'] == version and entry['integrity'].startswith('sha512-')


def test_an_installed_package_serves_the_page_without_the_source_tree(tmp_path, monkeypatch):
    """
    Check an installed package serves the page without the source tree.

    install_data (colcon, pip) needs no network and installs no library; with the
    libraries of ``--install-assets`` the installed page is served from share/.
    """
    libraries = _libraries()
    subprocess.run([sys.executable, 'setup.py', '-q', 'install_data', '-d', str(tmp_path)],
                   cwd=REPO, check=True, capture_output=True, timeout=300,
                   env={'URDF_STATE_BUILD_NATIVE': '0', 'PATH': '/usr/bin:/bin'})
    web = tmp_path / 'share' / 'urdf_state_py' / 'web'
    assert not (web / 'lib').exists() and (web / 'package-lock.json').is_file()
    assets = load_assets(web, libraries)
    assert all(str(path).startswith(str(web)) for url, path in assets.files.items()
               if not url.startswith('/lib/'))
    assert {'/', '/app/main.js', '/lib/three/build/three.module.js'} <= set(assets.files)
    assert (libraries / 'three' / 'LICENSE').is_file()


def test_missing_libraries_say_what_to_install(tmp_path, monkeypatch):
    """Without the libraries, view names the missing file and the one command to run."""
    from urdf_state_py.tools.view import assets
    page = tmp_path / 'web'
    page.mkdir()
    for name in ('assets.json', 'index.html'):
        (page / name).write_text((REPO / 'web' / name).read_text())
    with pytest.raises(assets.AssetsMissing, match='three.LICENSE is missing'):
        load_assets(page, tmp_path / 'lib')
    monkeypatch.setattr(assets, '_candidates', lambda: [(page, tmp_path / 'lib')])
    with pytest.raises(assets.AssetsMissing, match=r'run ros2 urdf view --install-assets') as info:
        assets.find_assets()
    assert '\n' not in str(info.value)
