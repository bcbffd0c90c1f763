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

"""MoveIt's semantic robot model (RobotModel, JointModelGroup, JointModel) without MoveIt."""

from .joint_model import JointModel, VariableBounds
from .joint_model_group import JointModelGroup
from .robot_model import (ASSUMED_FIXED_ROOT_JOINT, group_state_positions, load_robot_model,
                          robot_model_with_srdf_file, RobotModel)

__all__ = ['ASSUMED_FIXED_ROOT_JOINT', 'JointModel', 'JointModelGroup', 'RobotModel',
           'VariableBounds', 'group_state_positions', 'load_robot_model',
           'robot_model_with_srdf_file']
