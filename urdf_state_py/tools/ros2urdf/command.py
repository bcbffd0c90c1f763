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

"""The ``urdf`` command of ``ros2``: dispatches to the verbs of :mod:`.verb`."""

from __future__ import annotations

import argparse

#: Entry-point group of the verbs (declared as an extension point in setup.py).
VERB_GROUP = 'urdf_state_py.verb'


class UrdfCommand:
    """Inspect robot descriptions and running urdf_state nodes."""

    NAME = None
    EXTENSION_POINT_VERSION = '0.1'

    def add_arguments(self, parser: argparse.ArgumentParser, cli_name: str) -> None:
        """Add the verbs, loading only the one named on the command line (ros2cli's way)."""
        from ros2cli.command import add_subparsers_on_demand  # noqa: PLC0415 - ros2cli calls us

        self._subparser = parser
        add_subparsers_on_demand(parser, cli_name, '_verb', VERB_GROUP, required=False)

    def main(self, *, parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
        """Run the chosen verb; without one, print the list of verbs."""
        if not hasattr(args, '_verb'):
            self._subparser.print_help()
            return 0
        return args._verb.main(args=args)
