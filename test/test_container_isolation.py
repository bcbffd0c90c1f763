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
urdf_state_container under hostile input and at its edges.

urdf_state_container under hostile input and at its edges: one robot's bad description,
malformed messages and unload never disturb another's /tf or parameter answers; the cap on
robots; a container that trusts LoadNode; SIGINT and SIGTERM with robots loaded.
"""
import signal
import threading

from container_harness import answer_to, assert_tf_matches_fk, Container
from node_harness import DEADLINE, wait_until
import pytest
from robot_files import FIXTURES, H1_2, RSP_FIXTURES
from test_isolated_parser import macro_bomb
from urdf_state_py.core.parsers import load_model

pytestmark = pytest.mark.ros

MOVING = (RSP_FIXTURES / 'two_links_moving_joint.urdf').read_text()
ARM = FIXTURES / 'xacro' / 'fixture_arm'


@pytest.fixture(scope='module')
def pair(probe):
    """Start a container with a target robot (/bad) and a bystander (/good)."""
    c = Container(probe, 'isolation_container')
    c.ids = {ns: c.loaded(ns, {'robot_description': MOVING, 'frame_prefix': ns[1:] + '/',
                               'description.timeout': 10.0})
             for ns in ('/bad', '/good')}
    yield c
    c.close()


class Stream:
    """JointStates to the bystander on a thread, each answered on /tf before the next."""

    def __init__(self, probe) -> None:
        self.answered = 0
        self.failed: list[BaseException] = []
        self._stop = threading.Event()
        self._probe = probe
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        value = 0.0
        while not self._stop.is_set():
            value += 0.01
            try:
                answer_to(self._probe, {'joint1': value}, '/good/joint_states', timeout=60.0)
            except BaseException as exc:  # reported by stop()
                self.failed.append(exc)
                return
            self.answered += 1

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(timeout=90.0)
        assert not self.failed, self.failed
        return self.answered


def test_a_hostile_description_on_one_robot_leaves_the_other_answering(probe, pair):
    stream = Stream(probe)
    wait_until(lambda: stream.answered >= 1, 60.0, 'the bystander answering')
    result: list = []
    setter = threading.Thread(target=lambda: result.append(probe.set_parameters(
        '/bad/urdf_state', timeout=120.0, robot_description=macro_bomb())))
    before = stream.answered
    setter.start()
    # /bad parses for its whole 10 s limit; meanwhile /good answers its parameters and /tf.
    assert pair.get_parameter('/good/urdf_state', 'frame_prefix').string_value == 'good/'
    setter.join(timeout=120.0)
    during = stream.answered
    assert not result[0][0].successful and 'description.timeout' in result[0][0].reason
    assert during > before, 'no /tf answered for /good while /bad parsed for 10 s'
    wait_until(lambda: stream.answered > during, 60.0, 'the bystander answering after')
    stream.stop()
    assert_tf_matches_fk(probe, load_model(MOVING), 'bad/', '/bad/joint_states',
                         {'joint1': 0.5})


def test_malformed_and_unknown_joint_states_on_one_robot_leave_the_other(probe, pair):
    from sensor_msgs.msg import JointState
    stream = Stream(probe)
    bad = probe.joint_state_publisher('/bad/joint_states')
    for index in range(200):
        msg = JointState(name=['joint1', 'nope'], position=[float('nan')] * (index % 3))
        bad.publish(msg)
    wait_until(lambda: stream.answered >= 5, 60.0, 'the bystander answering')
    stream.stop()
    wait_until(lambda: 'Dropped a message' in pair.log(), what='the bad messages reported')


def test_unloading_a_robot_while_its_messages_flow(probe, pair):
    uid = pair.loaded('/flowing', {'robot_description': MOVING, 'frame_prefix': 'flowing/'})
    publisher = probe.joint_state_publisher('/flowing/joint_states')
    stop = threading.Event()

    def flood():
        from sensor_msgs.msg import JointState
        while not stop.is_set():
            publisher.publish(JointState(name=['joint1'], position=[0.1]))

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    try:
        stream = Stream(probe)
        wait_until(lambda: stream.answered >= 2, 60.0, 'the bystander answering')
        assert pair.unload(uid).success
        during = stream.answered
        wait_until(lambda: stream.answered >= during + 3, 60.0, 'the bystander after unload')
        stream.stop()
    finally:
        stop.set()
        flooder.join(timeout=10.0)
    assert uid not in pair.listed() and pair.process.poll() is None


def test_the_robot_cap_refuses_a_load_flood(probe):
    capped = Container(probe, 'capped_container', **{'load_node.max_robots': 2})
    try:
        for ns in ('/c1', '/c2'):
            capped.loaded(ns, {'robot_description': MOVING})
        answer = capped.load('/c3', {'robot_description': MOVING})
        assert not answer.success
        assert 'the most this container takes (load_node.max_robots=2)' in answer.error_message
        assert sorted(capped.listed().values()) == ['/c1/urdf_state', '/c2/urdf_state']
    finally:
        capped.close()


def test_a_container_that_trusts_load_node_takes_xacro_with_file_roots(probe):
    trusting = Container(probe, 'trusting_container', **{'load_node.trusted': True})
    try:
        text = (ARM / 'urdf' / 'arm.urdf.xacro').read_text()
        uid = trusting.loaded('/arm', {
            'robot_description': text, 'xacro.args': ['name:=arm'],
            'xacro.base_dir': str(ARM / 'urdf'), 'xacro.package_paths': [f'fixture_arm={ARM}'],
            'frame_prefix': 'arm/'})
        assert uid in trusting.listed()
        model = load_model((ARM / 'urdf' / 'arm.urdf').read_text())
        values = dict.fromkeys(model.active_joint_names, 0.1)
        assert_tf_matches_fk(probe, model, 'arm/', '/arm/joint_states', values)
        assert 'LoadNode trusted' in trusting.log()
    finally:
        trusting.close()


@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM], ids=['SIGINT', 'SIGTERM'])
def test_a_signal_ends_the_container_cleanly_with_robots_loaded(probe, sig):
    ending = Container(probe, f'ending_container_{sig.name.lower()}')
    for ns in ('/e1', '/e2'):
        ending.loaded(ns, {'robot_description': H1_2.read_text()})
    wait_until(lambda: probe.node.count_subscribers('/e2/joint_states') > 0, DEADLINE,
               'the robots serving')
    assert ending.stop(sig, timeout=60.0) == 0
    log = ending.log()
    assert 'Traceback' not in log and 'terminate called' not in log, log
