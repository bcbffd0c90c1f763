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
``view --install-assets``: the 3D view's JavaScript libraries from npm, pinned and hash-checked.

The package's build never fetches anything (a build farm has no network), so
three.js and urdf-loader are installed by this explicit step instead, into a
folder of the user's (``$URDF_STATE_WEB_LIB``, else
``${XDG_DATA_HOME:-~/.local/share}/urdf_state_py/web_lib``):

* the versions and their sha512 integrity come from the package's
  ``package-lock.json`` (installed beside the page), so what is served is
  exactly what the lockfile pins;
* each tarball comes from the npm registry: through ``npm pack`` when npm is
  installed (it honours the user's npm cache, registry and proxy settings),
  else downloaded from ``$URDF_STATE_NPM_REGISTRY`` (default
  https://registry.npmjs.org); a tarball whose sha512 differs is refused;
* only the files ``web/assets.json`` lists are extracted, by exact name, as
  regular files; the folder is replaced in one rename, with ``installed.json``
  saying which versions it holds (the view refuses a folder of other versions).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
import hashlib
import io
import json
import os
from pathlib import Path
import shutil
import subprocess
import tarfile
import tempfile
import urllib.request

__all__ = ['InstallError', 'Pin', 'default_dir', 'install', 'installed_pins', 'pins',
           'INSTALLED', 'COMMAND']

#: What to run when the libraries are missing (one line in the view's error).
COMMAND = 'ros2 urdf view --install-assets (or: python -m urdf_state_py view --install-assets)'
INSTALLED = 'installed.json'
DEFAULT_REGISTRY = 'https://registry.npmjs.org'
#: A tarball larger than this is refused (three 0.187.0 is about 8 MB).
MAX_TARBALL = 64 * 1024 * 1024


class InstallError(Exception):
    """The libraries could not be installed; the message says why."""


Pin = tuple[str, str]   # (version, integrity 'sha512-<base64>')
Fetch = Callable[[str, str], bytes]


def default_dir() -> Path:
    """The user folder the view reads the libraries from and ``--install-assets`` writes to."""
    chosen = os.environ.get('URDF_STATE_WEB_LIB')
    if chosen:
        return Path(chosen)
    data = os.environ.get('XDG_DATA_HOME') or os.path.join(os.path.expanduser('~'), '.local',
                                                           'share')
    return Path(data) / 'urdf_state_py' / 'web_lib'


def lockfile(page: Path) -> Path:
    """package-lock.json of the page folder: beside it (installed) or one up (source tree)."""
    for candidate in (page / 'package-lock.json', page.parent / 'package-lock.json'):
        if candidate.is_file():
            return candidate
    raise InstallError(f'no package-lock.json beside {page}')


def pins(page: Path) -> dict[str, Pin]:
    """Library -> (version, integrity) for every library web/assets.json lists."""
    listed = json.loads((page / 'assets.json').read_text(encoding='utf-8'))['libraries']
    locked = json.loads(lockfile(page).read_text(encoding='utf-8'))['packages']
    found = {}
    for library in listed:
        entry = locked.get(f'node_modules/{library}', {})
        version, integrity = entry.get('version'), entry.get('integrity', '')
        if not version or not integrity.startswith('sha512-'):
            raise InstallError(f'package-lock.json has no version and sha512 for {library}')
        found[library] = (version, integrity)
    return found


def installed_pins(folder: Path) -> dict[str, Pin] | None:
    """What ``folder`` holds according to its installed.json (None: not an install)."""
    try:
        held = json.loads((folder / INSTALLED).read_text(encoding='utf-8'))
        return {library: (pin[0], pin[1]) for library, pin in held.items()}
    except (OSError, ValueError, TypeError, IndexError, AttributeError):
        return None


def npm_pack(library: str, version: str) -> bytes:
    """Return the tarball of ``library@version`` through npm (its cache, registry, proxy)."""
    npm = shutil.which('npm')
    if npm is None:
        return download(library, version)
    with tempfile.TemporaryDirectory() as tmp:
        # --prefer-offline: a cached tarball is used without asking the registry (its sha512
        # is checked here anyway); few retries, so no network fails in seconds, not minutes
        done = subprocess.run([npm, 'pack', f'{library}@{version}', '--pack-destination', tmp,
                               '--loglevel=error', '--no-fund', '--no-audit', '--prefer-offline',
                               '--fetch-retries=1', '--fetch-retry-mintimeout=1000',
                               '--fetch-retry-maxtimeout=5000'],
                              capture_output=True, text=True, check=False, timeout=600)
        made = sorted(Path(tmp).glob('*.tgz'))
        if done.returncode != 0 or len(made) != 1:
            said = ' '.join((done.stderr or done.stdout).split())[:300]
            raise InstallError(f'npm pack {library}@{version} failed: {said}')
        return made[0].read_bytes()


def download(library: str, version: str) -> bytes:
    """The tarball of ``library@version`` from the registry over HTTPS (no npm installed)."""
    registry = os.environ.get('URDF_STATE_NPM_REGISTRY', DEFAULT_REGISTRY).rstrip('/')
    url = f'{registry}/{library}/-/{library}-{version}.tgz'
    try:
        with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310 - https registry
            data = response.read(MAX_TARBALL + 1)
    except OSError as exc:
        raise InstallError(f'cannot download {url}: {exc}') from None
    if len(data) > MAX_TARBALL:
        raise InstallError(f'{url} is larger than {MAX_TARBALL} bytes')
    return data


def check_integrity(library: str, data: bytes, integrity: str) -> None:
    """Refuse a tarball whose sha512 is not the lockfile's."""
    digest = base64.b64encode(hashlib.sha512(data).digest()).decode('ascii')
    if f'sha512-{digest}' != integrity:
        raise InstallError(f'{library}: the tarball\'s sha512 is not the one package-lock.json '
                           'pins (tampered or wrong version): nothing installed')


def extract(library: str, data: bytes, paths: list[str], into: Path) -> None:
    """Write the listed ``paths`` of the tarball (under its ``package/`` folder) into ``into``."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode='r:gz') as tar:
            for path in paths:
                try:
                    member = tar.getmember(f'package/{path}')
                except KeyError:
                    raise InstallError(f'{library}: the tarball has no package/{path}') from None
                if not member.isreg():
                    raise InstallError(f'{library}: {path} is not a regular file in the tarball')
                source = tar.extractfile(member)
                target = into / library / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read())
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InstallError(f'{library}: unreadable tarball: {exc}') from None


def install(page: Path, folder: Path, fetch: Fetch = npm_pack) -> dict[str, Pin]:
    """Install the libraries the page at ``page`` lists into ``folder`` (replaced whole)."""
    wanted = pins(page)
    listed = json.loads((page / 'assets.json').read_text(encoding='utf-8'))['libraries']
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix='.web_lib-', dir=folder.parent))
    try:
        for library, (version, integrity) in sorted(wanted.items()):
            data = fetch(library, version)
            check_integrity(library, data, integrity)
            extract(library, data, listed[library], staging)
        (staging / INSTALLED).write_text(
            json.dumps({k: list(v) for k, v in wanted.items()}, indent=1) + '\n',
            encoding='utf-8')
        old = folder.with_name(staging.name + '.old')
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return wanted
