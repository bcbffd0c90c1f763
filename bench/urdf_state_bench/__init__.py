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
Benchmarks of urdf_state_py: FK micro-benchmark, node end to end, node memory.

``python -m urdf_state_bench [--quick] [--only fk|e2e|mem] [--robots ...]``
(or ``urdf_state_bench``, or ``./dev.sh bench``). Not part of the test suite.
See :mod:`urdf_state_bench.cli` for the options.
"""


def main(argv=None) -> int:
    from .cli import main as _main
    return _main(argv)
