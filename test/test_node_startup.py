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
The node's start-up as a client sees it: parameter services only once the model is loaded.

robot_state_publisher answers its parameter services only after its constructor
has parsed the start-up description, and upstream's own launch test sets a
description the moment ``set_parameters`` appears, allowing 500 ms for the
answer. This node creates its parameter services after the start-up model is
loaded and its parser process for the next description has started, so such a
set waits for neither. The node runs as users run it (its own process); a
start-up description of seconds of parsing makes the order observable whatever
the machine's speed.
"""
from __future__ import annotations

import uuid

from node_harness import wait_until
import pytest
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from test_node_shutdown import big_tree, LOADING_LINKS, NodeProcess

pytestmark = pytest.mark.ros  # needs rclpy and DDS

ONE_LINK = "<robot name='test'><link name='base_link'/></robot>"


def test_services_appear_once_the_start_up_model_is_loaded(probe, tmp_path):
    name = 'startup_' + uuid.uuid4().hex[:6]
    # seconds of parsing at rest, tens beside other suites: no time limit to reach
    node = NodeProcess(tmp_path, {'robot_description': big_tree(LOADING_LINKS, name),
                                  'description.timeout': 3600.0}, 'auto')
    client = probe.node.create_client(SetParameters, f'/{node.name}/set_parameters')
    try:
        wait_until(lambda: client.service_is_ready() or node.proc.poll() is not None,
                   timeout=120.0, what=f'{node.name}/set_parameters')
        assert f"Robot '{name}' loaded" in node.output(), (
            'set_parameters appeared before the start-up model was loaded\n' + node.output())
        request = SetParameters.Request(
            parameters=[Parameter('robot_description', value=ONE_LINK).to_parameter_msg()])
        future = client.call_async(request)
        wait_until(future.done, what='the answer to the first set')
        assert future.result().results[0].successful, future.result().results[0].reason
        wait_until(lambda: "Robot 'test' loaded" in node.output(), what='the one-link robot')
    finally:
        probe.node.destroy_client(client)
        node.kill()
