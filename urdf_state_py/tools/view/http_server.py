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
The view's web server.

The page, its libraries, the live feed and the referenced meshes, nothing else.

Standard library only (``http.server``), one thread per connection, bounded:

* at most :data:`MAX_CONNECTIONS` connections at once (:data:`MAX_STREAMS` of
  them live feeds); one more is answered 503 and closed at once, so a client
  that opens hundreds cannot starve the others of more than its share;
* every socket read and write times out after :data:`SOCKET_TIMEOUT_S`: a
  client that stops reading or trickles its request frees its thread;
* request lines and headers are bounded by ``http.server`` (64 KiB a line,
  100 headers: 414/431);
* GET and HEAD only; every answer is a file from a fixed table (the page's
  assets, :class:`~.served_files.ServedFiles` for meshes) looked up with the
  request's decoded path, or generated JSON/events. No path from a request
  ever reaches the file system, so traversal in any encoding is a 404.
* Bound to loopback, only ``Host: 127.0.0.1|localhost|[::1]:PORT`` is
  answered (403 otherwise): a web page elsewhere cannot reach the view through
  DNS rebinding.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import json
import mimetypes
from pathlib import Path
import socket
import sys
import threading
from urllib.parse import parse_qs, unquote, urlsplit

from . import event_stream
from .assets import WebAssets
from .served_files import open_served
from .view_state import ViewState

__all__ = ['ViewServer', 'MAX_CONNECTIONS', 'MAX_STREAMS', 'SOCKET_TIMEOUT_S']

MAX_CONNECTIONS = 64
MAX_STREAMS = 16
SOCKET_TIMEOUT_S = 10.0
_LOOPBACK = ('127.0.0.1', 'localhost', '::1', '[::1]')
_TYPES = {'.js': 'text/javascript', '.html': 'text/html; charset=utf-8', '.css': 'text/css',
          '.json': 'application/json', '.stl': 'model/stl', '.dae': 'model/vnd.collada+xml',
          '.obj': 'model/obj', '.tga': 'image/x-tga', '.svg': 'image/svg+xml'}
_BUSY = (b'HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n'
         b'Retry-After: 1\r\n\r\n')


def _content_type(path: Path | str) -> str:
    suffix = Path(path).suffix.lower()
    return (_TYPES.get(suffix) or mimetypes.guess_type(f'x{suffix}')[0]
            or 'application/octet-stream')


class ViewServer(ThreadingHTTPServer):
    """The HTTP server: the connection bound, the shared state and the assets."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], state: ViewState, assets: WebAssets) -> None:
        host = address[0]
        self.address_family = socket.AF_INET6 if ':' in host else socket.AF_INET
        self.state = state
        self.assets = assets
        self.loopback = host in _LOOPBACK or host.startswith('127.')
        self._connections = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        super().__init__(address, ViewRequestHandler)

    @property
    def url(self) -> str:
        """Return the URL to open (``http://127.0.0.1:PORT/``)."""
        host, port = self.server_address[:2]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    def process_request(self, request: socket.socket, client_address) -> None:
        """Start a thread for the connection, or answer 503 at :data:`MAX_CONNECTIONS` open."""
        if not self._connections.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._connections.release()
            raise

    def handle_error(self, request: socket.socket, client_address) -> None:
        """One log line, no traceback; none for a client that went away (a closed page)."""
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionError, TimeoutError)):
            self.state.logger.warning(f'a request from {client_address[0]} failed: '
                                      f'{type(error).__name__}: {error}')

    def process_request_thread(self, request: socket.socket, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._connections.release()


class ViewRequestHandler(BaseHTTPRequestHandler):
    """One connection's requests (HTTP/1.1 keep-alive: a page loads ~100 meshes)."""

    server: ViewServer
    protocol_version = 'HTTP/1.1'
    timeout = SOCKET_TIMEOUT_S
    server_version = 'urdf-view'
    sys_version = ''
    error_content_type = 'text/plain; charset=utf-8'
    error_message_format = '%(code)d %(message)s\n'

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        """Request are not logged: a page load is ~100 of them."""

    def do_HEAD(self) -> None:  # http.server's naming
        self._answer(body=False)

    def do_GET(self) -> None:
        self._answer(body=True)

    def end_headers(self) -> None:
        self.send_header('X-Content-Type-Options', 'nosniff')
        self.send_header('Referrer-Policy', 'no-referrer')
        self.send_header('Cache-Control', 'no-cache')
        super().end_headers()

    def _answer(self, body: bool) -> None:
        if self.server.loopback and not self._host_is_loopback():
            self.send_error(403, 'Host not allowed')
            return
        url = urlsplit(self.path)
        path = unquote(url.path)
        if path == '/api/events' and body:
            self._events()
        elif path == '/api/model':
            self._model(url.query, body)
        elif path in self.server.assets.files:
            file = self.server.assets.files[path]
            self._send_bytes(file.read_bytes(), _content_type(file), body, page=path == '/')
        elif path.startswith('/files/'):
            self._file(path, body)
        else:
            self.send_error(404)

    def _model(self, query: str, body: bool) -> None:
        """``/api/model?robot=K``: robot K's description (default the first) and settings."""
        state = self.server.state
        robot = parse_qs(query).get('robot', ['0'])[0]
        if not robot.isdigit() or int(robot) >= len(state.robots):
            self.send_error(404)
            return
        view = state.robots[int(robot)]
        summary = {**view.current[0].summary(), 'fixedFrame': state.options.fixed_frame,
                   'framePrefix': view.frame_prefix, 'namespace': view.namespace,
                   'robots': len(state.robots)}
        self._send_bytes(json.dumps(summary).encode(), 'application/json', body)

    def _host_is_loopback(self) -> bool:
        host = (self.headers.get('Host') or '').strip().lower()
        name = host.rsplit(':', 1)[0] if not host.endswith(']') else host
        return name in _LOOPBACK

    def _send_bytes(self, data: bytes, content_type: str, body: bool, page: bool = False) -> None:
        self.send_response(200)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(data)))
        if page:
            self.send_header('Content-Security-Policy', (
                "default-src 'self'; script-src 'self' "
                f"'sha256-{self.server.assets.import_map_sha256}'; style-src 'self'; "
                "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "
                "base-uri 'none'; frame-ancestors 'none'"))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _file(self, url: str, body: bool) -> None:
        """Serve a mesh or texture of a current description (404 for anything else)."""
        found = self.server.state.lookup(url)
        opened = open_served(found[0]) if found is not None else None
        if opened is None:
            self.send_error(404)
            return
        found[1].add_collada_images(url, found[0])
        stream, size = opened
        with stream:
            self.send_response(200)
            self.send_header('Content-Type', _content_type(url))
            self.send_header('Content-Length', str(size))
            self.end_headers()
            if body and size:
                self.wfile.flush()
                self.connection.sendfile(stream, 0, size)

    def _events(self) -> None:
        """Serve the live feed (:mod:`.event_stream`), while a stream slot is free."""
        if not self.server.streams.acquire(blocking=False):
            self.send_error(503, 'Too many open pages')
            return
        try:
            self.send_response(200)
            self.send_header('Content-Type', 'text/event-stream')
            self.send_header('Connection', 'close')
            self.end_headers()
            self.close_connection = True
            event_stream.stream(self.wfile, self.server.state)
        except OSError:
            pass    # the page went away
        finally:
            self.server.streams.release()
