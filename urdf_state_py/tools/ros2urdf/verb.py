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
The ``ros2 urdf`` verbs: one class per :data:`urdf_state_py.tools.cli.COMMANDS` entry.

Each verb is the CLI command of the same name -- its arguments, its code and
its exit statuses (0 ok, 1 invalid description or node not found, 2 usage) --
so ``ros2 urdf check f.urdf`` and ``python -m urdf_state_py check f.urdf``
cannot drift apart. ros2cli takes a verb's one-line help from its docstring.
"""

from __future__ import annotations

import argparse

from urdf_state_py.tools.cli import Command, COMMANDS, run_command


class VerbExtension:
    """
    The extension point of ``ros2 urdf`` verbs (``urdf_state_py.verb`` entry points).

    A verb defines ``command`` (a :class:`~urdf_state_py.tools.cli.Command`);
    ``NAME`` is set by ros2cli to the entry point's name.
    """

    NAME = None
    EXTENSION_POINT_VERSION = '0.1'
    command: Command

    def add_arguments(self, parser: argparse.ArgumentParser, cli_name: str) -> None:
        """Add the command's own arguments and description."""
        parser.description = self.command.description
        self.command.add_arguments(parser)

    def main(self, *, args: argparse.Namespace) -> int:
        """Run the command, errors as one ``error: ...`` line and an exit status."""
        return run_command(self.command.run, args)


def _verb_class(command: Command) -> type[VerbExtension]:
    doc = command.help[0].upper() + command.help[1:]
    return type(f'{command.name.capitalize()}Verb', (VerbExtension,),
                {'__doc__': doc, 'command': command, '__module__': __name__})


CheckVerb, TreeVerb, FkVerb, ParsersVerb, StatusVerb, ViewVerb = (_verb_class(c) for c in COMMANDS)
#: Verb name -> class, as setup.py registers them.
VERBS = {cls.command.name: cls
         for cls in (CheckVerb, TreeVerb, FkVerb, ParsersVerb, StatusVerb, ViewVerb)}
