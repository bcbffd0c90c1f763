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
The table of files the view serves for the current description, and how one is opened.

A request is answered from this table only: its (decoded) URL path must be a
key, so ``..``, ``%2e%2e``, ``%252e``, absolute paths and unreferenced files
are not found whatever their encoding. The table holds what the description
references (checked by :class:`~.resolver.Resolver`) plus, once a COLLADA file
has been served, the images it names that pass the same checks: ColladaLoader
asks for them only after reading the file, so they are in the table by then.
"""

from __future__ import annotations

from collections.abc import Mapping
import mmap
import os
import posixpath
import re
import stat
import threading
from typing import BinaryIO
from urllib.parse import unquote

from .resolver import Allowed, IMAGE_EXTENSIONS, MAX_FILE_BYTES, Resolver

__all__ = ['ServedFiles', 'open_served']

#: Most images added for the COLLADA files of one description.
MAX_COLLADA_IMAGES = 1000
# <init_from>x.png</init_from> (COLLADA 1.4) and <init_from><ref>x.png</ref> (1.5);
# an <init_from> of a <surface> names an image id, which fails the checks like any non-file.
_IMAGE_REF = re.compile(rb'<(?:init_from|ref)>\s*([^<>\s][^<>]{0,1023}?)\s*</(?:init_from|ref)>')


def open_served(path: str) -> tuple[BinaryIO, int] | None:
    """
    ``(file, size)`` of ``path`` opened for reading, or None if it changed since it was checked.

    The table holds real paths, so a symlink there now (O_NOFOLLOW) or a file
    that grew past the limit or stopped being regular means something moved
    under us: refuse rather than follow. O_NONBLOCK: a FIFO must not block.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, 'O_CLOEXEC', 0))
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        os.close(fd)
        return None
    return os.fdopen(fd, 'rb'), info.st_size


def collada_image_refs(path: str) -> list[str]:
    """
    The image references of the COLLADA file at ``path`` (text between its tags, unchecked).

    A regular expression over the mapped file, not an XML parse: a 20 MB mesh
    costs milliseconds, and whatever it finds is only a candidate.
    """
    opened = open_served(path)
    if opened is None:
        return []
    with opened[0] as stream:
        if opened[1] == 0:
            return []
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:
            found = [m.group(1).decode('utf-8', 'replace')
                     for m in _IMAGE_REF.finditer(data)]
    return list(dict.fromkeys(found))[:MAX_COLLADA_IMAGES]


class ServedFiles:
    """URL path -> real path of every file the current description lets the page load."""

    def __init__(self, files: Mapping[str, str], resolver: Resolver | None) -> None:
        self._files = dict(files)
        self._resolver = resolver
        self._scanned: set[str] = set()
        self._images = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._files)

    def lookup(self, url: str) -> str | None:
        """Return the real path for the decoded request path ``url``; None: not ours (404)."""
        with self._lock:
            return self._files.get(url)

    def add_collada_images(self, url: str, path: str) -> None:
        """
        Allow the images the COLLADA file ``url`` names, as the browser will ask for them.

        An image is added when it passes the resolver's checks (same allowed
        folders, image type, size) *and* the URL the browser computes from the
        COLLADA file's URL is the one its real path gets: a reference that
        leaves through ``..`` or a symlink gets no entry.
        """
        if self._resolver is None or not url.lower().endswith('.dae'):
            return
        with self._lock:
            if url in self._scanned:
                return
            self._scanned.add(url)
        base_url, base_dir = posixpath.dirname(url), os.path.dirname(path)
        added = {}
        for ref in collada_image_refs(path):
            if ':' in ref.split('/', 1)[0]:
                continue        # file:///..., http://...: the browser would not fetch it from us
            relative = unquote(ref)
            allowed = self._resolver.check(os.path.join(base_dir, relative), IMAGE_EXTENSIONS)
            wanted = posixpath.normpath(posixpath.join(base_url, relative))
            if isinstance(allowed, Allowed) and allowed.url == wanted:
                added[wanted] = allowed.path
        with self._lock:
            for key, value in added.items():
                if self._images >= MAX_COLLADA_IMAGES:
                    break
                if key not in self._files:
                    self._files[key] = value
                    self._images += 1
