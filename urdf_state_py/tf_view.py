"""A terminal TF viewer: the frame tree, rates and live poses from /tf and /tf_static.

``python -m urdf_state_py.tf_view [--model PATH] [--frames a,b] [--duration S]``

The logic that does not need ROS (:class:`FrameTree`, :class:`RateMeter`,
:func:`render`, :func:`pick_frames`, quaternion helpers) is kept at module
level and free of ROS imports so it can be unit-tested; rclpy and the message
packages are only imported by :class:`TfView` / :func:`main`.

With ``--model`` the viewer knows which frames to expect (the model's links,
with ``--frame-prefix``) and, when it ends, prints a summary such as
``58/58 frames`` and exits with status 1 when some link's frame never arrived.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import signal
import sys
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w (ROS order)

IDENTITY: tuple[Vec3, Quat] = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))

CLEAR_HOME = '\x1b[H'       # cursor to top-left
CLEAR_EOL = '\x1b[K'        # erase to end of line
CLEAR_EOS = '\x1b[J'        # erase to end of screen

STATIC_MARK = '='
MOVING_MARK = '~'


# --------------------------------------------------------------------------- math

def quat_multiply(a: Quat, b: Quat) -> Quat:
    """Hamilton product a*b, both (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quat_normalize(q: Quat) -> Quat:
    n = math.sqrt(sum(c * c for c in q))
    if n < 1e-12 or not math.isfinite(n):
        return (0.0, 0.0, 0.0, 1.0)
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def quat_rotate(q: Quat, v: Vec3) -> Vec3:
    """Rotate vector ``v`` by unit quaternion ``q``."""
    x, y, z, w = q
    vx, vy, vz = v
    # t = 2 * cross(q.xyz, v); v' = v + w*t + cross(q.xyz, t)
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty),
            vy + w * ty + (z * tx - x * tz),
            vz + w * tz + (x * ty - y * tx))


def compose(a: tuple[Vec3, Quat], b: tuple[Vec3, Quat]) -> tuple[Vec3, Quat]:
    """Transform a*b: first b, then a (a maps b's parent frame into a's parent)."""
    (ta, qa), (tb, qb) = a, b
    r = quat_rotate(qa, tb)
    return ((ta[0] + r[0], ta[1] + r[1], ta[2] + r[2]), quat_normalize(quat_multiply(qa, qb)))


def quat_to_rpy(q: Quat) -> Vec3:
    """Fixed-axis roll, pitch, yaw (URDF convention, R = Rz*Ry*Rx) of a unit quaternion."""
    x, y, z, w = q
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    sinp = max(-1.0, min(1.0, 2.0 * (w * y - z * x)))
    pitch = math.asin(sinp)
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return (roll, pitch, yaw)


def rpy_to_quat(roll: float, pitch: float, yaw: float) -> Quat:
    """Inverse of :func:`quat_to_rpy`."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy)


# --------------------------------------------------------------------------- tree

@dataclass
class Edge:
    """The latest transform received for one child frame."""

    parent: str
    child: str
    translation: Vec3
    rotation: Quat
    static: bool
    stamp: float = 0.0       # header stamp, seconds
    received: float = 0.0    # local monotonic time of arrival
    updates: int = 0


class FrameTree:
    """Latest transform per child frame, and the frame forest they compose.

    Frame ids are normalised (a leading ``/`` is dropped, as tf2 does). A
    child that later arrives with another parent is re-parented (latest
    wins, as in tf2). Cycles are tolerated: the affected frames are reported
    as their own roots rather than looping forever.
    """

    def __init__(self) -> None:
        self.edges: dict[str, Edge] = {}

    @staticmethod
    def _norm(frame: str) -> str:
        return frame[1:] if frame.startswith('/') else frame

    def update(self, parent: str, child: str, translation: Sequence[float],
               rotation: Sequence[float], static: bool = False, stamp: float = 0.0,
               received: float | None = None) -> None:
        parent, child = self._norm(parent), self._norm(child)
        if not child or not parent or child == parent:
            return
        previous = self.edges.get(child)
        edge = Edge(parent, child, tuple(float(c) for c in translation),
                    quat_normalize(tuple(float(c) for c in rotation)),
                    static, stamp, time.monotonic() if received is None else received,
                    (previous.updates if previous else 0) + 1)
        # A frame once seen moving stays "moving" even if a static copy arrives.
        if previous is not None and not previous.static and previous.parent == parent:
            edge.static = edge.static and previous.static
        self.edges[child] = edge

    # -- structure ------------------------------------------------------------

    @property
    def frames(self) -> set[str]:
        """Every frame id seen, as a child or as a parent."""
        out = set(self.edges)
        out.update(e.parent for e in self.edges.values())
        return out

    def children(self) -> dict[str, list[str]]:
        """Child frames per parent, sorted by name."""
        kids: dict[str, list[str]] = {}
        for edge in self.edges.values():
            kids.setdefault(edge.parent, []).append(edge.child)
        for names in kids.values():
            names.sort()
        return kids

    def _ancestors(self, frame: str) -> list[str]:
        """Parents of ``frame`` up to its root (excluded ``frame``); stops at a cycle."""
        chain, seen = [], {frame}
        while frame in self.edges:
            frame = self.edges[frame].parent
            if frame in seen:
                break
            chain.append(frame)
            seen.add(frame)
        return chain

    def root_of(self, frame: str) -> str:
        chain = self._ancestors(frame)
        return chain[-1] if chain else frame

    def depth(self, frame: str) -> int:
        """Number of transforms between ``frame`` and its root."""
        return len(self._ancestors(frame))

    def roots(self) -> list[str]:
        """Frames with no parent (one per tree), plus one frame per parent cycle."""
        frames = self.frames
        roots = sorted(f for f in frames if f not in self.edges)
        reached = set()
        kids = self.children()
        stack = list(roots)
        while stack:
            f = stack.pop()
            if f in reached:
                continue
            reached.add(f)
            stack.extend(kids.get(f, ()))
        for f in sorted(frames - reached):     # frames on a cycle
            if f in reached:
                continue
            roots.append(f)
            stack = [f]
            while stack:
                g = stack.pop()
                if g in reached:
                    continue
                reached.add(g)
                stack.extend(kids.get(g, ()))
        return roots

    def leaves(self) -> list[str]:
        kids = self.children()
        return sorted(f for f in self.frames if f not in kids)

    def is_static(self, frame: str) -> bool | None:
        """None for roots (no transform of their own)."""
        edge = self.edges.get(frame)
        return None if edge is None else edge.static

    def pose(self, frame: str) -> tuple[str, Vec3, Quat]:
        """(root, translation, rotation) of ``frame`` relative to the root of its tree."""
        chain = [frame] + self._ancestors(frame)
        pose = IDENTITY
        root = chain[-1]
        # Compose from the root down: T_root_f = T_root_a * T_a_b * ... * T_x_f.
        for f in reversed(chain[:-1]):
            edge = self.edges[f]
            pose = compose(pose, (edge.translation, edge.rotation))
        return root, pose[0], pose[1]

    # -- presentation ---------------------------------------------------------

    def _walk(self) -> Iterable[tuple[str, str, int, bool]]:
        """(frame, prefix, depth, is_last) in depth-first order, roots first."""
        kids = self.children()
        visited: set[str] = set()
        for root in self.roots():
            stack = [(root, '', 0, True, True)]
            while stack:
                frame, prefix, depth, last, is_root = stack.pop()
                if frame in visited:
                    continue
                visited.add(frame)
                yield frame, ('' if is_root else prefix + ('└─ ' if last else '├─ ')), depth, last
                below = [c for c in kids.get(frame, ()) if c not in visited]
                child_prefix = '' if is_root else prefix + ('   ' if last else '│  ')
                for i, child in reversed(list(enumerate(below))):
                    stack.append((child, child_prefix, depth + 1, i == len(below) - 1, False))

    def mark(self, frame: str) -> str:
        static = self.is_static(frame)
        return '' if static is None else (STATIC_MARK if static else MOVING_MARK)

    def tree_lines(self) -> list[str]:
        """One frame per line, indented with box-drawing characters."""
        return [f'{prefix}{frame} {self.mark(frame)}'.rstrip() for frame, prefix, _, _ in self._walk()]

    def compact_lines(self, width: int = 100) -> list[str]:
        """Chains of only children joined on one line: ``a > b > c``, wrapped at ``width``.

        Each line starts at a frame with siblings (or a root) and is indented
        by its branching depth, so a humanoid fits a normal terminal.
        """
        kids = self.children()
        lines: list[str] = []
        visited: set[str] = set()

        def emit(start: str, level: int) -> None:
            chain, frame = [], start
            while True:
                visited.add(frame)
                chain.append(f'{frame}{self.mark(frame)}')
                below = [c for c in kids.get(frame, ()) if c not in visited]
                if len(below) != 1:
                    break
                frame = below[0]
            indent = '  ' * level
            text = indent + ' > '.join(chain)
            while len(text) > width > len(indent) + 20:
                cut = text.rfind(' > ', 0, width)
                if cut <= len(indent):
                    break
                lines.append(text[:cut] + ' >')
                text = indent + '    ' + text[cut + 3:]
            lines.append(text)
            for child in below:
                if child not in visited:
                    emit(child, level + 1)

        for root in self.roots():
            if root not in visited:
                emit(root, 0)
        return lines


def pick_frames(tree: FrameTree, count: int = 6) -> list[str]:
    """Leaves with the deepest chains, at most ``count``, spread over the tree.

    Deepest first; a first pass over the leaves at least a third as deep as the
    deepest takes at most one leaf per branch (grandparent frame), so a hand's
    fingers do not crowd out the feet; a second pass fills up by depth.
    """
    leaves = [f for f in tree.leaves() if f in tree.edges]
    leaves.sort(key=lambda f: (-tree.depth(f), f))
    picked: list[str] = []
    parents: set[str] = set()
    branch_of = {}
    for f in leaves:
        anc = tree._ancestors(f)
        branch_of[f] = anc[1] if len(anc) > 1 else (anc[0] if anc else f)
    deep = -(-tree.depth(leaves[0]) // 3) if leaves else 0    # ceil(max depth / 3)
    for f in leaves:
        if len(picked) >= count or tree.depth(f) < deep:
            break
        if branch_of[f] not in parents:
            picked.append(f)
            parents.add(branch_of[f])
    for f in leaves:
        if len(picked) >= count:
            break
        if f not in picked:
            picked.append(f)
    picked.sort(key=lambda f: (-tree.depth(f), f))
    return picked


class RateMeter:
    """Events per second over a sliding time window (default 2 s)."""

    def __init__(self, window: float = 2.0) -> None:
        self.window = float(window)
        self._events: deque[tuple[float, int]] = deque()
        self.total = 0
        self._first: float | None = None

    def add(self, count: int = 1, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        if self._first is None:
            self._first = now
        self._events.append((now, count))
        self.total += count
        self._trim(now)

    def _trim(self, now: float) -> None:
        while self._events and self._events[0][0] <= now - self.window:
            self._events.popleft()

    def rate(self, now: float | None = None) -> float:
        """Events per second in the last window (or since the first event when younger)."""
        now = time.monotonic() if now is None else now
        self._trim(now)
        if not self._events or self._first is None:
            return 0.0
        # Young meters divide by their age, but by no less than half a second so
        # that the very first events do not show absurd rates.
        span = max(min(self.window, now - self._first), min(0.5, self.window))
        return sum(c for _, c in self._events) / span


@dataclass
class Stats:
    """What the viewer counts besides the tree."""

    tf_messages: RateMeter
    tf_transforms: RateMeter
    static_transforms: int = 0
    static_messages: int = 0


def _fmt(v: float) -> str:
    return f'{v:+.3f}'


def render(tree: FrameTree, stats: Stats, *, watch: Sequence[str] | None = None,
           expected: Iterable[str] | None = None, title: str = '', now: float | None = None,
           tree_mode: str = 'full', width: int = 100, max_missing: int = 8,
           max_lines: int | None = None) -> str:
    """The whole screen as a string (no ANSI codes).

    ``watch``: frames whose root-relative pose is shown (default
    :func:`pick_frames`). ``expected``: frame ids that should exist (e.g. a
    model's links); the count of those seen and the missing ones are shown.
    ``tree_mode``: ``full`` (one frame per line), ``compact`` (chains on one
    line) or ``none``. ``max_lines``: the screen height; when everything does
    not fit, the tree is shortened (the header and the poses always show).
    """
    now = time.monotonic() if now is None else now
    out: list[str] = []
    if title:
        out.append(title)
    frames = tree.frames
    n_static = sum(1 for e in tree.edges.values() if e.static)
    n_moving = len(tree.edges) - n_static
    roots = tree.roots()
    out.append(f'frames: {len(frames)}  ({n_moving} moving {MOVING_MARK}, {n_static} static '
               f'{STATIC_MARK}, {len(roots)} root{"s" if len(roots) != 1 else ""}'
               f'{": " + ", ".join(roots[:4]) if roots else ""}{" ..." if len(roots) > 4 else ""})')
    out.append(f'/tf: {stats.tf_messages.rate(now):6.1f} msg/s  '
               f'{stats.tf_transforms.rate(now):7.1f} transforms/s   '
               f'/tf_static: {stats.static_transforms} transforms in '
               f'{stats.static_messages} msg')
    if expected is not None:
        expected = list(expected)
        missing = [f for f in expected if f not in frames]
        seen = len(expected) - len(missing)
        line = f'model links: {seen}/{len(expected)} frames'
        if missing:
            shown = ', '.join(missing[:max_missing])
            line += f'  missing: {shown}{" ..." if len(missing) > max_missing else ""}'
        out.append(line)
    tree_part: list[str] = []
    if tree_mode != 'none' and frames:
        tree_part = tree.compact_lines(width) if tree_mode == 'compact' else tree.tree_lines()
    if watch is None:
        watch = pick_frames(tree)
    poses: list[str] = []
    if watch:
        poses.append('')
        name_w = max(len(f) for f in watch)
        poses.append(f'{"frame":<{name_w}}  {"rel. to":<10} {"x":>7} {"y":>7} {"z":>7}   '
                         f'{"roll":>7} {"pitch":>7} {"yaw":>7}')
        for f in watch:
            if f not in frames:
                poses.append(f'{f:<{name_w}}  (not received)')
                continue
            root, xyz, q = tree.pose(f)
            rpy = quat_to_rpy(q)
            poses.append(f'{f:<{name_w}}  {root[:10]:<10} '
                             + ' '.join(f'{_fmt(v):>7}' for v in xyz)
                             + '   ' + ' '.join(f'{_fmt(v):>7}' for v in rpy))
    if tree_part and max_lines is not None:
        header = sum(line.count('\n') + 1 for line in out)
        budget = max_lines - header - len(poses) - 1
        if budget < 3:
            tree_part = []
        elif len(tree_part) > budget:
            hidden = len(tree_part) - (budget - 1)
            tree_part = tree_part[:budget - 1] + [
                f'... {hidden} more tree lines (enlarge the terminal, or --tree none)']
    if tree_part:
        out.append('')
        out.extend(tree_part)
    out.extend(poses)
    return '\n'.join(out)


def summary(tree: FrameTree, expected: Sequence[str] | None, stats: Stats,
            elapsed: float, max_missing: int = 12) -> tuple[str, bool]:
    """The closing text and whether every expected frame arrived."""
    frames = tree.frames
    lines = [f'tf_view: {len(frames)} frames, {stats.tf_messages.total} /tf messages '
             f'({stats.tf_transforms.total} transforms), {stats.static_transforms} static '
             f'transforms in {elapsed:.1f} s']
    ok = True
    if expected is not None:
        missing = [f for f in expected if f not in frames]
        ok = not missing
        text = f'summary: {len(expected) - len(missing)}/{len(expected)} frames ' \
               "of the model's links arrived"
        if missing:
            shown = ', '.join(missing[:max_missing])
            more = len(missing) - max_missing
            text += f' -- MISSING: {shown}' + (f' (and {more} more)' if more > 0 else '')
        lines.append(text)
    return '\n'.join(lines), ok


# --------------------------------------------------------------------------- ROS

def _stamp_seconds(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def _make_node_class():
    from rclpy.node import Node
    from rclpy.qos import (DurabilityPolicy, HistoryPolicy, QoSProfile,
                           ReliabilityPolicy)
    from tf2_msgs.msg import TFMessage

    class TfView(Node):
        """Subscribes /tf and /tf_static and keeps a :class:`FrameTree`."""

        def __init__(self, *, node_name: str = 'tf_view', tf_topic: str = '/tf',
                     static_topic: str = '/tf_static', **kwargs) -> None:
            super().__init__(node_name, **kwargs)
            self.tree = FrameTree()
            self.stats = Stats(RateMeter(), RateMeter())
            self.first_message: float | None = None
            dynamic_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                                     reliability=ReliabilityPolicy.RELIABLE,
                                     durability=DurabilityPolicy.VOLATILE)
            static_qos = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                                    reliability=ReliabilityPolicy.RELIABLE,
                                    durability=DurabilityPolicy.TRANSIENT_LOCAL)
            self.create_subscription(TFMessage, tf_topic, self._on_tf, dynamic_qos)
            self.create_subscription(TFMessage, static_topic, self._on_static, static_qos)

        def _ingest(self, msg, static: bool) -> None:
            now = time.monotonic()
            if self.first_message is None:
                self.first_message = now
            for t in msg.transforms:
                tr, rot = t.transform.translation, t.transform.rotation
                self.tree.update(t.header.frame_id, t.child_frame_id, (tr.x, tr.y, tr.z),
                                 (rot.x, rot.y, rot.z, rot.w), static=static,
                                 stamp=_stamp_seconds(t.header.stamp), received=now)

        def _on_tf(self, msg) -> None:
            self._ingest(msg, static=False)
            now = time.monotonic()
            self.stats.tf_messages.add(1, now)
            self.stats.tf_transforms.add(len(msg.transforms), now)

        def _on_static(self, msg) -> None:
            self._ingest(msg, static=True)
            self.stats.static_messages += 1
            self.stats.static_transforms += len(msg.transforms)

    return TfView


def __getattr__(name):  # lazy: importing this module must not need rclpy
    if name == 'TfView':
        cls = _make_node_class()
        globals()['TfView'] = cls
        return cls
    raise AttributeError(name)


def _load_expected(args) -> tuple[list[str] | None, str]:
    if not args.model:
        return None, ''
    from .sweep import load_model_any
    model = load_model_any(path=args.model, xacro_args=args.xacro_arg)
    return [args.frame_prefix + name for name in model.link_names], model.name


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog='python -m urdf_state_py.tf_view',
        description='Terminal TF viewer: frame tree, rates and live poses from /tf, /tf_static.')
    p.add_argument('--model', help='URDF/xacro whose links are the expected frames '
                   '(enables the "N/M frames" summary and the exit status)')
    p.add_argument('--xacro-arg', action='append', default=[], metavar='NAME:=VALUE',
                   help='xacro argument for --model (repeatable)')
    p.add_argument('--frame-prefix', default='', help='prefix of the expected frame ids')
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


class _Screen:
    def __init__(self, plain: bool) -> None:
        self.ansi = not plain and sys.stdout.isatty() and os.environ.get('TERM') != 'dumb'
        self.first = True

    def size(self) -> tuple[int, int]:
        s = shutil.get_terminal_size((100, 40))
        return s.columns, s.lines

    def show(self, text: str) -> None:
        if self.ansi:
            if self.first:
                sys.stdout.write('\x1b[2J')
                self.first = False
            cols, lines = self.size()
            rows = [r[:cols] for r in text.split('\n')][:max(lines - 1, 1)]
            sys.stdout.write(CLEAR_HOME + ''.join(r + CLEAR_EOL + '\n' for r in rows) + CLEAR_EOS)
        else:
            sys.stdout.write(text + '\n' + '-' * 40 + '\n')
        sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    # The demo starts the viewer with SIGINT ignored so that a Ctrl-C during
    # interpreter start-up cannot print a traceback; from here on Ctrl-C is a
    # KeyboardInterrupt again, handled quietly (below, or in __main__).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import rclpy
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
    from rclpy.utilities import remove_ros_args

    from .ros_env import ensure_loopback

    raw = list(sys.argv if argv is None else ['tf_view', *argv])
    args = build_parser().parse_args(remove_ros_args(raw)[1:])
    if args.until_complete and not args.model:
        build_parser().error('--until-complete needs --model')
    try:
        expected, model_name = _load_expected(args)
    except Exception as exc:  # noqa: BLE001 - shown to the user, not a traceback
        print(f'tf_view: cannot load --model {args.model}: {exc}', file=sys.stderr)
        return 2
    ensure_loopback()
    watch = [f.strip() for f in args.frames.split(',') if f.strip()] or None
    screen = _Screen(args.plain)
    title = args.title or (f'tf_view  ROS_DOMAIN_ID={os.environ.get("ROS_DOMAIN_ID", "0")}'
                           + (f'  model: {model_name}' if model_name else ''))

    node_class = _make_node_class()
    node = None
    executor = None
    start = time.monotonic()
    interrupted = False
    try:
        rclpy.init(args=raw)
        node = node_class()
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        period = 1.0 / max(args.refresh, 0.1)
        next_draw = start + min(period, 0.5)
        complete = False
        while rclpy.ok():
            now = time.monotonic()
            if args.duration is not None and now - start >= args.duration:
                break
            if args.until_complete and expected is not None:
                frames = node.tree.frames
                if all(f in frames for f in expected):
                    complete = True
            if now >= next_draw or complete:
                cols, lines = screen.size()
                mode = args.tree
                if mode == 'auto':
                    mode = 'full' if len(node.tree.frames) + 14 <= lines else 'compact'
                screen.show(render(node.tree, node.stats, watch=watch, expected=expected,
                                   title=title + f'   [{now - start:5.1f} s]', now=now,
                                   tree_mode=mode, width=cols,
                                   max_lines=lines - 1 if screen.ansi else None))
                next_draw = now + period
            if complete:
                break
            executor.spin_once(timeout_sec=min(0.05, max(next_draw - now, 0.0)))
    except (KeyboardInterrupt, ExternalShutdownException):
        interrupted = True
    except Exception:  # noqa: BLE001
        if rclpy.ok():
            raise
        interrupted = True    # Ctrl-C shut the context down mid-call (e.g. during start-up)
    finally:
        elapsed = time.monotonic() - start
        if node is not None:
            text, ok = summary(node.tree, expected, node.stats, elapsed)
            if interrupted and screen.ansi:
                sys.stdout.write('\n')
            print(text, flush=True)
        else:
            ok = False
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0 if ok else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except KeyboardInterrupt:   # a second Ctrl-C during shutdown
        sys.exit(130)
