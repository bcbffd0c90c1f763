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
Loading a ``--model`` file with the ``--xacro-arg name:=value`` flags of the demo tools.

The demo, the joint sweeper and the TF viewer all take a model file plus
repeatable xacro arguments; this is the one place that turns those into a
:func:`urdf_state_py.core.parsers.load_model_file` call (which already resolves
relative xacro includes against the file's folder).
"""

from __future__ import annotations

from collections.abc import Sequence
import os

from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers import load_model_file

__all__ = ['load_model_file_with_args']


def load_model_file_with_args(path: str | os.PathLike, xacro_args: Sequence[str] = ()) -> Model:
    """
    Return the model in ``path``, expanded with ``xacro_args`` when there are any.

    With arguments the xacro parser is chosen explicitly: auto-detection picks
    the plain URDF parser for a file without xacro markup, which has no
    ``args`` option, and xacro reads plain URDF too. Empty arguments (an empty
    ``--xacro-arg=``) are dropped.
    """
    args = [a for a in xacro_args if a]
    if not args:
        return load_model_file(path)
    return load_model_file(path, parser='xacro', options={'args': args})
