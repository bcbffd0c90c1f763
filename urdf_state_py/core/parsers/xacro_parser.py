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
Xacro -> URDF -> Model: the built-in ``xacro`` parser.

Expansion is done by the real ``xacro`` package (PyPI / ROS ``xacro`` 2.x),
from a string: the document is read with ``defusedxml``'s minidom (no entity
declarations, no external entities), handed to ``xacro.process_doc`` with the
``args`` as mappings, and the expanded XML goes to the ``urdf`` parser.

xacro keeps its state in module globals (file stack, substitution args) and
resolves ``$(find pkg)`` (also ``find()`` inside ``${...}``) through the ament
index only. For the duration of one expansion, under a process-wide lock, this
module

* puts the ``package_paths`` option first in that index: a temporary ament
  prefix (a marker and a ``share/<pkg>`` link per package) at the head of
  ``AMENT_PREFIX_PATH``; a package found nowhere gives an error naming it;
* sets the file stack to ``<base_dir>/<string>`` so that relative
  ``xacro:include`` filenames and ``xacro.load_yaml`` paths resolve against
  ``base_dir`` (the node passes the model file's folder);
* makes included files go through the same safe XML reader;
* under the restricted policy (:func:`.xacro_sandbox.policy`, set for
  descriptions that arrive at run time) installs the sandbox of
  :mod:`.xacro_sandbox`: no ``eval``, no environment, files only below the
  declared folders;
* refuses an expansion larger than :func:`.xacro_sandbox.expansion_limit`
  before parsing it;

and restores everything afterwards, also on errors. The default policy is
trusted: the library API and the CLI read the user's own files, as the
``xacro`` command does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
import os
import re
import shutil
import tempfile
import threading
from typing import Any

from ._xml import normalize, root_start_tag
from .base import Parser, ParserOption
from .urdf_xml import UrdfXmlParser
from .xacro_sandbox import (current_policy, expansion_limit, RESTRICTED, restricted_session,
                            SandboxViolation)
from ..errors import DescriptionError, find_cause
from ..model import Model

# Something xacro would act on: a directive element, or a ${...}/$(...) substitution.
_XACRO_USE = re.compile(
    r'<xacro:(?:property|macro|include|arg|if|unless|call|insert_block|element|attribute)\b'
    r'|\$\{|\$\(')
_COMMENT = re.compile(r'<!--.*?-->', re.DOTALL)
_STRING_NAME = '<string>'

# xacro's module-level state is shared by every caller in the process.
_XACRO_LOCK = threading.RLock()
# What a package_paths name may be: a file name in the ament index.
_PACKAGE_NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]*')


class XacroParser(Parser):
    """Xacro documents (``xmlns:xacro`` on the root element)."""

    name = 'xacro'
    options = (
        ParserOption('args', [], 'xacro arguments as name:=value, like on the xacro command line'),
        ParserOption('package_paths', [],
                     'package locations for $(find pkg), as pkg=/path/to/pkg (checked before '
                     'the ament index)'),
        ParserOption('base_dir', '',
                     'folder that relative xacro:include filenames resolve against '
                     '(default: the current directory)'),
    )

    def might_handle(self, data: str) -> int:
        """
        Position of ``xmlns:xacro`` in the root start tag, else ``len(data)``.

        Only when the document uses xacro (a directive such as
        ``<xacro:property>``/``<xacro:include>``/``<xacro:macro>``, or a
        ``${...}``/``$(...)`` substitution outside comments): many generated
        URDFs keep the ``xmlns:xacro`` declaration, and some keep a stray,
        undefined macro call that only plain URDF parsing tolerates.
        """
        if isinstance(data, bytes):
            data = data.decode('utf-8', 'replace')
        root = root_start_tag(data)
        if root is None:
            return len(data)
        _, start, end = root
        position = data.find('xmlns:xacro', start, end)
        if position < 0 or not _XACRO_USE.search(_COMMENT.sub('', data[start:])):
            return len(data)
        return position

    def parse(self, data: str | bytes, options: Mapping[str, Any] | None = None) -> Model:
        """Expand the xacro document ``data`` and parse the result as URDF."""
        return self.parse_published(data, options)[0]

    def parse_published(self, data: str | bytes,
                        options: Mapping[str, Any] | None = None) -> tuple[Model, str]:
        """Return the model and the expanded URDF (what ``robot_description`` consumers read)."""
        expanded = self.expand(data, options)
        limit = expansion_limit()
        if limit is not None and len(expanded) > limit:   # characters <= bytes: a cheap test first
            size = len(expanded.encode('utf-8'))
            if size > limit:
                raise DescriptionError(f'expanded description is {size} bytes, over the limit '
                                       f'of {limit} (description.max_bytes)', kind='size limit')
        return UrdfXmlParser().parse(expanded, {}), expanded

    def expand(self, data: str | bytes, options: Mapping[str, Any] | None = None) -> str:
        """Return the URDF text that xacro makes of ``data`` (DescriptionError on failure)."""
        opts = self.resolve_options(options)
        mappings = _pairs(opts['args'], ':=', 'args', 'name:=value')
        packages = _pairs(opts['package_paths'], '=', 'package_paths', 'pkg=/path/to/pkg')
        restricted = current_policy() == RESTRICTED
        declared_dir = os.path.abspath(opts['base_dir']) if opts['base_dir'] else None
        base_dir = declared_dir or os.path.abspath(os.curdir)
        text = normalize(data)

        import xacro  # heavy; only needed here

        with _XACRO_LOCK, _package_index(packages) as prefix, \
                _xacro_session(xacro, base_dir) as state:
            try:
                doc = _safe_parse_string(text)
                if restricted:
                    with restricted_session(xacro, packages, declared_dir,
                                            xacro.substitution_args_context):
                        xacro.process_doc(doc, mappings=dict(mappings))
                else:
                    xacro.process_doc(doc, mappings=dict(mappings))
                return _unlinked(doc.toxml(), prefix, packages)
            except DescriptionError:
                raise
            except SandboxViolation as exc:
                raise DescriptionError(f'xacro: {exc}', kind='policy') from None
            except Exception as exc:  # xacro raises many kinds
                missing = _missing_package(exc, text, packages)
                if missing is not None:
                    raise DescriptionError(
                        f"$(find {missing[0]}): package '{missing[0]}' not found ({missing[1]}); "
                        'set the option xacro.package_paths, e.g. '
                        f"['{missing[0]}=/path/to/{missing[0]}']") from None
                violation = find_cause(exc, SandboxViolation)
                if violation is not None:
                    raise DescriptionError(f'xacro: {violation}', kind='policy') from None
                raise DescriptionError(_xacro_message(exc, state.get('files'))) from None


def _pairs(items: list[str], separator: str, option: str, form: str) -> dict[str, str]:
    result = {}
    for item in items:
        key, sep, value = item.partition(separator)
        if not sep or not key.strip():
            raise DescriptionError(f"option xacro.{option}: '{item}' is not of the form {form}")
        result[key.strip()] = value.strip() if separator == '=' else value
    return result


@contextmanager
def _package_index(packages: Mapping[str, str]) -> Iterator[str | None]:
    """
    Put ``packages`` first in the ament index for one expansion; yield its prefix.

    The prefix is a temporary folder holding ``share/ament_index/resource_index/packages/
    <pkg>`` and a link ``share/<pkg>`` to the declared folder, which is how xacro's
    ``$(find)`` (ament_index_python) finds a package; AMENT_PREFIX_PATH is restored after.
    """
    if not packages:
        yield None
        return
    for name in packages:
        if not _PACKAGE_NAME.fullmatch(name) or name == 'ament_index':
            raise DescriptionError(f"option xacro.package_paths: '{name}' is not a package name")
    prefix = tempfile.mkdtemp(prefix='urdf_state_xacro_')
    saved = os.environ.get('AMENT_PREFIX_PATH')
    try:
        index = os.path.join(prefix, 'share', 'ament_index', 'resource_index', 'packages')
        os.makedirs(index)
        for name, path in packages.items():
            open(os.path.join(index, name), 'w', encoding='utf-8').close()
            os.symlink(os.path.abspath(path), os.path.join(prefix, 'share', name))
        os.environ['AMENT_PREFIX_PATH'] = os.pathsep.join(filter(None, (prefix, saved)))
        yield prefix
    finally:
        if saved is None:
            os.environ.pop('AMENT_PREFIX_PATH', None)
        else:
            os.environ['AMENT_PREFIX_PATH'] = saved
        shutil.rmtree(prefix, ignore_errors=True)


def _unlinked(text: str, prefix: str | None, packages: Mapping[str, str]) -> str:
    """``text`` with the links of :func:`_package_index` replaced by the declared folders."""
    for name, path in (packages.items() if prefix else ()):
        text = text.replace(os.path.join(prefix, 'share', name), path)
    return text


def _missing_package(exc: BaseException, text: str,
                     packages: Mapping[str, str]) -> tuple[str, str] | None:
    """(package, why) when ``exc`` is a ``$(find)`` the ament index cannot answer."""
    try:
        from ament_index_python.packages import PackageNotFoundError
    except ImportError:   # xacro's $(find) needs it
        cause = find_cause(exc, ImportError)
        why = 'ament_index_python is not available'
    else:
        cause = find_cause(exc, PackageNotFoundError)
        named = re.search(r"package '([^']*)'", str(cause or ''))
        if named is not None:
            return named.group(1), f'ament index: {cause}'
        cause = find_cause(exc, OSError)   # no index at all: AMENT_PREFIX_PATH unset
        if cause is not None and 'AMENT_PREFIX_PATH' not in str(cause):
            cause = None
        why = f'ament index: {cause}'
    # the index's errors above name no package: the first undeclared one the text finds
    names = [n for n in re.findall(r'\$\(find\s+([^\s)]+)', text) if n not in packages]
    return (names[0], why) if cause is not None and names else None


def _safe_parse_string(text: str):
    from defusedxml import DefusedXmlException
    import defusedxml.minidom
    try:
        return defusedxml.minidom.parseString(text.encode('utf-8'))
    except DefusedXmlException as exc:
        raise DescriptionError(
            f'XML entity declarations are not allowed ({exc}): a robot description needs '
            'none, and they enable entity-expansion and external-file attacks') from None
    except Exception as exc:  # expat errors
        raise DescriptionError(f'not well-formed XML: {exc}') from None


def _xacro_message(exc: BaseException, files: list | None) -> str:
    message = str(exc) or repr(exc)
    chain = [f for f in reversed(files or []) if f]
    if chain and not chain[0].endswith(_STRING_NAME):
        message += ' (in ' + ', included from '.join(chain) + ')'
    return f'xacro: {message}'


@contextmanager
def _xacro_session(xacro, base_dir: str):
    """Set xacro's globals for one expansion; restore them afterwards."""
    state: dict[str, Any] = {}

    original_parse = xacro.parse

    def safe_parse(inp, filename=None):
        if inp is None:
            # xacro < 2.1 (older Humble installs) has no root_dir and opens the name as given.
            path = os.path.join(getattr(xacro, 'root_dir', os.curdir), filename)
            check_file = xacro.substitution_args_context.get('check_file')
            if check_file is not None:  # the restricted policy: declared folders only
                try:
                    check_file(path, 'xacro:include')
                except SandboxViolation:
                    xacro.filestack.pop()
                    raise
            try:
                with open(path, 'rb') as stream:
                    inp = stream.read()
            except OSError as exc:
                xacro.filestack.pop()
                raise xacro.XacroException(f'{exc.strerror}: {exc.filename}', exc=exc) from None
        if isinstance(inp, (bytes, str)):
            return _safe_parse_string(normalize(inp))
        return original_parse(inp, filename)

    saved = {
        'filestack': xacro.filestack,
        'macrostack': xacro.macrostack,
        'all_includes': list(xacro.all_includes),
        'context': dict(xacro.substitution_args_context),
        'verbosity': xacro.verbosity,
    }
    xacro.parse = safe_parse
    xacro.init_stacks(os.path.join(base_dir, _STRING_NAME))
    state['files'] = xacro.filestack
    try:
        yield state
    finally:
        state['files'] = list(xacro.filestack or [])
        xacro.parse = original_parse
        xacro.filestack = saved['filestack']
        xacro.macrostack = saved['macrostack']
        xacro.all_includes[:] = saved['all_includes']
        xacro.substitution_args_context.clear()
        xacro.substitution_args_context.update(saved['context'])
        xacro.verbosity = saved['verbosity']
