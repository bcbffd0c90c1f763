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
Sort ThreadSanitizer's report files (.ci/sanitize): ours fail, the others' are counted.

Usage: python3 .ci/tsan_reports.py OUR_MODULE REPORT_FILE...

Only the native extension (OUR_MODULE, a substring of its file name) is built with TSan.
CPython, numpy, rclpy, rcl, rmw, rcutils, Fast DDS and libstdc++ are not: TSan sees their
pthread and libc calls but not their atomics, and reports races and lock misuse inside them
that are theirs or its own blind spots (Fast DDS's TopicPayloadPool hand-over, its
shared-memory PortNode, condition variables locked in inlined code), a different function
from run to run. A suppression file cannot say "every frame lies elsewhere": `race:X`
matches X in any frame of either stack, so `race:libfastrtps.so` would also hide a race of
ours whose stack passes through Fast DDS, and `called_from_lib:` stops TSan from following
those libraries' mutexes (it then reports unlocks of unlocked mutexes in libstdc++).
So the rule is applied here, by library, to what each stack says: the first frame past the
sanitizer's runtime is the code that did the thing the stack records, and a report is ours
when that frame is ours in any of its stacks:
* an access stack (the racing read or write, or the main stack of a mutex report): the code
  that touched the memory. Frames of ours further down are only callers: our loop's rcl_take
  reaches Fast DDS's TypeSupport::deserialize, which copies a payload that Fast DDS's
  publishing thread filled and handed over with its own atomics;
* every other stack (where the memory was allocated, where a mutex was made, where a
  thread was started): the code that allocated, made or started it. Our rcl_subscription_fini
  reaches Fast DDS, which takes a block from its own payload pool: Fast DDS's memory.
A report that is not ours is counted per set of libraries and printed as suppressed; any
report of ours is printed whole and fails (exit 1).
"""

from __future__ import annotations

import collections
import re
import sys

FRAME = re.compile(r'^\s+#\d+ .*\((?P<module>[^()]+?)\+0x[0-9a-f]+\)\s*$')
HEADER = re.compile(r'^WARNING: ThreadSanitizer: (?P<kind>.+?) \(pid=\d+\)')
RUNTIME = ('libtsan.so',)


def stacks(block: str) -> list[list[str]]:
    """Return the frame modules, in order, of each stack of one report."""
    found: list[list[str]] = []
    for line in block.splitlines():
        frame = FRAME.match(line)
        if frame:
            if found:
                found[-1].append(frame.group('module').rsplit('/', 1)[-1])
        elif line.strip():
            found.append([])
    return [modules for modules in found if modules]


def is_ours(block: str, ours: str) -> bool:
    """Return whether the code that accessed, allocated, made or started it is ours (see above)."""
    for modules in stacks(block):
        actor = next((m for m in modules if not m.startswith(RUNTIME)), '')
        if ours in actor:
            return True
    return False


def reports(text: str) -> list[tuple[str, str]]:
    """(kind, text) of every report in one TSan log."""
    found = []
    for block in text.split('==================\n'):
        header = next(filter(None, map(HEADER.match, block.splitlines())), None)
        if header is not None:
            found.append((header.group('kind'), block))
    return found


def main(ours: str, paths: list[str]) -> int:
    failed = 0
    foreign = collections.Counter()
    for path in paths:
        with open(path, encoding='utf-8', errors='replace') as f:
            for kind, block in reports(f.read()):
                if is_ours(block, ours):
                    failed += 1
                    sys.stderr.write(block + '==================\n')
                else:
                    libraries = sorted({m for modules in stacks(block) for m in modules
                                        if not m.startswith(RUNTIME)})
                    foreign[(kind, ', '.join(libraries) or 'no frames')] += 1
    for (kind, libraries), count in sorted(foreign.items()):
        print(f'tsan: suppressed {count} x {kind}, not ours (frames in {libraries})',
              file=sys.stderr)
    if failed:
        print(f'tsan: {failed} report(s) with a frame of ours (above)', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
