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
Descriptions that arrive at run time, over DDS: no code, no host data, no stall (issue 8).

Every case checks the four things the issue asks for: the node is alive, the
SetParameters result (or the log) gives the reason, the last good model is
still what /tf carries, and the call came back (within the generous deadlines
of the harness). Nodes publishing on the shared /tf are told apart by their
frame prefixes.
"""
import math
import os
import subprocess
import sys
import threading

from node_harness import DEADLINE, LATCHED, NodeUnderTest, transform_map, wait_until
import numpy as np
import pytest
from rcl_interfaces.srv import GetParameters
from std_msgs.msg import String
from test_isolated_parser import macro_bomb
from test_xacro_sandbox import CODE_ATTACKS

pytestmark = pytest.mark.ros  # needs rclpy and DDS


def robot(name='other', axis='0 0 1', x='0.1', head=''):
    """Return a xacro arm: revolute 'q' (axis ``axis``), fixed 'f' at ``x``."""
    return f"""<robot name="{name}" xmlns:xacro="http://www.ros.org/wiki/xacro">{head}
  <link name="base"/><link name="tip"/><link name="end"/>
  <joint name="q" type="revolute"><parent link="base"/><child link="tip"/>
    <axis xyz="{axis}"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="f" type="fixed"><parent link="tip"/><child link="end"/>
    <origin xyz="{x} 0 0"/></joint>
</robot>"""


# The launch-time (trusted) model: Python in ${} and an argument inside an expression.
TRUSTED = robot(name='arm', x='${[x * 2 for x in [$(arg len)]][0]}',
                head='<xacro:arg name="len" default="0.25"/>')


@pytest.fixture(scope='module')
def node():
    # publish_frequency 0: every JointState is published (no rate limit between tests)
    n = NodeUnderTest('urdf_state_desc', {'robot_description': TRUSTED, 'frame_prefix': 'ds/',
                                          'description.timeout': 3.0, 'publish_frequency': 0.0})
    yield n
    n.close()


@pytest.fixture
def good(probe, node):
    """Return the last good model: 'arm' (the start-up model's expansion, set again)."""
    results = probe.set_parameters(node.name, robot_description=robot(name='arm', x='0.5'))
    assert results[0].successful, results[0].reason
    return node


@pytest.fixture
def started(probe):
    """Start a node whose only description is the trusted start-up one."""
    n = NodeUnderTest('urdf_state_trusted', {'robot_description': TRUSTED,
                                             'frame_prefix': 'ds/', 'publish_frequency': 0.0})
    yield n
    n.close()


def end_x(probe):
    static = probe.wait_static(lambda m: 'ds/end' in transform_map(m), what='ds/ statics')
    return transform_map(static)['ds/end'][1][0, 3]


def tf_for(probe, value, joint='q'):
    """Publish one JointState and return the /tf message it produced."""
    since, stamp = probe.mark(), probe.now_ns()
    probe.publish_joint_state([joint], [value], stamp)
    return probe.wait_tf_stamp(stamp, since)


def assert_good_model_on_tf(probe, node):
    assert node.node.model.name == 'arm'
    msg = tf_for(probe, 0.5)
    parent, m = transform_map(msg)['ds/tip']
    assert parent == 'ds/base'
    c, s = math.cos(0.5), math.sin(0.5)
    assert np.allclose(m[:2, :2], [[c, -s], [s, c]], atol=1e-12)


def test_start_up_model_is_trusted_and_args_re_expand_it(probe, started):
    assert started.node.model.name == 'arm'
    assert end_x(probe) == pytest.approx(0.5)
    results = probe.set_parameters(started.name, **{'xacro.args': ['len:=0.75']})
    assert results[0].successful, results[0].reason
    probe.wait_static(lambda m: transform_map(m).get('ds/end', (0, [[0, 0, 0, 0]]))[1][0][3]
                      == pytest.approx(1.5), what='re-expanded statics')


def test_argument_values_are_never_code(probe, started, tmp_path):
    marker = tmp_path / 'marker'
    value = f'len:=1] + [__import__("os").system("touch {marker}")][0:1'
    result, = probe.set_parameters(started.name, **{'xacro.args': [value]})
    assert not result.successful
    assert 'never code' in result.reason
    assert not marker.exists()
    assert_good_model_on_tf(probe, started)


ATTACKS = {
    **{case: CODE_ATTACKS[case] for case in ('eval', 'list comprehension', 'vars string keys',
                                             'sum(range())')},
    'env': ('$(env HOME)', '$(env'),
    'optenv': ('$(optenv HOME)', '$(optenv'),
    'load_yaml': ("${{xacro.load_yaml('/etc/passwd')}}", 'xacro.load_yaml'),
}


@pytest.mark.parametrize('case', sorted(ATTACKS))
def test_run_time_description_cannot_run_code_or_read_the_host(case, probe, good, tmp_path):
    marker = tmp_path / 'marker'
    template, construct = ATTACKS[case]
    text = robot(x=template.format(m=marker))
    result, = probe.set_parameters(good.name, robot_description=text)
    assert not result.successful
    assert construct in result.reason and 'run time' in result.reason, result.reason
    assert not marker.exists()
    assert os.environ['HOME'] not in result.reason
    assert_good_model_on_tf(probe, good)
    published = probe.late_latched('robot_description', String).data
    assert 'name="arm"' in published and os.environ['HOME'] not in published


def test_include_of_a_host_file_is_refused(probe, good):
    text = robot(head='<xacro:include filename="/etc/hostname"/>')
    result, = probe.set_parameters(good.name, robot_description=text)
    assert not result.successful and 'xacro:include' in result.reason
    assert_good_model_on_tf(probe, good)


def test_file_roots_cannot_be_changed_at_run_time(probe, good):
    for name, value in (('xacro.base_dir', '/etc'), ('xacro.package_paths', ['etc=/etc']),
                        ('mjcf.base_dir', '/etc')):
        result, = probe.set_parameters(good.name, **{name: value})
        assert not result.successful and 'set at launch' in result.reason


def test_plain_run_time_xacro_is_accepted(probe, good):
    text = robot(name='runtime', x='${0.5 * 3}', head='<xacro:property name="k" value="2"/>')
    result, = probe.set_parameters(good.name, robot_description=text)
    assert result.successful, result.reason
    assert end_x(probe) == pytest.approx(1.5)


def get_parameters_client(probe, node_name):
    client = probe.node.create_client(GetParameters, f'{node_name}/get_parameters')
    wait_until(client.service_is_ready, what='get_parameters service')
    return client


def test_macro_bomb_neither_stalls_tf_nor_parameter_services(probe, good):
    """While a 10**6-expansion bomb parses (until the 3 s limit), /tf and GetParameters go on."""
    client = get_parameters_client(probe, good.name)
    stop = threading.Event()
    stamps = []

    def drive():   # 20 Hz of joint states on the good model
        while not stop.is_set():
            stamp = probe.now_ns()
            probe.publish_joint_state(['q'], [0.25], stamp)
            stamps.append(stamp)
            stop.wait(0.05)

    driver = threading.Thread(target=drive, daemon=True)
    driver.start()
    try:
        results = []
        setter = threading.Thread(target=lambda: results.append(
            probe.set_parameters(good.name, robot_description=macro_bomb())), daemon=True)
        since = probe.mark()
        setter.start()
        answers_while_loading = 0
        tf_while_loading = 0
        while setter.is_alive():
            request = GetParameters.Request(names=['robot_description', 'publish_frequency'])
            future = client.call_async(request)
            wait_until(future.done, what='a GetParameters answer during the load')
            if setter.is_alive():
                answers_while_loading += 1
                assert future.result().values[1].double_value == 0.0
            tf_while_loading = len(probe.tf_since(since)) if setter.is_alive() \
                else tf_while_loading
        setter.join()
        result, = results[0]
        assert not result.successful
        assert 'description.timeout' in result.reason
        assert answers_while_loading >= 1
        assert tf_while_loading >= 1
        assert_good_model_on_tf(probe, good)
    finally:
        stop.set()
        driver.join()


@pytest.mark.parametrize('axis', ['1e200 0 0', '1e-200 0 0', '3e307 -3e307 1e-300'])
def test_every_published_quaternion_is_unit(probe, good, axis):
    result, = probe.set_parameters(good.name, robot_description=robot(name='ax', axis=axis))
    assert result.successful, result.reason
    msg = tf_for(probe, 1.0)
    r = next(t.transform.rotation for t in msg.transforms if t.child_frame_id == 'ds/tip')
    assert math.sqrt(r.x ** 2 + r.y ** 2 + r.z ** 2 + r.w ** 2) == pytest.approx(1.0, abs=1e-12)
    direction = [float(c) for c in axis.split()]
    scale = max(abs(c) for c in direction)
    unit = [c / scale for c in direction]
    norm = math.sqrt(sum(c * c for c in unit))
    expected = [c / norm * math.sin(0.5) for c in unit] + [math.cos(0.5)]
    assert [r.x, r.y, r.z, r.w] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize('axis,reason', [('0 0 0', 'zero axis'), ('nan 0 0', 'non-finite'),
                                         ('inf 0 0', 'non-finite')])
def test_zero_and_non_finite_axes_are_rejected(probe, good, axis, reason):
    result, = probe.set_parameters(good.name, robot_description=robot(axis=axis))
    assert not result.successful and reason in result.reason, result.reason
    assert_good_model_on_tf(probe, good)


def test_an_unexpected_failure_is_a_rejection_not_a_dead_service(probe, good, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError('simulated bug')
    monkeypatch.setattr(good.node._loader, 'build', broken)
    result, = probe.set_parameters(good.name, robot_description=robot(name='boom'))
    assert not result.successful and 'simulated bug' in result.reason
    monkeypatch.undo()
    result, = probe.set_parameters(good.name, robot_description=robot(name='after'))
    assert result.successful, result.reason
    assert good.node.model.name == 'after'


def two_joint_model(tag, x):
    """Joints q1, q2 (as in every variant) moving links named after ``tag``, offset ``x``."""
    return f"""<robot name="{tag}"><link name="base"/><link name="{tag}1"/><link name="{tag}2"/>
  <joint name="q1" type="continuous"><parent link="base"/><child link="{tag}1"/>
    <origin xyz="{x} 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="q2" type="continuous"><parent link="{tag}1"/><child link="{tag}2"/>
    <origin xyz="{x} 0 0"/><axis xyz="0 0 1"/></joint></robot>"""


def test_no_tf_message_mixes_two_models_while_they_swap(probe):
    """Descriptions swap (parameter thread) while JointStates are handled (executor thread)."""
    node = NodeUnderTest('urdf_state_swap', {'robot_description': two_joint_model('a', 1.0),
                                             'frame_prefix': 'mx/', 'publish_frequency': 0.0})
    stop = threading.Event()

    def drive():
        while not stop.wait(0.002):
            probe.publish_joint_state(['q1', 'q2'], [0.0, 0.0], probe.now_ns())

    driver = threading.Thread(target=drive, daemon=True)
    since = probe.mark()
    driver.start()
    try:
        for i in range(30):
            tag, x = ('b', 2.0) if i % 2 == 0 else ('a', 1.0)
            result, = probe.set_parameters(node.name, robot_description=two_joint_model(tag, x))
            assert result.successful, result.reason
    finally:
        stop.set()
        driver.join()
        node.close()
    seen = set()
    for msg in probe.tf_since(since):
        frames = {t.child_frame_id: t for t in msg.transforms}
        if not any(f.startswith('mx/') for f in frames):
            continue
        tags = {f[3] for f in frames}
        assert len(tags) == 1, sorted(frames)   # one model per message
        tag = tags.pop()
        seen.add(tag)
        for t in frames.values():
            assert t.transform.translation.x == (2.0 if tag == 'b' else 1.0)
    assert seen == {'a', 'b'}


def test_operator_can_allow_full_xacro_at_run_time(probe):
    node = NodeUnderTest('urdf_state_full', {'description.runtime_xacro': 'full',
                                             'frame_prefix': 'fx/'})
    try:
        text = robot(x='${[x * 2 for x in [0.5]][0]}').replace('"end"', '"fx_end"')
        result, = probe.set_parameters(node.name, robot_description=text)
        assert result.successful, result.reason
        result, = probe.set_parameters(node.name, **{'description.runtime_xacro': 'restricted'})
        assert not result.successful   # read-only
    finally:
        node.close()


# -- start-up parameters: the run-time rules, one error line, the value in effect ---------

@pytest.mark.parametrize('name,value,default', [
    ('publish_frequency', -1.0, 20.0), ('publish_frequency', math.nan, 20.0),
    ('publish_frequency', 'fast', 20.0), ('parser', 'bogus', 'auto'),
    ('description.timeout', 0.0, 10.0), ('description.runtime_xacro', 'open', 'restricted'),
    ('xacro.args', 'len:=1', []),
])
def test_invalid_start_up_value_gives_one_error_and_the_default(probe, name, value, default):
    node = NodeUnderTest('urdf_state_bad_start', {name: value,
                                                  'robot_description': robot(name='st')})
    try:
        errors = [line for line in node.logs('error') if f"'{name}'" in line]
        assert len(errors) == 1, node.logs('error')
        assert 'using the default' in errors[0]
        client = get_parameters_client(probe, node.name)
        future = client.call_async(GetParameters.Request(names=[name]))
        wait_until(future.done, what='GetParameters')
        got = future.result().values[0]
        shown = {1: got.bool_value, 3: got.double_value, 4: got.string_value,
                 9: list(got.string_array_value)}[got.type]
        assert shown == default
        assert node.node.model.name == 'st'   # the node runs
    finally:
        node.close()


class NodeProcess:
    """``python -m urdf_state_py.node`` with ``args``, its output collected line by line."""

    def __init__(self, *args: str, robot_name: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, '-m', 'urdf_state_py.node', '--ros-args', *args,
             '-p', f'robot_description:={robot(name=robot_name)}'],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=lambda: self.lines.extend(self.proc.stdout),
                                        daemon=True)
        self._reader.start()
        self.robot_name = robot_name

    def wait_loaded(self) -> None:
        wait_until(lambda: any(f"Robot '{self.robot_name}' loaded" in line
                               for line in self.lines), what='the start-up model')

    def interrupt(self) -> tuple[int, str]:
        """Ctrl-C; the exit code and the whole output."""
        self.proc.send_signal(2)
        code = self.proc.wait(timeout=DEADLINE)
        self._reader.join(timeout=5.0)
        return code, ''.join(self.lines)


def test_an_integer_start_up_value_for_a_double_is_taken(probe):
    """``-p publish_frequency:=30`` is an integer to rcl; rclpy alone would refuse it."""
    node = NodeUnderTest('urdf_state_int_start', {'publish_frequency': 30,
                                                  'robot_description': robot(name='it')})
    try:
        assert not node.logs('error')
        assert node.node.get_parameter('publish_frequency').value == 30.0
    finally:
        node.close()


def test_invalid_start_up_values_in_a_real_process_no_traceback():
    node = NodeProcess('-p', 'publish_frequency:=-1.0', '-p', 'parser:=bogus',
                       robot_name='proc')
    try:
        node.wait_loaded()
    finally:
        code, text = node.interrupt()
    assert 'Traceback' not in text, text
    assert code == 0, text
    assert text.count("Parameter 'publish_frequency'") == 1, text
    assert text.count("Parameter 'parser'") == 1, text


def test_sigint_during_a_parse_ends_the_node_quietly(probe):
    """Ctrl-C while a (slow) description is parsed: exit 0, no traceback, parser stopped."""
    name = f'urdf_state_sigint_{os.getpid()}'
    node = NodeProcess('-r', f'__node:={name}', robot_name='sig')
    try:
        node.wait_loaded()

        def set_bomb():   # never answered: the node is interrupted meanwhile
            try:
                probe.set_parameters(f'/{name}', robot_description=macro_bomb(),
                                     timeout=4 * DEADLINE)
            except BaseException:  # pytest.fail of the harness, in a thread
                pass
        threading.Thread(target=set_bomb, daemon=True).start()
        # the parser process busy with the bomb (a second of CPU: more than its imports)
        worker = wait_until(lambda: _parser_process(node.proc.pid, busy_s=1.0),
                            timeout=4 * DEADLINE, what='the parse to run')
    finally:
        code, text = node.interrupt()
    assert code == 0 and 'Traceback' not in text, text
    assert 'shutting down' in text
    wait_until(lambda: not worker.is_running() or worker.status() == 'zombie',
               what='the parser process to end')


def _parser_process(pid, busy_s):
    """Return the node's parser process once it has used ``busy_s`` of CPU, else None."""
    import psutil
    for child in psutil.Process(pid).children():
        try:
            if 'parser_worker' in ' '.join(child.cmdline()) and child.cpu_times().user > busy_s:
                return child
        except psutil.NoSuchProcess:
            pass
    return None


def test_description_topic_under_the_restricted_policy(probe):
    node = NodeUnderTest('urdf_state_topic_desc', {'use_robot_description_topic': True,
                                                   'frame_prefix': 'td/'},
                         namespace='/descr')
    pub = probe.node.create_publisher(String, '/descr/robot_description', LATCHED)
    try:
        pub.publish(String(data=robot(name='topic_ok')))
        wait_until(lambda: node.node.model is not None, what='the topic model')
        pub.publish(String(data=robot(name='$(env HOME)')))
        wait_until(lambda: any('$(env' in line for line in node.logs('error')),
                   what='the rejection')
        assert node.node.model.name == 'topic_ok'
    finally:
        probe.node.destroy_publisher(pub)
        node.close()
