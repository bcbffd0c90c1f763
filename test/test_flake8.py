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

"""ament_flake8 over the package's Python, as ROS 2 Python packages run it in ``colcon test``."""

from linter_paths import linted_paths, ROOT
import pytest

main_with_errors = pytest.importorskip(
    'ament_flake8.main',
    reason='ament_flake8 is not installed (a ROS 2 distro has it; ./dev.sh installs '
    'ros-ament-flake8 from PyPI)').main_with_errors


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8(monkeypatch):
    monkeypatch.chdir(ROOT)
    rc, errors = main_with_errors(argv=linted_paths())
    assert rc == 0, \
        'Found %d code style errors / warnings:\n' % len(errors) + \
        '\n'.join(errors)
