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
The node's real entry point under cProfile (bench only).

``URDF_STATE_BENCH_CPROFILE=FILE python -m urdf_state_bench.node_runner --ros-args ...``
runs :func:`urdf_state_py.node.state_publisher.main` (executor chosen as for users, by
``URDF_STATE_EXECUTOR``) with cProfile timing the main thread's CPU, and writes
the stats to FILE when the node ends (SIGINT). cProfile sees the main thread
only: with the hot path (joint_states on a thread of its own, see
``urdf_state_py.node.tf_path.hot_path``) that is the executor, not the per-message
work; profile that with ``--py-spy`` (every thread), or the executor path
with ``URDF_STATE_HOT_PATH=off``. Without profiling the bench
starts ``python -m urdf_state_py.node`` itself.
"""

from __future__ import annotations

import cProfile
import os
import sys
import time


def main(argv=None) -> int:
    from urdf_state_py.node.state_publisher import main as node_main
    prof = cProfile.Profile(time.thread_time)  # CPU of the spinning (main) thread
    prof.enable()
    try:
        node_main(list(sys.argv[1:] if argv is None else argv))
    finally:
        prof.disable()
        prof.dump_stats(os.environ['URDF_STATE_BENCH_CPROFILE'])
    return 0


if __name__ == '__main__':
    sys.exit(main())
