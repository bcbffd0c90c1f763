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

The specification of one message is :mod:`.joint_state_step`: the merge and the
rate limit (:mod:`.joint_state_merger`, :mod:`.publish_throttle`), limits and mimic
joints, and the pre-serialised /tf (:mod:`.tf_publishing`, written where
:mod:`.tf_message_cdr` finds the numbers). :mod:`.joint_state_input` serves the
subscription (decoded by :mod:`.joint_state_cdr`; both codecs follow
:mod:`.plain_cdr`) on a thread of its own (:mod:`.hot_path`), where the native
extension may run (:mod:`.native`) with the C loop's plans (:mod:`.native_loop`).
See docs/design.md for how a JointState travels.
"""
