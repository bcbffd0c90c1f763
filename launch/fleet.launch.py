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
Launch many robots' state publishers in one process: a urdf_state_container and its fleet.

    ros2 launch urdf_state_py fleet.launch.py fleet:=/path/fleet.yaml

Launch arguments:
  fleet         the fleet file: one entry per robot (namespace, model, xacro_args,
                frame_prefix -- default "<namespace>/" --, parameters); see
                config/fleet.example.yaml and urdf_state_py/node/process/fleet_file.py
  container     name of the container node (default urdf_state_container)
  trusted       false (default): each model is read and expanded here, by this
                launch process, and the container gets plain URDF over LoadNode,
                which it keeps untrusted (load_node.trusted: false); true: the
                model files go as they are, expanded by the container with all of
                xacro (a later xacro.args change re-expands them), and the
                container trusts every LoadNode (anyone on the DDS domain could
                then load a description that runs code: see docs/security.md)
  use_sim_time  use /clock in every robot and the container

Each robot is an ``urdf_state_py::UrdfState`` component: the same node, parameters,
topics and QoS as ``ros2 run urdf_state_py urdf_state``, under its namespace
(``/<namespace>/joint_states``, ``/<namespace>/urdf_state``); /tf and /tf_static are
shared and the frames told apart by frame_prefix. The fleet file is read and
checked when the launch starts, and every mistake names the robot and the key.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import ComposableNodeContainer
from launch_ros.descriptions import ComposableNode
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare
from urdf_state_py.node.process.fleet_file import component_parameters, read_fleet
from urdf_state_py.tools.cli_values import as_bool

PACKAGE = 'urdf_state_py'
PLUGIN = 'urdf_state_py::UrdfState'

ARGUMENTS = {
    'fleet': (PathJoinSubstitution([FindPackageShare(PACKAGE), 'config', 'fleet.example.yaml']),
              'fleet file: the robots of the container'),
    'container': ('urdf_state_container', 'name of the container node'),
    'trusted': ('false', 'true: the container expands the models with all of xacro and '
                         'trusts every LoadNode'),
    'use_sim_time': ('false', 'use simulation (/clock) time'),
}


def _launch_fleet(context, *args, **kwargs):
    trusted = as_bool('trusted', LaunchConfiguration('trusted').perform(context))
    sim_time = as_bool('use_sim_time', LaunchConfiguration('use_sim_time').perform(context))
    robots = read_fleet(LaunchConfiguration('fleet').perform(context))
    components = []
    for robot in robots:
        parameters = component_parameters(robot, trusted)
        # ParameterValue(value_type=str): the text stays a string whatever it looks like.
        for text in ('robot_description', 'frame_prefix', 'xacro.base_dir'):
            if text in parameters:
                parameters[text] = ParameterValue(parameters[text], value_type=str)
        parameters['use_sim_time'] = sim_time
        components.append(ComposableNode(package=PACKAGE, plugin=PLUGIN, name='urdf_state',
                                         namespace=robot.namespace, parameters=[parameters]))
    return [ComposableNodeContainer(
        package=PACKAGE, executable='urdf_state_container', namespace='',
        name=LaunchConfiguration('container').perform(context), output='screen',
        # use_sim_time for the container too: it stamps every robot's /diagnostics
        parameters=[{'load_node.trusted': trusted, 'use_sim_time': sim_time,
                     'load_node.max_robots': max(64, len(robots))}],
        composable_node_descriptions=components)]


def generate_launch_description():
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=text)
         for name, (default, text) in ARGUMENTS.items()]
        + [OpaqueFunction(function=_launch_fleet)])
