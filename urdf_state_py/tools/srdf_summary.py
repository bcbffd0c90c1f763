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
The SRDF side of the CLI's ``check``, ``tree`` and ``fk`` (``--srdf``, ``--group-state``).

What a MoveIt user checks in an SRDF before starting ``move_group``: the root
(virtual) joint and model frame, each group's joints and variables, its named
states, the end effectors and where they attach, the passive joints, and what
MoveIt would drop with a warning. The model is the library's
:class:`~urdf_state_py.core.robot_model.RobotModel`, so the answers are the
node's and the Python API's.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from urdf_state_py.core.model import Model
from urdf_state_py.core.robot_model import robot_model_with_srdf_file, RobotModel

from .cli_values import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--srdf FILE`` (check, tree, fk)."""
    parser.add_argument('--srdf', metavar='FILE',
                        help='the MoveIt SRDF of the robot: groups, states, end effectors and '
                             'passive joints are shown (fk: MoveIt default positions)')


def add_fk_arguments(parser: argparse.ArgumentParser) -> None:
    """``--group-state GROUP/STATE`` (fk)."""
    parser.add_argument('--group-state', action='append', default=[], metavar='GROUP/STATE',
                        help='start from this SRDF group state (repeatable, applied in order; '
                             'needs --srdf; --set values come on top)')


def robot_model(args: argparse.Namespace, model: Model) -> RobotModel | None:
    """The RobotModel when ``--srdf`` was given (DescriptionError naming the SRDF's fault)."""
    if getattr(args, 'group_state', None) and not args.srdf:
        raise UsageError('--group-state needs --srdf FILE (the SRDF that defines the states)')
    return robot_model_with_srdf_file(model, args.srdf) if args.srdf else None


def summary_lines(robot: RobotModel) -> list[str]:
    """Return the semantic model as MoveIt builds it, one fact per line."""
    root = robot.get_joint_model(robot.root_joint_name)
    lines = [f'srdf: root joint {robot.root_joint_name} ({root.type_name.lower()}), '
             f'model frame {robot.model_frame}, {robot.variable_count} variables']
    for group in robot.joint_model_groups:
        eef = f', end effector {group.end_effector_name!r}' if group.end_effector_name else ''
        lines.append(f'group {group.name}: {len(group.joint_model_names)} joints, '
                     f'{group.variable_count} variables{eef}')
        lines.append(f"  active: {', '.join(group.active_joint_model_names) or '-'}")
        if group.mimic_joint_model_names:
            lines.append(f"  mimic: {', '.join(group.mimic_joint_model_names)}")
        if group.subgroup_names:
            lines.append(f"  subgroups: {', '.join(group.subgroup_names)}")
        for state in group.default_state_names:
            values = group.get_variable_default_positions(state)
            lines.append(f'  state {state}: ' + ', '.join(f'{k}={v:g}' for k, v in values.items()))
    for group in robot.end_effectors:
        parent_group, parent_link = group.end_effector_parent_group
        lines.append(f'end effector {group.end_effector_name}: group {group.name}, parent link '
                     f"{parent_link}, parent group {parent_group or '(none found)'}")
    lines.append(f"passive joints: {', '.join(robot.passive_joint_names) or 'none'}")
    lines.extend(f'warning: {w}' for w in robot.warnings)
    return lines


def start_values(robot: RobotModel | None, states: Sequence[str]) -> dict[str, float]:
    """Fk's starting values: MoveIt's defaults then ``states`` (none without an SRDF)."""
    from urdf_state_py.core.robot_model import group_state_positions  # noqa: PLC0415
    return {} if robot is None else group_state_positions(robot, states)
