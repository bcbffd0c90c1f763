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
What the 3D view may serve: the resolver's allow-list, the prepared description, COLLADA images.

No ROS, no browser: a package folder and an --allow-dir folder in a temporary
tree, with the hostile things next to them (a symlink out, a FIFO, a 10 GB
sparse file, a secret of the wrong type). Every refused URI must get a reason
and no entry in the URL table; every allowed one a URL under ``/files/``
that keeps its folder structure.
"""
from __future__ import annotations

import os
import time

import pytest
from urdf_state_py.tools.view.description import MAX_REFERENCES, prepare
from urdf_state_py.tools.view.resolver import (Allowed, IMAGE_EXTENSIONS, MESH_EXTENSIONS, Refused,
                                               Resolver)
from urdf_state_py.tools.view.served_files import collada_image_refs, ServedFiles

SECRET = b'TOP-SECRET-MARKER'


@pytest.fixture()
def tree(tmp_path):
    """pkg/ (a package), allowed/ (--allow-dir), outside/ (neither); returns the Resolver."""
    pkg = tmp_path / 'pkg'
    (pkg / 'meshes' / 'sub').mkdir(parents=True)
    (pkg / 'textures').mkdir()
    (pkg / 'meshes' / 'a.stl').write_bytes(b'solid a\nendsolid a\n')
    (pkg / 'meshes' / 'sub' / 'b c.dae').write_text(
        '<COLLADA><library_images><image id="t"><init_from>../../textures/t.png</init_from>'
        '</image><image id="u"><init_from>../../../outside/o.png</init_from></image>'
        '<image id="v"><init_from>file:///etc/passwd.png</init_from></image>'
        '</library_images><surface><init_from>t</init_from></surface></COLLADA>')
    (pkg / 'textures' / 't.png').write_bytes(b'\x89PNG')
    (pkg / 'secret.txt').write_bytes(SECRET)
    (pkg / 'meshes' / 'secret.stl').symlink_to(pkg / 'secret.txt')
    outside = tmp_path / 'outside'
    outside.mkdir()
    (outside / 'o.stl').write_bytes(SECRET)
    (outside / 'o.png').write_bytes(SECRET)
    (pkg / 'meshes' / 'out.stl').symlink_to(outside / 'o.stl')
    os.mkfifo(pkg / 'meshes' / 'fifo.stl')
    (pkg / 'meshes' / 'folder.stl').mkdir()
    with open(pkg / 'meshes' / 'huge.stl', 'wb') as stream:
        stream.truncate(10 * 1024 ** 3)          # sparse: 10 GB that take no disk
    allowed = tmp_path / 'allowed'
    allowed.mkdir()
    (allowed / 'x.obj').write_text('v 0 0 0\n')
    return Resolver({'pkg': str(pkg)}, [str(allowed)], cwd=str(tmp_path))


def test_allowed_uris_get_urls_that_keep_the_folders(tree, tmp_path):
    cases = {
        'package://pkg/meshes/a.stl': '/files/pkg/pkg/meshes/a.stl',
        'package:///pkg/meshes/a.stl': '/files/pkg/pkg/meshes/a.stl',   # TALOS's spelling
        'package://pkg/meshes/sub/b c.dae': '/files/pkg/pkg/meshes/sub/b c.dae',
        'package://pkg/meshes/sub/../a.stl': '/files/pkg/pkg/meshes/a.stl',
        f'file://{tmp_path}/pkg/meshes/a.stl': '/files/pkg/pkg/meshes/a.stl',
        f'file://{tmp_path}/allowed/x.obj': '/files/dir/0/x.obj',
        'allowed/x.obj': '/files/dir/0/x.obj',                   # relative to the cwd
        f'{tmp_path}/allowed/x.obj': '/files/dir/0/x.obj',
    }
    for uri, url in cases.items():
        answer = tree.resolve(uri)
        assert isinstance(answer, Allowed), (uri, answer)
        assert answer.url == url and os.path.isfile(answer.path)
    assert tree.resolve('package://pkg/meshes/sub/b c.dae').href == \
        '/files/pkg/pkg/meshes/sub/b%20c.dae'
    assert isinstance(tree.resolve('package://pkg/textures/t.png', IMAGE_EXTENSIONS), Allowed)


@pytest.mark.parametrize('uri, reason', [
    ('file:///etc/passwd', 'not a'),
    ('file:///etc/passwd.stl', 'outside'),
    ('/proc/self/environ', 'not a'),
    ('file:///proc/self/environ', 'not a'),
    ('package://pkg/../outside/o.stl', 'outside'),
    ('package://pkg/meshes/../../outside/o.stl', 'outside'),
    ('package://pkg/%2e%2e/outside/o.stl', 'No such file'),        # not decoded: a file name
    ('file:///%2e%2e/%2e%2e/etc/passwd.stl', 'outside'),
    ('package://pkg/meshes/out.stl', 'outside'),                    # symlink out
    ('package://pkg/meshes/secret.stl', 'a link to a file of another type'),
    ('package://pkg/secret.txt', 'not a'),
    ('package://pkg/meshes/fifo.stl', 'not a regular file'),
    ('package://pkg/meshes/folder.stl', 'not a regular file'),
    ('package://pkg/meshes/huge.stl', 'larger than'),
    ('package://pkg/meshes/missing.stl', 'No such file'),
    ('package://other/meshes/a.stl', "package 'other' not found"),
    ('package://../pkg/meshes/a.stl', 'not a package name'),
    ('package:pkg/meshes/a.stl', 'without //'),
    ('http://example.com/a.stl', 'not served'),
    ('https://127.0.0.1/a.stl', 'not served'),
    ('data:model/stl;base64,AAAA', 'not served'),
    ('file://otherhost/etc/passwd.stl', 'another host'),
    ('outside/o.stl', 'outside'),                                   # relative, not allowed
    ('pkg/meshes/a.stl\x00.stl', 'NUL'),
    ('', 'empty'),
    ('package://pkg/' + 'a/' * 3000 + 'x.stl', 'longer than'),
])
def test_refused_uris_say_why(tree, uri, reason):
    answer = tree.resolve(uri)
    assert isinstance(answer, Refused), answer
    assert reason in answer.reason


def _urdf(visuals: str, texture: str = '') -> str:
    return (f'<robot name="r"><material name="m">{texture}<color rgba="1 0 0 1"/></material>'
            f'<link name="a">{visuals}<collision><geometry><box size="1 1 1"/></geometry>'
            '</collision></link><link name="b"/><joint name="j" type="fixed">'
            '<parent link="a"/><child link="b"/></joint><gazebo/></robot>')


def _mesh(uri: str) -> str:
    return f'<visual><geometry><mesh filename="{uri}"/></geometry></visual>'


def test_prepared_description_holds_only_served_urls(tree):
    text = _urdf(_mesh('package://pkg/meshes/a.stl') + _mesh('package://pkg/meshes/a.stl')
                 + _mesh('file:///etc/passwd') + _mesh('package://pkg/meshes/out.stl')
                 + '<visual><geometry><box size="1 2 3"/></geometry></visual>',
                 texture='<texture filename="package://pkg/textures/t.png"/>')
    prepared = prepare(text, tree, version=3)
    assert not prepared.error and prepared.version == 3
    assert prepared.robot == 'r' and prepared.root == 'a'
    assert prepared.links == (('a', None), ('b', 'a'))
    assert prepared.referenced == 4 and prepared.refused_count == 2
    assert [uri for uri, _ in prepared.refused] == ['file:///etc/passwd',
                                                    'package://pkg/meshes/out.stl']
    assert set(prepared.files) == {'/files/pkg/pkg/meshes/a.stl', '/files/pkg/pkg/textures/t.png'}
    urdf = prepared.urdf
    assert urdf.count('filename="/files/pkg/pkg/meshes/a.stl"') == 2
    assert 'passwd' not in urdf and 'out.stl' not in urdf and 'package://' not in urdf
    assert '<box size="1 2 3"' in urdf                     # primitives stay
    assert '<collision' not in urdf and '<gazebo' not in urdf


def test_hostile_descriptions_cost_little_and_serve_nothing(tree, monkeypatch):
    resolved = []
    original = Resolver.resolve
    monkeypatch.setattr(Resolver, 'resolve', lambda self, uri, ext=MESH_EXTENSIONS:
                        resolved.append(uri) or original(self, uri, ext))
    count = 100_000
    text = _urdf(''.join(_mesh(f'file:///nowhere/{i}.stl') for i in range(count)))
    started = time.monotonic()
    prepared = prepare(text, tree, version=1)
    assert time.monotonic() - started < 60.0       # generous: seconds on a loaded machine
    assert prepared.referenced == count and prepared.refused_count == count
    assert len(resolved) == MAX_REFERENCES          # the rest refused unread
    assert prepared.files == {} and '<mesh' not in prepared.urdf
    assert len(prepared.refused) == 50          # listed; the rest counted
    for bad in ('<robot', 'not xml at all', '<robot name="x"><link name="a"/><link name="a"/>'
                '</robot>', '<!DOCTYPE r [<!ENTITY e "x">]><robot name="r"/>'):
        assert 'invalid description' in prepare(bad, tree, version=2).error


def test_collada_images_are_served_only_inside_the_same_folders(tree):
    dae = tree.resolve('package://pkg/meshes/sub/b c.dae')
    assert set(collada_image_refs(dae.path)) >= {'../../textures/t.png', 't'}
    served = ServedFiles({dae.url: dae.path}, tree)
    assert served.lookup('/files/pkg/pkg/textures/t.png') is None
    served.add_collada_images(dae.url, dae.path)
    assert served.lookup('/files/pkg/pkg/textures/t.png').endswith('t.png')
    assert len(served) == 2       # not ../../../outside/o.png, not file:///, not the image id
    assert served.lookup('/files/pkg/outside/o.png') is None
