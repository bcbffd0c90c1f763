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
What the robots of one process share: parser processes, the 1 Hz ticker, the executor.

The standalone node (``ros2 run urdf_state_py urdf_state``) is one robot in its
own process; the container (``urdf_state_container``) serves many. Each robot
(:class:`~urdf_state_py.node.state_publisher.UrdfStateNode`) takes from the
:class:`Runtime` it is given what exists once per process:

* ``parsers``: the parser processes (:class:`~urdf_state_py.core.parsers.parser_pool.ParserPool`),
  ~27 MB each while alive, so kept per process, not per robot;
* ``ticker``: one thread running the process's ``/diagnostics`` once a second;
* ``diagnostics``: the :class:`~urdf_state_py.node.diagnostics.DiagnosticsBoard`
  that sends every robot's status in one array per tick (the container's, on the
  container node); None: each robot sends its own (the standalone node);
* ``shared_executor``: whether the process's executor serves the robots'
  parameter services. The standalone node spins a single-threaded executor (or
  EventsExecutor) that must never wait for a parse, so its parameter services
  live on a helper node with an executor thread of its own
  (:mod:`~urdf_state_py.node.param_services`); the container spins every robot
  on one multi-threaded executor, where a robot's parameter changes already run
  beside the others' callbacks, so its services stay on the robot's own node and
  no thread is added per robot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from urdf_state_py.core.parsers.parser_pool import ParserPool

from .ticker import Ticker

if TYPE_CHECKING:
    from ..diagnostics import DiagnosticsBoard

__all__ = ['DIAGNOSTICS_PERIOD_S', 'Runtime']

#: Period of every robot's /diagnostics status [s] (diagnostic_updater's default rate).
DIAGNOSTICS_PERIOD_S = 1.0


@dataclass
class Runtime:
    """The per-process resources robots share (see the module docstring)."""

    parsers: ParserPool = field(default_factory=ParserPool)
    ticker: Ticker = field(default_factory=lambda: Ticker(DIAGNOSTICS_PERIOD_S))
    shared_executor: bool = False
    diagnostics: DiagnosticsBoard | None = None

    def stop_parsing(self) -> None:
        """
        End every parse in progress and refuse later ones.

        The process is shutting down; signal-handler safe.
        """
        self.parsers.stop()

    def close(self) -> None:
        """
        Stop the diagnostics, the ticker and the parser processes.

        Called after the robots are destroyed.
        """
        if self.diagnostics is not None:
            self.diagnostics.close()
        self.ticker.close()
        self.parsers.close()
