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
``view``: the robot live in a browser, from robot_description, /tf and /tf_static.

Modules, one job each: :mod:`.resolver` (which mesh URIs may be served),
:mod:`.description` (a description made ready for the page),
:mod:`.served_files` (the URL table and opening a file), :mod:`.tf_store` (raw
/tf read, by the node's TFMessage codec, and coalesced), :mod:`.view_state` (what the
server shows, the description loader thread), :mod:`.event_stream` (the
page's live feed), :mod:`.http_server`, :mod:`.assets` (the page and its
JavaScript libraries), :mod:`.view_node` (the ROS side) and :mod:`.command`
(the CLI entry). The page itself is in the package's ``web/`` folder.
"""
