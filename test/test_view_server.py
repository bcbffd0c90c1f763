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
The view's web server and TF store without a browser: refusals, bounds, the live feed.

Every request is hostile: traversal in every encoding, unreferenced files,
other Host headers, huge headers, slow and idle clients. None may return a
file's content, stall the others, or stop the server: a normal request is
answered after each. The TF store is fed CDR bytes built here (and, with
ROS, rclpy's own serialisation, plus every truncation of it).
"""
from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time

import numpy as np
import pytest
from urdf_state_py.node.tf_path.tf_message_cdr import MalformedTf, TfReader
from urdf_state_py.tools.view.assets import find_assets
from urdf_state_py.tools.view.description import prepare
from urdf_state_py.tools.view.http_server import MAX_CONNECTIONS, ViewServer
from urdf_state_py.tools.view.resolver import Resolver
from urdf_state_py.tools.view.view_state import ViewState

SECRET = b'TOP-SECRET-MARKER'


def tf_message(transforms, stamp=(5, 250)) -> bytes:
    """Serialise a TFMessage (CDR little endian): ``transforms`` as (parent, child, 7 values)."""
    out = bytearray(b'\x00\x01\x00\x00') + struct.pack('<I', len(transforms))

    def pad(to):
        out.extend(b'\x00' * (-(len(out) - 4) % to))

    for parent, child, values in transforms:
        pad(4)
        out.extend(struct.pack('<iI', *stamp))
        for name in (parent, child):
            pad(4)
            data = name.encode() + b'\x00'
            out.extend(struct.pack('<I', len(data)) + data)
        pad(8)
        out.extend(struct.pack('<7d', *values))
    return bytes(out)


def _pose(x):
    return (x, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)


def test_tf_store_keeps_the_newest_transform_per_frame():
    from urdf_state_py.tools.view.tf_store import TfStore
    store = TfStore(max_frames=3)
    store.ingest(tf_message([('base', 'a', _pose(1.0)), ('a', 'b', _pose(2.0))]))
    version, rows = store.changes(0)
    assert [r[:3] for r in rows] == [['a', 'base', 1.0], ['b', 'a', 2.0]]
    assert rows[0][9] == pytest.approx(5 + 250e-9)
    store.ingest(tf_message([('base', 'a', _pose(7.0)), ('a', 'b', _pose(8.0))]))  # same layout
    store.ingest(tf_message([('other', 'b', _pose(9.0))]), static=True)            # a new one
    _, rows = store.changes(version)
    assert {r[0]: (r[1], r[2], r[10]) for r in rows} == {'a': ('base', 7.0, 0),
                                                         'b': ('other', 9.0, 1)}
    bad_quaternion = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5)
    store.ingest(tf_message([('base', 'a', (float('nan'),) * 7), ('a', 'b', bad_quaternion),
                             ('c', 'c', _pose(1.0)), ('base', 'x', _pose(1.0)),
                             ('base', 'y', _pose(1.0))]))
    _, rows = store.changes(0)
    assert {r[0]: r[2] for r in rows} == {'a': 7.0, 'b': 9.0, 'x': 1.0}   # y: beyond 3 frames
    store.ingest(b'\x00\x01\x00\x00\xff\xff\xff\xff')
    assert store.counts() == {'messages': 5, 'malformed': 1, 'frameCount': 3, 'droppedFrames': 1}


def test_tf_reader_reuses_a_layout_only_for_the_same_names():
    reader = TfReader()
    first = reader.read(tf_message([('base', 'link_1', _pose(1.0))]))
    again = reader.read(tf_message([('base', 'link_1', _pose(4.0))], stamp=(6, 0)))
    other = reader.read(tf_message([('base', 'link_2', _pose(5.0))]))
    assert again[0] is first[0] and other[0] is not first[0]
    assert again[1][0, 0] == 4.0 and again[2][0] == 6.0 and other[0].children == ('link_2',)
    for broken in (b'', b'\x00\x09\x00\x00\x01\x00\x00\x00', b'\x00\x01\x00\x00\x01\x00\x00\x00',
                   tf_message([('base', 'a', _pose(1.0))])[:-1]):
        with pytest.raises(MalformedTf):
            TfReader().read(broken)


@pytest.fixture(scope='module')
def package(tmp_path_factory):
    root = tmp_path_factory.mktemp('served')
    (root / 'pkg' / 'meshes').mkdir(parents=True)
    (root / 'pkg' / 'meshes' / 'a.stl').write_bytes(b'solid a\nendsolid a\n')
    (root / 'pkg' / 'meshes' / 'unreferenced.stl').write_bytes(SECRET)
    (root / 'pkg' / 'secret.txt').write_bytes(SECRET)
    return root


@pytest.fixture(scope='module')
def server(package):
    try:
        assets = find_assets()
    except Exception as exc:
        pytest.skip(f'the page assets are not installed here: {exc}')
    state = ViewState(Resolver({'pkg': str(package / 'pkg')}, [], str(package)))
    state.install(prepare(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="package://pkg/meshes/'
        'a.stl"/></geometry></visual></link></robot>', state.resolver, 1))
    running = ViewServer(('127.0.0.1', 0), state, assets)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield running
    state.closed.set()
    running.shutdown()
    running.server_close()


def _raw(server, request: bytes, timeout: float = 20.0) -> bytes:
    """Send ``request`` as is and read the whole answer (the server closes or answers once)."""
    with socket.create_connection(server.server_address[:2], timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                data = b''.join(chunks)
                head, _, body = data.partition(b'\r\n\r\n')
                length = [int(line.split(b':')[1]) for line in head.split(b'\r\n')
                          if line.lower().startswith(b'content-length:')]
                if length and len(body) >= length[0]:
                    break
        except socket.timeout:
            pass
        return b''.join(chunks)


def _get(server, path: str, host: str = '127.0.0.1') -> bytes:
    return _raw(server, f'GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n'
                .encode('latin-1'))


def _status(answer: bytes) -> int:
    return int(answer.split(b' ', 2)[1])


def test_serves_the_page_its_libraries_and_the_referenced_mesh(server):
    page = _get(server, '/')
    assert _status(page) == 200 and b'importmap' in page
    assert b"script-src 'self' 'sha256-" in page          # the Content-Security-Policy
    for path in ('/app/main.js', '/lib/three/build/three.module.js',
                 '/lib/urdf-loader/src/URDFLoader.js'):
        assert _status(_get(server, path)) == 200, path
    mesh = _get(server, '/files/pkg/pkg/meshes/a.stl')
    assert _status(mesh) == 200 and mesh.endswith(b'solid a\nendsolid a\n')
    model = json.loads(_get(server, '/api/model').partition(b'\r\n\r\n')[2])
    assert model['robot'] == 'r' and model['meshes']['served'] == 1


@pytest.mark.parametrize('path', [
    '/files/pkg/pkg/meshes/unreferenced.stl', '/files/pkg/pkg/secret.txt',
    '/files/pkg/pkg/meshes/../secret.txt', '/files/pkg/pkg/meshes/%2e%2e/secret.txt',
    '/files/pkg/pkg/meshes/%2E%2E%2Fsecret.txt', '/files/pkg/pkg/meshes/%252e%252e/secret.txt',
    '/files/pkg/pkg/meshes/..%5csecret.txt', '/files/pkg/pkg/meshes\\..\\secret.txt',
    '/files/pkg/pkg/meshes/a.stl/../../secret.txt', '/files/pkg/pkg/meshes/a.stl%00.txt',
    '/files/../../../../etc/passwd', '//etc/passwd', '/etc/passwd', '/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd', '/files/%2Fetc%2Fpasswd', '/app/../../setup.py',
    '/app/%2e%2e/%2e%2e/setup.py', '/lib/three/../../package.json', '/lib/three/package.json',
    '/app/assets.json', '/files/pkg/pkg/meshes/A.STL', 'http://127.0.0.1/etc/passwd',
    '/files/dir/0/etc/passwd', '/proc/self/environ', '/files/pkg/pkg/meshes/a.stl;/etc/passwd',
])
def test_traversal_and_unreferenced_files_are_never_served(server, path):
    answer = _get(server, path)
    assert _status(answer) in (400, 403, 404), answer[:200]
    assert SECRET not in answer and b'root:' not in answer and b'setup(' not in answer


def test_refusals_of_other_hosts_methods_and_oversized_requests(server):
    assert _status(_get(server, '/', host='attacker.example')) == 403   # DNS rebinding
    assert _status(_get(server, '/', host='localhost:1')) == 200
    assert _status(_raw(server, b'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n'
                                b'Content-Length: 0\r\n\r\n')) == 501
    assert _status(_raw(server, b'GET /' + b'a' * 70_000 + b' HTTP/1.1\r\n\r\n')) == 414
    assert _status(_raw(server, b'GET / HTTP/1.1\r\nX: ' + b'a' * 70_000 + b'\r\n\r\n')) == 431
    many = b''.join(b'X-%d: 1\r\n' % i for i in range(200))
    assert _status(_raw(server, b'GET / HTTP/1.1\r\n' + many + b'\r\n')) == 431
    # (a TLS hello: http.server answers as to an HTTP/0.9 request, without a status line)
    assert _raw(server, b'\x16\x03\x01\x00\xff garbage\r\n\r\n').startswith(b'400 ')
    assert _status(_get(server, '/')) == 200


def test_slow_and_idle_clients_do_not_stall_the_others(server):
    """
    Give clients trickling a request one thread each; the others are answered at once.

    Past MAX_CONNECTIONS a new connection gets 503 instead of waiting.
    """
    idle = []
    try:
        for _ in range(MAX_CONNECTIONS - 4):
            sock = socket.create_connection(server.server_address[:2], timeout=20)
            sock.sendall(b'GET / HTTP/1.1\r\nHost: 127.')      # ... and nothing more
            idle.append(sock)
        started = time.monotonic()
        assert _status(_get(server, '/app/main.js')) == 200
        assert time.monotonic() - started < 10.0
        for _ in range(8):
            sock = socket.create_connection(server.server_address[:2], timeout=20)
            idle.append(sock)
        deadline = time.monotonic() + 30
        while _status(_get(server, '/')) != 503:      # the bound is reached, and says so
            assert time.monotonic() < deadline, 'never 503 past the connection bound'
            time.sleep(0.05)
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + 30
    while _status(_get(server, '/')) != 200:          # freed: serving again
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_the_live_feed_pushes_model_and_coalesced_tf(server):
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=20)
    connection.request('GET', '/api/events')
    answer = connection.getresponse()
    assert answer.status == 200 and answer.getheader('Content-Type') == 'text/event-stream'
    for x in np.linspace(0.0, 1.0, 500):     # a burst: the page gets the last one
        server.state.tf.ingest(tf_message([('a', 'b', _pose(float(x)))]))
    events = {}
    deadline = time.monotonic() + 20
    while 'tf' not in events or events['tf']['frames'] == [] \
            or events['tf']['frames'][0][2] != 1.0:
        assert time.monotonic() < deadline, events
        name = data = None
        while True:
            line = answer.fp.readline().decode().rstrip('\n')
            if line.startswith('event: '):
                name = line[7:]
            elif line.startswith('data: '):
                data = json.loads(line[6:])
            elif not line and name:
                break
        events[name] = data
    assert events['model'] == {'robot': 0, 'version': 1}
    assert events['tf']['messages'] >= 500 and events['tf']['frames'][0][:2] == ['b', 'a']
    connection.close()


@pytest.mark.ros
def test_tf_reader_reads_what_rclpy_writes_and_refuses_every_truncation():
    pytest.importorskip('rclpy')
    from geometry_msgs.msg import TransformStamped
    from rclpy.serialization import serialize_message
    from tf2_msgs.msg import TFMessage
    rng = np.random.default_rng(3)
    message = TFMessage()
    for i in range(7):
        t = TransformStamped()
        t.header.frame_id = '/' + 'p' * (i + 1)       # tf2 strips the leading slash
        t.child_frame_id = f'child_{"é" * i}'
        t.header.stamp.sec, t.header.stamp.nanosec = 100 + i, 5 * i
        (t.transform.translation.x, t.transform.translation.y, t.transform.translation.z,
         t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z,
         t.transform.rotation.w) = rng.standard_normal(7).tolist()
        message.transforms.append(t)
    data = serialize_message(message)
    layout, values, stamps = TfReader().read(data)
    assert layout.children == tuple(t.child_frame_id for t in message.transforms)
    assert layout.parents == tuple(t.header.frame_id[1:] for t in message.transforms)
    for t, row, stamp in zip(message.transforms, values, stamps):
        r, v = t.transform.rotation, t.transform.translation
        assert row.tolist() == [v.x, v.y, v.z, r.x, r.y, r.z, r.w]
        assert stamp == t.header.stamp.sec + t.header.stamp.nanosec * 1e-9
    for end in range(len(data)):
        try:
            TfReader().read(data[:end])
        except MalformedTf:
            continue
        pytest.fail(f'{end} of {len(data)} bytes read without complaint')
