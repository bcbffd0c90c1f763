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
``view``: the robot live in a browser (``ros2 urdf view``, ``python -m urdf_state_py view``).

Starts the web server (:mod:`.http_server`) on a thread and the ROS side
(:mod:`.view_node`) in the main thread until Ctrl-C, and prints the URL to
open. Like ``status``, it uses the caller's ROS environment as it is (domain,
discovery range): it must see the robot where the user runs it. The web
server binds 127.0.0.1 unless ``--host`` says otherwise, and then says who
can see the robot. rclpy is imported only when the command runs, so the rest
of the CLI works without ROS.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from typing import TextIO

from .assets import AssetsMissing, find_assets, install_assets
from .http_server import ViewServer
from .npm_install import InstallError
from .resolver import Resolver
from .view_state import DescriptionLoader, PageOptions, ViewState
from ..cli_values import UsageError

__all__ = ['ViewError', 'add_arguments', 'run', 'DEFAULT_PORT']

#: Below Fast DDS's port range for the common domains (7400 + 250 * domain + ...).
DEFAULT_PORT = 8090


class ViewError(Exception):
    """The view cannot start (no ROS, no assets, port taken): exit 1, one line on stderr."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``view`` command's arguments (for ``python -m urdf_state_py`` and ``ros2 urdf``)."""
    parser.add_argument('--install-assets', action='store_true',
                        help='install the pinned three.js and urdf-loader (sha512 from the '
                             "package's package-lock.json) from the npm registry into "
                             '$URDF_STATE_WEB_LIB or ~/.local/share/urdf_state_py/web_lib, '
                             'then exit')
    parser.add_argument('--port', type=int, default=DEFAULT_PORT, metavar='P',
                        help=f'TCP port (default {DEFAULT_PORT}; 0: any free port)')
    parser.add_argument('--host', default='127.0.0.1', metavar='H',
                        help='address to listen on (default 127.0.0.1: this machine only)')
    parser.add_argument('--package-path', action='append', default=[], metavar='PKG=DIR',
                        help='folder of a package for package://PKG/... meshes (repeatable; '
                             'before the ament index)')
    parser.add_argument('--allow-dir', action='append', default=[], metavar='DIR',
                        help='folder whose files may be served for file:// and plain-path '
                             'meshes (repeatable; plain relative paths are relative to the '
                             'current folder)')
    parser.add_argument('--fixed-frame', default=None, metavar='F',
                        help="frame the view is drawn in (default: the description's root "
                             'link, with the frame prefix)')
    parser.add_argument('--frame-prefix', default=None, metavar='P',
                        help="prefix of the robot's TF frames, as the node's frame_prefix "
                             '(default: with --namespace, the frame_prefix parameter of the '
                             'node publishing the description; else found from /tf)')
    parser.add_argument('--namespace', action='append', default=[], metavar='NS',
                        help='show the robot of NS (its NS/robot_description, its frames under '
                             'its frame_prefix); repeat it to show several robots side by side '
                             'in one scene (default: robot_description)')


def _package_paths(items: list[str]) -> dict[str, str]:
    """``PKG=DIR`` flags as a dict; each DIR must be a folder."""
    packages = {}
    for item in items:
        name, sep, folder = item.partition('=')
        if not sep or not name or not folder:
            raise UsageError(f"--package-path '{item}' is not of the form PKG=DIR")
        if not os.path.isdir(folder):
            raise UsageError(f"--package-path {name}: '{folder}' is not a folder")
        packages[name.strip()] = os.path.abspath(folder)
    return packages


def _ament_packages() -> dict[str, str]:
    """Every package of the ament index (name -> share folder); none without ament_index."""
    try:
        from ament_index_python.packages import get_packages_with_prefixes
        found = get_packages_with_prefixes()
    except (ImportError, OSError):   # OSError: AMENT_PREFIX_PATH unset
        return {}
    return {name: os.path.join(prefix, 'share', name) for name, prefix in found.items()}


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Serve until Ctrl-C (exit 0); with ``--install-assets`` install the libraries and exit."""
    if args.install_assets:
        try:
            install_assets(out)
        except InstallError as exc:
            raise ViewError(f'--install-assets: {exc}') from None
        return 0
    try:
        from urdf_state_py.node.process.spin import (make_executor,
                                                     spin_until_shutdown)

        from .view_node import ViewNode  # needs rclpy
    except ImportError as exc:
        raise ViewError(f'view needs ROS 2 (rclpy): {exc}; source a ROS 2 distro or use '
                        './dev.sh python -m urdf_state_py view') from None
    for folder in args.allow_dir:
        if not os.path.isdir(folder):
            raise UsageError(f"--allow-dir '{folder}' is not a folder")
    packages = {**_ament_packages(), **_package_paths(args.package_path)}
    try:
        assets = find_assets()
    except AssetsMissing as exc:
        raise ViewError(str(exc)) from None
    resolver = Resolver(packages, [os.path.abspath(d) for d in args.allow_dir], os.getcwd())
    if args.frame_prefix is not None and len(args.namespace) > 1:
        raise UsageError("--frame-prefix names one robot's prefix: with several --namespace, "
                         "each robot's node tells its own")
    state = ViewState(resolver, PageOptions(args.fixed_frame, args.frame_prefix), args.namespace)
    try:
        server = ViewServer((args.host, args.port), state, assets)
    except OSError as exc:
        raise ViewError(f'cannot listen on {args.host}:{args.port}: {exc.strerror or exc} '
                        '(--port 0 picks a free port)') from None
    thread = threading.Thread(target=server.serve_forever, name='view-http', daemon=True)
    thread.start()
    loaders = [DescriptionLoader(state, index) for index in range(len(state.robots))]
    if not server.loopback:
        print(f'warning: listening on {args.host}: every machine that reaches it sees the robot '
              'and its meshes', file=sys.stderr)
    topics = ', '.join(robot.topic for robot in state.robots)
    print(f'urdf view: open {server.url}  ({topics}, /tf, /tf_static on '
          f"ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID', '0')}; Ctrl-C to stop)",
          file=out, flush=True)
    try:
        spin_until_shutdown(lambda: ViewNode(state, loaders), args=[], executor=make_executor)
    finally:
        for loader in loaders:
            loader.stop()
        server.shutdown()
        server.server_close()
    return 0
