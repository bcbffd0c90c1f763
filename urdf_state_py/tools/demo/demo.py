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
The urdf_state demo: state publisher + joint sweeper + terminal TF viewer.

``python -m urdf_state_py.tools.demo [--model PATH] [--xacro-arg n:=v] [--duration S] [--rate HZ]``
(console script ``urdf_state_demo``)

``--fleet N``: N copies of the robot in one ``urdf_state_container`` started from a
fleet file (namespaces ``/r1`` .. ``/rN``, frame prefixes ``r1/`` ..), one
sweeper driving them all, and the viewer showing every robot.

Starts three separate processes on a loopback-only ROS graph:

1. the state publisher, ``python -m urdf_state_py.node --ros-args --params-file F``
   (the description travels in a parameters file: a 50 kB URDF does not belong
   on a command line);
2. the joint-state source, ``python -m urdf_state_py.tools.demo.sweep`` (every active
   joint swept within its limits);
3. the TF viewer, ``python -m urdf_state_py.tools.tf_view``, in the foreground: its
   screen is the demo's output; with ``--web``, the 3D view instead
   (``python -m urdf_state_py view``), which prints the URL to open.

The model defaults to the bundled Unitree H1_2 humanoid; with ``--web`` to TALOS
with its meshes (:mod:`.mesh_robot`). Ctrl-C or
``--duration`` ends all three (SIGINT, wait, then terminate). The viewer
closes with a summary (``58/58 frames of the model's links arrived``); the demo
exits 0 when every link's frame arrived and 1 otherwise (2: bad arguments or
model, 3: a helper process died). ``--until-complete`` stops as soon as every
frame has arrived (``--duration`` is then a cap), which is what the tests use.

The node's and the sweeper's output goes to log files in a temporary folder,
kept (and named) only when something went wrong.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import os
from pathlib import Path
import shutil
import signal
import sys
import tempfile
import time

from urdf_state_py.node.process.loopback import ensure_loopback

from .child_process import ChildProcess, ReceivedSignals, sleep_until
from .mesh_robot import example_robot_data
from .mesh_robot import PACKAGE as MESH_PACKAGE
from .mesh_robot import TALOS
from ..view.command import DEFAULT_PORT
from ..xacro_args import load_model_file_with_args

PACKAGE = 'urdf_state_py'
DEFAULT_ROBOT = Path('robots') / 'h1_2' / 'h1_2.urdf'
VIEWER_GRACE = 1.5      # after Ctrl-C, seconds before the viewer gets a SIGINT of its own


def default_model_path() -> Path | None:
    """Return the bundled H1_2 URDF: source tree first, then the installed share folder."""
    candidates = [Path(__file__).resolve().parents[3] / DEFAULT_ROBOT]
    try:
        from ament_index_python.packages import get_package_share_directory
        candidates.append(Path(get_package_share_directory(PACKAGE)) / DEFAULT_ROBOT)
    except Exception:  # ament_index absent or package not indexed
        pass
    # pip/setuptools installs data_files below sys.prefix.
    candidates.append(Path(sys.prefix) / 'share' / PACKAGE / DEFAULT_ROBOT)
    for path in candidates:
        if path.is_file():
            return path
    return None


def write_params_file(folder: Path, *, description: str, model_path: Path,
                      xacro_args: Sequence[str], frame_prefix: str = '') -> Path:
    """
    Return a ``/**: ros__parameters:`` file for the node (read by rcl's YAML parser).

    Empty string arrays are left out: rcl cannot type an empty YAML sequence.
    """
    import yaml

    params: dict = {'robot_description': description}
    if frame_prefix:
        params['frame_prefix'] = frame_prefix
    xacro = {'base_dir': str(model_path.parent)}
    if xacro_args:
        xacro['args'] = list(xacro_args)
    params['xacro'] = xacro
    path = folder / 'urdf_state_params.yaml'
    path.write_text(yaml.safe_dump({'/**': {'ros__parameters': params}}, allow_unicode=True,
                                   default_flow_style=False, width=1 << 30), encoding='utf-8')
    return path


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog='urdf_state_demo',
        description='Run the state publisher on a robot with swept joints and watch its TF '
                    'tree in the terminal (three processes, loopback-only DDS).')
    p.add_argument('--model', type=Path, default=None,
                   help='URDF or xacro file (default: the bundled Unitree H1_2; with --web, '
                        'TALOS with its meshes from example-robot-data when installed)')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument (repeatable)')
    p.add_argument('--duration', type=float, default=None,
                   help='seconds to run (default: until Ctrl-C)')
    p.add_argument('--until-complete', action='store_true',
                   help="stop as soon as every link's frame has arrived "
                        '(with --duration as a cap)')
    p.add_argument('--rate', type=float, default=50.0, help='joint state rate in Hz (default 50)')
    p.add_argument('--frame-prefix', default='', help='frame_prefix parameter of the node')
    p.add_argument('--frames', default='',
                   help='comma-separated frames whose pose the viewer shows')
    p.add_argument('--plain', action='store_true', help='no ANSI screen clearing in the viewer')
    p.add_argument('--web', action='store_true',
                   help='show the robot in the browser (the view command) instead of the '
                        'terminal viewer; prints the URL to open')
    p.add_argument('--fleet', type=int, default=0, metavar='N',
                   help='N robots (/r1 .. /rN) in one urdf_state_container, loaded from a '
                        'fleet file, instead of one urdf_state node')
    p.add_argument('--port', type=int, default=DEFAULT_PORT,
                   help=f"with --web: the page's port (default {DEFAULT_PORT}; 0: any free one)")
    return p


def fleet_namespaces(count: int) -> list[str]:
    """Return the namespaces of ``--fleet N``: ``/r1`` .. ``/rN``."""
    return [f'/r{k}' for k in range(1, count + 1)]


def write_fleet_file(folder: Path, model_path: Path, xacro_args: Sequence[str],
                     count: int) -> Path:
    """Return the fleet file of ``--fleet N`` (config/fleet.example.yaml's schema)."""
    import yaml

    robots = [{'namespace': ns, 'model': str(model_path), 'frame_prefix': f'{ns[1:]}/',
               **({'xacro_args': list(xacro_args)} if xacro_args else {})}
              for ns in fleet_namespaces(count)]
    path = folder / 'fleet.yaml'
    path.write_text(yaml.safe_dump({'robots': robots}, sort_keys=False), encoding='utf-8')
    return path


def _prefixes(args: argparse.Namespace) -> list[str]:
    """Return the frame prefix of each robot the demo shows."""
    if args.fleet:
        return [f'{ns[1:]}/' for ns in fleet_namespaces(args.fleet)]
    return [args.frame_prefix] if args.frame_prefix else []


def _tf_view_argv(args: argparse.Namespace, model_args: list[str], title: str) -> list[str]:
    """Return the terminal TF viewer's command line."""
    argv = [sys.executable, '-m', f'{PACKAGE}.tools.tf_view', *model_args, '--title', title]
    for prefix in _prefixes(args):
        argv += ['--frame-prefix', prefix]
    if args.duration is not None:
        argv += ['--duration', str(args.duration)]
    if args.until_complete:
        argv.append('--until-complete')
    if args.frames:
        argv += ['--frames', args.frames]
    if args.plain:
        argv.append('--plain')
    return argv


def _web_argv(args: argparse.Namespace, model_path: Path) -> list[str]:
    """
    Return the 3D view's command line.

    Meshes may come from the model's folder (and example-robot-data's); each robot of
    --fleet by its namespace.
    """
    argv = [sys.executable, '-m', PACKAGE, 'view', '--port', str(args.port),
            '--allow-dir', str(model_path.parent)]
    meshes = example_robot_data()
    if meshes is not None:
        argv += ['--package-path', f'{MESH_PACKAGE}={meshes}']
    for ns in fleet_namespaces(args.fleet):
        argv += ['--namespace', ns]
    if args.frame_prefix:
        argv += ['--frame-prefix', args.frame_prefix]
    return argv


def _demo_model(args: argparse.Namespace) -> Path | None:
    """
    Return the demo's model: --model, else a bundled or installed robot.

    Without --model: for the browser TALOS with its meshes (example-robot-data), and the
    bundled H1_2 (no meshes: a skeleton in the browser) where that is not installed.
    """
    if args.model:
        return args.model
    meshes = example_robot_data() if args.web else None
    if args.web and meshes is None:
        print('urdf_state_demo: example-robot-data is not installed (./dev.sh setup installs '
              'it): showing the bundled H1_2, which has no meshes', file=sys.stderr)
    return meshes / TALOS if meshes is not None else default_model_path()


def _publisher_argv(args: argparse.Namespace, workdir: Path, params: Path,
                    model_path: Path) -> list[str]:
    """Return the state publisher's command line: the node, or with --fleet the container."""
    if not args.fleet:
        return [sys.executable, '-m', f'{PACKAGE}.node',
                '--ros-args', '--params-file', str(params)]
    fleet = write_fleet_file(workdir, model_path, args.xacro_arg, args.fleet)
    return [sys.executable, '-m', f'{PACKAGE}.node.process.container', '--ros-args',
            '-p', f'fleet:={fleet}', '-p', f'load_node.max_robots:={max(64, args.fleet)}']


def run(args: argparse.Namespace) -> int:
    model_path = _demo_model(args)
    if model_path is None:
        print(f'urdf_state_demo: the bundled robot {DEFAULT_ROBOT} was not found; '
              'pass --model PATH', file=sys.stderr)
        return 2
    model_path = Path(model_path).resolve()
    try:
        text = model_path.read_text(encoding='utf-8')
    except OSError as exc:
        print(f'urdf_state_demo: cannot read {model_path}: {exc}', file=sys.stderr)
        return 2
    try:
        model = load_model_file_with_args(model_path, args.xacro_arg)
    except Exception as exc:  # a bad model is a message, not a traceback
        print(f'urdf_state_demo: cannot load {model_path}: {exc}', file=sys.stderr)
        return 2

    env = ensure_loopback()
    src_root = str(Path(__file__).resolve().parents[3])
    env['PYTHONPATH'] = os.pathsep.join(
        [src_root] + [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p])
    env['PYTHONUNBUFFERED'] = '1'
    domain = env['ROS_DOMAIN_ID']

    workdir = Path(tempfile.mkdtemp(prefix='urdf_state_demo_'))
    params = write_params_file(workdir, description=text, model_path=model_path,
                               xacro_args=args.xacro_arg, frame_prefix=args.frame_prefix)
    model_args = ['--model', str(model_path)] + [f'--xacro-arg={a}' for a in args.xacro_arg]
    n_active = len(model.active_joint_names)
    robots = f'{args.fleet} x robot' if args.fleet else 'robot'
    title = (f'urdf_state demo | {robots} {model.name}: {len(model.link_names)} links, '
             f'{n_active} swept joints, {len(model.mimic_joint_names)} mimic | '
             f'ROS_DOMAIN_ID={domain} (loopback only) | Ctrl-C to stop\n'
             f'rviz: ROS_DOMAIN_ID={domain} ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST rviz2 '
             f'(fixed frame {(_prefixes(args) or [""])[0]}{model.root})')
    print(f'urdf_state_demo: {model.name} from {model_path}, ROS_DOMAIN_ID={domain}', flush=True)

    py = sys.executable
    children: list[ChildProcess] = []
    viewer: ChildProcess | None = None
    code = 0
    failed: ChildProcess | None = None
    failed_code = 0
    # The terminal viewer ends itself after --duration (this is only the backstop); the web
    # view runs until told.
    backstop = 0.0 if args.web else 20.0
    deadline = (time.monotonic() + args.duration + backstop) if args.duration is not None else None
    with ReceivedSignals() as signals:
        try:
            node_argv = _publisher_argv(args, workdir, params, model_path)
            children.append(ChildProcess('node', node_argv, env, workdir / 'node.log'))
            sweep = [py, '-m', f'{PACKAGE}.tools.demo.sweep', *model_args,
                     '--rate', str(args.rate)]
            for ns in fleet_namespaces(args.fleet):
                sweep += ['--namespace', ns]
            children.append(ChildProcess('sweep', sweep, env, workdir / 'sweep.log'))
            view_argv = _web_argv(args, model_path) if args.web else _tf_view_argv(
                args, model_args, title)
            if not signals.received:
                # the web view's relative mesh paths are relative to the model's folder
                viewer = ChildProcess('view' if args.web else 'tf_view', view_argv, env, None,
                                      ignore_sigint=True,
                                      cwd=model_path.parent if args.web else None)
            # Foreground: wait for the viewer, watching that the helpers stay alive.
            while viewer is not None and viewer.running() and not signals.received:
                failed = next((c for c in children if not c.running()), None)
                if failed is not None:
                    break
                if deadline is not None and time.monotonic() > deadline:
                    if not args.web:
                        print('urdf_state_demo: the viewer overran --duration; stopping',
                              file=sys.stderr)
                    break
                time.sleep(0.1)
        finally:
            if viewer is not None:
                if signals.interrupted and not signals.terminated:
                    # Ctrl-C reached the viewer too: give it a moment to print its summary.
                    sleep_until(lambda: not viewer.running(), VIEWER_GRACE)
                code = viewer.stop()
                if signals.interrupted and code in (130, -signal.SIGINT):
                    code = 0    # Ctrl-C before the viewer was up: nothing to report
            for child in reversed(children):
                child_code = child.stop()
                if failed is child:
                    failed_code = child_code
    if failed is not None:
        print(f'\nurdf_state_demo: the {failed.name} process exited early '
              f'(code {failed_code}); last lines of {failed.log}:\n{failed.tail()}',
              file=sys.stderr)
        print(f'logs kept in {workdir}', file=sys.stderr)
        return 3
    if code not in (0, 1):
        # The viewer died (not a normal "frames missing" end): show what the helpers said.
        for child in children:
            print(f'--- {child.name} ({child.log}):\n{child.tail()}', file=sys.stderr)
        print(f'logs kept in {workdir}', file=sys.stderr)
        return code if code > 0 else 1
    if code != 0:
        print(f'logs kept in {workdir}', file=sys.stderr)
        return code
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.until_complete and args.web:
        build_parser().error('--until-complete needs the terminal viewer (not --web)')
    if args.until_complete and args.duration is None:
        args.duration = 60.0   # the cap when waiting for completeness
    if args.rate <= 0:
        build_parser().error('--rate must be > 0')
    if args.fleet < 0 or (args.fleet and args.frame_prefix):
        build_parser().error("--fleet takes N >= 1 and sets each robot's frame prefix (rK/)")
    try:
        return run(args)
    except KeyboardInterrupt:
        return 0


if __name__ == '__main__':
    sys.exit(main())
