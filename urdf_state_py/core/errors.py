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
The one exception type every bad description turns into.

Callers (the node, the CLI, a user's script) catch a single type and show its
message; the message always names the offending element and the reason, so the
user can fix the file without reading a traceback.
"""


class DescriptionError(ValueError):
    """
    A robot description that cannot become a valid kinematic model.

    ``parser`` names the parser that rejected it (``None`` when the problem is
    structural and found while building the model). ``kind`` sorts rejections
    for counting: ``invalid`` (the description itself), ``policy`` (a construct
    the restricted xacro policy refuses), ``time limit``, ``memory limit``,
    ``size limit``, ``internal`` (the parser process could not start).
    """

    def __init__(self, message: str, parser: str | None = None, kind: str = 'invalid') -> None:
        self.parser = parser
        self.reason = message
        self.kind = kind
        super().__init__(f'[{parser}] {message}' if parser else message)


def find_cause(exc: BaseException | None, kind: type) -> BaseException | None:
    """
    Return the exception of type ``kind`` behind ``exc``, if any.

    Follows ``__cause__``/``__context__`` and the ``exc`` attribute that
    wrappers such as xacro's XacroException use (bounded: chains can be cyclic).
    """
    for _ in range(20):
        if exc is None or isinstance(exc, kind):
            return exc
        exc = getattr(exc, 'exc', None) or exc.__cause__ or exc.__context__
    return None
