"""What the view's web server shows: the current description (prepared off the ROS thread) and TF.

The ROS side hands every robot_description it receives to
:class:`DescriptionLoader`, whose thread prepares it (parse, resolve every
mesh URI: up to a second or two for a hostile one) so that /tf keeps flowing
meanwhile; the newest description wins when several arrive during one
preparation. A prepared description replaces the current one as a single
reference, so a request sees one description whole, and its version number
tells the page streams that the model changed.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from .description import Prepared, prepare
from .resolver import Resolver
from .served_files import ServedFiles
from .tf_store import TfStore

__all__ = ['ViewState', 'DescriptionLoader', 'PageOptions']


@dataclass(frozen=True)
class PageOptions:
    """The page's settings from the command line (None: the page's automatic choice)."""

    fixed_frame: str | None = None
    frame_prefix: str | None = None


class ViewState:
    """Shared by the ROS thread (writes) and the HTTP threads (read)."""

    def __init__(self, resolver: Resolver, options: PageOptions = PageOptions()) -> None:
        self.resolver = resolver
        self.options = options
        self.tf = TfStore()
        self.logger = logging.getLogger('urdf_view')
        # one reference swapped whole: (description, its file table)
        self.current: tuple[Prepared, ServedFiles] = (Prepared(0), ServedFiles({}, None))
        self.closed = threading.Event()

    def install(self, prepared: Prepared) -> None:
        """Make ``prepared`` the description the page shows, and say so in the log."""
        self.current = (prepared, ServedFiles(prepared.files, self.resolver))
        if prepared.error:
            self.logger.warning(f'robot_description #{prepared.version} not shown: '
                                f'{prepared.error}')
            return
        self.logger.info(f"robot_description #{prepared.version}: '{prepared.robot}', "
                         f'{len(prepared.links)} links, {prepared.referenced} mesh references, '
                         f'{len(prepared.files)} files served')
        if prepared.refused_count:
            first_uri, first_reason = prepared.refused[0]
            self.logger.warning(f'{prepared.refused_count} mesh/texture reference(s) not served, '
                                f"e.g. '{first_uri[:120]}': {first_reason}")


class DescriptionLoader:
    """A thread preparing descriptions one at a time, the newest waiting one next."""

    def __init__(self, state: ViewState) -> None:
        self._state = state
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
            except Exception as exc:  # noqa: BLE001 - hostile input must never end the thread
                prepared = Prepared(version, error=f'internal error: {type(exc).__name__}: {exc}')
            self._state.install(prepared)
