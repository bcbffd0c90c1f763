"""``python -m urdf_state_py``: the description checker (see :mod:`urdf_state_py.cli`).

A module entry point works straight from a source tree or venv, before the
console script ``urdf_state_check`` is installed.
"""

import sys

from .cli import main

if __name__ == '__main__':
    sys.exit(main())
