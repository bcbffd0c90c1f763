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
The robot the demo's browser view shows by default: TALOS with its meshes.

The bundled H1_2 ships without meshes (a skeleton in the browser). The PyPI
package example-robot-data (BSD-3-Clause; its TALOS model is PAL Robotics'
``talos_robot``, Apache-2.0) carries TALOS's URDF and STL meshes in its wheel,
under ``share/example-robot-data``; ``./dev.sh setup`` installs it. Its URDF
names the meshes ``package://example-robot-data/...``, so the view is told
where that package is.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

__all__ = ['PACKAGE', 'TALOS', 'example_robot_data']

#: The package name the URDFs of example-robot-data use in package:// URIs.
PACKAGE = 'example-robot-data'
#: TALOS's URDF, relative to :func:`example_robot_data`.
TALOS = Path('robots') / 'talos_data' / 'robots' / 'talos_full_v2.urdf'


def example_robot_data() -> Path | None:
    """Return the share folder of the PyPI package example-robot-data, if installed."""
    try:
        files = importlib.metadata.files(PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == 'package.xml' and file.parent.name == PACKAGE:
            return Path(file.locate()).parent
    return None
