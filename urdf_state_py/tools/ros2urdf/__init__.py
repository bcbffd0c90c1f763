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
``ros2 urdf``: the CLI's commands as a ros2cli extension (registered in setup.py).

ros2cli loads these classes through entry points and needs nothing more than
their ``add_arguments`` and ``main`` methods, so they do not subclass
ros2cli's bases: this package imports without ros2cli (the PyPI-wheels
environment, a ROS-free venv) and only ``UrdfCommand.add_arguments``, which
ros2cli alone calls, imports it.
"""
