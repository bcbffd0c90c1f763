// The TF frames the server pushes (the newest transform of each), composed into poses in a fixed
// frame the way tf2 does a lookup: up each frame's chain of parents to its tree's root, so any
// frame of the same tree can be expressed in any other.
import { Matrix4, Quaternion, Vector3 } from 'three';

const ONE = new Vector3(1, 1, 1);

export class TfFrames {
  constructor() {
    this.frames = new Map();   // child -> {name, parent, matrix, stamp, isStatic, receivedAt}
    this.names = new Set();    // every frame named, as child or as parent
    this.version = 0;          // bumped by every update that changed something
  }

  // rows: [child, parent, x, y, z, qx, qy, qz, qw, stamp, static, age]; pageNow: performance.now()
  update(rows, pageNow) {
    const position = new Vector3();
    const rotation = new Quaternion();
    for (const row of rows) {
      let frame = this.frames.get(row[0]);
      if (!frame) {
        frame = { name: row[0], matrix: new Matrix4() };
        this.frames.set(row[0], frame);
        this.names.add(row[0]);
      }
      frame.parent = row[1];
      this.names.add(row[1]);
      position.set(row[2], row[3], row[4]);
      rotation.set(row[5], row[6], row[7], row[8]).normalize();
      frame.matrix.compose(position, rotation, ONE);
      frame.stamp = row[9];
      frame.isStatic = row[10] === 1;
      frame.receivedAt = pageNow - row[11] * 1000;
    }
    if (rows.length) this.version += 1;
  }

  // {root, matrix} of a frame relative to the root of its tree, or null in a loop. Iterative: a
  // chain may be thousands of frames long. `cache` keeps what one lookup pass computed.
  fromRoot(name, cache) {
    const chain = [];
    let current = name;
    while (!cache.has(current)) {
      const frame = this.frames.get(current);
      if (!frame) {
        cache.set(current, { root: current, matrix: new Matrix4() });
        break;
      }
      if (chain.includes(current)) return null;
      chain.push(current);
      current = frame.parent;
    }
    for (let i = chain.length - 1; i >= 0; i -= 1) {
      const above = cache.get(this.frames.get(chain[i]).parent);
      if (!above) return null;
      const matrix = above.matrix.clone().multiply(this.frames.get(chain[i]).matrix);
      cache.set(chain[i], { root: above.root, matrix });
    }
    return cache.get(name);
  }

  // A function name -> Matrix4 of that frame in `fixedFrame` (null: not connected to it).
  lookupIn(fixedFrame) {
    const cache = new Map();
    const fixed = this.names.has(fixedFrame) ? this.fromRoot(fixedFrame, cache) : null;
    const inverse = fixed ? fixed.matrix.clone().invert() : null;
    return (name) => {
      if (!fixed || !this.names.has(name)) return null;
      const pose = this.fromRoot(name, cache);
      if (!pose || pose.root !== fixed.root) return null;
      return inverse.clone().multiply(pose.matrix);
    };
  }
}

// The frame prefix of a robot whose root link is `root`: the prefix p (maybe '') for which most
// links `p + link` are frames, `p + root` among them; a tie goes to the shorter (null: none yet).
export function detectPrefix(names, root, links) {
  let best = null;
  let bestScore = 0;
  for (const name of names) {
    if (!name.endsWith(root)) continue;
    const prefix = name.slice(0, name.length - root.length);
    const score = links.filter((link) => names.has(prefix + link)).length;
    if (score > bestScore || (score === bestScore && best !== null && prefix.length < best.length)) {
      best = prefix;
      bestScore = score;
    }
  }
  return best;
}

// Lines of the frame tree: each frame under its parent, with its age ('static' for /tf_static).
export function treeLines(tf, pageNow, maxLines) {
  const children = new Map();
  for (const frame of tf.frames.values()) {
    if (!children.has(frame.parent)) children.set(frame.parent, []);
    children.get(frame.parent).push(frame.name);
  }
  const roots = [...tf.names].filter((name) => !tf.frames.has(name)).sort();
  const lines = [];
  const seen = new Set();
  const walk = (name, depth) => {
    if (lines.length >= maxLines || seen.has(name)) return;
    seen.add(name);
    const frame = tf.frames.get(name);
    let age = '';
    if (frame) age = frame.isStatic ? '  static' : `  ${Math.max(0, (pageNow - frame.receivedAt) / 1000).toFixed(2)} s`;
    lines.push(`${'  '.repeat(depth)}${name}${age}`);
    for (const child of (children.get(name) || []).sort()) walk(child, depth + 1);
  };
  roots.forEach((root) => walk(root, 0));
  if (lines.length >= maxLines) lines.push(`... (${tf.frames.size} frames)`);
  return lines;
}
