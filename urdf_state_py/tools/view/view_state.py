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
What the view's web server shows: the current description (prepared off the ROS thread) and TF.

The ROS side hands every robot_description it receives to
:class:`DescriptionLoader`, whose thread prepares it (parse, resolve every
mesh URI: up to a second or two for a hostile one) so that /tf keeps flowing
meanwhile; the newest description wins when several arrive during one
preparation. A prepared description replaces the current one as a single
reference, so a request sees one description whole, and its version number
tells the page streams that the model changed.

The page shows one robot, or several in one scene (``--namespace`` repeated):
each is a :class:`RobotView` with its own description topic, description,
file table and frame prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
import logging
import threading

from .description import prepare, Prepared
from .resolver import Resolver
from .served_files import ServedFiles
from .tf_store import TfStore

__all__ = ['ViewState', 'DescriptionLoader', 'PageOptions', 'RobotView']


@dataclass(frozen=True)
class PageOptions:
    """The page's settings from the command line (None: the page's automatic choice)."""

    fixed_frame: str | None = None
    frame_prefix: str | None = None


class RobotView:
    """One robot of the page: its namespace, description and frame prefix."""

    def __init__(self, namespace: str, frame_prefix: str | None) -> None:
        self.namespace = namespace
        #: robot_description of ``namespace`` (relative without one: the view's namespace)
        self.topic = f'{namespace}/robot_description' if namespace else 'robot_description'
        self.frame_prefix = frame_prefix      # None: the page finds it from TF
        # one reference swapped whole: (description, its file table)
        self.current: tuple[Prepared, ServedFiles] = (Prepared(0), ServedFiles({}, None))
        #: bumped by every change the page must load (a description, a frame prefix)
        self.revision = 0

    def set_frame_prefix(self, prefix: str) -> None:
        """Take the prefix the robot's node reported (its ``frame_prefix`` parameter)."""
        if prefix != self.frame_prefix:
            self.frame_prefix = prefix
            self.revision += 1


class ViewState:
    """Shared by the ROS thread (writes) and the HTTP threads (read)."""

    def __init__(self, resolver: Resolver, options: PageOptions = PageOptions(),
                 namespaces: list[str] | None = None) -> None:
        """``namespaces``: the robots' namespaces (None: one robot, the view's own)."""
        self.resolver = resolver
        self.options = options
        self.tf = TfStore()
        self.logger = logging.getLogger('urdf_view')
        self.robots = [RobotView('/' + ns.strip('/') if ns.strip('/') else '',
                                 options.frame_prefix) for ns in namespaces or ['']]
        self.closed = threading.Event()

    @property
    def current(self) -> tuple[Prepared, ServedFiles]:
        """Return the first robot's description and file table."""
        return self.robots[0].current

    def lookup(self, url: str) -> tuple[str, ServedFiles] | None:
        """Return the real path of a served file of any robot, and the table that has it."""
        for robot in self.robots:
            path = robot.current[1].lookup(url)
            if path is not None:
                return path, robot.current[1]
        return None

    def install(self, prepared: Prepared, robot: int = 0) -> None:
        """Make ``prepared`` the description the page shows, and say so in the log."""
        view = self.robots[robot]
        view.current = (prepared, ServedFiles(prepared.files, self.resolver))
        view.revision += 1
        topic = view.topic
        if prepared.error:
            self.logger.warning(f'{topic} #{prepared.version} not shown: {prepared.error}')
            return
        self.logger.info(f"{topic} #{prepared.version}: '{prepared.robot}', "
                         f'{len(prepared.links)} links, {prepared.referenced} mesh references, '
                         f'{len(prepared.files)} files served')
        if prepared.refused_count:
            first_uri, first_reason = prepared.refused[0]
            self.logger.warning(f'{prepared.refused_count} mesh/texture reference(s) not served, '
                                f"e.g. '{first_uri[:120]}': {first_reason}")


class DescriptionLoader:
    """A thread preparing descriptions one at a time, the newest waiting one next."""

    def __init__(self, state: ViewState, robot: int = 0) -> None:
        self._state = state
        self._robot = robot
        self._pending: str | None = None
        self._received = 0
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name='view-description', daemon=True)
        self._thread.start()

    def submit(self, text: str) -> None:
        """Queue ``text`` (replacing one that is still waiting)."""
        with self._wake:
            self._pending = text
            self._received += 1
            self._wake.notify()

    def stop(self) -> None:
        """End the thread (after the description it is preparing, if any)."""
        self._state.closed.set()
        with self._wake:
            self._wake.notify()
        self._thread.join(timeout=5.0)

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._state.closed.is_set():
                    self._wake.wait()
                if self._state.closed.is_set():
                    return
                text, version, self._pending = self._pending, self._received, None
            try:
                prepared = prepare(text, self._state.resolver, version)
            except Exception as exc:  # hostile input must never end the thread
                prepared = Prepared(version, error=f'internal error: {type(exc).__name__}: {exc}')
            self._state.install(prepared, self._robot)
