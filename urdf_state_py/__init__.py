"""urdf_state_py: a Python replacement for robot_state_publisher.

The core (model, parsers, kinematics) imports without ROS; the node lives in
:mod:`urdf_state_py.node`.
"""

from .core.errors import DescriptionError
from .core.kinematics import JointTransforms, Kinematics
from .core.model import Joint, JointType, Link, Model
from .core.parsers import (Parser, ParserOption, ParserRegistry, load_model, load_model_file,
                           model_from_urdf_parser_py)

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
    'load_model',
    'load_model_file',
    'model_from_urdf_parser_py',
]
