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

r"""
Launch the urdf_state node (drop-in robot_state_publisher) for a URDF, xacro or MJCF file.

    ros2 launch urdf_state_py urdf_state.launch.py model:=/path/robot.urdf.xacro \
        xacro_args:="prefix:=left_ use_gripper:=true" frame_prefix:=left/

Launch arguments:
  model         URDF, xacro or MuJoCo MJCF file (default: the bundled Unitree H1_2)
  xacro_args    xacro arguments, "name:=value" separated by spaces (shell-style
                quoting allowed); passed to the node's ``xacro.args``
  namespace     namespace of the node (and of its relative topics)
  frame_prefix  prepended to every frame id
  use_sim_time  use /clock
  source_list   joint state topics to merge, separated by spaces (joint_state_publisher's
                ``source_list``; "" -- the default -- reads joint_states as
                robot_state_publisher does); non-empty: the merged state is published
                on joint_states
  srdf          MoveIt SRDF file of the robot ("" -- the default -- none: the node then
                reads the robot_description_semantic topic); see docs/srdf.md
  initial_group_states  SRDF group states "GROUP/STATE" separated by spaces, applied
                over MoveIt's default positions (with publish_default_positions)
  params_file   parameters file (default: config/urdf_state.yaml of this package);
                the arguments above override what it says (zeros.<joint>,
                dependent_joints.<joint>.*, rate, integrate_velocity,
                use_smallest_joint_limits: give them in this file)

xacro is expanded by the node itself, not by ``Command(['xacro ', model])`` as
in robot_state_publisher's examples: the launch file passes the *file contents*
as ``robot_description`` together with ``xacro.base_dir`` (the file's folder,
so relative ``xacro:include`` work) and ``xacro.args``. That needs no xacro
executable on the PATH, keeps the arguments as a real parameter (visible with
``ros2 param get``, re-applied when the description is changed at run time),
and errors come from the node's parser with the element at fault. A plain URDF
goes through the same path (the node's ``parser: auto`` tells them apart), and so
does MuJoCo's MJCF, with ``mjcf.base_dir`` set to the file's folder too (its
``<include>`` files and meshes).

The file is read in an OpaqueFunction (at launch time, after the arguments are
resolved), so ``model`` may itself be a substitution in an including launch
file.
"""

import os
import shlex

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare
from urdf_state_py.tools.cli_values import as_bool

PACKAGE = 'urdf_state_py'

ARGUMENTS = {
    'model': (PathJoinSubstitution([FindPackageShare(PACKAGE), 'robots', 'h1_2', 'h1_2.urdf']),
              'URDF, xacro or MuJoCo MJCF file of the robot'),
    'xacro_args': ('', 'xacro arguments "name:=value name2:=value2" (the node\'s xacro.args)'),
    'namespace': ('', 'namespace of the node'),
    'frame_prefix': ('', 'prefix prepended to every published frame id'),
    'use_sim_time': ('false', 'use simulation (/clock) time'),
    'source_list': ('', 'joint state topics to merge, "arm/joint_states gripper/joint_states" '
                        '(the node then publishes the merged state on joint_states)'),
    'srdf': ('', "MoveIt SRDF file of the robot (the node's robot_description_semantic)"),
    'initial_group_states': ('', 'SRDF group states "arm/ready hand/open" applied over MoveIt\'s '
                                 'default positions'),
    'params_file': (PathJoinSubstitution([FindPackageShare(PACKAGE), 'config', 'urdf_state.yaml']),
                    'parameters file; the other arguments override its values'),
}


def _launch_node(context, *args, **kwargs):
    model = os.path.abspath(os.path.expanduser(LaunchConfiguration('model').perform(context)))
    with open(model, encoding='utf-8') as stream:
        description = stream.read()
    overrides = {
        # ParameterValue(value_type=str): the text stays a string whatever it looks like.
        'robot_description': ParameterValue(description, value_type=str),
        'frame_prefix': ParameterValue(LaunchConfiguration('frame_prefix').perform(context),
                                       value_type=str),
        'use_sim_time': as_bool('use_sim_time',
                                LaunchConfiguration('use_sim_time').perform(context)),
        'xacro.base_dir': ParameterValue(os.path.dirname(model), value_type=str),
        'mjcf.base_dir': ParameterValue(os.path.dirname(model), value_type=str),
    }
    xacro_args = shlex.split(LaunchConfiguration('xacro_args').perform(context))
    if xacro_args:
        # An empty list would carry no type; leave the parameter at its default then.
        overrides['xacro.args'] = xacro_args
    source_list = shlex.split(LaunchConfiguration('source_list').perform(context))
    if source_list:
        overrides['source_list'] = source_list   # as xacro.args: [] would carry no type
    srdf = LaunchConfiguration('srdf').perform(context)
    if srdf:
        with open(os.path.abspath(os.path.expanduser(srdf)), encoding='utf-8') as stream:
            overrides['robot_description_semantic'] = ParameterValue(stream.read(), value_type=str)
    group_states = shlex.split(LaunchConfiguration('initial_group_states').perform(context))
    if group_states:
        overrides['initial_group_states'] = group_states
    params_file = LaunchConfiguration('params_file').perform(context)
    parameters = ([params_file] if params_file else []) + [overrides]
    return [Node(
        package=PACKAGE,
        executable='urdf_state',
        name='urdf_state',
        namespace=LaunchConfiguration('namespace').perform(context),
        output='screen',
        parameters=parameters,
    )]


def generate_launch_description():
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=text)
         for name, (default, text) in ARGUMENTS.items()]
        + [OpaqueFunction(function=_launch_node)])
