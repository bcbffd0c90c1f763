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
Where the page and its JavaScript libraries are, and the URL of each file the server gives out.

The page is in ``web/`` of a source tree (this repository, an editable
install, colcon ``--symlink-install``) or in ``share/urdf_state_py/web`` of an
installed package (found through the ament index or below ``sys.prefix``).
Its libraries are in ``node_modules/`` of a source tree after ``npm ci``, or
in the user folder ``view --install-assets`` fills (:mod:`.npm_install`):
the build installs none, as it may not use the network.

``web/assets.json`` lists the library files (setup.py installs the same
list); the page's import map (in ``index.html``) maps ``three`` and
``three/examples/jsm/`` to their ``/lib/`` URLs. Its SHA-256 goes into the
page's Content-Security-Policy, which allows scripts from this server only.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
import hashlib
import json
from pathlib import Path
import re
import sys
from typing import TextIO

from .npm_install import COMMAND, default_dir, install, installed_pins, InstallError, pins

__all__ = ['WebAssets', 'AssetsMissing', 'find_assets', 'install_assets', 'load_assets']

PACKAGE = 'urdf_state_py'
_PAGE_TYPES = ('.html', '.js', '.css', '.svg')
_IMPORT_MAP = re.compile(r'<script type="importmap">(.*?)</script>', re.S)


class AssetsMissing(Exception):
    """The page or its libraries are not installed; the message says what to do."""


@dataclass(frozen=True)
class WebAssets:
    """URL path -> file of everything the page needs, and the import map's CSP hash."""

    files: dict[str, Path]
    import_map_sha256: str


def _candidates() -> list[tuple[Path, Path]]:
    """(page folder, library root) pairs, source tree first."""
    source = Path(__file__).resolve().parents[3]
    pages = [source / 'web']
    try:
        from ament_index_python.packages import get_package_share_directory  # noqa: PLC0415
        pages.append(Path(get_package_share_directory(PACKAGE)) / 'web')
    except Exception:  # noqa: BLE001 - ament_index absent, or the package not indexed
        pass
    pages.append(Path(sys.prefix) / 'share' / PACKAGE / 'web')
    return [(source / 'web', source / 'node_modules')] + [(p, default_dir()) for p in pages]


def _check_installed(page: Path, libraries: Path) -> None:
    """A user folder must hold the versions this page's lockfile pins."""
    held = installed_pins(libraries)
    if held is None:
        raise AssetsMissing(f'{libraries} holds no installed libraries')
    try:
        wanted = pins(page)
    except (InstallError, OSError, ValueError, KeyError) as exc:
        raise AssetsMissing(str(exc)) from None
    if held != wanted:
        raise AssetsMissing(f'{libraries} holds other versions ({held}) than this package pins '
                            f'({wanted})')


def load_assets(page: Path, libraries: Path) -> WebAssets:
    """Return the assets of one layout; raises :class:`AssetsMissing` naming a missing file."""
    listed = json.loads((page / 'assets.json').read_text(encoding='utf-8'))['libraries']
    files = {'/': page / 'index.html'}
    files.update({f'/app/{p.name}': p for p in sorted(page.iterdir())
                  if p.suffix in _PAGE_TYPES and p.is_file()})
    for library, paths in listed.items():
        for path in paths:
            file = libraries / library / path
            if not file.is_file():
                raise AssetsMissing(f'{file} is missing')
            files[f'/lib/{library}/{path}'] = file
    import_map = _IMPORT_MAP.search(files['/'].read_text(encoding='utf-8'))
    if import_map is None:
        raise AssetsMissing(f'{files["/"]} has no import map')
    digest = hashlib.sha256(import_map.group(1).encode('utf-8')).digest()
    return WebAssets(files, base64.b64encode(digest).decode('ascii'))


def install_assets(out: TextIO) -> Path:
    """``view --install-assets``: the libraries of the first page found, into the user folder."""
    for page, _ in _candidates():
        if (page / 'assets.json').is_file():
            folder = default_dir()
            for library, (version, _integrity) in sorted(install(page, folder).items()):
                print(f'installed {library} {version} (sha512 checked)', file=out)
            print(f'into {folder}', file=out)
            return folder
    raise InstallError('the 3D view\'s page (web/assets.json) is not installed')


def find_assets() -> WebAssets:
    """The first complete layout; else :class:`AssetsMissing` saying how to install them."""
    problems = []
    for page, libraries in _candidates():
        if not (page / 'assets.json').is_file():
            continue
        try:
            if libraries == default_dir():
                _check_installed(page, libraries)
            return load_assets(page, libraries)
        except (AssetsMissing, OSError, ValueError, KeyError) as exc:
            problems.append(str(exc))
    where = '; '.join(problems) or 'no web/ folder found'
    raise AssetsMissing(
        f"the 3D view's JavaScript libraries (three.js, urdf-loader) are not installed: run "
        f'{COMMAND} once ({where})')
