"""``python -m urdf_state_py.tools.demo``: see :mod:`urdf_state_py.tools.demo.demo`."""

import sys

from .demo import main

if __name__ == '__main__':
    sys.exit(main())
