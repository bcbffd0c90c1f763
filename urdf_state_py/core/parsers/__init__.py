"""Robot description parsers: the plugin interface, the built-ins and the registry.

A plugin that reads XML should read it with :func:`read_tree`, the gate every
built-in XML reader uses (no entity declarations, no external references).
"""

from ._xml import read_tree
from .base import Parser, ParserOption
from .semantic_parsers import SEMANTIC_ENTRY_POINT_GROUP, load_semantic, read_semantic
from .registry import (ENTRY_POINT_GROUP, ParserRegistry, default_registry, load_model,
                       load_model_file)
from .urdf_xml import UrdfXmlParser
from .urdfdom_py import model_from_urdf_parser_py
from .xacro_parser import XacroParser

__all__ = [
    'ENTRY_POINT_GROUP',
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
