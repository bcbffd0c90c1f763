"""``python -m urdf_state_py.node``: the state publisher (same as the ``urdf_state`` executable)."""

import sys

from .state_publisher import main

if __name__ == '__main__':
    sys.exit(main())
