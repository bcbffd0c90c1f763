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
What the chaos soak (test_chaos_soak.py) checks, from what it recorded.

The soak numbers its good JointStates k = 0, 1, ... and stamps message k
``base + k`` ms, its values a function of k: a /tf message names its k by its
stamp, so nothing per message has to be stored but two flags and a send time
(an hour at 1 kHz: a few MB). Each change of what /tf must show (the
description, ``frame_prefix``) is a :class:`Config` with the time it was asked
for and the time its answer came; a /tf message for k must match, frame set
and values (the library's FK of that model), one of the configs that may have
been in effect between sending k and receiving the /tf -- never a mix of two.
"""
from __future__ import annotations

from array import array
import bisect
from dataclasses import dataclass, field
import struct
import threading

from node_harness import compose_poses
import numpy as np
from urdf_state_py.core.kinematics import Kinematics
from urdf_state_py.core.parsers import load_model
from urdf_state_py.core.transforms import matrix_to_rpy, quaternion_to_matrix

MS = 1_000_000
#: flags of message k: not a good message (or not sent), good, good inside a flood window
NONE, GOOD, FLOODED = 0, 1, 2


def read_tf(data: bytes) -> tuple[int | None, dict]:
    """
    Decode a serialized TFMessage: its first stamp and the transforms.

    (stamp of the first transform in ns, child -> (parent, 4x4)) of a serialized
    TFMessage (little-endian CDR, as Fast DDS writes it).

    The checker reads every /tf of an hour with floods: rclpy's deserialize_message
    (260 us for 3 transforms) and one allclose per frame made it 0.4 ms a message, and
    after the floods late in an hour it was minutes behind the receiver. Compared with
    deserialize_message in test_chaos_soak.py::test_read_tf_reads_what_rclpy_reads.
    """
    if data[:2] != b'\x00\x01':
        raise ValueError(f'not little-endian CDR: {data[:4]!r}')
    (count,), pos, stamp, out = struct.unpack_from('<I', data, 4), 8, None, {}

    def string(pos: int) -> tuple[str, int]:
        pos += -(pos - 4) % 4
        (length,) = struct.unpack_from('<I', data, pos)
        return data[pos + 4:pos + 3 + length].decode(), pos + 4 + length
    for _ in range(count):
        sec, nanosec = struct.unpack_from('<iI', data, pos)
        parent, pos = string(pos + 8)
        child, pos = string(pos)
        pos += -(pos - 4) % 8
        x, y, z, *q = struct.unpack_from('<7d', data, pos)
        pos += 56
        m = np.eye(4)
        m[:3, :3] = quaternion_to_matrix(np.array(q))
        m[:3, 3] = (x, y, z)
        out[child] = (parent, m)
        stamp = sec * 1_000_000_000 + nanosec if stamp is None else stamp
    return stamp, out


def positions(k: int) -> tuple[float, float]:
    """Joint values (a, b) of good message k: in the limits of both models."""
    return 0.9 * np.sin(k * 6.3e-4), 1.0 + 0.9 * np.cos(k * 4.1e-4)


@dataclass(eq=False)   # one config is one change: found by identity (Ledger.ack)
class Config:
    """What /tf shows from ``t_req`` (asked, monotonic s) or ``t_ack`` (answered) on."""

    kin: Kinematics
    prefix: str
    t_req: float
    t_ack: float = float('inf')
    frames: frozenset = field(init=False)

    def __post_init__(self) -> None:
        moving = [j.child for j in self.kin.model.joints if j.is_movable]
        self.frames = frozenset(self.prefix + link for link in moving)

    def mismatch(self, tf: dict, k: int) -> str | None:
        """
        Say why ``tf`` (child -> (parent, 4x4)) is not this model's answer to message k.

        None: it is.
        """
        if set(tf) != self.frames:
            return f'{self.kin.model.name}/{self.prefix}: other frames'
        a, b = positions(k)
        poses = self.kin.link_poses(self.kin.positions({'a': a, 'b': b}))
        got = compose_poses(tf, self.prefix + self.kin.model.root)
        frames = sorted(self.frames)
        wanted = [poses[self.kin.link_names.index(f[len(self.prefix):])] for f in frames]
        if all(f in got for f in frames) and np.allclose([got[f] for f in frames], wanted,
                                                         atol=1e-9):
            return None        # (one comparison: frame by frame only to say what differs)
        for frame, want in zip(frames, wanted):
            pose = got.get(frame, np.zeros((4, 4)))
            if not np.allclose(pose, want, atol=1e-9):
                return (f'{self.kin.model.name}/{self.prefix}: {frame} {_pose_text(pose)}, '
                        f'FK of a={a:.4f} b={b:.4f} {_pose_text(want)}')
        return None


def _pose_text(pose: np.ndarray) -> str:
    """Return a pose in a line: translation and roll, pitch, yaw."""
    return (f'at {np.round(pose[:3, 3], 4).tolist()} '
            f'rpy {np.round(matrix_to_rpy(pose[:3, :3]), 4).tolist()}')


class Ledger:
    """Sent messages, configs and received /tf, and the verdicts on them."""

    def __init__(self, base_ns: int, capacity: int) -> None:
        self.base_ns = base_ns
        self.flags = bytearray(capacity)
        self.received = bytearray(capacity)       # /tf messages per k (saturating at 255)
        self.sent_at = array('d', bytes(8 * capacity))
        self.configs: list[Config] = []
        self._t_req: list[float] = []             # of configs, in order (sorted)
        self._t_ack: list[float] = []             # (sorted: each is answered before the next)
        self._prefixes: set[str] = set()
        self._framesets: set[frozenset] = set()
        self._kin: dict[str, Kinematics] = {}
        self._lock = threading.Lock()
        self.wrong: list[str] = []                # the first few bad /tf messages, explained
        self.lag: dict[int, float] = {}           # max receive - send time, by send second
        self.n_wrong = self.n_other = self.n_checked = self.n_foreign = 0

    # -- recording -------------------------------------------------------------------

    def sent(self, k: int, flag: int, t: float) -> None:
        self.flags[k] = flag
        self.sent_at[k] = t

    def config(self, description: str, prefix: str, t_req: float) -> Config:
        """Return a new config asked for at ``t_req``; set its ``t_ack`` once answered."""
        kin = self._kin.get(description)
        if kin is None:
            kin = self._kin[description] = Kinematics(load_model(description))
        config = Config(kin, prefix, t_req)
        with self._lock:
            self.configs.append(config)
            self._t_req.append(t_req)
            self._t_ack.append(config.t_ack)
            self._prefixes.add(prefix)
            self._framesets.add(config.frames)
        return config

    def ack(self, config: Config, t_ack: float) -> None:
        """Record the change answered at ``t_ack``: in effect from then on."""
        with self._lock:
            config.t_ack = self._t_ack[self.configs.index(config)] = t_ack

    # -- checking --------------------------------------------------------------------

    def check(self, t_recv: float, stamp: int | None, tf: dict) -> None:
        """One received /tf message (as read_tf reads it) against the ledger."""
        k, rest = divmod(stamp - self.base_ns, MS) if stamp is not None else (-1, 1)
        # the configs only grow, one every few seconds: looked up by bisection on their
        # times (not walked: an hour's 700 configs cost the 1 kHz checker 2 lists each)
        with self._lock:
            if not any(f.startswith(p) for p in self._prefixes for f in tf):
                self.n_foreign += 1       # another node's /tf (none of this run's prefixes)
                return
            if rest or not 0 <= k < len(self.flags) or self.flags[k] == NONE:
                # not one of the good messages (a flood's, an accepted mutation): no mixing
                self.n_other += 1
                if frozenset(tf) not in self._framesets:
                    self._bad(f'a /tf message mixes frames of two models: {sorted(tf)}')
                return
            t_send = self.sent_at[k]
            # in effect at some time in [t_send, t_recv]: asked before t_recv, and not
            # replaced (its successor answered) before t_send
            first = max(0, bisect.bisect_right(self._t_ack, t_send) - 1)
            last = bisect.bisect_right(self._t_req, t_recv)
            candidates = self.configs[first:last]
        self.n_checked += 1
        self.received[k] = min(255, self.received[k] + 1)
        second = int(t_send)
        self.lag[second] = max(self.lag.get(second, 0.0), t_recv - t_send)
        why = [c.mismatch(tf, k) for c in candidates]
        if None not in why:
            self._bad(f'/tf for message {k} (stamp {stamp} ns) matches no '
                      f'model in effect: {"; ".join(why)}')

    def _bad(self, text: str) -> None:
        self.n_wrong += 1
        if len(self.wrong) < 5:
            self.wrong.append(text)

    def lost_by_minute(self, upto: int, t0: float) -> dict[int, list[int]]:
        """
        Return the minutes in which good messages got no /tf.

        {minute after ``t0``: [good messages sent, lost, first lost k]} of the minutes
        in which good messages (outside floods) got no /tf.
        """
        minutes: dict[int, list[int]] = {}
        for k in range(upto):
            if self.flags[k] == GOOD:
                row = minutes.setdefault(int((self.sent_at[k] - t0) // 60), [0, 0, -1])
                row[0] += 1
                if not self.received[k]:
                    row[1] += 1
                    row[2] = k if row[2] < 0 else row[2]
        return {m: row for m, row in minutes.items() if row[1]}

    def tally(self, upto: int) -> dict:
        """Count over the good messages 0..upto-1: outside floods lost / duplicated."""
        flags, received = self.flags[:upto], self.received[:upto]
        out = {'good': 0, 'flooded': 0, 'lost': 0, 'duplicated': 0, 'lost in floods': 0}
        for flag, n in zip(flags, received):
            if flag == GOOD:
                out['good'] += 1
                out['lost'] += n == 0
                out['duplicated'] += n > 1
            elif flag == FLOODED:
                out['flooded'] += 1
                out['lost in floods'] += n == 0
        return out


@dataclass(frozen=True)
class MemorySample:
    """
    One look at the node's memory, split where a growth means different things.

    ``rss`` is the whole resident set (VmRSS, psutil's RSS). ``shm`` is the part that is
    pages of shared-memory segments (Linux RssShmem): Fast DDS's shared-memory
    transport maps one segment per participant on the machine (540 kB each, the
    node's own and every writer's it reads from), and a page of one becomes
    resident in the node as the writer's buffers come round to it, so that part
    grows for a while but never past the segments' size (``shm_mapped``).
    ``private`` (RssAnon + RssFile) is the rest: a leak shows there.
    """

    t: float
    rss: float          # MB
    private: float      # MB
    shm: float          # MB
    shm_mapped: float   # MB: the size of every shared-memory segment mapped
    shm_segments: int
    threads: int
    fds: int


def memory_sample(t: float, process) -> MemorySample:
    """Return the node's memory now (``process``: a psutil.Process; Linux /proc)."""
    kb = {}    # one read of status for the memory and the thread count
    with open(f'/proc/{process.pid}/status') as status:
        for line in status:
            key, _, value = line.partition(':')
            if key in ('VmRSS', 'RssAnon', 'RssFile', 'RssShmem', 'Threads'):
                kb[key] = int(value.split()[0])
    segments = {}
    with open(f'/proc/{process.pid}/maps') as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and fields[5].startswith('/dev/shm/'):
                start, end = (int(a, 16) for a in fields[0].split('-'))
                segments[fields[5]] = segments.get(fields[5], 0) + end - start
    return MemorySample(t, kb['VmRSS'] / 1024,
                        (kb['RssAnon'] + kb['RssFile']) / 1024, kb['RssShmem'] / 1024,
                        sum(segments.values()) / 2**20, len(segments),
                        kb['Threads'], process.num_fds())


def slope_per_hour(samples: list[tuple[float, float]], tail: float = 0.8) -> float:
    """Least-squares slope (units per hour) over the last ``tail`` of (t s, value) samples."""
    t0 = samples[-1][0] - tail * (samples[-1][0] - samples[0][0])
    ts = np.array([t for t, _ in samples if t >= t0])
    vs = np.array([v for t, v in samples if t >= t0], dtype=float)
    if len(ts) < 3:
        return 0.0
    return float(np.polyfit(ts, vs, 1)[0] * 3600.0)
