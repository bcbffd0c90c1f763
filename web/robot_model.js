// One robot description on screen: built by urdf-loader from the URDF the server prepared (mesh
// URLs already pointing at the server, refused meshes already removed), then taken apart so that
// every link is posed on its own from TF, in the fixed frame, as rviz's RobotModel display does.
import * as THREE from 'three';
import URDFLoader from 'urdf-loader';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';

const SKELETON_COLOR = 0x3b6ea5;
const Y = new THREE.Vector3(0, 1, 0);

export class RobotModel {
  // summary: the server's /api/model answer; onSettled: called once every mesh load has ended.
  constructor(summary, onSettled) {
    this.summary = summary;
    this.group = new THREE.Group();
    this.meshes = { referenced: summary.meshes.referenced, loaded: 0,
      failed: summary.meshes.refusedCount, pending: 0 };
    this.failedUrls = [];
    this.onSettled = onSettled;
    this.parsing = true;
    const loader = new URDFLoader(new THREE.LoadingManager());
    loader.parseCollision = false;
    loader.loadMeshCb = (path, manager, material, done) => this.loadMesh(loader, path, manager,
      material, done);
    const robot = loader.parse(summary.urdf);
    this.parsing = false;
    this.links = new Map();
    for (const [name, link] of Object.entries(robot.links)) {
      this.links.set(name, link);
      this.group.add(link);   // out of the joint tree: each link gets its pose from TF
      link.matrixAutoUpdate = false;
      link.visible = false;
    }
    this.parents = new Map(summary.links);
    this.posed = 0;
    this.skeleton = this.buildSkeleton();
    this.checkSettled();
  }

  loadMesh(loader, path, manager, material, done) {
    this.meshes.pending += 1;
    const finish = (object, error) => {
      this.meshes.pending -= 1;
      if (object && !error) {
        this.meshes.loaded += 1;
      } else {
        this.meshes.failed += 1;
        this.failedUrls.push(path);
      }
      done(object, error);
      this.checkSettled();
    };
    const type = path.split('?')[0].split('.').pop().toLowerCase();
    if (type === 'stl' || type === 'dae') {
      loader.defaultMeshLoader(path, manager, material, finish);
    } else if (type === 'obj') {
      new OBJLoader(manager).load(path, (object) => {
        object.traverse((child) => { if (child.isMesh) child.material = material; });
        finish(object);
      }, undefined, (error) => finish(null, error || new Error('load failed')));
    } else {
      finish(null, new Error(`no loader for .${type}`));
    }
  }

  get settled() { return !this.parsing && this.meshes.pending === 0; }

  checkSettled() {
    if (this.settled && this.onSettled) {
      const callback = this.onSettled;
      this.onSettled = null;
      callback(this);
    }
  }

  buildSkeleton() {
    const joints = new THREE.Mesh(new THREE.SphereGeometry(1, 16, 12),
      new THREE.MeshPhongMaterial({ color: SKELETON_COLOR }));
    const group = new THREE.Group();
    const spheres = new Map();
    const rods = [];
    const rodGeometry = new THREE.CylinderGeometry(1, 1, 1, 10);
    for (const [name, parent] of this.parents) {
      const sphere = joints.clone();
      spheres.set(name, sphere);
      group.add(sphere);
      if (parent !== null) {
        const rod = new THREE.Mesh(rodGeometry, joints.material);
        rods.push({ rod, name, parent });
        group.add(rod);
      }
    }
    const axes = new THREE.Group();
    for (const name of this.parents.keys()) {
      const helper = new THREE.AxesHelper(1);
      helper.name = name;
      axes.add(helper);
    }
    this.group.add(group, axes);
    return { group, spheres, rods, axes };
  }

  // Pose every link from `lookup` (name -> Matrix4 in the fixed frame, or null); returns how many
  // links have a pose. A link without one is hidden, as rviz hides a link it cannot transform.
  applyPoses(lookup, prefix) {
    let posed = 0;
    const origins = new Map();
    for (const [name, link] of this.links) {
      const pose = lookup(prefix + name);
      link.visible = pose !== null;
      if (pose) {
        link.matrix.copy(pose);
        link.matrixWorldNeedsUpdate = true;
        origins.set(name, new THREE.Vector3().setFromMatrixPosition(pose));
        posed += 1;
      }
    }
    this.posed = posed;
    this.updateSkeleton(origins, lookup, prefix);
    return posed;
  }

  updateSkeleton(origins, lookup, prefix) {
    const { spheres, rods, axes } = this.skeleton;
    const size = this.size(origins);
    for (const [name, sphere] of spheres) {
      const at = origins.get(name);
      sphere.visible = at !== undefined;
      if (at) { sphere.position.copy(at); sphere.scale.setScalar(size * 0.014); }
    }
    for (const { rod, name, parent } of rods) {
      const a = origins.get(name);
      const b = origins.get(parent);
      rod.visible = Boolean(a && b && a.distanceTo(b) > 1e-9);
      if (!rod.visible) continue;
      const along = b.clone().sub(a);
      rod.position.copy(a).addScaledVector(along, 0.5);
      rod.quaternion.setFromUnitVectors(Y, along.clone().normalize());
      rod.scale.set(size * 0.007, along.length(), size * 0.007);
    }
    for (const helper of axes.children) {
      const pose = lookup(prefix + helper.name);
      helper.visible = pose !== null;
      if (pose) {
        pose.decompose(helper.position, helper.quaternion, helper.scale);
        helper.scale.setScalar(size * 0.06);
      }
    }
  }

  // The spread of the link origins (what the skeleton's thickness follows), at least 0.2 m.
  size(origins) {
    if (this.extent === undefined && origins.size === this.links.size && origins.size) {
      const box = new THREE.Box3().setFromPoints([...origins.values()]);
      this.extent = Math.max(box.getSize(new THREE.Vector3()).length(), 0.2);
    }
    return this.extent || 1;
  }

  setSkeleton(visible, axes) {
    this.skeleton.group.visible = visible;
    this.skeleton.axes.visible = axes;
  }

  dispose() {
    this.group.traverse((object) => {
      if (object.geometry) object.geometry.dispose();
      const materials = Array.isArray(object.material) ? object.material : [object.material];
      materials.forEach((material) => {
        if (!material) return;
        if (material.map) material.map.dispose();
        material.dispose();
      });
    });
  }
}
