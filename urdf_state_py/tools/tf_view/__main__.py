"""``python -m urdf_state_py.tools.tf_view``: see :mod:`urdf_state_py.tools.tf_view.viewer`."""

import sys

from .viewer import main

if __name__ == '__main__':
    sys.exit(main())
