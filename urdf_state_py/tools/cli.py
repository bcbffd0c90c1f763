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
``urdf_state_check``: inspect a robot description from the shell, without ROS.

When robot_state_publisher rejects a description, or publishes a frame in the
wrong place, the user's questions are "which parser took my file, and why does
it fail?", "what tree did it build?" and "where does this link end up for these
joint values?". This command answers them with the same parsers and
kinematics the node uses, but with no ROS import, so it works on any machine
with the package's Python dependencies and gives the identical verdict.

Subcommands (``python -m urdf_state_py ...`` or ``urdf_state_check ...``):

* ``check FILE`` -- parser choice (with every parser's ``might_handle``
  score), robot name, root, counts and the link tree;
* ``tree FILE [--dot]`` -- the link/joint tree with joint types, mimic and
  limits, or as a Graphviz graph (:mod:`.model_tree`);
* ``fk FILE`` -- root-relative pose of links for given joint values;
* ``parsers [FILE]`` -- the registered parsers and their options (with
  FILE: each parser's score for it);
* ``status [NODE]`` -- a running node's model, parser, rates and last
  rejection (:mod:`.node_status`; needs ROS);
* ``view`` -- the robot live in a browser, from robot_description and TF
  (:mod:`.view`; needs ROS).

How a command reads FILE (parser, options) is :mod:`.cli_description`'s job.
The same commands are ``ros2 urdf <command>`` where ros2cli is installed
(:mod:`.ros2urdf`): both build their arguments from :data:`COMMANDS`.

Exit status: 0 on success, 1 when the description is invalid (the message,
never a traceback, goes to stderr as ``error: ...``), 2 for command-line
mistakes (bad syntax, unknown joint variable or link).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
import os
import sys
from typing import TextIO

from urdf_state_py.core.errors import DescriptionError
from urdf_state_py.core.model import JointType
from urdf_state_py.core.parsers import default_registry
from urdf_state_py.core.parsers._xml import decode

from . import node_status, srdf_summary
from .cli_description import (add_load_arguments, load_description, option_type_name,
                              read_input, warn)
from .cli_values import parse_number, UsageError
from .model_tree import dot_lines, tree_lines
from .view import command as view_command

#: Exit statuses (2 is also what argparse uses for its own usage errors).
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

PROG = 'urdf_state_check'


# ------------------------------------------------------------------ check


def _print_scores(scores: dict[str, int], length: int, out: TextIO) -> None:
    """Each parser's ``might_handle`` score, as the registry compared them."""
    print(f'might_handle scores (lowest wins, >= {length} = not mine):', file=out)
    width = max(len(n) for n in scores)
    for parser_name, score in sorted(scores.items()):
        mark = '  (not mine)' if score >= length else ''
        print(f'  {parser_name:<{width}}  {score}{mark}', file=out)


def _cmd_tree(args: argparse.Namespace, out: TextIO) -> int:
    """Print the link/joint tree (check_urdf's tree), or Graphviz (urdf_to_graphviz's job)."""
    model, _, _, _ = load_description(args, default_registry())
    robot = srdf_summary.robot_model(args, model)
    lines = dot_lines(model) if args.dot else \
        [f'robot: {model.name}  root: {model.root}', *tree_lines(model, limits=True),
         *(srdf_summary.summary_lines(robot) if robot else ())]
    for line in lines:
        print(line, file=out)
    return EXIT_OK


def _cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """
    Print what the parser made of the file.

    The first thing to look at when the node refuses a description or publishes unexpected
    frames.
    """
    registry = default_registry()
    model, name, scores, length = load_description(args, registry)
    robot = srdf_summary.robot_model(args, model)
    how = 'auto-detected' if args.parser == 'auto' else 'forced by --parser'
    print(f'parser: {name} ({how})', file=out)
    _print_scores(scores, length, out)
    print(f'robot: {model.name}', file=out)
    print(f'root: {model.root}', file=out)
    print(f'links: {len(model.links)}', file=out)
    by_type = {t: sum(1 for j in model.joints if j.type is t) for t in JointType}
    counts = ', '.join(f'{t.value} {n}' for t, n in by_type.items() if n)
    print(f'joints: {len(model.joints)}' + (f' ({counts})' if counts else ''), file=out)
    mimic = model.mimic_joint_names
    print(f'mimic joints: {len(mimic)}' + (f" ({', '.join(mimic)})" if mimic else ''), file=out)
    active_vars = [v for j in model.active_joint_names for v in model.joint(j).variable_names]
    print(f'active joints: {len(model.active_joint_names)}, '
          f'active variables: {len(active_vars)}', file=out)
    print('tree:', file=out)
    for line in [*tree_lines(model), *(srdf_summary.summary_lines(robot) if robot else ())]:
        print(line, file=out)
    return EXIT_OK


# ------------------------------------------------------------------ fk

def _parse_assignments(items: Sequence[str]) -> dict[str, float]:
    """``--set name=value`` flags as a dict (the last one wins, like on most CLIs)."""
    values: dict[str, float] = {}
    for item in items:
        name, sep, text = item.partition('=')
        if not sep or not name.strip():
            raise UsageError(f"--set '{item}' is not of the form name=value")
        values[name.strip()] = parse_number(text)
    return values


def _fmt(values: Sequence[float], digits: int) -> str:
    """Fixed-width numbers with -0 shown as 0, so outputs diff cleanly."""
    return '  '.join(f'{(v + 0.0 if round(v, digits) != 0 else 0.0):{digits + 5}.{digits}f}'
                     for v in values)


def _cmd_fk(args: argparse.Namespace, out: TextIO) -> int:
    """
    Print root-relative link poses for chosen joint values.

    Poses are relative to the root link -- the same numbers ``tf2_echo <root>
    <link>`` shows for a running node -- so the two can be compared directly.
    """
    from urdf_state_py.core.kinematics import Kinematics  # numpy only needed here
    from urdf_state_py.core.transforms import matrix_to_quaternion, matrix_to_rpy

    model, _, _, _ = load_description(args, default_registry())
    start = srdf_summary.start_values(srdf_summary.robot_model(args, model), args.group_state)
    values = _parse_assignments(args.set or [])
    kinematics = Kinematics(model)
    unknown = [name for name in values if name not in kinematics.variable_index]
    if unknown:
        known = ', '.join(kinematics.variable_names) or 'none (no movable joints)'
        raise UsageError(f"unknown joint variable(s): {', '.join(unknown)} (known: {known})")
    links = list(dict.fromkeys(args.link)) if args.link else list(model.link_names)
    missing = [link for link in links if link not in model.link_names]
    if missing:
        raise UsageError(f"unknown link(s): {', '.join(missing)} "
                         f"(known: {', '.join(model.link_names)})")

    q = kinematics.positions({k: v for k, v in start.items() if k in kinematics.variable_index})
    q = kinematics.positions(values, base=q)
    q_effective, clamped = kinematics.resolve(q, ignore_limits=args.ignore_limits)
    if clamped:
        detail = ', '.join(
            f'{name} ({q[kinematics.variable_index[name]]:g} -> '
            f'{q_effective[kinematics.variable_index[name]]:g})'
            if name in values else
            f'{name} (-> {q_effective[kinematics.variable_index[name]]:g})'
            for name in clamped)
        warn(f'joint value(s) clamped to their limits: {detail} '
             '(--ignore-limits to use the raw values)')
    poses = kinematics.link_poses_resolved(q_effective)
    index = {name: i for i, name in enumerate(model.link_names)}
    digits = args.digits
    print(f'robot: {model.name}  root: {model.root}', file=out)
    for link in links:
        pose = poses[index[link]]
        quaternion = matrix_to_quaternion(pose[:3, :3])
        print(link, file=out)
        print(f'  xyz   {_fmt(pose[:3, 3], digits)}', file=out)
        print(f'  rpy   {_fmt(matrix_to_rpy(pose), digits)}', file=out)
        print(f'  xyzw  {_fmt(quaternion, digits)}', file=out)
    return EXIT_OK


# ------------------------------------------------------------------ parsers


def _cmd_parsers(args: argparse.Namespace, out: TextIO) -> int:
    """
    List parsers and options.

    What ``--parser`` accepts and which ROS parameters (``<parser>.<option>``) the node
    declares for them.
    """
    registry = default_registry()
    if args.file is not None:
        data = decode(read_input(args.file))
        print(f'{args.file}: {registry.select(data)} would read it', file=out)
        _print_scores(registry.scores(data), len(data), out)
    for parser in registry:
        cls = type(parser)
        print(f'{parser.name}  ({cls.__module__}.{cls.__qualname__})', file=out)
        if not parser.options:
            print('  (no options)', file=out)
        for option in parser.options:
            print(f'  {option.name}  type={option_type_name(option.type)}  '
                  f'default={option.default!r}', file=out)
            if option.description:
                print(f'      {option.description}', file=out)
    return EXIT_OK


# ------------------------------------------------------------------ entry point


def _add_tree_arguments(parser: argparse.ArgumentParser) -> None:
    add_load_arguments(parser)
    parser.add_argument('--dot', action='store_true',
                        help='print a Graphviz graph instead (e.g. | dot -Tpdf -o tree.pdf)')


def _add_fk_arguments(parser: argparse.ArgumentParser) -> None:
    add_load_arguments(parser)
    srdf_summary.add_fk_arguments(parser)
    parser.add_argument('--set', '--joint', dest='set', action='append', default=[],
                        metavar='NAME=VALUE',
                        help='joint variable value, e.g. elbow=-pi/2 (repeatable)')
    parser.add_argument('--link', '--frame', dest='link', action='append', default=[],
                        metavar='LINK', help='link to print (repeatable; default: all)')
    parser.add_argument('--ignore-limits', action='store_true',
                        help='do not clamp bounded joints into their limits')
    parser.add_argument('--digits', type=int, default=6, choices=range(0, 17), metavar='N',
                        help='decimals to print (default: 6)')


def _add_parsers_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('file', nargs='?', metavar='FILE',
                        help="also show each parser's score for this file ('-' = stdin)")


@dataclass(frozen=True)
class Command:
    """One command: its help, arguments and implementation, shared by both front ends."""

    name: str
    help: str  # noqa: A003 - a dataclass field, read as command.help; no builtin hidden
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]


COMMANDS: tuple[Command, ...] = (
    Command('check', 'parse and summarise a description',
            'Parse FILE and print the parser chosen, counts and the link tree. '
            'Exit 1 with the reason when it is invalid.', add_load_arguments, _cmd_check),
    Command('tree', 'the link/joint tree (or Graphviz with --dot)',
            'Print the link/joint tree of FILE with joint types, mimic and limits.',
            _add_tree_arguments, _cmd_tree),
    Command('fk', 'root-relative link poses',
            'Print the root-relative pose of links for given joint values '
            '(others take their defaults).', _add_fk_arguments, _cmd_fk),
    Command('parsers', 'list registered parsers and their options',
            "List the parsers, their options (the node's <parser>.<option> parameters) and, "
            'with FILE, which one reads it.', _add_parsers_arguments, _cmd_parsers),
    Command('status', "a running urdf_state node's model, parser, rates and last rejection",
            "Read a running urdf_state node's /diagnostics and parameters (needs ROS).",
            node_status.add_arguments, node_status.run),
    Command('view', 'the robot live in a browser (3D, from robot_description and TF)',
            'Serve a live 3D view of the robot (three.js + urdf-loader) from the '
            'robot_description topic, /tf and /tf_static, and print the URL to open (needs ROS).',
            view_command.add_arguments, view_command.run),
)


def build_parser() -> argparse.ArgumentParser:
    """Return the argparse tree (public so tests and docs can introspect it)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Inspect a robot description with the urdf_state_py parsers and '
                    'kinematics (no ROS needed but for status and view).')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND', required=True)
    for command in COMMANDS:
        command_parser = sub.add_parser(command.name, help=command.help,
                                        description=command.description)
        command.add_arguments(command_parser)
        command_parser.set_defaults(func=command.run)
    return parser


def run_command(run: Callable[[argparse.Namespace, TextIO], int], args: argparse.Namespace,
                out: TextIO | None = None) -> int:
    """
    Run one command and return its exit status.

    Errors are turned into one ``error: ...`` line because the audience is a
    user fixing a file, for whom a traceback is noise.
    """
    try:
        return run(args, out or sys.stdout)
    except (DescriptionError, node_status.StatusError, view_command.ViewError) as exc:
        print(f'error: {exc}', file=sys.stderr)
        return EXIT_INVALID
    except UsageError as exc:
        print(f'error: {exc}', file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `urdf_state_check check big.urdf | head`: not an error worth reporting.
        try:
            sys.stdout = open(os.devnull, 'w')  # silence flush at exit
        except OSError:
            pass
        return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit status (the console script exits with it)."""
    args = build_parser().parse_args(argv)
    return run_command(args.func, args)


if __name__ == '__main__':
    sys.exit(main())
