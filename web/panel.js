// The side panel: robot, connection and model status, mesh counts, problems and the frame tree.
// Everything from the server or the description is shown with textContent, never as HTML.
import { treeLines } from './tf_frames.js';

const MAX_TREE_LINES = 400;
const MAX_PROBLEMS = 30;

const byId = (id) => document.getElementById(id);

export class Panel {
  constructor(onToggle) {
    this.skeleton = byId('skeleton');
    this.axes = byId('axes');
    for (const box of [this.skeleton, this.axes]) {
      box.addEventListener('change', () => onToggle(this.skeleton.checked, this.axes.checked));
    }
  }

  setConnection(state) {
    const element = byId('connection');
    element.textContent = state;
    element.className = `state ${state}`;
  }

  // view: the page's state (see main.js)
  show(view, pageNow) {
    const { model, summary, tf } = view;
    byId('robot').textContent = view.robotNames() || 'no robot yet';
    const state = byId('model-state');
    state.className = summary && summary.error ? 'error' : '';
    state.textContent = view.modelState();
    byId('meshes').textContent = model
      ? `meshes: ${model.meshes.referenced} referenced, ${model.meshes.loaded} loaded, `
        + `${model.meshes.failed} failed${model.meshes.pending ? `, ${model.meshes.pending} loading` : ''}`
      : '';
    byId('tf').textContent = `TF: ${view.tfMessages} messages, ${tf.frames.size} frames; `
      + `fixed frame ${view.fixedFrame || '?'}; ${view.fps} fps`;
    this.showProblems(summary, model);
    byId('frames').textContent = treeLines(tf, pageNow, MAX_TREE_LINES).join('\n');
  }

  showProblems(summary, model) {
    const problems = [];
    if (summary && summary.error) problems.push(summary.error);
    if (summary && summary.meshes) {
      for (const [uri, reason] of summary.meshes.refused) problems.push(`not served: ${uri}: ${reason}`);
      const unlisted = summary.meshes.refusedCount - summary.meshes.refused.length;
      if (unlisted > 0) problems.push(`... and ${unlisted} more not served`);
    }
    if (model) model.failedUrls.forEach((url) => problems.push(`failed to load: ${url}`));
    const list = byId('problems');
    const key = problems.join('\n');
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    byId('problems-box').hidden = problems.length === 0;
    const count = (summary && summary.error ? 1 : 0)
      + (summary && summary.meshes ? summary.meshes.refusedCount : 0)
      + (model ? model.failedUrls.length : 0);
    byId('problems-summary').textContent = `${count} problem${count === 1 ? '' : 's'}`;
    list.replaceChildren(...problems.slice(0, MAX_PROBLEMS).map((text) => {
      const item = document.createElement('li');
      item.textContent = text;
      return item;
    }));
  }

  setSkeletonDefault(on) {
    this.skeleton.checked = on;
  }
}
