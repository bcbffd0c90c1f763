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
urdf_state_container over DDS.

Load, list and unload through the real composition services, each robot's TF equal to the
library's FK, refusals that name the problem, and per-robot parameters.

One container for the module (a second one where a container parameter differs); the
robots are the bundled H1_2 and robot_state_publisher's test robot, plus TALOS where the
shared corpus is present.
"""
import threading

from container_harness import assert_tf_matches_fk, Container
from node_harness import wait_until
import numpy as np
import pytest
from robot_files import CORPUS, FIXTURES, H1_2, HAS_CORPUS, RSP_FIXTURES
from urdf_state_py.core.parsers import load_model

pytestmark = pytest.mark.ros

MOVING = (RSP_FIXTURES / 'two_links_moving_joint.urdf').read_text()
TALOS = 'example_robot_data/talos_data/robots/talos_full_v2.urdf'


def robots() -> dict[str, str]:
    """Namespace -> description of the robots loaded at the start of the module."""
    third = (CORPUS / TALOS) if HAS_CORPUS else FIXTURES / 'urdfdom_arm.urdf'
    return {'/r1': H1_2.read_text(), '/r2': MOVING, '/r3': third.read_text()}


@pytest.fixture(scope='module')
def container(probe):
    c = Container(probe, 'fleet_container')
    c.ids = {ns: c.loaded(ns, {'robot_description': text, 'frame_prefix': ns[1:] + '/'})
             for ns, text in robots().items()}
    yield c
    c.close()


def some_state(model, seed: int) -> dict[str, float]:
    """Values for every active variable, inside the limits."""
    rng = np.random.default_rng(seed)
    values = {}
    for joint in model.joints:
        if joint.is_movable and not joint.is_mimic:
            for var, (lower, upper) in joint.variable_bounds().items():
                lower, upper = max(lower, -np.pi), min(upper, np.pi)
                values[var] = float(rng.uniform(lower, upper))
    return values


def test_loaded_robots_are_listed_with_distinct_increasing_ids(container):
    ids = [container.ids[ns] for ns in ('/r1', '/r2', '/r3')]
    assert ids == sorted(ids) and len(set(ids)) == 3 and ids[0] >= 1
    assert container.listed() == {container.ids[ns]: f'{ns}/urdf_state' for ns in container.ids}


@pytest.mark.parametrize('namespace', ['/r1', '/r2', '/r3'])
def test_each_robots_tf_equals_forward_kinematics(probe, container, namespace):
    model = load_model(robots()[namespace])
    assert_tf_matches_fk(probe, model, namespace[1:] + '/', f'{namespace}/joint_states',
                         some_state(model, seed=len(namespace) + ord(namespace[-1])))


def test_a_parameter_change_stays_with_its_robot(probe, container):
    results = probe.set_parameters('/r1/urdf_state', frame_prefix='moved/')
    assert all(r.successful for r in results), [r.reason for r in results]
    try:
        model = load_model(robots()['/r1'])
        assert_tf_matches_fk(probe, model, 'moved/', '/r1/joint_states', some_state(model, 7))
        assert container.get_parameter('/r1/urdf_state', 'frame_prefix').string_value \
            == 'moved/'
        assert container.get_parameter('/r2/urdf_state', 'frame_prefix').string_value == 'r2/'
        assert_tf_matches_fk(probe, load_model(MOVING), 'r2/', '/r2/joint_states',
                             {'joint1': 1.25})
    finally:
        probe.set_parameters('/r1/urdf_state', frame_prefix='r1/')


def test_an_invalid_description_set_on_one_robot_is_refused_there_only(probe, container):
    results = probe.set_parameters('/r1/urdf_state', robot_description='<robot name="x">')
    assert not results[0].successful and 'r1' not in results[0].reason
    assert 'XML' in results[0].reason or 'xml' in results[0].reason
    model = load_model(robots()['/r1'])
    assert_tf_matches_fk(probe, model, 'r1/', '/r1/joint_states', some_state(model, 8))


REFUSALS = {
    'another plugin': ({'plugin_name': 'robot_state_publisher::RobotStatePublisher'}, {},
                       "loads only package 'urdf_state_py', plugin 'urdf_state_py::UrdfState'"),
    'another package': ({'package_name': 'robot_state_publisher'}, {},
                        "asked: package 'robot_state_publisher'"),
    'invalid description': ({}, {'robot_description': '<robot name="x"><link/></robot>'},
                            'robot_description: [urdf] link #1 has no name attribute'),
    'wrong type': ({}, {'publish_frequency': 'fast'},
                   "parameter 'publish_frequency': expected a number"),
    'out of range': ({}, {'publish_frequency': -1.0}, "'publish_frequency': -1.0 is outside"),
    'full xacro': ({}, {'description.runtime_xacro': 'full'},
                   "'description.runtime_xacro': only 'restricted'"),
    'file roots': ({}, {'xacro.base_dir': '/'}, "'xacro.base_dir' is refused"),
    'mjcf file root': ({}, {'mjcf.base_dir': '/'}, "'mjcf.base_dir' is refused"),
    'a higher limit': ({}, {'description.timeout': 100.0},
                       "'description.timeout': 100.0 is above this container's limit 10.0"),
    'log level': ({'log_level': 7}, {}, 'log_level 7 is not a rcl_interfaces/Log level'),
    'invalid name': ({'node_name': 'no spaces'}, {}, 'InvalidNodeName'),
    'a taken name': ({'node_namespace': '/r1'}, {}, "a node named '/r1/urdf_state' is loaded"),
}


@pytest.mark.parametrize('case', sorted(REFUSALS))
def test_a_load_that_cannot_be_honoured_is_refused_with_its_reason(container, case):
    fields, parameters, reason = REFUSALS[case]
    before = container.listed()
    fields = dict({'node_namespace': '/refused'}, **fields)
    answer = container.load(parameters=parameters, **fields)
    assert not answer.success
    assert reason in answer.error_message
    assert answer.unique_id == 0 and answer.full_node_name == ''
    assert container.listed() == before


INTRUDER = ('<robot name="intruder"><link name="base"/><link name="foreign"/>'
            '<joint name="weld" type="fixed"><parent link="base"/><child link="foreign"/>'
            '</joint></robot>')


def test_a_refused_duplicate_leaves_no_trace(probe, container):
    """
    Refuse a LoadNode for a loaded robot's name, with another description, before a node is built.

    Nothing reaches /tf_static or /r1/robot_description, and the loaded robot's logs still
    reach /rosout (a second node of the same name would unhook them).
    """
    from node_harness import LATCHED
    from rcl_interfaces.msg import Log
    from std_msgs.msg import String
    h1 = robots()['/r1']
    descriptions, logs = [], []
    subs = [probe.node.create_subscription(String, '/r1/robot_description',
                                           descriptions.append, LATCHED),
            probe.node.create_subscription(Log, '/rosout', logs.append, 1000)]
    try:
        wait_until(lambda: descriptions, what='the latched /r1/robot_description')
        since = len(probe.tf_static)
        answer = container.load('/r1', {'robot_description': INTRUDER, 'frame_prefix': 'r1/'})
        assert not answer.success
        assert "a node named '/r1/urdf_state' is loaded already" in answer.error_message
        for namespace, remapped in (('/elsewhere', {'remap_rules': ['__ns:=/r1']}), (
                '/r1', {'node_name': 'other', 'remap_rules': ['other:__node:=urdf_state']})):
            again = container.load(namespace, {'robot_description': INTRUDER}, **remapped)
            assert not again.success and "'/r1/urdf_state' is loaded" in again.error_message
        # r1 reloads its own description: it logs, and republishes both topics
        results = probe.set_parameters('/r1/urdf_state', robot_description=h1 + ' ')
        assert all(r.successful for r in results), [r.reason for r in results]
        wait_until(lambda: any(m.name == 'r1.urdf_state' and 'links' in m.msg
                               for m in list(logs)), what="r1's log on /rosout")
        wait_until(lambda: len(descriptions) >= 2, what='the reloaded description')
        assert all(d.data.strip() == h1.strip() for d in descriptions)
        frames = {t.child_frame_id for m in probe.tf_static[since:] for t in m.transforms}
        assert 'r1/foreign' not in frames and 'r1/base' not in frames
        assert 'Publisher already registered' not in container.log()
        assert set(container.listed().values()) == {f'{ns}/urdf_state' for ns in robots()}
    finally:
        for sub in subs:
            probe.node.destroy_subscription(sub)
        probe.set_parameters('/r1/urdf_state', robot_description=h1)


def test_extra_arguments_as_rclcpp_names_them(probe, container):
    from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue

    def arg(name, value):
        kind = ParameterType.PARAMETER_BOOL if isinstance(value, bool) else \
            ParameterType.PARAMETER_STRING
        return Parameter(name=name, value=ParameterValue(
            type=kind, bool_value=value if isinstance(value, bool) else False,
            string_value=value if isinstance(value, str) else ''))

    unknown = container.load('/extra', extra_arguments=[arg('use_threads', True)])
    assert not unknown.success and "extra argument 'use_threads' is not supported" \
        in unknown.error_message
    typed = container.load('/extra', extra_arguments=[arg('enable_rosout', 'yes')])
    assert not typed.success and "'enable_rosout' must be a boolean" in typed.error_message
    answer = container.load('/extra', extra_arguments=[arg('use_intra_process_comms', True),
                                                       arg('enable_rosout', False)])
    assert answer.success, answer.error_message
    try:
        wait_until(lambda: 'use_intra_process_comms' in container.log(),
                   what='the log naming the extra argument that means nothing here')
        assert 'mean nothing for this node' in container.log()
    finally:
        assert container.unload(answer.unique_id).success


def test_an_empty_description_loads_and_waits(probe, container):
    answer = container.load('/waiting', {'robot_description': ''})
    assert answer.success, answer.error_message
    try:
        assert answer.full_node_name == '/waiting/urdf_state'
        wait_until(lambda: "'robot_description' is empty" in container.log(),
                   what='the waiting message')
        results = probe.set_parameters('/waiting/urdf_state', robot_description=MOVING,
                                       frame_prefix='waiting/')
        assert all(r.successful for r in results), [r.reason for r in results]
        model = load_model(MOVING)
        assert_tf_matches_fk(probe, model, 'waiting/', '/waiting/joint_states',
                             {'joint1': 0.25})
    finally:
        assert container.unload(answer.unique_id).success


class DiagnosticArrays:
    """The /diagnostics arrays the probe receives, as (publisher's status names) lists."""

    def __init__(self, probe) -> None:
        from diagnostic_msgs.msg import DiagnosticArray
        self._lock = threading.Lock()
        self.arrays: list[list] = []
        self._sub = probe.node.create_subscription(DiagnosticArray, '/diagnostics',
                                                   self._on_array, 10)
        self._probe = probe

    def _on_array(self, msg) -> None:
        with self._lock:
            self.arrays.append(msg.status)

    def wait(self, predicate, what: str) -> list:
        """Return the first array from now on whose statuses satisfy ``predicate``."""
        with self._lock:
            start = len(self.arrays)
        found = []

        def seen() -> bool:
            with self._lock:
                found[:] = next((a for a in self.arrays[start:] if predicate(a)), [])
            return bool(found)
        wait_until(seen, what=what)
        return found

    def close(self) -> None:
        self._probe.node.destroy_subscription(self._sub)


def test_every_robots_status_comes_in_one_array_from_the_container(probe, container):
    """
    Publish one /diagnostics array a second for the process, from the container node.

    One publisher, one array a second with each robot's own status; a robot's load and
    unload add and take out its status.
    """
    arrays = DiagnosticArrays(probe)
    try:
        names = {f'{ns[1:]}/urdf_state: robot state' for ns in ('/r1', '/r2', '/r3')}
        statuses = arrays.wait(lambda a: names <= {s.name for s in a}, 'the three statuses')
        shown = {s.name: {kv.key: kv.value for kv in s.values} for s in statuses}
        for ns, text in robots().items():
            assert shown[f'{ns[1:]}/urdf_state: robot state']['robot'] == load_model(text).name
        publishers = probe.node.get_publishers_info_by_topic('/diagnostics')
        assert [(p.node_namespace, p.node_name) for p in publishers
                if p.node_name in ('fleet_container', 'urdf_state')] == [('/', 'fleet_container')]
        uid = container.loaded('/extra', {'robot_description': MOVING, 'frame_prefix': 'x/'})
        arrays.wait(lambda a: 'extra/urdf_state: robot state' in {s.name for s in a},
                    "the loaded robot's status")
        assert container.unload(uid).success
        statuses = arrays.wait(lambda a: 'extra/urdf_state: robot state' not in
                               {s.name for s in a}, 'an array without the unloaded robot')
        assert names <= {s.name for s in statuses}
    finally:
        arrays.close()


def test_unload_removes_one_robot_completely(probe, container):
    uid = container.loaded('/gone', {'robot_description': MOVING, 'frame_prefix': 'gone/'})
    publisher = probe.joint_state_publisher('/gone/joint_states')   # waits for the node
    assert '/gone/urdf_state/set_parameters' in dict(probe.node.get_service_names_and_types())
    answer = container.unload(uid)
    assert answer.success and answer.error_message == ''
    assert uid not in container.listed()
    wait_until(lambda: publisher.get_subscription_count() == 0, what='its subscription gone')
    wait_until(lambda: not any(name.startswith('/gone/') for name, _ in
                               probe.node.get_service_names_and_types()),
               what='its services gone')
    again = container.unload(uid)
    assert not again.success and again.error_message == f'No node found with unique_id: {uid}'
    model = load_model(robots()['/r2'])
    assert_tf_matches_fk(probe, model, 'r2/', '/r2/joint_states', {'joint1': -0.5})
