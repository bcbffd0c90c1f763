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
/diagnostics over DDS: a subscriber follows the node's status as its state changes.

ERROR without a description; WARN while joints were never received; OK when
every joint flows; WARN for a stale joint, a clamped joint, a rejected
message, a rejected description -- with the keys and values an operator
reads in rqt_robot_monitor.
"""
import threading
from types import SimpleNamespace

from node_harness import NodeUnderTest
import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from test_hostile_inputs import DiagnosticsRecorder, serialized, TOY
from test_joint_states import make_merger
from urdf_state_py.node import diagnostics, health
from urdf_state_py.node.tf_path import native

pytestmark = pytest.mark.ros  # needs rclpy and DDS

diagnostic_msgs = pytest.importorskip('diagnostic_msgs.msg')
OK, WARN, ERROR = (diagnostic_msgs.DiagnosticStatus.OK, diagnostic_msgs.DiagnosticStatus.WARN,
                   diagnostic_msgs.DiagnosticStatus.ERROR)
NAME = 'urdf_state_diag'


class Feeder:
    """Publishes ``values`` (name -> position) at 20 Hz from a thread until stopped."""

    def __init__(self, probe) -> None:
        self.values = {}
        self._probe = probe
        self._pub = probe.node.create_publisher(
            JointState, 'joint_states',
            QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):   # the 20 Hz pace of a joint-state source
            values = dict(self.values)
            if values:
                self._pub.publish(serialized(values, values.values(), self._probe.now_ns()))

    def publish_raw(self, data: bytes) -> None:
        self._pub.publish(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


@pytest.fixture(scope='module')
def diag(probe):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(health, 'RECENT_S', 2.0)   # a rejection/clamp keeps WARN for 2 s here
        # No periodic rebuild: every change below must reach the status through its quiet key.
        patch.setattr(diagnostics, 'REBUILD_NS', 10 ** 18)
        node = NodeUnderTest(NAME, {'frame_prefix': 'dg/', 'diagnostics.stale_after': 0.5})
        recorder = DiagnosticsRecorder(probe, f'{NAME}: robot state')
        feeder = Feeder(probe)
        try:
            yield node, recorder, feeder
        finally:
            feeder.close()
            node.close()


def test_an_idle_robots_status_is_sent_again_unbuilt_and_a_change_shows(probe, monkeypatch):
    """
    Check an idle robot's status is sent again unbuilt and a change shows.

    Idle, the status goes out every tick without pausing the loop or rebuilding it; a
    JointState (also one the native loop serves alone), a rejected message and a new
    description each show, with no periodic rebuild to fall back on.
    """
    monkeypatch.setattr(diagnostics, 'REBUILD_NS', 10 ** 18)
    node = NodeUnderTest('urdf_state_idle', {'robot_description': TOY, 'frame_prefix': 'idle/',
                                             'diagnostics.stale_after': 0.0})
    try:
        publisher = node.node._status
        builds = []
        view = publisher._view
        publisher._view = lambda *args: builds.append(args) or view(*args)
        recorder = DiagnosticsRecorder(probe, 'urdf_state_idle: robot state')
        values, _ = recorder.wait(lambda v, s: v.get('robot') == 'toy', what='the toy loaded')
        assert values['joints never received'] == '3'
        start, built = recorder.count(), len(builds)
        recorder.wait(lambda v, s: True, start + 3, what='four more statuses')
        assert len(builds) - built <= 1, builds   # (the first: the key taken as it loaded)
        feeder = Feeder(probe)
        try:
            feeder.values = {'a': 0.2}   # (b, prismatic, would keep the native plan off)
            recorder.wait(lambda v, s: v['joints never received'] == '1', recorder.count(),
                          what='the JointStates shown')
            feeder.values = {}
            values, _ = recorder.wait(lambda v, s: v['/tf rate [Hz]'] == '0.0', recorder.count(),
                                      what='the stream over')
            published = int(values['/tf messages published'])
            # One more message of the same names: the native loop (where it runs) serves it
            # without Python, and only its activity tells the status to look.
            feeder.publish_raw(serialized(['a'], [0.3], probe.now_ns()))
            recorder.wait(lambda v, s: int(v['/tf messages published']) > published,
                          recorder.count(), what='the lone JointState counted')
            feeder.publish_raw(serialized(['a', 'b'], [0.1, 0.2])[:30])
            recorder.wait(lambda v, s: v['rejected messages'] == '1', recorder.count(),
                          what='the rejected message shown')
        finally:
            feeder.close()
        assert probe.set_parameters(node.name, robot_description=TOY.replace(
            'name="toy"', 'name="toy2"'))[0].successful
        recorder.wait(lambda v, s: v.get('robot') == 'toy2', recorder.count(),
                      what='the new description shown')
    finally:
        node.close()


def test_an_idle_robots_joint_turns_stale_on_time_with_no_rebuild_to_fall_back_on(
        probe, monkeypatch):
    """
    Check an idle robot's joint turns stale on time.

    No input at all after one JointState: the status shows the joint stale once
    ``diagnostics.stale_after`` has passed, though nothing changed its quiet key.
    """
    monkeypatch.setattr(diagnostics, 'REBUILD_NS', 10 ** 18)
    # 4 s: the status is built twice after the message (the /tf rate above 0, then 0),
    # the second time with the key kept, well before the joints turn stale.
    node = NodeUnderTest('urdf_state_stale', {'robot_description': TOY, 'frame_prefix': 'st/',
                                              'diagnostics.stale_after': 4.0})
    feeder = Feeder(probe)
    try:
        recorder = DiagnosticsRecorder(probe, 'urdf_state_stale: robot state')
        recorder.wait(lambda v, s: v.get('robot') == 'toy', what='the toy loaded')
        feeder.publish_raw(serialized(['a'], [0.3], probe.now_ns()))
        values, _ = recorder.wait(lambda v, s: v['joints never received'] == '1',
                                  recorder.count(), what='the JointState shown')
        values, _ = recorder.wait(lambda v, s: v['stale joints'] != '0', recorder.count() - 1,
                                  what='joint a shown stale')
        assert values['stale joints (names)'] == 'a, m', values
    finally:
        feeder.close()
        node.close()


def wait_status(recorder, level, predicate=lambda v, s: True, what=''):
    return recorder.wait(lambda v, s: s.level == level and predicate(v, s),
                         max(0, recorder.count() - 1), timeout=15.0, what=what)


def test_without_a_description_the_status_is_error(diag):
    _, recorder, _ = diag
    values, status = wait_status(recorder, ERROR, what='ERROR without a description')
    assert status.message == 'no valid robot description loaded' and status.hardware_id == ''
    assert values['rejected messages'] == '0'
    assert values['joint_states decoder'] == native.status().summary  # which one, and why


def test_loaded_but_never_received_is_warn_naming_the_joints(probe, diag):
    node, recorder, _ = diag
    assert probe.set_parameters(node.name, robot_description=TOY)[0].successful
    values, status = wait_status(recorder, WARN, lambda v, s: v.get('robot') == 'toy',
                                 'WARN: never received')
    assert status.hardware_id == 'toy'
    assert status.message == ('3 joint(s) never received: the complete state is not yet known')
    assert values['joints never received (names)'] == 'a, b, m'   # the model's order
    assert values['parser'] == 'urdf' and values['links'] == '4'
    assert values['joints'] == '3 (3 movable)'


def test_every_joint_flowing_is_ok_with_a_tf_rate(diag):
    _, recorder, feeder = diag
    feeder.values = {'a': 0.2, 'b': 0.5}
    values, status = wait_status(recorder, OK, lambda v, s: float(v['/tf rate [Hz]']) > 5.0,
                                 'OK at ~20 Hz')
    assert status.message == "publishing 4 links of 'toy'"
    assert values['joints never received'] == '0' and values['stale joints'] == '0'


def test_a_joint_no_longer_updated_is_stale(diag):
    _, recorder, feeder = diag
    feeder.values = {'a': 0.2}
    values, status = wait_status(recorder, WARN, lambda v, s: v['stale joints'] == '1',
                                 'WARN: b stale')
    assert values['stale joints (names)'] == 'b' and values['stale after [s]'] == '0.5'
    assert status.message == '1 joint(s) stale (no update for more than 0.5 s)'
    feeder.values = {'a': 0.2, 'b': 0.5}
    wait_status(recorder, OK, what='OK again')


def test_a_clamped_joint_warns_then_clears(diag):
    _, recorder, feeder = diag
    feeder.values = {'a': 1.5, 'b': 0.5}
    values, status = wait_status(recorder, WARN, lambda v, s: 'clamped' in s.message,
                                 'WARN: clamped')
    assert values['joints clamped (names)'] == 'a'
    feeder.values = {'a': 0.2, 'b': 0.5}
    values, _ = wait_status(recorder, OK, what='OK once the clamp is 2 s old')
    assert values['joints clamped'] == '1'              # the count stays


def test_a_malformed_message_warns_with_its_reason_and_is_counted(diag):
    _, recorder, feeder = diag
    feeder.publish_raw(serialized(['a', 'b'], [0.1, 0.2])[:30])
    values, status = wait_status(recorder, WARN, lambda v, s: 'input rejected' in s.message,
                                 'WARN: input rejected')
    assert values['rejected messages: truncated'] == '1' and values['rejected messages'] == '1'
    assert values['last rejection'] == \
        '/joint_states: truncated: 2 names cannot fit in the 30-byte payload'
    wait_status(recorder, OK, what='OK once the rejection is 2 s old')


def test_a_rejected_description_is_counted_and_the_model_kept(probe, diag):
    node, recorder, _ = diag
    result, = probe.set_parameters(node.name, robot_description='<robot name="x"/>')
    assert not result.successful
    values, status = wait_status(recorder, WARN, lambda v, s: v['rejected descriptions'] == '1',
                                 'the rejected description counted')
    assert values['robot'] == 'toy' and status.hardware_id == 'toy'
    assert values['rejected descriptions: invalid'] == '1'
    assert values['last rejection'].startswith('robot_description: ')
    assert 'input rejected: robot_description' in status.message


class _NotIterable(set):
    """
    A received set that must not be iterated.

    A received set that a reader without the JointState lock must not iterate: a message
    may be growing it ("Set changed size during iteration" failed the tick).
    """

    def __iter__(self):
        raise AssertionError('the received set was iterated without the JointState lock')


def test_the_quiet_key_sees_a_first_value_without_iterating_the_received_joints():
    """
    Check the quiet key sees a first value without iterating.

    The key is read without the JointState lock; it follows the merger's count of first
    values, which changes exactly when the pending joints do.
    """
    merger = make_merger()
    loaded = SimpleNamespace(merger=merger, plans=SimpleNamespace(clamps=0))
    counters = health.Health()
    merger._received = _NotIterable()
    before = diagnostics.quiet_key(counters, loaded, 7, 10 ** 9)
    merger._received = set()
    merger.update(['jd'], [1.0], 10 ** 9)
    assert 'jd' not in merger.pending_joints()
    merger._received = _NotIterable(merger._received)
    after = diagnostics.quiet_key(counters, loaded, 7, 10 ** 9)
    assert before is not None and after is not None and before != after


def test_the_quiet_key_tells_a_new_model_from_the_freed_one_before_it():
    """
    Check the quiet key tells a new model from the freed one before it.

    A description replaced while the robot is idle: the key must change though the old
    model is gone and the new one is given its memory (and so its id()).
    """
    counters = health.Health()
    plans = SimpleNamespace(clamps=0)
    old, new = make_merger(), make_merger()
    loaded = SimpleNamespace(merger=old, plans=plans)
    before, freed = diagnostics.quiet_key(counters, loaded, 7, 10 ** 9), id(loaded)
    del loaded, old
    loaded = SimpleNamespace(merger=new, plans=plans)
    if id(loaded) != freed:
        pytest.skip('this Python gave the new object fresh memory: nothing to tell apart')
    assert diagnostics.quiet_key(counters, loaded, 7, 10 ** 9) != before


def test_an_array_sent_again_carries_each_ticks_stamp():
    """
    Check the array sent again unbuilt carries each tick's clock in its header.stamp.

    The stamp is written into the serialised array in place (plain CDR's header
    and stamp layout, shared with the JointState and TFMessage codecs): it must
    decode to the clock of each tick, the statuses unchanged.
    """
    from rclpy.serialization import deserialize_message

    sent, clock = [], SimpleNamespace(ns=0)
    node = SimpleNamespace(
        create_publisher=lambda *args, **kwargs: SimpleNamespace(publish=sent.append),
        get_clock=lambda: SimpleNamespace(now=lambda: SimpleNamespace(nanoseconds=clock.ns)),
        context=SimpleNamespace(ok=lambda: True))
    ticker = SimpleNamespace(add=lambda tick: None, settle=lambda: None)
    guard = SimpleNamespace(wrap=lambda source, callback: callback)
    board = diagnostics.DiagnosticsBoard(node, ticker, guard)
    status = diagnostic_msgs.DiagnosticStatus(level=OK, name='r: robot state', message='ok')
    board.add(SimpleNamespace(refresh_guarded=lambda: False, status=status))
    for ns in (5 * 10 ** 9 + 7, 2 ** 31 * 10 ** 9 - 1, 1):   # up to int32 sec's last second
        clock.ns = ns
        board._tick()
        array = deserialize_message(sent[-1], diagnostic_msgs.DiagnosticArray)
        assert (array.header.stamp.sec, array.header.stamp.nanosec) == divmod(ns, 10 ** 9)
        assert array.status == [status]
    assert len(sent) == 3 and len({len(data) for data in sent}) == 1
