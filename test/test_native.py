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
The native (C) JointState decoder against the Python reader, payload for payload; when it may run.

The Python reader (``joint_state_cdr.py``) is checked against rclpy's own
deserialisation by ``test_joint_state_cdr.py``; this module feeds the very same
fuzz (real serialised messages, truncated, random, mutated, absurd counts, bad
strings) to both decoders and requires the same verdict: identical fields, or a
rejection with the same reason and the same text. It skips only where the
extension is not built; ``native.status()`` decides whether the node uses it.
"""
import importlib.util
import os
import struct

import numpy as np
import pytest

pytest.importorskip('rclpy')

from rclpy.serialization import serialize_message  # noqa: E402 - after importorskip
from sensor_msgs.msg import JointState  # noqa: E402 - after importorskip
from test_joint_state_cdr import (  # noqa: E402 - after importorskip
    count_offsets, mutations, names_payload, random_joint_state)
from urdf_state_py.node.tf_path import native  # noqa: E402 - after importorskip
from urdf_state_py.node.tf_path.joint_state_cdr import (  # noqa: E402 - after importorskip
    JointStateReader, MalformedJointState)

pytestmark = pytest.mark.ros
NS_PER_S = 1_000_000_000


@pytest.fixture(scope='module')
def module():
    """
    Return the extension, where it is built (URDF_STATE_NATIVE=off only switches the node).

    A build for another ROS 2 fails the tests that need a matching one: in a
    checkout set up by dev.sh that is a bug, not a configuration.
    """
    try:
        return native._import(os.environ.get('URDF_STATE_NATIVE_MODULE'))
    except ImportError as err:
        pytest.skip(f'native extension not built: {err}')


def verdict(reader, data):
    try:
        names, positions, sec, nanosec = reader.read(data)
    except MalformedJointState as err:
        return ('rejected', err.reason, str(err))
    assert positions.dtype == np.float64
    return ('accepted', names, positions.tobytes(), sec, nanosec)


def test_fuzz_same_verdict_as_the_python_reader(module):
    # the seed and draw order of test_joint_state_cdr's fuzz: the very same payloads
    rng = np.random.default_rng(11)
    caps = np.random.default_rng(12)   # the warm pair's name cap, drawn apart from the payloads
    warm = (JointStateReader(), native.NativeJointStateReader(module))  # caches across messages
    accepted = rejected = capped = 0
    for _ in range(400):
        data = serialize_message(random_joint_state(rng))
        for _pass in range(2):  # a fresh pair of readers per pass, as there
            fresh = (JointStateReader(), native.NativeJointStateReader(module))
            for bad in [data, *mutations(rng, data)]:
                expected = verdict(fresh[0], bad)
                assert verdict(fresh[1], bad) == expected, bad.hex()
                if expected[0] == 'accepted':
                    accepted += 1
                else:
                    rejected += 1
                # the model swapped (a new cap) while the warm pair has names cached
                cap = None if caps.random() < 0.5 else int(caps.integers(0, 12))
                warm[0].max_names = warm[1].max_names = cap
                got = verdict(warm[0], bad)
                assert verdict(warm[1], bad) == got, (cap, bad.hex())
                capped += got[:2] == ('rejected', 'oversized') and expected[0] == 'accepted'
    assert accepted > 100 and rejected > 2000 and capped > 50, (accepted, rejected, capped)


def test_a_smaller_cap_applies_to_cached_names(module):
    """
    Check a smaller cap applies to cached names.

    After a swap to a smaller model the cap applies to the name list a reader has
    cached too (the C decoder always applied it, the Python reader skipped it).
    """
    data = serialize_message(JointState(name=[f'j{i}' for i in range(5)], position=[0.0] * 5))
    readers = (JointStateReader(), native.NativeJointStateReader(module))
    assert [verdict(r, data)[0] for r in readers] == ['accepted', 'accepted']   # now cached
    for reader in readers:
        reader.max_names = 3
    expected = ('rejected', 'oversized', 'oversized: 5 names, more than the 3 this model accepts')
    assert [verdict(r, data) for r in readers] == [expected, expected]
    for reader in readers:
        reader.max_names = 5
    assert [verdict(r, data)[0] for r in readers] == ['accepted', 'accepted']


def test_repeated_names_keep_the_tuple(module):
    reader = native.NativeJointStateReader(module)
    msg = JointState(name=['hip', 'knee', '関節'], position=[1.0, 2.0, 3.0])
    first = reader.read(serialize_message(msg))[0]
    msg.position = [4.0, 5.0]
    names, positions, _, _ = reader.read(serialize_message(msg))
    assert names is first and positions.tolist() == [4.0, 5.0]
    msg.name = ['hip', 'knee', 'toe']
    assert reader.read(serialize_message(msg))[0] == ('hip', 'knee', 'toe')


@pytest.mark.parametrize('raw', [b'joint', b'', b'jo\0int\0', b'\xff\xfejoint\0',
                                 b'\xed\xa0\x80\0', b'\xc0\xaf\0', b'\xf4\x90\x80\x80\0',
                                 b'\xe2\x82\0', b'\x80\0'])
def test_bad_strings_same_verdict(module, raw):
    data = names_payload([b'a\0', raw])
    expected = verdict(JointStateReader(), data)
    assert expected[0] == 'rejected' and 'name[1]' in expected[2]
    assert verdict(native.NativeJointStateReader(module), data) == expected


def test_valid_utf8_edges_are_accepted(module):
    edges = ['\u007f', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\U00010000',
             '\U0010ffff']
    data = names_payload([s.encode() + b'\0' for s in edges])
    assert (verdict(native.NativeJointStateReader(module), data)
            == verdict(JointStateReader(), data))
    assert native.NativeJointStateReader(module).read(data)[0] == tuple(edges)


def test_absurd_counts_and_name_cap(module):
    data = serialize_message(JointState(name=[f'j{i}' for i in range(100)], position=[0.0] * 100))
    for cap in (None, 100, 99, 0):
        py, c = JointStateReader(max_names=cap), native.NativeJointStateReader(module, cap)
        assert verdict(c, data) == verdict(py, data)
    for at in count_offsets(data):
        for value in (2**31, 2**32 - 1, 2**31 - 1):
            bad = data[:at] + struct.pack('<I', value) + data[at + 4:]
            assert verdict(native.NativeJointStateReader(module), bad) == \
                verdict(JointStateReader(), bad)


def _fake_install(root, versions):
    """Make a prefix holding lib/librcl.so, lib/librmw.so and their package.xml at ``versions``."""
    (root / 'lib').mkdir(parents=True)
    for package, version in versions.items():
        (root / 'lib' / f'lib{package}.so').write_bytes(b'')
        share = root / 'share' / package
        share.mkdir(parents=True)
        share.joinpath('package.xml').write_text(
            f'<package><version>{version}</version></package>')
    return {f'loaded_{package}': str(root / 'lib' / f'lib{package}.so') for package in versions}


def test_abi_check_admits_the_distro_not_a_patch_release(module, tmp_path):
    """
    Check the ABI check admits the distro, not a patch release.

    Another patch release of the same distro (rcl major, rmw major.minor) is admitted;
    another distro, or a library whose version cannot be told, is refused saying which.
    """
    info = module.build_info()
    assert native.abi_mismatch(info) is None
    rcl_major, rmw_major, rmw_minor = info['rcl'].split('.')[0], *info['rmw'].split('.')[:2]
    patch = {**info, **_fake_install(tmp_path / 'patch', {
        'rcl': f'{rcl_major}.99.1', 'rmw': f'{rmw_major}.{rmw_minor}.77'})}
    assert native.abi_mismatch(patch) is None
    other = {**info, **_fake_install(tmp_path / 'other', {
        'rcl': f'{int(rcl_major) + 1}.0.0', 'rmw': info['rmw']})}
    assert native.abi_mismatch(other) == (
        f"built against rcl {info['rcl']} ({native._DISTROS.get(rcl_major, 'another ROS 2')}), "
        f"but this process loaded rcl {int(rcl_major) + 1}.0.0 from {other['loaded_rcl']}")
    rmw = {**info, **_fake_install(tmp_path / 'rmw', {
        'rcl': info['rcl'], 'rmw': f'{rmw_major}.{int(rmw_minor) + 1}.0'})}
    assert 'built against rmw' in native.abi_mismatch(rmw)
    unknown = {**info, 'loaded_rcl': str(tmp_path / 'nowhere' / 'lib' / 'librcl.so')}
    assert 'cannot tell the version of' in native.abi_mismatch(unknown)
    assert native.abi_mismatch({**info, 'loaded_rmw': ''}) == \
        'no librmw is loaded in this process'


@pytest.fixture
def fresh_status(monkeypatch):
    """native.status() decided again under the test's environment, then restored."""
    native.status.cache_clear()
    yield monkeypatch
    native.status.cache_clear()


@pytest.mark.parametrize('value', ['off', 'OFF', '0', 'false'])
def test_switched_off_the_python_decoder_serves(fresh_status, value):
    fresh_status.setenv('URDF_STATE_NATIVE', value)
    status = native.status()
    assert status.module is None and status.reason == 'URDF_STATE_NATIVE=off'
    assert native.loadable().module is not None or 'not built' in native.loadable().reason
    assert status.summary == 'joint_states decoder: Python (URDF_STATE_NATIVE=off)'
    assert type(native.joint_state_reader()) is JointStateReader


def test_the_self_test_passes_and_a_failing_one_refuses_the_loop(fresh_status, module):
    """
    Check the self-test passes and a failing one refuses the loop.

    The C plan and the Python specification agree here; when they do not, the loop is
    refused (the decoder, pure C, still serves) and the reason names the self-test.
    """
    fresh_status.delenv('URDF_STATE_NATIVE', raising=False)
    assert native.self_test_failure(module) is None
    passed = native.status()
    assert passed.loop_refused is None and passed.reason.endswith('; self-test passed')
    native.status.cache_clear()
    real, calls = native._specification, []

    def wrong_first(*args):   # the first /tf the specification gives, then the true ones
        calls.append(args)
        return b'not what the plan publishes' if len(calls) == 1 else real(*args)
    fresh_status.setattr(native, '_specification', wrong_first)
    refused = native.status()
    assert refused.module is not None
    assert refused.loop_refused.startswith('the native loop failed its self-test: message 1 of ')


def test_an_unloadable_build_falls_back_saying_why(fresh_status, tmp_path):
    fresh_status.delenv('URDF_STATE_NATIVE', raising=False)
    fresh_status.setenv('URDF_STATE_NATIVE_MODULE', str(tmp_path / 'missing.so'))
    status = native.status()
    assert status.module is None and 'not built or not loadable' in status.reason
    assert type(native.joint_state_reader()) is JointStateReader


def test_a_matching_build_serves(fresh_status, module):
    fresh_status.delenv('URDF_STATE_NATIVE', raising=False)
    status = native.status()
    assert status.module is not None, status.reason
    assert status.summary.startswith('joint_states decoder: native (C) (built for rcl ')
    assert type(native.joint_state_reader()) is native.NativeJointStateReader


def test_c_floor_loop_serves_and_stops(probe, module):
    """The benchmark's C floor: JointState in over DDS, its stamp in every transform of /tf out."""
    # built by ./dev.sh into its venv (bench/floor); CI sets URDF_STATE_REQUIRE_FLOOR=1
    if importlib.util.find_spec('urdf_state_floor') is None:
        (pytest.fail if os.environ.get('URDF_STATE_REQUIRE_FLOOR') == '1' else pytest.skip)(
            "the benchmark's C floor (module urdf_state_floor) is not built here: ./dev.sh "
            'builds it')
    from node_harness import wait_until
    import rclpy
    from tf2_msgs.msg import TFMessage
    from urdf_state_bench.driver import RawTfSource
    from urdf_state_bench.floor_node import CFloor

    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node('c_floor_test', context=context)
    try:
        tf = RawTfSource({'mode': 'tf', 'topic': '/tf', 'parents': ['base', 'base'],
                          'children': ['cf_a', 'cf_b']})
        publisher = node.create_publisher(TFMessage, '/tf', 100)
        floor = CFloor(node, 'joint_states', publisher, tf.template, tuple(tf.offsets))
        floor.start()
        wait_until(lambda: publisher.get_subscription_count() > 0, what='the probe on /tf')
        states = probe.joint_state_publisher()   # each state is sent once: matched first
        wait_until(lambda: states.get_subscription_count() > 0, what='the C loop subscribing')
        assert floor.running
        for k in range(3):
            msg = probe.answer_to_state(['j'], [0.1 * k])
            assert [t.child_frame_id for t in msg.transforms] == ['cf_a', 'cf_b']
            assert len({(t.header.stamp.sec, t.header.stamp.nanosec) for t in msg.transforms}) == 1
        floor.stop()
        wait_until(lambda: not floor.running, what='the C loop to return on its guard condition')
        published, skipped, errors, ok = floor.counts
        assert ok and errors == 0 and skipped == 0 and published >= 3
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def _tf_equality_models():
    from robot_files import big_robot_params
    from test_native_plan import TOY
    from test_node_joint_states import MULTI_DOF
    return [pytest.param(TOY, id='toy'), pytest.param(MULTI_DOF, id='planar_floating')] + [
        pytest.param(p.values[0], id=p.id, marks=p.marks) for p in big_robot_params()]


@pytest.mark.parametrize('robot', _tf_equality_models())
def test_tf_bytes_equal_with_either_decoder(module, robot):
    """
    Check the /tf bytes are equal with either decoder.

    The same JointState bytes through the node's JointState step, decoded by Python and by
    C: every /tf payload equal byte for byte.
    """
    from test_native_plan import bounds_of, Twin
    from urdf_state_py.core.parsers import load_model

    model = load_model(robot if isinstance(robot, str) else robot.read_text())
    twin = Twin(model, 0.0)
    readers = (JointStateReader(), native.NativeJointStateReader(module))
    names = [n for n in twin.kin.variable_index if '/' in n] or list(model.active_joint_names)
    lo, hi = bounds_of(model, names)
    rng = np.random.default_rng(5)
    published = 0
    for k in range(200):
        values = rng.uniform(lo - 0.1, hi + 0.1) if k % 5 == 0 else rng.uniform(lo, hi)
        msg = JointState(name=names, position=values.tolist())
        msg.header.stamp.sec, msg.header.stamp.nanosec = 10 + k, 1000 * k
        data = serialize_message(msg)
        out = []
        for side, reader in zip(twin.sides, readers):
            got, positions, sec, nanosec = reader.read(data)
            now = (20 + k) * NS_PER_S
            out.append(twin.general(side, got, positions, sec, nanosec, now, False)[0])
        assert out[0] == out[1], k
        published += bool(out[0])
    assert published > 150
