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
The ROS 2 node: the thin rclpy adapter around :mod:`urdf_state_py.core`.

Once per robot, in this folder: the node (:mod:`.state_publisher`), its parameters
(:mod:`.params`, :mod:`.param_services`, :mod:`.parameter_changes`), its descriptions
(:mod:`.robot_description`, :mod:`.description_loader`), its health and ``/diagnostics``
(:mod:`.health`, :mod:`.diagnostics`, :mod:`.guards`) and its topics' QoS (:mod:`.qos`).
Beside them: :mod:`.tf_path` (JointState in, /tf out), :mod:`.joint_state_publisher`
(that node's jobs) and :mod:`.process` (what exists once per process: spin, signals,
threads, address space, loopback). It imports the library, never the tools.
"""
