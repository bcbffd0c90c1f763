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
``status [NODE]``: what a running urdf_state node has loaded and how it is doing.

The node already says it all -- its parameters, and one DiagnosticStatus a
second on ``/diagnostics`` (robot, parser, counts, /tf rate, rejections) --
but reading it takes ``ros2 topic echo /diagnostics`` plus ``ros2 param get``
per parameter. This command gathers both for one node (or every urdf_state
node it hears) and prints them as one short report.

It uses the caller's ROS environment as it is (domain, discovery range):
like ``ros2 node list``, it must see the node where the user runs it, so it
neither picks a domain of its own nor narrows discovery. Everything read
from the network is treated as untrusted text: non-printable characters are
replaced and long values cut, so a hostile peer cannot drive the terminal.
rclpy is imported only when the command runs, keeping the rest of the CLI
usable without ROS.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, TextIO

#: Suffix of the node's DiagnosticStatus name (``<node>: robot state``, node/diagnostics.py).
TASK_SUFFIX = ': robot state'
#: Parameters shown, in this order (robot_description as its length only).
SHOWN_PARAMETERS = ('parser', 'publish_frequency', 'frame_prefix', 'ignore_timestamp',
                    'ignore_limits', 'publish_default_positions', 'use_robot_description_topic',
                    'diagnostics.stale_after', 'description.runtime_xacro', 'use_sim_time',
                    'parts')
_LEVELS = {0: 'OK', 1: 'WARN', 2: 'ERROR', 3: 'STALE'}
_MAX_TEXT = 300


class StatusError(Exception):
    """No such node, or it did not answer in time (exit 1, one line on stderr)."""


def printable(text: Any, limit: int = _MAX_TEXT) -> str:
    """``text`` safe for a terminal: control characters as '?', at most ``limit`` characters."""
    text = ''.join(c if c.isprintable() else '?' for c in str(text))
    return text if len(text) <= limit else text[:limit] + f'... ({len(text)} characters)'


def node_of(status_name: str) -> str | None:
    """Return the node's fully qualified name from its status name, or None if not ours."""
    if not status_name.endswith(TASK_SUFFIX):
        return None
    return '/' + status_name[:-len(TASK_SUFFIX)].lstrip('/')


def normalize_node(name: str) -> str:
    """``urdf_state`` or ``/ns/urdf_state`` -> ``/urdf_state`` / ``/ns/urdf_state``."""
    return '/' + name.strip().strip('/')


def format_report(node: str, status: Any, parameters: dict[str, Any] | None,
                  out: TextIO) -> None:
    """
    Print one node's report from its DiagnosticStatus and parameter values.

    ``parameters`` is None when the parameter service did not answer (the
    diagnostics alone are still worth showing).
    """
    values = {printable(kv.key, 80): printable(kv.value) for kv in status.values}
    level = status.level if isinstance(status.level, int) \
        else int.from_bytes(status.level, 'little')
    print(f'node: {printable(node, 200)}', file=out)
    print(f'status: {_LEVELS.get(level, level)}: {printable(status.message)}', file=out)
    for key in ('robot', 'parser', 'links', 'joints', 'parts', '/tf rate [Hz]',
                '/tf messages published', 'rejected messages', 'rejected descriptions',
                'last rejection'):
        if key in values:
            print(f'  {key}: {values.pop(key)}', file=out)
    for key, value in values.items():
        if not key.endswith('(names)') or value not in ('', 'none'):
            print(f'  {key}: {value}', file=out)
    if parameters is None:
        print('parameters: no answer from its parameter service', file=out)
        return
    print('parameters:', file=out)
    description = parameters.pop('robot_description', None)
    if description is not None:
        print(f'  robot_description: {len(description)} characters', file=out)
    for name in SHOWN_PARAMETERS:
        if name in parameters:
            print(f'  {name}: {printable(parameters[name])}', file=out)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``status`` command's arguments (``python -m urdf_state_py``, ``ros2 urdf``)."""
    parser.add_argument('node', nargs='?', metavar='NODE',
                        help='node name, e.g. /urdf_state (default: every urdf_state node heard)')
    parser.add_argument('--timeout', type=float, default=5.0, metavar='S',
                        help='seconds to wait for /diagnostics and parameters (default: 5)')


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Listen to /diagnostics until the node(s) report, read their parameters, print."""
    try:
        import rclpy  # only this command needs ROS
        from rclpy.executors import SingleThreadedExecutor
    except ImportError as exc:
        raise StatusError(f'status needs ROS 2 (rclpy): {exc}; source a ROS 2 distro or use '
                          './dev.sh python -m urdf_state_py status') from None

    wanted = normalize_node(args.node) if args.node else None
    context = rclpy.Context()
    rclpy.init(args=['--ros-args', '--disable-rosout-logs'], context=context)
    try:
        node = rclpy.create_node('urdf_state_status', context=context,
                                 start_parameter_services=False)
        executor = SingleThreadedExecutor(context=context)
        executor.add_node(node)
        try:
            statuses = _collect_statuses(node, executor, wanted, args.timeout)
            for i, (name, status) in enumerate(sorted(statuses.items())):
                if i:
                    print(file=out)
                format_report(name, status, _parameters(node, executor, name, args.timeout), out)
        finally:
            executor.shutdown()
            node.destroy_node()
    finally:
        rclpy.try_shutdown(context=context)
    return 0


def _collect_statuses(node, executor, wanted: str | None, timeout: float) -> dict[str, Any]:
    """
    Return the latest status of each urdf_state node heard (just ``wanted`` if given).

    Waits until ``wanted`` reports, or -- for "every node" -- one diagnostics
    period (1 s) past the first report, so that several nodes are all heard.
    """
    from diagnostic_msgs.msg import DiagnosticArray
    from rclpy.qos import QoSProfile, ReliabilityPolicy

    heard: dict[str, Any] = {}

    def on_array(msg) -> None:
        for status in msg.status:
            name = node_of(status.name)
            if name is not None and (wanted is None or name == wanted):
                heard[name] = status

    node.create_subscription(DiagnosticArray, '/diagnostics', on_array,
                             QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + timeout
    first = None
    while time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.1)
        if heard and wanted is not None:
            break
        if heard and first is None:
            first = time.monotonic()
        if first is not None and time.monotonic() - first > 1.2:
            break
    if not heard:
        who = f'node {wanted} has not' if wanted else 'no urdf_state node has'
        raise StatusError(f'{who} published on /diagnostics within {timeout:g} s (is it running, '
                          'with the same ROS_DOMAIN_ID and discovery range as this shell?)')
    return heard


def _parameters(node, executor, target: str, timeout: float) -> dict[str, Any] | None:
    """Return the shown parameters of ``target``, None if it is silent."""
    from rcl_interfaces.srv import GetParameters
    from rclpy.parameter import parameter_value_to_python

    from ..node.process.spin import spin_until_done

    names = ['robot_description', *SHOWN_PARAMETERS]
    client = node.create_client(GetParameters, f'{target}/get_parameters')
    try:
        if not client.wait_for_service(timeout_sec=timeout):
            return None
        future = client.call_async(GetParameters.Request(names=names))
        response = future.result() if spin_until_done(executor, future, timeout) else None
        if response is None or len(response.values) != len(names):
            return None
        values = {name: parameter_value_to_python(value)
                  for name, value in zip(names, response.values)}
        return {name: value for name, value in values.items() if value is not None}
    finally:
        node.destroy_client(client)
