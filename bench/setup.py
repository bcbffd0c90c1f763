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
Build the benchmark's C floor, the module ``urdf_state_floor`` (floor/), against ROS 2.

``cd bench && python setup.py build_ext --build-lib DIR`` (``./dev.sh`` does this into
its venv); rcl, rmw, rcutils and sensor_msgs are found through the ament index.
"""

from glob import glob
import os

from ament_index_python.packages import get_package_prefix
from setuptools import Extension, setup

roots = sorted({get_package_prefix(name) for name in ('rcl', 'rmw', 'rcutils', 'sensor_msgs')})
includes = [d for root in roots for d in sorted(glob(os.path.join(root, 'include', '*')))]
setup(
    name='urdf_state_floor',
    version='0.0.0',
    ext_modules=[Extension(
        'urdf_state_floor',
        sources=sorted(glob(os.path.join('floor', '*.c'))),
        include_dirs=includes,
        library_dirs=[os.path.join(root, 'lib') for root in roots],
        runtime_library_dirs=[os.path.join(root, 'lib') for root in roots],
        libraries=['rcl', 'rmw', 'rcutils', 'sensor_msgs__rosidl_typesupport_c'],
        extra_compile_args=['-std=c11', '-O2', '-Wall', '-Wextra'],
    )],
)
