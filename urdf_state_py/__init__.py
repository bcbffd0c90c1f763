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
urdf_state_py: a Python replacement for robot_state_publisher.

The core (model, parsers, kinematics) imports without ROS; the node lives in
:mod:`urdf_state_py.node`.

The kinematics (and with them numpy) and MoveIt's model are imported on first
use: the parser process imports this package for its parsers only, and a
node's start-up pays only for what its first /tf_static needs.
"""

from typing import Any

from .core.errors import DescriptionError
from .core.model import Joint, JointType, Link, Model
from .core.parsers import (load_model, load_model_file, model_from_urdf_parser_py, Parser,
                           ParserOption, ParserRegistry)

__all__ = [
    'DescriptionError',
    'Joint',
    'JointTransforms',
    'JointType',
    'Kinematics',
    'Link',
    'Model',
    'Parser',
    'ParserOption',
    'ParserRegistry',
    'JointModelGroup',
    'RobotModel',
    'load_model',
    'load_model_file',
    'load_robot_model',
    'model_from_urdf_parser_py',
]


#: Names imported from the kinematics on first use (see the module's docstring).
_KINEMATICS = frozenset({'JointTransforms', 'Kinematics'})
#: Names imported from MoveIt's model on first use (a node without an SRDF never needs it).
_ROBOT_MODEL = frozenset({'JointModelGroup', 'RobotModel', 'load_robot_model'})


def __getattr__(name: str) -> Any:
    if name in _KINEMATICS:
        from .core import kinematics  # on first use, see above
        return getattr(kinematics, name)
    if name in _ROBOT_MODEL:
        from .core import robot_model  # noqa: PLC0415 (on first use, see above)
        return getattr(robot_model, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
