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
A parser plugin for the parser-pool tests: its parse waits until a file exists.

``<gate path="/tmp/x"/>`` parses (in the worker process) only once ``/tmp/x``
exists, so a test holds a parse open for as long as it wants, whatever the
machine's speed, and releases it by creating the file.
"""
import os
import time
from xml.etree import ElementTree

from urdf_state_py.core.model import Link, Model
from urdf_state_py.core.parsers.base import Parser


class GatedParser(Parser):
    name = 'gated'

    def might_handle(self, data: str) -> int:
        return 0 if data.startswith('<gate') else len(data)

    def parse(self, data, options):
        path = ElementTree.fromstring(data).get('path')
        while not os.path.exists(path):
            time.sleep(0.01)
        return Model('gated', (Link('base'),), ())
