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
Container soak: steady robots beside LoadNode / UnloadNode churn and everything hostile.

``STEADY`` robots (TOY, frame prefixes ``s1/`` ..) are loaded once and driven at
``RATE_HZ`` each for the whole run (robot s1 also gets a malformed JointState, one of
test_joint_state_cdr's mutations, after each good one). Meanwhile each cycle:
a LoadNode with xacro code in its description (refused, naming the construct, the
marker file never made), a LoadNode for s1's name carrying another description
(refused), a churn robot loaded (its unique id above every earlier one), a LoadNode
beyond ``load_node.max_robots`` (refused), ListNodes (exactly the steady robots and
the churn robot), the churn robot's description swapped, a flood of JointStates with
malformed ones among them on the churn robot, and its unload.

Checked: every JointState of a steady robot, from its first answered one, is answered
by one /tf with that stamp and the values it carried (no loss, nothing wrong); every
/tf_static and robot_description of a steady robot is its own; unique ids never
reused; ListNodes consistent after each step; the container's RSS grows less than
``RSS_LIMIT_MB`` from the end of the warm-up to the end.

The CI form is short (``CYCLES`` = 30). Long forms, with figures in docs/soak.md:
``URDF_STATE_CONTAINER_SOAK_CYCLES=200 ./dev.sh test test/test_container_soak.py -s``
(200 cycles beside 5 steady robots), and
``URDF_STATE_CONTAINER_SOAK_STEADY=20 URDF_STATE_CONTAINER_SOAK_S=3600 ...`` (20 steady
robots, cycles for an hour).
"""
from __future__ import annotations

import math
import os
import threading
import time

import numpy as np
import pytest

pytestmark = pytest.mark.ros

psutil = pytest.importorskip('psutil')

from chaos_checks import memory_sample  # noqa: E402, I100 - after the importorskip
from container_harness import Container  # noqa: E402 - after the importorskip
from node_harness import LATCHED, NS, wait_until  # noqa: E402 - after the importorskip
from test_container import INTRUDER, MOVING  # noqa: E402 - after the importorskip
from test_hostile_inputs import KEEP_ALL, serialized, TOY  # noqa: E402 - after the importorskip
from test_joint_state_cdr import mutations  # noqa: E402 - after the importorskip
from test_node_descriptions import robot  # noqa: E402 - after the importorskip
from test_xacro_sandbox import CODE_ATTACKS  # noqa: E402 - after the importorskip

CYCLES = int(os.environ.get('URDF_STATE_CONTAINER_SOAK_CYCLES', '30'))
STEADY = int(os.environ.get('URDF_STATE_CONTAINER_SOAK_STEADY', '5'))
DURATION_S = float(os.environ.get('URDF_STATE_CONTAINER_SOAK_S', '0'))  # >0: cycle this long
PERIOD_S = float(os.environ.get('URDF_STATE_CONTAINER_SOAK_PERIOD_S', '0'))  # a cycle's start
#: 'reuse': every churn robot is /c (else /c1, /c2, ...: a name never seen before each time)
REUSE_NAME = os.environ.get('URDF_STATE_CONTAINER_SOAK_NAMES') == 'reuse'
RSS_LIMIT_MB = float(os.environ.get('URDF_STATE_CONTAINER_SOAK_RSS_MB', '10'))
RATE_HZ = 10.0
FLOOD = 2000
MS = 1_000_000


def a_of(k: int) -> float:
    return 0.9 * math.sin(0.1 * k)


def b_of(k: int) -> float:
    return 1.0 + 0.9 * math.sin(0.07 * k)


class SteadyDriver:
    """Sends JointState k (stamp base + k ms, values a(k), b(k)) to every steady robot."""

    def __init__(self, probe, namespaces: list[str]) -> None:
        from std_msgs.msg import String
        self.probe, self.namespaces = probe, namespaces
        self.base_ns = probe.now_ns()
        self.pubs = [probe.node.create_publisher(probe_msg(), f'{ns}/joint_states', KEEP_ALL)
                     for ns in namespaces]
        for pub in self.pubs:
            wait_until(lambda p=pub: p.get_subscription_count() > 0, 60.0, 'a steady robot')
        good = serialized(['a', 'b'], [0.0, 0.0])
        from urdf_state_py.node.tf_path.joint_state_cdr import (JointStateReader,
                                                                MalformedJointState)
        reader, self.bad = JointStateReader(), []
        for bad in mutations(np.random.default_rng(40), good):
            try:
                reader.read(bad)
            except MalformedJointState:
                self.bad.append(bad)
        self.sent = 0
        self.descriptions: list = []
        self.static: list = []
        self._subs = [probe.node.create_subscription(String, f'{ns}/robot_description',
                                                     self.descriptions.append, LATCHED)
                      for ns in namespaces]
        self._subs.append(probe.node.create_subscription(
            probe_tf(), '/tf_static', self.static.append, 100))
        # checked as it comes (an hour of 20 robots is too many messages to keep);
        # keep-all: a test process slowed by a flood loses nothing here
        self.answered: dict[str, set[int]] = {f'{ns[1:]}/': set() for ns in namespaces}
        self.wrong: list[str] = []
        self._subs.append(probe.node.create_subscription(
            probe_tf(), '/tf', lambda msg: check_tf(msg, self), KEEP_ALL))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        start = time.monotonic()
        k = 0
        while not self.stop.wait(max(0.0, start + k / RATE_HZ - time.monotonic())):
            data = serialized(['a', 'b'], [a_of(k), b_of(k)], self.base_ns + k * MS)
            for pub in self.pubs:
                pub.publish(data)
            self.pubs[0].publish(self.bad[k % len(self.bad)])
            k += 1
            self.sent = k

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10.0)
        for sub in self._subs:
            self.probe.node.destroy_subscription(sub)


def probe_msg():
    from sensor_msgs.msg import JointState
    return JointState


def probe_tf():
    from tf2_msgs.msg import TFMessage
    return TFMessage


def check_tf(msg, driver: SteadyDriver) -> None:
    """Record the k a /tf message answers per steady prefix, or each transform that is wrong."""
    answered, wrong = driver.answered, driver.wrong
    for t in msg.transforms:
        prefix = t.child_frame_id.split('/', 1)[0] + '/'
        if prefix not in answered:
            continue
        k, rest = divmod(t.header.stamp.sec * NS + t.header.stamp.nanosec - driver.base_ns, MS)
        child = t.child_frame_id[len(prefix):]
        r, q = t.transform.translation, t.transform.rotation
        angle = {'la': a_of(k), 'lm': 2 * a_of(k)}.get(child, 0.0)
        expected = {'la': (0, 0, 0, math.sin(angle / 2), math.cos(angle / 2)),
                    'lm': (0, 0, 0, math.sin(angle / 2), math.cos(angle / 2)),
                    'lb': (b_of(k), 0, 0, 0, 1)}.get(child)
        got = (r.x, q.x, q.y, q.z, q.w)
        if rest or expected is None or max(abs(g - e) for g, e in zip(got, expected)) > 1e-6:
            wrong.append(f'{t.child_frame_id} at k={k} (+{rest} ns): {got} != {expected}')
        else:
            answered[prefix].add(k)


def churn_cycle(container, cycle: int, ids: list[int], steady: dict[int, str], tmp_path,
                probe, flood_node, events: list[str]) -> None:
    """One cycle of hostile LoadNodes, a churn robot's life and its unload."""
    marker = tmp_path / f'marker{cycle}'
    template, construct = CODE_ATTACKS['eval']
    code = container.load(f'/x{cycle}', {'robot_description': robot(x=template.format(m=marker))})
    assert not code.success and construct in code.error_message, code.error_message
    duplicate = container.load('/s1', {'robot_description': INTRUDER, 'frame_prefix': 's1/'})
    assert not duplicate.success and 'loaded already' in duplicate.error_message
    namespace = '/c' if REUSE_NAME else f'/c{cycle}'
    first, second = (TOY, MOVING) if cycle % 2 else (MOVING, TOY)
    uid = container.loaded(namespace, {'robot_description': first,
                                       'frame_prefix': namespace[1:] + '/'})
    assert uid > max(ids), f'unique id {uid} after {max(ids)}'
    ids.append(uid)
    over = container.load(f'/y{cycle}', {'robot_description': MOVING})
    assert not over.success and 'load_node.max_robots' in over.error_message
    assert container.listed() == {**steady, uid: f'{namespace}/urdf_state'}
    results = probe.set_parameters(f'{namespace}/urdf_state', 120.0, robot_description=second)
    assert results[0].successful, results[0].reason
    pub = flood_node.create_publisher(probe_msg(), f'{namespace}/joint_states', 10)
    try:
        wait_until(lambda: pub.get_subscription_count() > 0, 60.0, 'the churn robot')
        bad = list(mutations(np.random.default_rng(cycle), serialized(['a'], [0.0])))
        for k in range(FLOOD):
            pub.publish(bad[k % len(bad)] if k % 10 == 9 else
                        serialized(['a', 'b', 'joint1'], [0.1, 0.2, 0.3], probe.now_ns()))
    finally:
        flood_node.destroy_publisher(pub)
    assert container.unload(uid).success
    assert container.listed() == steady
    assert not marker.exists(), 'the xacro code ran'
    events.append(f'cycle {cycle}: unique id {uid}')


def test_steady_robots_lose_nothing_beside_churn(probe, tmp_path):
    namespaces = [f'/s{k}' for k in range(1, STEADY + 1)]
    import rclpy
    container = Container(probe, 'soak_container', **{'load_node.max_robots': STEADY + 1})
    container.deadline = 120.0   # answers wait for CPU on a loaded machine; a stall fails
    # the churn robots' publishers: on a node no executor waits on (destroying a publisher
    # while the probe's executor builds a wait set with it raises InvalidHandle there)
    flood_node = rclpy.create_node('soak_flood', context=probe.spinner.context)
    driver = None
    try:
        steady = {}
        for ns in namespaces:
            # joint_states reliable and keep-all (a QoS override; sensor-data QoS by
            # default, as robot_state_publisher): a busy machine delays, never drops
            qos = f'qos_overrides.{ns}/joint_states.subscription.'
            uid = container.loaded(ns, {'robot_description': TOY, 'frame_prefix': f'{ns[1:]}/',
                                        'publish_frequency': 0.0, qos + 'reliability': 'reliable',
                                        qos + 'history': 'keep_all'})
            steady[uid] = f'{ns}/urdf_state'
        ids = list(steady)
        driver = SteadyDriver(probe, namespaces)
        from rclpy.qos import ReliabilityPolicy
        assert {i.qos_profile.reliability for i in
                probe.node.get_subscriptions_info_by_topic('/s1/joint_states')} \
            == {ReliabilityPolicy.RELIABLE}
        process = psutil.Process(container.process.pid)
        warmup = max(2, CYCLES // 10)
        samples, events = [], []
        t0 = time.monotonic()
        cycle = 0
        while cycle < CYCLES or time.monotonic() - t0 < DURATION_S:
            cycle += 1
            driver.stop.wait(max(0.0, t0 + (cycle - 1) * PERIOD_S - time.monotonic()))  # pace
            churn_cycle(container, cycle, ids, steady, tmp_path, probe, flood_node, events)
            del probe.tf[:]     # the harness keeps every /tf; the driver checked them
            if cycle >= warmup:
                samples.append(memory_sample(time.monotonic() - t0, process))
            if cycle % 100 == 0:
                print(f'cycle {cycle} at {time.monotonic() - t0:.0f} s: RSS '
                      f'{memory_sample(0.0, process).rss:.1f} MB', flush=True)
        driver.stop.set()
        driver.thread.join(10.0)
        last = driver.sent - 1
        wait_until(lambda: all(last in got for got in list(driver.answered.values())),
                   60.0, "every steady robot's last /tf")
        answered, wrong = driver.answered, driver.wrong
        assert not wrong, wrong[:10]
        for prefix, got in answered.items():
            lost = sorted(set(range(min(got), last + 1)) - got)
            assert not lost, f'{prefix}: {len(lost)} of {last + 1 - min(got)} lost: {lost[:20]}'
        foreign = {t.child_frame_id for m in driver.static for t in m.transforms
                   if t.child_frame_id.split('/')[0] in {ns[1:] for ns in namespaces}}
        assert not foreign, f"steady robots' static frames: {sorted(foreign)[:10]}"
        assert {d.data for d in driver.descriptions} == {TOY}
        growth = samples[-1].rss - samples[0].rss
        print(f'\ncontainer soak: {cycle} cycles in {time.monotonic() - t0:.0f} s beside '
              f'{STEADY} steady robots ({last + 1} JointStates each, none lost); ids up to '
              f'{max(ids)}; RSS {samples[0].rss:.1f} -> {samples[-1].rss:.1f} MB '
              f'({growth:+.1f} MB after cycle {warmup}); private '
              f'{samples[0].private:.1f} -> {samples[-1].private:.1f} MB; load '
              f'{os.getloadavg()[0]:.1f}')
        assert growth < RSS_LIMIT_MB, f'RSS grew {growth:.1f} MB over {cycle} cycles'
        assert container.process.poll() is None
    finally:
        if driver is not None:
            driver.close()
        flood_node.destroy_node()
        container.close()
