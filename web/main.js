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

const view = {
  tf: new TfFrames(),
  summary: null,
  model: null,
  tfMessages: 0,
  fixedFrame: null,
  prefix: null,
  namesSeen: -1,
  fps: 0,
  appliedTf: -1,
  framed: false,
  rendered: false,
  latencies: [],
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
};
const panel = new Panel((skeleton, axes) => {
  if (view.model) view.model.setSkeleton(skeleton, axes);
  dirty = true;
});

let loading = null;
async function loadModel() {
  const response = await fetch('/api/model', { cache: 'no-store' });
  const summary = await response.json();
  if (view.model) {
    scene.remove(view.model.group);
    view.model.dispose();
  }
  view.model = null;
  dirty = true;
  view.summary = summary;
  view.prefix = null;
  view.namesSeen = -1;
  view.framed = false;
  view.rendered = false;
  view.appliedTf = -1;
  if (summary.error || !summary.robot) return;
  try {
    view.model = new RobotModel(summary, (model) => {
      const mostlyMissing = model.meshes.loaded < model.meshes.referenced / 2;
      panel.setSkeletonDefault(mostlyMissing);
      model.setSkeleton(mostlyMissing, false);
      view.appliedTf = -1;
      dirty = true;
    });
    scene.add(view.model.group);
  } catch (error) {
    view.summary = { ...summary, error: `the page could not build the model: ${error.message}` };
  }
}

function requestModel() {
  // one load at a time; a change during a load loads again after it
  if (loading) { loading.again = true; return; }
  loading = { again: false };
  loadModel().catch((error) => { view.summary = { error: `model request failed: ${error}` }; })
    .finally(() => {
      const again = loading.again;
      loading = null;
      if (again) requestModel();
    });
}

const events = new EventSource('/api/events');
events.onopen = () => panel.setConnection('connected');
events.onerror = () => panel.setConnection('reconnecting');
events.addEventListener('model', requestModel);
events.addEventListener('tf', (event) => {
  const data = JSON.parse(event.data);
  view.tf.update(data.frames, performance.now());
  view.tfMessages = data.messages;
});

function frameCamera() {
  // the links only (setFromObject would count the hidden skeleton and axes too)
  const box = new THREE.Box3();
  for (const link of view.model.links.values()) box.expandByObject(link);
  if (box.isEmpty()) box.setFromObject(view.model.skeleton.group);
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

function applyTf() {
  const { model, summary, tf } = view;
  if (!model || !model.settled || tf.version === view.appliedTf) return false;
  const links = [...model.links.keys()];
  if (summary.framePrefix !== null) {
    view.prefix = summary.framePrefix;
  } else if (model.posed < links.length && tf.names.size !== view.namesSeen) {
    // found again while links are missing and new frames came: early frames may mislead
    // (TALOS's gripper_left_base_link ends with base_link)
    view.namesSeen = tf.names.size;
    view.prefix = detectPrefix(tf.names, summary.root, links);
  }
  if (view.prefix === null) return false;
  view.fixedFrame = summary.fixedFrame || view.prefix + summary.root;
  model.applyPoses(tf.lookupIn(view.fixedFrame), view.prefix);
  view.appliedTf = tf.version;
  let newest = 0;
  for (const link of links) {
    const frame = tf.frames.get(view.prefix + link);
    if (frame && !frame.isStatic && frame.stamp > newest) newest = frame.stamp;
  }
  return newest;
}

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
  if (view.model && view.model.posed === view.model.links.size && !view.framed) frameCamera();
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
  if (newest !== false && view.model && view.model.posed === view.model.links.size) {
    view.rendered = true;
    if (newest > 0) {
      view.latencies.push(Date.now() / 1000 - newest);
      if (view.latencies.length > LATENCY_SAMPLES) view.latencies.shift();
    }
  }
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null;
}

window.urdfView = {
  // the model and its meshes are loaded, every link has its TF pose, and that was drawn
  get ready() {
    return Boolean(view.model && view.model.settled && view.rendered
      && view.model.posed === view.model.links.size);
  },
  status() {
    const model = view.model;
    return {
      robot: view.summary ? view.summary.robot || null : null,
      links: model ? model.links.size : 0,
      meshes: model ? { referenced: model.meshes.referenced, loaded: model.meshes.loaded,
        failed: model.meshes.failed } : { referenced: 0, loaded: 0, failed: 0 },
      tfMessages: view.tfMessages,
      version: view.summary ? view.summary.version : null,
      state: view.modelState(),
      fixedFrame: view.fixedFrame,
      framePrefix: view.prefix,
      posed: model ? model.posed : 0,
      error: view.summary ? view.summary.error || null : null,
      refused: view.summary && view.summary.meshes ? view.summary.meshes.refusedCount : 0,
    };
  },
  // the link's pose in the fixed frame as drawn: 16 numbers, column-major (matrixWorld.elements)
  linkPose(link) {
    const object = view.model ? view.model.links.get(link) : undefined;
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
