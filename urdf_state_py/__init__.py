"""urdf_state_py: a Python replacement for robot_state_publisher.

The core (model, parsers, kinematics) imports without ROS; the node lives in
:mod:`urdf_state_py.node`.
"""

from .errors import DescriptionError
from .kinematics import JointTransforms, Kinematics
from .model import Joint, JointType, Link, Model
from .parsers import Parser, ParserOption, ParserRegistry, load_model, load_model_file

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
]
