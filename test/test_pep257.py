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

"""ament_pep257 over the package's Python, as ROS 2 Python packages run it in ``colcon test``."""

from linter_paths import linted_paths, ROOT
import pytest

main = pytest.importorskip(
    'ament_pep257.main',
    reason='ament_pep257 is not installed (a ROS 2 distro has it; ./dev.sh installs '
    'ros-ament-pep257 from PyPI)').main


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257(monkeypatch):
    monkeypatch.chdir(ROOT)
    rc = main(argv=linted_paths())
    assert rc == 0, 'Found code style errors / warnings'
