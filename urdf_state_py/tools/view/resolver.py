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
Which files the 3D view may serve.

A description's mesh and texture URIs are checked against an allow-list.

The description arrives over DDS, where anyone may publish: its "meshes" may
be ``file:///etc/passwd``, ``/proc/self/environ``, ``package://pkg/../../..``
in any encoding, a symlink out of a package, a 10 GB file or a FIFO. A URI is
served only when it names an existing regular file, of a mesh or image type,
no larger than :data:`MAX_FILE_BYTES`, whose *real* path (every symlink
followed) lies inside an allowed folder:

* a package's folder, for ``package://PKG/...`` and for any path inside it
  (``--package-path PKG=DIR`` first, then the ament index's share folders);
* a folder named with ``--allow-dir``, for ``file://`` URIs and plain paths
  (relative ones against the current folder, as rviz reads them).

No file content is read to decide (only ``realpath``/``stat``), so a refused
file is never opened. Each allowed file gets a URL below ``/files/`` that
keeps its folder structure (``/files/pkg/PKG/meshes/a.dae``,
``/files/dir/N/...``), so that a COLLADA file's relative texture references
resolve in the browser as they do on disk; the server answers only URLs in
its table (see :mod:`.served_files`), never a path built from the request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import os
import posixpath
import re
import stat
from urllib.parse import quote, unquote, urlsplit

__all__ = ['Allowed', 'Refused', 'Resolver', 'MESH_EXTENSIONS', 'IMAGE_EXTENSIONS',
           'MAX_FILE_BYTES']

MESH_EXTENSIONS = frozenset({'.stl', '.dae', '.obj'})
IMAGE_EXTENSIONS = frozenset({'.png', '.jpg', '.jpeg', '.tga', '.bmp', '.gif'})
#: Largest file served (a mesh beyond this is a mistake or an attack, and would stall the page).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Longest URI looked at (realpath on megabytes of text costs for nothing).
MAX_URI_CHARS = 4096
_PACKAGE_NAME = re.compile(r'[A-Za-z0-9][A-Za-z0-9_.-]*\Z')
_SCHEME = re.compile(r'([A-Za-z][A-Za-z0-9+.-]*):')


@dataclass(frozen=True)
class Allowed:
    """
    A file the view may serve.

    ``url`` as the browser asks for it (decoded), ``href`` as written into the page's URDF
    (percent-encoded), ``path`` the file's real path.
    """

    url: str
    href: str
    path: str


@dataclass(frozen=True)
class Refused:
    """Why a URI is not served (shown in the page and the log)."""

    reason: str


def _real_dirs(named: Mapping[str, str]) -> dict[str, str]:
    """``{real folder: key}`` of the folders that exist (the first key wins a shared folder)."""
    out: dict[str, str] = {}
    for key, folder in named.items():
        real = os.path.realpath(folder)
        if os.path.isdir(real):
            out.setdefault(real, key)
    return out


class Resolver:
    """
    Maps mesh and texture URIs to :class:`Allowed` files or :class:`Refused` reasons.

    ``packages``: package name -> folder (``--package-path`` entries before
    the ament index's, which only fill in names not given); ``allow_dirs``:
    the ``--allow-dir`` folders; ``cwd``: what relative paths are relative to.
    """

    def __init__(self, packages: Mapping[str, str], allow_dirs: Sequence[str], cwd: str) -> None:
        self._package_dirs = {name: os.path.realpath(folder) for name, folder in packages.items()}
        # real folder -> URL prefix, for "which allowed folder holds this real path"
        self._prefixes = {real: f'/files/pkg/{name}' for real, name in
                          _real_dirs(packages).items()}
        for real, index in _real_dirs({str(i): d for i, d in enumerate(allow_dirs)}).items():
            self._prefixes.setdefault(real, f'/files/dir/{index}')
        self._cwd = cwd

    def resolve(self, uri: str, extensions: frozenset[str] = MESH_EXTENSIONS) -> Allowed | Refused:
        """Return where ``uri`` (a mesh or texture ``filename``) may be fetched, or why not."""
        if len(uri) > MAX_URI_CHARS:
            return Refused(f'URI longer than {MAX_URI_CHARS} characters')
        if '\x00' in uri or not uri.strip():
            return Refused('empty URI or NUL character')
        scheme = _SCHEME.match(uri)
        if scheme is None:
            candidate = os.path.join(self._cwd, uri)
        elif scheme.group(1).lower() == 'package':
            rest = uri[len(scheme.group(0)):]
            if not rest.startswith('//'):
                return Refused('package: URI without //')
            # package:///pkg/... (TALOS's files) means package://pkg/..., as pinocchio reads it
            name, _, relative = rest.lstrip('/').partition('/')
            if not _PACKAGE_NAME.match(name):
                return Refused('not a package name')
            folder = self._package_dirs.get(name)
            if folder is None:
                return Refused(f"package '{name}' not found (--package-path {name}=DIR)")
            candidate = os.path.join(folder, relative)
        elif scheme.group(1).lower() == 'file':
            parts = urlsplit(uri)
            if parts.netloc not in ('', 'localhost'):
                return Refused('file: URI of another host')
            candidate = unquote(parts.path)
            if '\x00' in candidate:
                return Refused('NUL character')
        else:
            return Refused(f'{scheme.group(1)}: URIs are not served '
                           '(package://, file:// and paths only)')
        return self.check(candidate, extensions)

    def check(self, candidate: str, extensions: frozenset[str]) -> Allowed | Refused:
        """Return the file at path ``candidate`` as :class:`Allowed`, if every rule holds."""
        if os.path.splitext(candidate)[1].lower() not in extensions:
            return Refused(f"not a {'/'.join(sorted(e[1:] for e in extensions))} file")
        real = os.path.realpath(candidate)
        where = self._locate(real)
        if where is None:
            return Refused('outside the package folders and --allow-dir folders')
        if os.path.splitext(real)[1].lower() not in extensions:
            return Refused('a link to a file of another type')
        try:
            info = os.stat(real)
        except OSError as exc:
            return Refused(exc.strerror or 'cannot be read')
        if not stat.S_ISREG(info.st_mode):
            return Refused('not a regular file')
        if info.st_size > MAX_FILE_BYTES:
            return Refused(f'larger than {MAX_FILE_BYTES // 2**20} MiB')
        prefix, relative = where
        url = posixpath.join(prefix, *relative)
        href = posixpath.join(prefix, *(quote(part, safe='') for part in relative))
        return Allowed(url, href, real)

    def _locate(self, real: str) -> tuple[str, list[str]] | None:
        """(URL prefix, path parts below it) of the innermost allowed folder holding ``real``."""
        head, parts = real, []
        while True:
            prefix = self._prefixes.get(head)
            if prefix is not None and parts:
                return prefix, parts[::-1]
            head, tail = os.path.split(head)
            if not tail:
                return None
            parts.append(tail)
