"""Where the page and its JavaScript libraries are, and the URL of each file the server gives out.

Two layouts, tried in this order:

* a source tree (this repository, an editable install, colcon
  ``--symlink-install``): the page in ``web/``, the libraries in
  ``node_modules/`` after ``npm ci``;
* an installed package: both under ``share/urdf_state_py/web`` (the
  libraries in ``web/lib/``), found through the ament index or below
  ``sys.prefix`` (a pip install), as setup.py puts them there.

``web/assets.json`` lists the library files (setup.py installs the same
list); the page's import map (in ``index.html``) maps ``three`` and
``three/examples/jsm/`` to their ``/lib/`` URLs. Its SHA-256 goes into the
page's Content-Security-Policy, which allows scripts from this server only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ['WebAssets', 'AssetsMissing', 'find_assets', 'load_assets']

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
    found = [(source / 'web', source / 'node_modules')]
    try:
        from ament_index_python.packages import get_package_share_directory  # noqa: PLC0415
        share = Path(get_package_share_directory(PACKAGE)) / 'web'
        found.append((share, share / 'lib'))
    except Exception:  # noqa: BLE001 - ament_index absent, or the package not indexed
        pass
    share = Path(sys.prefix) / 'share' / PACKAGE / 'web'
    found.append((share, share / 'lib'))
    return found


def load_assets(page: Path, libraries: Path) -> WebAssets:
    """The assets of one layout; raises :class:`AssetsMissing` naming a missing file."""
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


def find_assets() -> WebAssets:
    """The first complete layout; else :class:`AssetsMissing` saying how to install them."""
    problems = []
    for page, libraries in _candidates():
        if not (page / 'assets.json').is_file():
            continue
        try:
            return load_assets(page, libraries)
        except (AssetsMissing, OSError, ValueError, KeyError) as exc:
            problems.append(str(exc))
    where = '; '.join(problems) or 'no web/ folder found'
    raise AssetsMissing(
        f"the 3D view's page or its JavaScript libraries (three.js, urdf-loader) are not "
        f'installed ({where}). In a source tree run `npm ci` there (or ./dev.sh setup); '
        'for a colcon or pip install, install Node.js and npm (e.g. apt-get install npm) '
        'and build again: the build runs `npm ci` from package-lock.json')
