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

"""ament_copyright over the package, as ROS 2 Python packages run it in ``colcon test``."""

from linter_paths import linted_paths, ROOT
import pytest

main = pytest.importorskip(
    'ament_copyright.main',
    reason='ament_copyright is not installed (a ROS 2 distro has it; it is not on PyPI)').main


@pytest.mark.copyright
@pytest.mark.linter
def test_copyright(monkeypatch):
    monkeypatch.chdir(ROOT)
    rc = main(argv=linted_paths('LICENSE'))
    assert rc == 0, 'Found errors'
