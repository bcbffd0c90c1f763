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
Which descriptions the node parses in its own process: the operator's plain URDF only.

A trusted plain URDF of at most 1 MB is read in the node's process (the start-up model
does not wait for a parser process to start); anything else -- a run-time description,
xacro, a larger text, a parser forced by name -- goes to the parser process.
"""
import logging
import subprocess

import pytest

pytest.importorskip('rclpy')   # the node's modules

from urdf_state_py.core.parsers import default_registry  # noqa: E402 - after importorskip
from urdf_state_py.core.parsers.parser_pool import ParserPool  # noqa: E402 - after importorskip
from urdf_state_py.node.description_loader import (  # noqa: E402 - after importorskip
    DescriptionLoader, Source)

URDF = ('<robot name="small"><link name="a"/><link name="b"/>'
        '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
XACRO = URDF.replace('<robot name="small">',
                     '<robot name="small" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                     '<xacro:property name="x" value="1"/>')
SETTINGS = {'description.runtime_xacro': 'restricted', 'description.timeout': 60.0,
            'description.max_memory_mb': 512, 'description.max_bytes': 64 << 20}
CFG = {'parser': 'auto', 'publish_frequency': 20.0, 'ignore_timestamp': False,
       'frame_prefix': ''}


@pytest.fixture
def loader():
    pool = ParserPool()
    yield DescriptionLoader(default_registry(), SETTINGS, logging.getLogger('test'), pool)
    pool.close()


def test_a_trusted_plain_urdf_is_parsed_without_a_parser_process(loader, monkeypatch):
    def popen(*args, **kwargs):
        pytest.fail('the parse started a parser process')
    monkeypatch.setattr(subprocess, 'Popen', popen)
    loaded = loader.build(Source(URDF, trusted=True), CFG, lambda parser: {})
    assert loaded.parser == 'urdf' and loaded.description == URDF
    assert [link.name for link in loaded.model.links] == ['a', 'b']


def test_only_the_operators_plain_urdf_up_to_1_mb_is_parsed_here(loader):
    assert loader.parses_here(Source(URDF, trusted=True), 'auto')
    assert loader.parses_here(Source(URDF, trusted=True), 'urdf')
    assert not loader.parses_here(Source(URDF, trusted=False), 'auto')
    assert not loader.parses_here(Source(XACRO, trusted=True), 'auto')
    assert not loader.parses_here(Source(URDF, trusted=True), 'xacro')
    big = URDF.replace('<link name="a"/>', '<link name="a"/>' + ' ' * (1 << 20))
    assert not loader.parses_here(Source(big, trusted=True), 'auto')
