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
Shared XML plumbing for the built-in parsers: decoding, prolog repair, safe reading.

Everything here is strict except two repairs that urdfdom (TinyXML) silently
accepts and real files need:

* an XML declaration whose pseudo-attribute ``version`` is misspelled
  ``verison`` (four files of ros2/urdf's own test suite);
* NUL bytes after the root element (pybullet's ``humanoid.urdf``): urdfdom
  reads the text as a C string and never sees them.

The repaired declaration is dropped, never interpreted: by then the text is
already decoded (bytes: BOM, then the declaration's ``encoding``, then UTF-8),
and it is re-encoded as UTF-8 for expat.
"""

from __future__ import annotations

import codecs
from io import BytesIO
import re
from xml.etree import ElementTree
import xml.sax
import xml.sax.handler
import xml.sax.xmlreader

import defusedxml  # noqa: F401 - absent, it fails here at import, not at the first parse

from ..errors import DescriptionError

_BOMS = (
    (codecs.BOM_UTF32_LE, 'utf-32-le'),
    (codecs.BOM_UTF32_BE, 'utf-32-be'),
    (codecs.BOM_UTF8, 'utf-8'),
    (codecs.BOM_UTF16_LE, 'utf-16-le'),
    (codecs.BOM_UTF16_BE, 'utf-16-be'),
)
_ENCODING_DECL = re.compile(
    rb'^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["\']([A-Za-z][A-Za-z0-9._-]*)["\']')
# A declaration made only of known pseudo-attributes (and the 'verison' typo).
_DECLARATION = re.compile(
    r'^\ufeff?\s*<\?xml((?:\s+(?:version|verison|encoding|standalone)\s*=\s*'
    r'(?:"[^"]*"|\'[^\']*\'))*)\s*\?>')


_TAG_NAME = re.compile(r'<([^\s/>]+)')


def decode(data: str | bytes) -> str:
    """Decode ``data`` to text: bytes honour a BOM, then the declared encoding, else UTF-8."""
    if isinstance(data, str):
        return data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DescriptionError(f'a robot description must be str or bytes, '
                               f'not {type(data).__name__}')
    data = bytes(data)
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _decode(data[len(bom):], encoding, 'byte order mark')
    if data.startswith(b'<\x00?\x00'):
        return _decode(data, 'utf-16-le', 'byte pattern')
    if data.startswith(b'\x00<\x00?'):
        return _decode(data, 'utf-16-be', 'byte pattern')
    match = _ENCODING_DECL.match(data)
    if match:
        return _decode(data, match.group(1).decode('ascii'), 'XML declaration')
    return _decode(data, 'utf-8', 'default')


def _decode(data: bytes, encoding: str, source: str) -> str:
    try:
        codec = codecs.lookup(encoding)
    except LookupError:
        raise DescriptionError(
            f"unknown character encoding '{encoding}' (from the {source})") from None
    try:
        return data.decode(codec.name)
    except UnicodeDecodeError as exc:
        raise DescriptionError(
            f'the description is not valid {encoding} (from the {source}): {exc.reason} '
            f'at byte {exc.start}') from None


def normalize(data: str | bytes) -> str:
    """Decode text with the XML declaration removed and trailing NULs cut off."""
    text = decode(data)
    match = _DECLARATION.match(text)
    if match:
        # Keep line numbers of the rest of the document.
        text = '\n' * match.group(0).count('\n') + text[match.end():]
    elif text.startswith('\ufeff'):
        text = text[1:]
    if '\x00' in text:
        head, _, tail = text.partition('\x00')
        if not tail.strip('\x00 \t\r\n'):
            text = head
    return text


def root_start_tag(text: str) -> tuple[str, int, int] | None:
    """
    (name, start, end) of the root element's start tag, ``end`` just past its ``>``.

    Skips the prolog (declaration, processing instructions, comments, DOCTYPE).
    None when the text does not start like an XML document.
    """
    pos = 0
    length = len(text)
    while pos < length:
        if text[pos] in ' \t\r\n\ufeff':
            pos += 1
        elif text.startswith('<?', pos):
            end = text.find('?>', pos)
            if end < 0:
                return None
            pos = end + 2
        elif text.startswith('<!--', pos):
            end = text.find('-->', pos)
            if end < 0:
                return None
            pos = end + 3
        elif text.startswith('<!', pos):
            bracket = text.find('[', pos)
            close = text.find('>', pos)
            if close < 0:
                return None
            if 0 <= bracket < close:
                end = text.find(']', bracket)
                close = text.find('>', end) if end >= 0 else -1
                if close < 0:
                    return None
            pos = close + 1
        elif text.startswith('<', pos):
            match = _TAG_NAME.match(text, pos)
            if not match:
                return None
            end = _tag_end(text, match.end())
            if end < 0:
                return None
            return match.group(1), pos, end
        else:
            return None
    return None


def root_span(data: str | bytes, name: str) -> tuple[int, int] | None:
    """(start, end) of the root start tag when the root element is ``<name>``, else None."""
    if isinstance(data, bytes):
        data = data.decode('utf-8', 'replace')
    root = root_start_tag(data)
    if root is None or root[0] != name:
        return None
    return root[1], root[2]


def _tag_end(text: str, pos: int) -> int:
    quote = None
    for index in range(pos, len(text)):
        char = text[index]
        if quote:
            if char == quote:
                quote = None
        elif char in '"\'':
            quote = char
        elif char == '>':
            return index + 1
    return -1


class _TreeHandler(xml.sax.handler.ContentHandler):
    """SAX -> ElementTree, with qualified names kept verbatim (no namespace processing)."""

    def __init__(self) -> None:
        super().__init__()
        self.builder = ElementTree.TreeBuilder()

    def startElement(self, name, attrs):  # SAX API
        self.builder.start(name, dict(attrs.items()))

    def endElement(self, name):  # SAX API
        self.builder.end(name)

    def characters(self, content):
        self.builder.data(content)


def read_tree(data: str | bytes) -> ElementTree.Element:
    """
    Return the root element of ``data``, read safely.

    * defusedxml's expat reader: no entity declarations at all (which stops
      entity-expansion bombs at the first declaration), no external entities
      or DTDs fetched, nothing read from disk or network;
    * no namespace processing, like TinyXML: ``<xacro:foo>`` is an element
      named ``xacro:foo`` even where the prefix is not declared.
    """
    import defusedxml.sax  # here: its xml.sax.saxutils imports urllib.request (~50 ms),

    # and a node parses in its parser process, not where its start-up waits
    text = normalize(data)
    handler = _TreeHandler()
    parser = defusedxml.sax.make_parser()
    parser.setFeature(xml.sax.handler.feature_namespaces, False)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    parser.setContentHandler(handler)
    parser.forbid_dtd = False
    parser.forbid_entities = True
    parser.forbid_external = True
    try:
        source = xml.sax.xmlreader.InputSource()
        source.setByteStream(BytesIO(text.encode('utf-8')))
        parser.parse(source)
    except defusedxml.EntitiesForbidden as exc:
        raise DescriptionError(
            f"XML entity declarations are not allowed (entity '{exc.name}'): "
            'a robot description needs none, and they enable entity-expansion '
            'and external-file attacks') from None
    except defusedxml.ExternalReferenceForbidden as exc:
        raise DescriptionError(
            f"external XML references are not allowed ('{exc.sysid}'): nothing outside "
            'the description is read') from None
    except defusedxml.DefusedXmlException as exc:
        raise DescriptionError(f'forbidden XML construct: {exc}') from None
    except xml.sax.SAXParseException as exc:
        raise DescriptionError(
            f'not well-formed XML: {exc.getMessage()} (line {exc.getLineNumber()}, '
            f'column {exc.getColumnNumber()})') from None
    return handler.builder.close()
