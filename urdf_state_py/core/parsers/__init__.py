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
Robot description parsers: the plugin interface, the built-ins and the registry.

A plugin that reads XML should read it with :func:`read_tree`, the gate every
built-in XML reader uses (no entity declarations, no external references).
"""

from ._xml import read_tree
from .base import Parser, ParserOption
from .mjcf import MjcfParser
from .registry import (default_registry, ENTRY_POINT_GROUP, load_model, load_model_file,
                       ParserRegistry)
from .semantic_parsers import load_semantic, read_semantic, SEMANTIC_ENTRY_POINT_GROUP
from .urdf_xml import UrdfXmlParser
from .urdfdom_py import model_from_urdf_parser_py
from .xacro_parser import XacroParser

__all__ = [
    'ENTRY_POINT_GROUP',
    'MjcfParser',
    'Parser',
    'ParserOption',
    'ParserRegistry',
    'SEMANTIC_ENTRY_POINT_GROUP',
    'UrdfXmlParser',
    'XacroParser',
    'default_registry',
    'load_model',
    'load_model_file',
    'load_semantic',
    'model_from_urdf_parser_py',
    'read_semantic',
    'read_tree',
]
