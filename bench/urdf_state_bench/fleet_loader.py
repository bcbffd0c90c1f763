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
Loads robots into a running container through its LoadNode service, timing each answer.

Run as ``python -m urdf_state_bench.fleet_loader CONTAINER`` (e.g.
``/urdf_state_container``) with a loopback environment. JSON lines, as the other
benchmark processes: commands on stdin ``{"cmd": "load", "robots": [{"namespace":
..., "parameters": {name: value}}, ...]}`` and ``{"cmd": "quit"}``; events on stdout
``{"event": "ready"}`` once the container's services are up, and after each load
command ``{"event": "loaded", "ids": [...], "seconds": [...]}`` (``"error"``: the first
refusal).
"""

from __future__ import annotations

import sys
import time

from .common import command_lines, ensure_loopback
from .driver import emit


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ensure_loopback()
    from composition_interfaces.srv import LoadNode
    import rclpy
    from rclpy.parameter import Parameter

    rclpy.init(args=['--ros-args', '--disable-rosout-logs'])
    node = rclpy.create_node('bench_fleet_loader')
    client = node.create_client(LoadNode, f'{argv[0]}/_container/load_node')
    if not client.wait_for_service(timeout_sec=90.0):
        emit(event='error', error='the container never offered load_node')
        return 2
    emit(event='ready')
    try:
        for cmd in command_lines(sys.stdin):
            if cmd.get('cmd') != 'load':
                continue
            ids, seconds = [], []
            for robot in cmd['robots']:
                request = LoadNode.Request(package_name='urdf_state_py',
                                           plugin_name='urdf_state_py::UrdfState',
                                           node_namespace=robot['namespace'])
                request.parameters = [Parameter(k, value=v).to_parameter_msg()
                                      for k, v in robot['parameters'].items()]
                started = time.perf_counter()
                future = client.call_async(request)
                rclpy.spin_until_future_complete(node, future, timeout_sec=120.0)
                answer = future.result()
                if answer is None or not answer.success:
                    emit(event='loaded', ids=ids, seconds=seconds,
                         error=answer.error_message if answer else 'no answer')
                    break
                seconds.append(time.perf_counter() - started)
                ids.append(answer.unique_id)
            else:
                emit(event='loaded', ids=ids, seconds=seconds)
    finally:
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
