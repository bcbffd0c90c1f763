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
``view --install-assets``: pinned, sha512-checked npm tarballs into the user folder.

Offline: the tarballs are made here, with a page whose lockfile pins their sha512; the
step's real fetch (npm pack or the registry) is what ./dev.sh setup runs.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path
import tarfile

import pytest
from urdf_state_py.tools.view import assets
from urdf_state_py.tools.view.npm_install import (default_dir, install, INSTALLED, installed_pins,
                                                  InstallError)

REPO = Path(__file__).resolve().parents[1]
FILES = {'lib-a': {'index.js': b'export const a = 1;\n', 'LICENSE': b'MIT\n'},
         'lib-b': {'src/b.js': b'export const b = 2;\n'}}


def tarball(files: dict[str, bytes], extra: tarfile.TarInfo | None = None) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w:gz') as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(f'package/{path}')
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if extra is not None:
            tar.addfile(extra)
    return out.getvalue()


def sha512(data: bytes) -> str:
    return 'sha512-' + base64.b64encode(hashlib.sha512(data).digest()).decode('ascii')


def make_page(folder: Path, tarballs: dict[str, bytes]) -> Path:
    """Make a page folder (real index.html) listing FILES, its lockfile pinning ``tarballs``."""
    page = folder / 'web'
    page.mkdir(parents=True)
    (page / 'index.html').write_text((REPO / 'web' / 'index.html').read_text())
    (page / 'assets.json').write_text(json.dumps(
        {'libraries': {lib: sorted(files) for lib, files in FILES.items()}}))
    (page / 'package-lock.json').write_text(json.dumps({'packages': {
        f'node_modules/{lib}': {'version': '1.0.0', 'integrity': sha512(data)}
        for lib, data in tarballs.items()}}))
    return page


@pytest.fixture
def tarballs():
    return {lib: tarball(files) for lib, files in FILES.items()}


def test_installs_exactly_the_listed_files_and_the_view_finds_them(tmp_path, tarballs,
                                                                   monkeypatch):
    page = make_page(tmp_path, tarballs)
    fetched = []
    folder = tmp_path / 'user' / 'web_lib'
    installed = install(page, folder, lambda lib, v: fetched.append((lib, v)) or tarballs[lib])
    assert sorted(fetched) == [('lib-a', '1.0.0'), ('lib-b', '1.0.0')]
    assert installed == installed_pins(folder)
    for lib, files in FILES.items():
        for path, data in files.items():
            assert (folder / lib / path).read_bytes() == data
    assert sorted(p.name for p in folder.iterdir()) == [INSTALLED, 'lib-a', 'lib-b']
    assert [p.name for p in folder.parent.iterdir()] == ['web_lib']   # no staging left

    monkeypatch.setenv('URDF_STATE_WEB_LIB', str(folder))
    monkeypatch.setattr(assets, '_candidates', lambda: [(page, default_dir())])
    served = assets.find_assets().files
    assert served['/lib/lib-b/src/b.js'] == folder / 'lib-b' / 'src' / 'b.js'


def test_a_tarball_with_another_sha512_is_refused_and_nothing_changes(tmp_path, tarballs):
    page = make_page(tmp_path, tarballs)
    folder = tmp_path / 'web_lib'
    install(page, folder, lambda lib, v: tarballs[lib])
    before = (folder / 'lib-a' / 'index.js').read_bytes()
    evil = tarball({**FILES['lib-a'], 'index.js': b'fetch("https://evil.example")\n'})
    with pytest.raises(InstallError, match='lib-a.*sha512'):
        install(page, folder, lambda lib, v: evil if lib == 'lib-a' else tarballs[lib])
    assert (folder / 'lib-a' / 'index.js').read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ['web', 'web_lib']


def test_a_listed_file_that_is_a_link_or_absent_is_refused(tmp_path, tarballs):
    link = tarfile.TarInfo('package/src/b.js')
    link.type, link.linkname = tarfile.SYMTYPE, '/etc/passwd'
    bad = {'lib-a': tarballs['lib-a'], 'lib-b': tarball({}, extra=link)}
    page = make_page(tmp_path / 'link', bad)
    with pytest.raises(InstallError, match='src/b.js is not a regular file'):
        install(page, tmp_path / 'out', lambda lib, v: bad[lib])
    short = {'lib-a': tarballs['lib-a'], 'lib-b': tarball({'other.js': b''})}
    page = make_page(tmp_path / 'short', short)
    with pytest.raises(InstallError, match='lib-b: the tarball has no package/src/b.js'):
        install(page, tmp_path / 'out', lambda lib, v: short[lib])
    assert not (tmp_path / 'out').exists()


def test_the_view_refuses_a_folder_of_other_versions(tmp_path, tarballs, monkeypatch):
    """After an upgrade that pins new versions, the old folder is not served."""
    page = make_page(tmp_path, tarballs)
    folder = tmp_path / 'web_lib'
    install(page, folder, lambda lib, v: tarballs[lib])
    lock = json.loads((page / 'package-lock.json').read_text())
    lock['packages']['node_modules/lib-a']['version'] = '2.0.0'
    (page / 'package-lock.json').write_text(json.dumps(lock))
    monkeypatch.setenv('URDF_STATE_WEB_LIB', str(folder))
    monkeypatch.setattr(assets, '_candidates', lambda: [(page, default_dir())])
    with pytest.raises(assets.AssetsMissing, match=r'--install-assets.*other versions'):
        assets.find_assets()


def test_the_user_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv('URDF_STATE_WEB_LIB', raising=False)
    monkeypatch.setenv('XDG_DATA_HOME', str(tmp_path))
    assert default_dir() == tmp_path / 'urdf_state_py' / 'web_lib'
    monkeypatch.setenv('URDF_STATE_WEB_LIB', str(tmp_path / 'mine'))
    assert default_dir() == tmp_path / 'mine'
