"""Robot description parsers: the plugin interface, the built-ins and the registry."""

from .base import Parser, ParserOption
from .registry import (ENTRY_POINT_GROUP, ParserRegistry, default_registry, load_model,
                       load_model_file)
from .urdf_xml import UrdfXmlParser
from .xacro_parser import XacroParser

__all__ = [
    'ENTRY_POINT_GROUP',
    'Parser',
    'ParserOption',
    'ParserRegistry',
    'UrdfXmlParser',
    'XacroParser',
    'default_registry',
    'load_model',
    'load_model_file',
]
