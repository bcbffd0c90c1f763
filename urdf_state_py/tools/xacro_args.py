"""Loading a ``--model`` file with the ``--xacro-arg name:=value`` flags of the demo tools.

The demo, the joint sweeper and the TF viewer all take a model file plus
repeatable xacro arguments; this is the one place that turns those into a
:func:`urdf_state_py.core.parsers.load_model_file` call (which already resolves
relative xacro includes against the file's folder).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from urdf_state_py.core.model import Model
from urdf_state_py.core.parsers import load_model_file

__all__ = ['load_model_file_with_args']


def load_model_file_with_args(path: str | os.PathLike, xacro_args: Sequence[str] = ()) -> Model:
    """The model in ``path``, expanded with ``xacro_args`` when there are any.

    With arguments the xacro parser is chosen explicitly: auto-detection picks
    the plain URDF parser for a file without xacro markup, which has no
    ``args`` option, and xacro reads plain URDF too. Empty arguments (an empty
    ``--xacro-arg=``) are dropped.
    """
    args = [a for a in xacro_args if a]
    if not args:
        return load_model_file(path)
    return load_model_file(path, parser='xacro', options={'args': args})
