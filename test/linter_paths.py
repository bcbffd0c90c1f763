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
What the ament linter tests read: the package's own sources.

ROS 2 packages pass ``argv=[]`` (the whole package folder); here the package root also
holds the development venvs (.venv/) and build folders, which are not ours.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Relative to the package root: the tests run the linters from there, as ROS 2 packages do.
SOURCES = ('urdf_state_py', 'bench', 'test', 'launch', 'setup.py', '.ci')


def linted_paths(*extra: str) -> list:
    """Return the sources (and ``extra`` files) that exist, relative to ``ROOT``."""
    return [p for p in SOURCES + extra if os.path.exists(os.path.join(ROOT, p))]
