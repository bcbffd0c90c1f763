"""MoveIt's semantic robot model (RobotModel, JointModelGroup, JointModel) without MoveIt."""

from .joint_model import JointModel, VariableBounds
from .joint_model_group import JointModelGroup
from .robot_model import ASSUMED_FIXED_ROOT_JOINT, RobotModel, load_robot_model

__all__ = ['ASSUMED_FIXED_ROOT_JOINT', 'JointModel', 'JointModelGroup', 'RobotModel',
           'VariableBounds', 'load_robot_model']
