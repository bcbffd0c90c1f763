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
A terminal TF viewer: the frame tree, rates and live poses from /tf and /tf_static.

``python -m urdf_state_py.tools.tf_view [--model PATH] [--frames a,b] [--duration S]``

This module is the ROS side: :class:`TfView` subscribes the topics and fills a
:class:`~urdf_state_py.tools.tf_view.frame_tree.FrameTree`; what is shown comes from
:mod:`urdf_state_py.tools.tf_view.tf_screen`. Both of those are ROS-free and tested alone.

With ``--model`` the viewer knows which frames to expect (the model's links,
with ``--frame-prefix``) and, when it ends, prints a summary such as
``58/58 frames`` and exits with status 1 when some link's frame never arrived.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
import os
import signal
import sys
import time

from builtin_interfaces.msg import Time
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.utilities import remove_ros_args
from tf2_msgs.msg import TFMessage
from urdf_state_py.node.process.loopback import ensure_loopback
from urdf_state_py.node.process.spin import spin_until_shutdown

from .frame_tree import FrameTree
from .tf_screen import RateMeter, render, Screen, Stats, summary
from ..xacro_args import load_model_file_with_args

__all__ = ['TfView', 'main']

#: The longest a spin waits between two checks of --duration and --until-complete.
MAX_SPIN_S = 0.05


def _stamp_seconds(stamp: Time) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


class TfView(Node):
    """Subscribes /tf and /tf_static and keeps a :class:`FrameTree`."""

    def __init__(self, *, node_name: str = 'tf_view', tf_topic: str = '/tf',
                 static_topic: str = '/tf_static', **kwargs) -> None:
        super().__init__(node_name, **kwargs)
        self.tree = FrameTree()
        self.stats = Stats(RateMeter(), RateMeter())
        dynamic_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                                 reliability=ReliabilityPolicy.RELIABLE,
                                 durability=DurabilityPolicy.VOLATILE)
        static_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                                reliability=ReliabilityPolicy.RELIABLE,
                                durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.create_subscription(TFMessage, tf_topic, self._on_tf, dynamic_qos)
        self.create_subscription(TFMessage, static_topic, self._on_static, static_qos)

    def _ingest(self, msg: TFMessage, static: bool) -> None:
        now = time.monotonic()
        for t in msg.transforms:
            tr, rot = t.transform.translation, t.transform.rotation
            self.tree.update(t.header.frame_id, t.child_frame_id, (tr.x, tr.y, tr.z),
                             (rot.x, rot.y, rot.z, rot.w), static=static,
                             stamp=_stamp_seconds(t.header.stamp), received=now)

    def _on_tf(self, msg: TFMessage) -> None:
        self._ingest(msg, static=False)
        now = time.monotonic()
        self.stats.tf_messages.add(1, now)
        self.stats.tf_transforms.add(len(msg.transforms), now)

    def _on_static(self, msg: TFMessage) -> None:
        self._ingest(msg, static=True)
        self.stats.static_messages += 1
        self.stats.static_transforms += len(msg.transforms)


def _load_expected(args: argparse.Namespace) -> tuple[list[str] | None, str]:
    """Return the frame ids ``--model`` promises (its links, prefixed) and its name, or None."""
    if not args.model:
        return None, ''
    model = load_model_file_with_args(args.model, args.xacro_arg)
    return [prefix + name for prefix in args.frame_prefix or [''] for name in model.link_names], \
        model.name


def build_parser() -> argparse.ArgumentParser:
    """Return the command line of :func:`main` (ROS arguments are removed before it parses)."""
    p = argparse.ArgumentParser(
        prog='python -m urdf_state_py.tools.tf_view',
        description='Terminal TF viewer: frame tree, rates and live poses from /tf, /tf_static.')
    p.add_argument('--model', help='URDF/xacro whose links are the expected frames '
                   '(enables the "N/M frames" summary and the exit status)')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument for --model (repeatable)')
    p.add_argument('--frame-prefix', action='append', default=[],
                   help='prefix of the expected frame ids (repeatable: one robot each)')
    p.add_argument('--frames', default='', help='comma-separated frames whose pose is shown '
                   '(default: up to 6 of the deepest leaves)')
    p.add_argument('--duration', type=float, default=None,
                   help='stop after this many seconds (default: until Ctrl-C)')
    p.add_argument('--until-complete', action='store_true',
                   help='stop as soon as every expected frame has arrived (needs --model)')
    p.add_argument('--refresh', type=float, default=2.0, help='screen refreshes per second')
    p.add_argument('--tree', choices=('auto', 'full', 'compact', 'none'), default='auto',
                   help='tree layout (auto: full when it fits the terminal, else compact)')
    p.add_argument('--title', default='', help='first line of every screen')
    p.add_argument('--plain', action='store_true',
                   help='never use ANSI screen clearing (default when stdout is not a tty)')
    return p


class _Display:
    """
    The viewer's work between two spins: redraw when due, and say when to stop.

    ``step`` is :func:`spin_until_shutdown`'s hook: it returns how long the
    next spin may wait (short, so --duration and completion are noticed
    promptly), or None once --duration has passed or, with --until-complete,
    every expected frame is there (drawn one last time first).
    """

    def __init__(self, args: argparse.Namespace, expected: list[str] | None, title: str) -> None:
        self.args = args
        self.expected = expected
        self.title = title
        self.watch = [f.strip() for f in args.frames.split(',') if f.strip()] or None
        self.screen = Screen(args.plain)
        self.start = time.monotonic()
        self.period = 1.0 / max(args.refresh, 0.1)
        self.next_draw = self.start + min(self.period, 0.5)
        self.node: TfView | None = None

    def make_node(self) -> TfView:
        """Build the node this display shows (kept for the closing summary)."""
        self.node = TfView()
        return self.node

    def step(self) -> float | None:
        """Redraw if due; the next spin's timeout, or None to stop."""
        node, args = self.node, self.args
        now = time.monotonic()
        if args.duration is not None and now - self.start >= args.duration:
            return None
        complete = False
        if args.until_complete and self.expected is not None:
            frames = node.tree.frames
            complete = all(f in frames for f in self.expected)
        if now >= self.next_draw or complete:
            self._draw(now)
            self.next_draw = now + self.period
        if complete:
            return None
        return min(MAX_SPIN_S, max(self.next_draw - now, 0.0))

    def _draw(self, now: float) -> None:
        node, screen = self.node, self.screen
        cols, lines = screen.size()
        mode = self.args.tree
        if mode == 'auto':
            mode = 'full' if len(node.tree.frames) + 14 <= lines else 'compact'
        screen.show(render(node.tree, node.stats, watch=self.watch, expected=self.expected,
                           title=self.title + f'   [{now - self.start:5.1f} s]', now=now,
                           tree_mode=mode, width=cols,
                           max_lines=lines - 1 if screen.ansi else None))


def main(argv: Sequence[str] | None = None) -> int:
    """
    Entry point of ``python -m urdf_state_py.tools.tf_view``.

    Returns 0, or 1 when some expected frame never arrived (or the node never
    started), 2 when ``--model`` cannot be loaded.
    """
    # The demo starts the viewer with SIGINT ignored so that a Ctrl-C during
    # interpreter start-up cannot print a traceback; from here on Ctrl-C is a
    # KeyboardInterrupt again, handled quietly (by spin_until_shutdown, or in __main__).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    raw = list(sys.argv if argv is None else ['tf_view', *argv])
    args = build_parser().parse_args(remove_ros_args(raw)[1:])
    if args.until_complete and not args.model:
        build_parser().error('--until-complete needs --model')
    try:
        expected, model_name = _load_expected(args)
    except Exception as exc:  # shown to the user, not a traceback
        print(f'tf_view: cannot load --model {args.model}: {exc}', file=sys.stderr)
        return 2
    ensure_loopback()
    title = args.title or (f'tf_view  ROS_DOMAIN_ID={os.environ.get("ROS_DOMAIN_ID", "0")}'
                           + (f'  model: {model_name}' if model_name else ''))
    display = _Display(args, expected, title)
    interrupted = False
    try:
        interrupted = spin_until_shutdown(display.make_node, args=raw, step=display.step)
    finally:
        node = display.node
        if node is None:
            ok = False
        else:
            text, ok = summary(node.tree, expected, node.stats, time.monotonic() - display.start)
            if interrupted and display.screen.ansi:
                sys.stdout.write('\n')
            print(text, flush=True)
    return 0 if ok else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:   # a second Ctrl-C during shutdown
        sys.exit(130)
