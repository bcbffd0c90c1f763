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
What the TF viewer prints: message rates, the screen text and the closing summary (no ROS).

:func:`render` lays out one screen from a :class:`~urdf_state_py.tools.tf_view.frame_tree.FrameTree`
and the :class:`Stats` counted by the viewer; :func:`summary` is the closing
text (``58/58 frames``); :class:`Screen` writes either to a terminal or to a
pipe. Kept apart from the ROS node so the output can be tested without ROS.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
import os
import shutil
import sys
import time

from urdf_state_py.core.transforms import quaternion_to_rpy

from .frame_tree import FrameTree, MOVING_MARK, pick_frames, STATIC_MARK

__all__ = ['RateMeter', 'Screen', 'Stats', 'render', 'summary']

CLEAR_HOME = '\x1b[H'       # cursor to top-left
CLEAR_EOL = '\x1b[K'        # erase to end of line
CLEAR_EOS = '\x1b[J'        # erase to end of screen


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
    """
    Return the whole screen as a string (no ANSI codes).

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
            rpy = quaternion_to_rpy(q).tolist()
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
    """Return the closing text and whether every expected frame arrived."""
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


class Screen:
    """
    Where the viewer's text goes: redrawn in place on a terminal, appended otherwise.

    ANSI redraws only make sense on a real terminal; piped output (the demo's
    tests, a log file) gets plain screens separated by a rule instead.
    """

    def __init__(self, plain: bool) -> None:
        self.ansi = not plain and sys.stdout.isatty() and os.environ.get('TERM') != 'dumb'
        self.first = True

    def size(self) -> tuple[int, int]:
        """(columns, lines) of the terminal; 100x40 when there is none."""
        s = shutil.get_terminal_size((100, 40))
        return s.columns, s.lines

    def show(self, text: str) -> None:
        """Replace the previous screen with ``text`` (cut to the terminal) or append it."""
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
