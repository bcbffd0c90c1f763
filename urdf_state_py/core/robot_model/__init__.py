"""MoveIt's semantic robot model (RobotModel, JointModelGroup, JointModel) without MoveIt."""

from .joint_model import JointModel, VariableBounds
from .joint_model_group import JointModelGroup
from .robot_model import (ASSUMED_FIXED_ROOT_JOINT, RobotModel, group_state_positions,
                          load_robot_model, robot_model_with_srdf_file)

__all__ = ['ASSUMED_FIXED_ROOT_JOINT', 'JointModel', 'JointModelGroup', 'RobotModel',
           'VariableBounds', 'group_state_positions', 'load_robot_model',
           'robot_model_with_srdf_file']
