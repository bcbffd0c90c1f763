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
JointState in, /tf out: the per-message path of one robot.

The raw CDR decoder (:mod:`.joint_state_cdr`, and its C twin in :mod:`.native`),
the merger of partial joint states and the rate limit (:mod:`.joint_state_merger`,
:mod:`.publish_throttle`), the pre-serialised /tf messages (:mod:`.tf_publishing`,
written where :mod:`.tf_message_cdr` finds the numbers; both codecs follow
:mod:`.plain_cdr`), the native loop's plans (:mod:`.native_plan`), and the threads that
serve the subscription (:mod:`.hot_path` in Python, :mod:`.native_loop` in C) with the
lock that ties them to parameter changes (:mod:`.joint_state_input`).
"""
