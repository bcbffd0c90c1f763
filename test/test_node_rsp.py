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
robot_state_publisher's own test scenarios, plus rejected parameter changes.

One node (default name ``urdf_state``) for the module; each test sets the
description it needs through the SetParameters service, as ``ros2 param set``.
"""
import math

from node_harness import NodeUnderTest, transform_map, wait_until
import pytest
from robot_files import RSP_FIXTURES

pytestmark = pytest.mark.ros  # needs rclpy and DDS

FIXED = (RSP_FIXTURES / 'two_links_fixed_joint.urdf').read_text()
MOVING = (RSP_FIXTURES / 'two_links_moving_joint.urdf').read_text()
MIMIC = (RSP_FIXTURES / 'mimic_joint.urdf').read_text()

XACRO_REQUIRED_ARG = """<?xml version="1.0"?>
<robot name="xacro_arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <!-- $(arg length) has no default: a required argument -->
  <link name="base"/>
  <link name="tip"/>
  <joint name="j" type="fixed">
    <parent link="base"/><child link="tip"/>
    <origin xyz="$(arg length) 0 0"/>
  </joint>
</robot>
"""


@pytest.fixture(scope='module')
def rsp(probe):
    node = NodeUnderTest('urdf_state', {'robot_description': FIXED})
    yield node
    node.close()


def static_map(probe, predicate, what):
    return transform_map(probe.wait_static(lambda m: predicate(transform_map(m)), what=what))


def load(probe, rsp, description, **extra):
    results = probe.set_parameters(rsp.name, robot_description=description, **extra)
    assert all(r.successful for r in results), [r.reason for r in results]


def test_default_node_name(rsp):
    assert rsp.name == '/urdf_state'


def test_two_links_fixed_joint(probe, rsp):
    load(probe, rsp, FIXED)
    tf = static_map(probe, lambda m: 'link2' in m, 'link1->link2 on /tf_static')
    parent, m = tf['link2']
    assert parent == 'link1'
    assert m[:3, 3] == pytest.approx([5.0, 0.0, 0.0], abs=1e-12)
    assert set(tf) == {'link2'}  # no bogus pair (e.g. base_link->wim_link)


def test_two_links_fixed_joint_prefix(probe, rsp):
    try:
        results = probe.set_parameters(rsp.name, frame_prefix='my_prefix/')
        assert results[0].successful
        tf = static_map(probe, lambda m: 'my_prefix/link2' in m, 'prefixed /tf_static')
        assert tf['my_prefix/link2'][0] == 'my_prefix/link1'
        assert tf['my_prefix/link2'][1][0, 3] == pytest.approx(5.0)
        assert set(tf) == {'my_prefix/link2'}
    finally:
        assert probe.set_parameters(rsp.name, frame_prefix='')[0].successful


def test_two_links_moving_joint(probe, rsp):
    load(probe, rsp, MOVING)
    since = probe.mark()
    stamp = probe.now_ns()
    probe.publish_joint_state(['joint1'], [math.pi], stamp)
    msg = probe.wait_tf_stamp(stamp, since)
    tf = transform_map(msg)
    parent, m = tf['link2']
    assert parent == 'link1'
    assert m[:3, 3] == pytest.approx([5.0, 0.0, 0.0], abs=1e-12)
    # origin yaw 1.57 then pi about x (the default axis): z flips.
    assert m[2, 2] == pytest.approx(-1.0)


def test_change_description_seen_by_late_static_subscriber(probe, rsp):
    load(probe, rsp, FIXED)
    load(probe, rsp, FIXED.replace('xyz="5 0 0"', 'xyz="10 0 0"'))
    msg = probe.late_latched('/tf_static', predicate=lambda m: any(
        t.child_frame_id == 'link2' and abs(t.transform.translation.x - 10.0) < 1e-12
        for t in m.transforms))
    assert len(msg.transforms) == 1


def test_robot_description_republished(probe, rsp):
    text = FIXED.replace('xyz="5 0 0"', 'xyz="7 0 0"')
    load(probe, rsp, text)
    from std_msgs.msg import String
    msg = probe.late_latched('robot_description', String,
                             predicate=lambda m: 'xyz="7 0 0"' in m.data)
    assert msg.data == text


def test_reload_mimic_joint_description(probe, rsp):
    load(probe, rsp, MIMIC)
    tf = static_map(probe, lambda m: {'second_link', 'third_link'} <= set(m), 'mimic statics')
    assert tf['third_link'][1][:3, 3] == pytest.approx([0.0, 1.0, 0.0])
    load(probe, rsp, "<robot name='test'><link name='base_link'/></robot>")
    msg = probe.late_latched('/tf_static', predicate=lambda m: len(m.transforms) == 0)
    assert msg.transforms == []  # frames removed by the reload are gone from the latched set


def test_load_log_line(probe, rsp):
    rsp.clear_logs()
    load(probe, rsp, MIMIC)
    line = wait_until(lambda: next((t for t in rsp.logs('info') if "Robot 'test'" in t), None))
    assert "parser 'urdf'" in line and '3 links' in line and '2 joints' in line
    assert '0 movable' in line and '2 fixed' in line


def _still_publishes(probe, rsp):
    """After a rejection the old model (two_links_moving_joint) still drives /tf."""
    tf = transform_map(probe.answer_to_state(['joint1'], [0.5]))
    assert tf['link2'][0] == 'link1'


@pytest.mark.parametrize('description, fragment', [
    ('<robot name="x"><link name="a"/><joint name="j" type="fixed"><parent link="a"/>'
     '<child link="missing"/></joint></robot>', "'missing'"),
    ('<robot name="broken"', 'XML'),
    ('', 'Empty robot_description'),
])
def test_invalid_description_rejected_old_model_kept(probe, rsp, description, fragment):
    load(probe, rsp, MOVING)
    result, = probe.set_parameters(rsp.name, robot_description=description)
    assert not result.successful
    assert fragment.lower() in result.reason.lower(), result.reason
    _still_publishes(probe, rsp)


def test_unknown_parser_rejected(probe, rsp):
    load(probe, rsp, MOVING)
    result, = probe.set_parameters(rsp.name, parser='sdf')
    assert not result.successful
    assert "unknown parser 'sdf'" in result.reason and 'urdf' in result.reason \
        and 'xacro' in result.reason
    _still_publishes(probe, rsp)


def test_parser_forced_to_one_that_fails_rejected(probe, rsp):
    load(probe, rsp, MOVING)
    results = probe.set_parameters(rsp.name, parser='xacro', **{'xacro.args': ['x:=1']})
    assert all(r.successful for r in results)  # xacro expands a plain URDF fine
    assert probe.set_parameters(rsp.name, **{'xacro.args': ['length:=1']})[0].successful
    load(probe, rsp, XACRO_REQUIRED_ARG)
    # Forcing 'urdf' on the xacro document: $(arg length) is no number.
    result, = probe.set_parameters(rsp.name, parser='urdf')
    assert not result.successful
    assert '[urdf]' in result.reason, result.reason
    results = probe.set_parameters(rsp.name, robot_description=MOVING, parser='auto',
                                   **{'xacro.args': []})
    assert all(r.successful for r in results)
    _still_publishes(probe, rsp)


def test_xacro_args_missing_rejected_then_accepted(probe, rsp):
    load(probe, rsp, MOVING)
    result, = probe.set_parameters(rsp.name, robot_description=XACRO_REQUIRED_ARG)
    assert not result.successful
    assert 'xacro' in result.reason and 'length' in result.reason, result.reason
    _still_publishes(probe, rsp)
    # Args first (re-parses the current URDF: fine), then the xacro description.
    assert probe.set_parameters(rsp.name, **{'xacro.args': ['length:=2.5']})[0].successful
    load(probe, rsp, XACRO_REQUIRED_ARG)
    tf = static_map(probe, lambda m: 'tip' in m, 'xacro statics')
    assert tf['tip'][1][0, 3] == pytest.approx(2.5)
    from std_msgs.msg import String
    msg = probe.late_latched('robot_description', String,
                             predicate=lambda m: 'xacro_arm' in m.data)
    assert 'xyz="2.5 0 0"' in msg.data  # published expanded
    # Dropping the arg now fails the re-parse of the current (xacro) description.
    result, = probe.set_parameters(rsp.name, **{'xacro.args': []})
    assert not result.successful and 'length' in result.reason
    assert probe.set_parameters(rsp.name, robot_description=MOVING)[0].successful
    assert probe.set_parameters(rsp.name, **{'xacro.args': []})[0].successful


def test_publish_frequency_range(probe, rsp):
    result, = probe.set_parameters(rsp.name, publish_frequency=2000.0)
    assert not result.successful
    result, = probe.set_parameters(rsp.name, publish_frequency=-1.0)
    assert not result.successful
    assert probe.set_parameters(rsp.name, publish_frequency=20.0)[0].successful


def test_wrong_type_rejected(probe, rsp):
    result, = probe.set_parameters(rsp.name, frame_prefix=3)
    assert not result.successful


def test_use_robot_description_topic_is_read_only(probe, rsp):
    result, = probe.set_parameters(rsp.name, use_robot_description_topic=True)
    assert not result.successful


def test_main_in_a_subprocess(probe, tmp_path):
    """``urdf_state`` as a process (what the console script runs), parameters from a file."""
    import os
    import signal
    import subprocess
    import sys
    params = tmp_path / 'params.yaml'
    indented = '\n'.join('      ' + line for line in FIXED.splitlines())
    params.write_text('/urdf_state_sub:\n  ros__parameters:\n    frame_prefix: sub/\n'
                      f'    robot_description: |\n{indented}\n')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'urdf_state_py.node', '--ros-args', '-r', '__node:=urdf_state_sub',
         '--params-file', str(params)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    try:
        msg = probe.late_latched('/tf_static', predicate=lambda m: any(
            t.child_frame_id == 'sub/link2' for t in m.transforms))
        assert msg.transforms[0].header.frame_id == 'sub/link1'
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out
    assert "Robot 'test_robot_fixed_joint' loaded" in out
    assert 'Traceback' not in out


def test_defaults_timer_only_while_publish_default_positions(probe, rsp):
    """
    No timer entity unless needed (cheaper executors); created and removed with the parameter.

    (/diagnostics is published from a thread of its own, not a timer.)
    """
    assert list(rsp.node.timers) == []
    try:
        load(probe, rsp, FIXED, publish_default_positions=True)
        assert len(list(rsp.node.timers)) == 1
    finally:
        load(probe, rsp, FIXED, publish_default_positions=False)
    assert list(rsp.node.timers) == []
