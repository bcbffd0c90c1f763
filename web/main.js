// The page: a three.js scene in the fixed frame (z up, as in ROS), fed by the server's event
// stream (model changes, coalesced TF), drawn at display rate; and window.urdfView, the hook
// scripts and tests use (ready, status(), linkPose(link), stats()).
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { TfFrames, detectPrefix } from './tf_frames.js';
import { RobotModel } from './robot_model.js';
import { Panel } from './panel.js';

const PANEL_PERIOD_MS = 500;
// drawn when something changed (new poses, the camera, the window), else once a second: an idle
// page costs nothing, and late textures still show
const REDRAW_PERIOD_MS = 1000;
const LATENCY_SAMPLES = 2000;

const canvas = document.getElementById('scene');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
renderer.setPixelRatio(window.devicePixelRatio);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xdfe3e8);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
camera.up.set(0, 0, 1);
camera.position.set(2, 2, 1.5);
scene.add(camera);
scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8f99, 1.6));
const headlight = new THREE.DirectionalLight(0xffffff, 1.6);
headlight.position.set(1, 2, 3);
camera.add(headlight);
const grid = new THREE.GridHelper(10, 20, 0x8d96a3, 0xb9c0c9);
grid.rotation.x = Math.PI / 2;   // the XY plane of the fixed frame
scene.add(grid);
const controls = new OrbitControls(camera, canvas);
let dirty = true;
controls.addEventListener('change', () => { dirty = true; });

// One robot of the page (several with the view's --namespace repeated, side by side).
function robotSlot(index) {
  return {
    index,
    summary: null,
    model: null,
    prefix: null,
    fixedFrame: null,
    namesSeen: -1,
    appliedTf: -1,
    rendered: false,
    loading: null,
    modelState() {
      if (this.summary && this.summary.error) return `not shown: ${this.summary.error}`;
      if (!this.summary || !this.summary.robot) return 'waiting for robot_description';
      if (!this.model) return 'loading model';
      if (!this.model.settled) return 'loading meshes';
      if (this.prefix === null) return 'waiting for TF';
      if (this.model.posed < this.model.links.size) {
        return `${this.model.posed}/${this.model.links.size} links have a transform to ${this.fixedFrame}`;
      }
      return 'ready';
    },
    get ready() {
      return Boolean(this.model && this.model.settled && this.rendered
        && this.model.posed === this.model.links.size);
    },
  };
}

const view = {
  tf: new TfFrames(),
  robots: [robotSlot(0)],
  tfMessages: 0,
  fps: 0,
  framed: false,
  latencies: [],
  // the panel shows the first robot's details, and every robot's name and state
  get summary() { return this.robots[0].summary; },
  get model() { return this.robots[0].model; },
  get fixedFrame() {
    const frames = this.robots.map((robot) => robot.fixedFrame).filter((frame) => frame);
    return frames.length ? [...new Set(frames)].join(', ') : null;
  },
  get prefix() { return this.robots[0].prefix; },
  robotNames() {
    const names = this.robots.map((robot) => (robot.summary && robot.summary.robot
      ? `${robot.summary.namespace || ''} ${robot.summary.robot}`.trim() : null));
    return names.some((name) => name) ? names.map((name) => name || '?').join(', ') : null;
  },
  modelState() {
    if (this.robots.length === 1) return this.robots[0].modelState();
    return this.robots.map((robot) => `${robot.summary ? robot.summary.namespace : '?'}: `
      + robot.modelState()).join('; ');
  },
};
const panel = new Panel((skeleton, axes) => {
  for (const robot of view.robots) if (robot.model) robot.model.setSkeleton(skeleton, axes);
  dirty = true;
});

async function loadModel(robot) {
  const response = await fetch(`/api/model?robot=${robot.index}`, { cache: 'no-store' });
  const summary = await response.json();
  if (robot.model) {
    scene.remove(robot.model.group);
    robot.model.dispose();
  }
  robot.model = null;
  dirty = true;
  robot.summary = summary;
  robot.prefix = null;
  robot.namesSeen = -1;
  view.framed = false;
  robot.rendered = false;
  robot.appliedTf = -1;
  if (summary.error || !summary.robot) return;
  try {
    robot.model = new RobotModel(summary, (model) => {
      const mostlyMissing = model.meshes.loaded < model.meshes.referenced / 2;
      panel.setSkeletonDefault(mostlyMissing);
      model.setSkeleton(mostlyMissing, false);
      robot.appliedTf = -1;
      dirty = true;
    });
    scene.add(robot.model.group);
  } catch (error) {
    robot.summary = { ...summary, error: `the page could not build the model: ${error.message}` };
  }
}

function requestModel(index) {
  while (view.robots.length <= index) view.robots.push(robotSlot(view.robots.length));
  const robot = view.robots[index];
  // one load at a time per robot; a change during a load loads again after it
  if (robot.loading) { robot.loading.again = true; return; }
  robot.loading = { again: false };
  loadModel(robot).catch((error) => { robot.summary = { error: `model request failed: ${error}` }; })
    .finally(() => {
      const again = robot.loading.again;
      robot.loading = null;
      if (again) requestModel(index);
    });
}

const events = new EventSource('/api/events');
events.onopen = () => panel.setConnection('connected');
events.onerror = () => panel.setConnection('reconnecting');
events.addEventListener('model', (event) => requestModel(JSON.parse(event.data).robot || 0));
events.addEventListener('tf', (event) => {
  const data = JSON.parse(event.data);
  view.tf.update(data.frames, performance.now());
  view.tfMessages = data.messages;
});

function frameCamera() {
  // the links only (setFromObject would count the hidden skeleton and axes too)
  const box = new THREE.Box3();
  for (const robot of view.robots) {
    for (const link of robot.model.links.values()) box.expandByObject(link);
  }
  if (box.isEmpty()) view.robots.forEach((robot) => box.expandByObject(robot.model.skeleton.group));
  if (box.isEmpty()) return;
  const center = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.1);
  // the box's half diagonal overstates the robot's size: 0.85 of the sphere fit fills the view
  const distance = (radius / Math.sin((camera.fov * Math.PI) / 360)) * 0.85;
  camera.position.copy(center).add(new THREE.Vector3(1, 0.8, 0.45).normalize().multiplyScalar(distance));
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(center);
  grid.position.set(center.x, center.y, box.min.z);
  grid.scale.setScalar(Math.max(radius / 2, 0.2));
  view.framed = true;
  dirty = true;
}

// Robots without a common fixed frame (each drawn in its own root frame) stand in a row, one
// robot size apart along -y; with --fixed-frame they are where TF puts them.
function placeRobots() {
  const sizes = view.robots.map((robot) => (robot.model && robot.model.extent) || 0);
  const spacing = 1.2 * Math.max(...sizes, 1);
  view.robots.forEach((robot) => {
    if (!robot.model) return;
    const offset = robot.summary.fixedFrame ? 0 : -robot.index * spacing;
    if (robot.model.group.position.y !== offset) {
      robot.model.group.position.set(0, offset, 0);
      robot.model.group.updateMatrixWorld(true);
      view.framed = false;
    }
  });
}

function applyRobotTf(robot) {
  const { model, summary } = robot;
  const { tf } = view;
  if (!model || !model.settled || tf.version === robot.appliedTf) return false;
  const links = [...model.links.keys()];
  if (summary.framePrefix !== null) {
    robot.prefix = summary.framePrefix;
  } else if (model.posed < links.length && tf.names.size !== robot.namesSeen) {
    // found again while links are missing and new frames came: early frames may mislead
    // (TALOS's gripper_left_base_link ends with base_link)
    robot.namesSeen = tf.names.size;
    robot.prefix = detectPrefix(tf.names, summary.root, links);
  }
  if (robot.prefix === null) return false;
  robot.fixedFrame = summary.fixedFrame || robot.prefix + summary.root;
  model.applyPoses(tf.lookupIn(robot.fixedFrame), robot.prefix);
  robot.appliedTf = tf.version;
  let newest = 0;
  for (const link of links) {
    const frame = tf.frames.get(robot.prefix + link);
    if (frame && !frame.isStatic && frame.stamp > newest) newest = frame.stamp;
  }
  return newest;
}

// The newest /tf stamp drawn now (false: nothing new to draw).
function applyTf() {
  let newest = false;
  for (const robot of view.robots) {
    const stamp = applyRobotTf(robot);
    if (stamp !== false) newest = Math.max(newest || 0, stamp);
  }
  if (newest !== false && view.robots.length > 1) placeRobots();
  return newest;
}

const allPosed = () => view.robots.every((robot) => robot.model
  && robot.model.posed === robot.model.links.size);

function resize() {
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (canvas.width !== Math.floor(width * renderer.getPixelRatio())
      || canvas.height !== Math.floor(height * renderer.getPixelRatio())) {
    renderer.setSize(width, height, false);
    camera.aspect = width / Math.max(height, 1);
    // on a wide window, centre the robot in the part the panel leaves free
    const panelWidth = document.getElementById('panel').offsetWidth + 8;
    if (width > 2 * panelWidth) camera.setViewOffset(width, height, -panelWidth / 2, 0, width, height);
    else camera.clearViewOffset();
    camera.updateProjectionMatrix();
    dirty = true;
  }
}

let frames = 0;
let fpsSince = performance.now();
let panelAt = 0;
let drawnAt = 0;
function draw(now) {
  requestAnimationFrame(draw);
  resize();
  const newest = applyTf();
  if (allPosed() && !view.framed) frameCamera();
  if (newest !== false || dirty || now - drawnAt >= REDRAW_PERIOD_MS) {
    render(now, newest);
  }
  if (now - fpsSince >= 1000) {
    view.fps = Math.round((frames * 1000) / (now - fpsSince));
    frames = 0;
    fpsSince = now;
  }
  if (now - panelAt >= PANEL_PERIOD_MS) {
    panel.show(view, now);
    panelAt = now;
  }
}
requestAnimationFrame(draw);

function render(now, newest) {
  dirty = false;
  drawnAt = now;
  frames += 1;
  controls.update();
  renderer.render(scene, camera);
  if (newest !== false && allPosed()) {
    view.robots.forEach((robot) => { robot.rendered = true; });
    if (newest > 0) {
      view.latencies.push(Date.now() / 1000 - newest);
      if (view.latencies.length > LATENCY_SAMPLES) view.latencies.shift();
    }
  }
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
}

function robotStatus(robot) {
  const { model, summary } = robot;
  return {
    robot: summary ? summary.robot || null : null,
    namespace: summary ? summary.namespace || '' : '',
    links: model ? model.links.size : 0,
    meshes: model ? { referenced: model.meshes.referenced, loaded: model.meshes.loaded,
      failed: model.meshes.failed } : { referenced: 0, loaded: 0, failed: 0 },
    tfMessages: view.tfMessages,
    version: summary ? summary.version : null,
    state: robot.modelState(),
    fixedFrame: robot.fixedFrame,
    framePrefix: robot.prefix,
    posed: model ? model.posed : 0,
    error: summary ? summary.error || null : null,
    refused: summary && summary.meshes ? summary.meshes.refusedCount : 0,
  };
}

window.urdfView = {
  // every robot's model and meshes are loaded, every link has its TF pose, and that was drawn
  get ready() { return view.robots.every((robot) => robot.ready); },
  // the first robot's status, with every robot's under `robots`
  status() {
    return { ...robotStatus(view.robots[0]), robots: view.robots.map(robotStatus) };
  },
  // the link's pose in the scene as drawn: 16 numbers, column-major (matrixWorld.elements);
  // robot: the index of a robot of --namespace (default the first)
  linkPose(link, robot = 0) {
    const slot = view.robots[robot];
    const object = slot && slot.model ? slot.model.links.get(link) : undefined;
    return object && object.visible ? Array.from(object.matrixWorld.elements) : null;
  },
  // measured on this page: frames per second and /tf stamp -> drawn latency [s]
  stats() {
    const sorted = [...view.latencies].sort((a, b) => a - b);
    return { fps: view.fps, latency: { count: sorted.length, p50: percentile(sorted, 0.5),
      p95: percentile(sorted, 0.95), max: sorted.length ? sorted[sorted.length - 1] : null } };
  },
  clearStats() { view.latencies = []; },
};
