"""``python -m urdf_state_py``: the description checker (see :mod:`urdf_state_py.tools.cli`).

A module entry point works straight from a source tree or venv, before the
console script ``urdf_state_check`` is installed.
"""

import sys

from .tools.cli import main

if __name__ == '__main__':
    sys.exit(main())
