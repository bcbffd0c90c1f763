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
The chaos soak's /tf receiver: a process of its own that forwards every /tf it takes.

Why a process: after a flood the node works off its queued JointStates at up to
~4,300 /tf a second, and its /tf writer keeps the last 100 (as robot_state_publisher's).
A receiver in the test process shares its GIL with the 1 kHz sender and the /tf
checker: served by the test's executor it took 1,300-2,500 a second and the node's
writer overwrote what it had not delivered yet; served by a thread of its own it kept
up but starved the sender. Here rclpy's executor (the node's: the EventsExecutor
where it exists) takes them alone in its interpreter, and the test process only
reads a pipe.

The pipe carries one frame per /tf message: :data:`FRAME` (the time it was taken,
``time.monotonic()`` -- CLOCK_MONOTONIC, the same clock in every process of the
machine -- and the payload's length), then the raw CDR bytes. The child ends when its
stdin closes (the test stopped or died).
"""
from __future__ import annotations

from collections.abc import Callable
import fcntl
import os
from pathlib import Path
import struct
import subprocess
import sys
import threading
import time

FRAME = struct.Struct('<dI')
#: The pipe's capacity asked for (Linux's default limit for a user): ~5,000 /tf of
#: the toy robot, a second of the burst, if the test process is slow to read.
PIPE_BYTES = 1 << 20


def split_frames(buffer: bytearray, on_tf: Callable[[float, bytes], None]) -> None:
    """
    Hand the whole frames at the start of ``buffer`` to ``on_tf``.

    Hand every whole frame at the start of ``buffer`` to ``on_tf`` and remove it; a
    partial frame stays for the next read.
    """
    pos, end = 0, len(buffer)
    while end - pos >= FRAME.size:
        taken_at, size = FRAME.unpack_from(buffer, pos)
        if end - pos - FRAME.size < size:
            break
        start = pos + FRAME.size
        on_tf(taken_at, bytes(buffer[start:start + size]))
        pos = start + size
    del buffer[:pos]


class Receiver:
    """The receiver process, and the thread of the test process that reads its frames."""

    def __init__(self, on_tf: Callable[[float, bytes], None], log_dir: Path) -> None:
        self._log = open(log_dir / 'receiver.log', 'w', encoding='utf-8')
        self.proc = subprocess.Popen([sys.executable, __file__], env=dict(os.environ),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._log)
        self._on_tf = on_tf
        self._thread = threading.Thread(target=self._read, name='tf receiver', daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = bytearray()
        fd = self.proc.stdout.fileno()
        while chunk := os.read(fd, PIPE_BYTES):
            buffer += chunk
            split_frames(buffer, self._on_tf)

    def stop(self, timeout: float = 10.0) -> None:
        """Close the child's stdin (it ends), then wait for it and for the reading thread."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self._thread.join(timeout)
        self._log.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main() -> int:
    """Run the child: take every /tf (reliable, keep all) and write it to stdout as a frame."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'bench'))
    from urdf_state_bench.common import ensure_loopback
    ensure_loopback()
    import rclpy
    from test_hostile_inputs import KEEP_ALL  # the soak's reliable keep-all profile
    from tf2_msgs.msg import TFMessage
    from urdf_state_py.node.process.spin import make_executor
    out = sys.stdout.fileno()
    try:
        fcntl.fcntl(out, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass    # a smaller pipe only makes the test process's reads more frequent

    def on_tf(data: bytes) -> None:
        _write_all(out, FRAME.pack(time.monotonic(), len(data)) + data)

    rclpy.init(args=['--ros-args', '--disable-rosout-logs'])
    node = rclpy.create_node('chaos_receiver')
    node.create_subscription(TFMessage, '/tf', on_tf, KEEP_ALL, raw=True)
    executor = make_executor()
    executor.add_node(node)
    # The main thread spins and a thread waits for the test to close stdin: the other way
    # round (EventsExecutor.spin in a thread, the main thread in sys.stdin.read()) no /tf
    # came through at all on the Jazzy wheels.
    done = threading.Event()

    def wait_for_stdin() -> None:
        sys.stdin.read()
        done.set()
    threading.Thread(target=wait_for_stdin, name='chaos_receiver stdin', daemon=True).start()
    while not done.is_set():
        executor.spin_once(timeout_sec=0.5)
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == '__main__':
    sys.exit(main())
