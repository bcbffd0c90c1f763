// Copyright 2026 urdf_state_py maintainers
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

/* Plan(...): one plan of the native loop as a Python object (module _urdf_state_native).
 * Its constants (plan.h) are copied and checked (plan_check) once; it keeps the
 * merger's q, seen_ns and throttle._last exported (alive and writable) for its life.
 * Only a plan whose __init__ completed is ``ready``: Loop.install refuses any other. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loop_py.h"

static void *own(PlanObject *self, size_t count, size_t size) {
  void *block;
  if (self->n_owned >= sizeof self->owned / sizeof *self->owned) return NULL;
  block = calloc(count ? count : 1, size);
  if (block) self->owned[self->n_owned++] = block;
  return block;
}

/* ``obj``'s contiguous buffer, checked to hold ``count`` items of ``kind`` ('d' float64,
 * 'q' int64, 'B' bytes), 8-byte items aligned: 0, or -1 with the error set. */
static int view_of(PyObject *obj, char kind, size_t count, const char *what, Py_buffer *view) {
  size_t size = kind == 'B' ? 1 : 8;
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
  const char *fmt = view->format ? view->format : "B";
  if (*fmt == '<' || *fmt == '=' || *fmt == '@') fmt++;
  int format_ok = kind == 'd' ? !strcmp(fmt, "d")
                : kind == 'q' ? (!strcmp(fmt, "q") || !strcmp(fmt, "l"))
                              : (!strcmp(fmt, "B") || !strcmp(fmt, "?"));
  if (!format_ok || (size_t)view->itemsize != size || (size_t)view->len / size != count ||
      (size_t)view->len % size || (uintptr_t)view->buf % size) {
    PyErr_Format(PyExc_ValueError, "%s: expected %zu items of type %c", what, count, kind);
    PyBuffer_Release(view);
    return -1;
  }
  return 0;
}

/* A copy (owned by the plan) of ``count`` items of ``kind`` from ``obj`` (see view_of). */
static void *copy_array(PlanObject *self, PyObject *obj, char kind, size_t count,
                        const char *what) {
  Py_buffer view;
  void *block;
  if (view_of(obj, kind, count, what, &view) < 0) return NULL;
  if ((block = own(self, count, (size_t)view.itemsize)) == NULL)
    PyErr_NoMemory();
  else
    memcpy(block, view.buf, (size_t)view.len);
  PyBuffer_Release(&view);
  return block;
}

/* A writable int64/float64 array of ``count`` items (0: any, but not empty: the first
 * array sets the state's length), exported for the plan's life. */
static void *export_array(PlanObject *self, PyObject *obj, char kind, uint64_t *count,
                          const char *what) {
  Py_buffer *view = &self->views[self->n_views];
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
    return NULL;
  self->n_views++;
  const char *fmt = view->format ? view->format : "B";
  if (*fmt == '<' || *fmt == '=' || *fmt == '@') fmt++;
  int format_ok = kind == 'd' ? !strcmp(fmt, "d") : (!strcmp(fmt, "q") || !strcmp(fmt, "l"));
  if (!format_ok || view->itemsize != 8 || !view->len ||
      (*count && (uint64_t)view->len / 8 != *count)) {
    PyErr_Format(PyExc_ValueError, "%s: expected a writable %c array of the state's length",
                 what, kind);
    return NULL;
  }
  *count = (uint64_t)view->len / 8;
  return view->buf;
}

static int names_blob(PlanObject *self, PyObject *names) {
  Py_ssize_t i, n = PyTuple_Size(names);
  uint64_t total = 0;
  uint64_t *at;
  uint8_t *blob;
  if (n < 0) return -1;
  for (i = 0; i < n; i++) {
    Py_ssize_t length;
    if (!PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(names, i), &length)) return -1;
    total += (uint64_t)length;
  }
  at = own(self, (size_t)n + 1, sizeof *at);
  blob = own(self, (size_t)total, 1);
  if (!at || !blob) {
    PyErr_NoMemory();
    return -1;
  }
  for (i = 0; i < n; i++) {
    Py_ssize_t length;
    const char *s = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(names, i), &length);
    memcpy(blob + at[i], s, (size_t)length);
    at[i + 1] = at[i] + (uint64_t)length;
  }
  self->p.names = blob;
  self->p.name_at = at;
  self->p.n_positions = (uint32_t)n;
  return 0;
}

static void plan_dealloc(PlanObject *self) {
  size_t i;
  for (i = 0; i < (size_t)self->n_views; i++) PyBuffer_Release(&self->views[i]);
  for (i = 0; i < self->n_owned; i++) free(self->owned[i]);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int plan_init(PlanObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"names", "source", "multiplier", "offset", "lower", "upper", "unwarned",
                       "src", "dst", "half_gain", "basis", "rotation_at", "stamp_at", "template",
                       "interval_ns", "ignore_timestamp", "ignore_limits", "q", "seen_ns",
                       "last", "probe_phase", "probe_real", NULL};
  PyObject *names, *source, *mult, *off, *lo, *hi, *unwarned, *src, *dst, *gain, *basis, *rot,
      *stamp, *tf, *q, *seen, *last, *probe_phase, *probe_real;
  long long interval;
  int ignore_ts, ignore_limits;
  Py_ssize_t n, m;
  uint64_t n_vars = 0;
  js_plan *p = &self->p;
  const char *bad;
  Py_ssize_t trials;
  Py_buffer phase, real;
  uint8_t *rounding;
  if (self->ready || self->n_owned || self->n_views) {
    PyErr_SetString(PyExc_RuntimeError, "Plan is initialised once");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!OOOOOOOOOOOOSLppOOOOO", kw, &PyTuple_Type,
                                   &names, &source, &mult, &off, &lo, &hi, &unwarned, &src, &dst,
                                   &gain, &basis, &rot, &stamp, &tf, &interval, &ignore_ts,
                                   &ignore_limits, &q, &seen, &last, &probe_phase,
                                   &probe_real))
    return -1;
  n = PyObject_Length(mult);
  m = PyObject_Length(src);
  if (n <= 0 || m <= 0 || n > 1 << 20 || m > 1 << 20 || PyTuple_GET_SIZE(names) > 1 << 20) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "plan sizes out of range");
    return -1;
  }
  p->n = (uint32_t)n;
  p->m = (uint32_t)m;
  if (names_blob(self, names) ||
      !(p->source = copy_array(self, source, 'q', (size_t)n, "source")) ||
      !(p->multiplier = copy_array(self, mult, 'd', (size_t)n, "multiplier")) ||
      !(p->offset = copy_array(self, off, 'd', (size_t)n, "offset")) ||
      !(p->lower = copy_array(self, lo, 'd', 2 * (size_t)n, "lower")) ||
      !(p->upper = copy_array(self, hi, 'd', 2 * (size_t)n, "upper")) ||
      !(p->unwarned = copy_array(self, unwarned, 'B', 2 * (size_t)n, "unwarned")) ||
      !(p->src = copy_array(self, src, 'q', (size_t)m, "src")) ||
      !(p->dst = copy_array(self, dst, 'q', (size_t)m, "dst")) ||
      !(p->half_gain = copy_array(self, gain, 'd', 2 * (size_t)n, "half_gain")) ||
      !(p->basis = copy_array(self, basis, 'd', 8 * (size_t)n, "basis")) ||
      !(p->rotation_at = copy_array(self, rot, 'q', 4 * (size_t)n, "rotation_at")) ||
      !(p->stamp_at = copy_array(self, stamp, 'q', (size_t)n, "stamp_at")) ||
      !(p->tf = copy_array(self, tf, 'B', (size_t)PyBytes_GET_SIZE(tf), "template")) ||
      !(p->q = export_array(self, q, 'd', &n_vars, "q")) ||
      !(p->seen_ns = export_array(self, seen, 'q', &n_vars, "seen_ns")) ||
      !(p->last = export_array(self, last, 'q', &n_vars, "last")) ||
      !(p->raw = own(self, (size_t)n, sizeof(double))) ||
      !(p->w = own(self, 2 * (size_t)n, sizeof(double))) ||
      !(p->checked = own(self, (size_t)n, sizeof(double))) ||
      !(p->rows = own(self, 2 * (size_t)n, 1)) ||
      !(p->last_rows = own(self, 2 * (size_t)n, 1))) {
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
  }
  p->n_vars = n_vars;
  p->tf_size = (uint64_t)PyBytes_GET_SIZE(tf);
  p->interval_ns = interval;
  p->ignore_timestamp = ignore_ts;
  p->ignore_limits = ignore_limits;
  if ((bad = plan_check(p)) != NULL) {
    PyErr_Format(PyExc_ValueError, "invalid plan: %s", bad);
    return -1;
  }
  /* numpy's rounding, learnt from its products: the probe is read here, never kept */
  trials = PyObject_Length(probe_real);
  if (trials < 0) return -1;
  trials /= 4 * n;
  if (trials < 1) {
    PyErr_SetString(PyExc_ValueError, "no probe of numpy's rounding");
    return -1;
  }
  if (view_of(probe_phase, 'd', 2 * (size_t)(trials * n), "probe_phase", &phase) < 0) return -1;
  if (view_of(probe_real, 'd', 4 * (size_t)(trials * n), "probe_real", &real) < 0) {
    PyBuffer_Release(&phase);
    return -1;
  }
  rounding = own(self, 4 * (size_t)n, 1);
  bad = rounding ? plan_learn_rounding(p, rounding, phase.buf, real.buf, (size_t)trials) : NULL;
  PyBuffer_Release(&phase);
  PyBuffer_Release(&real);
  if (!rounding) {
    PyErr_NoMemory();
    return -1;
  }
  if (bad) {
    PyErr_Format(PyExc_ValueError, "invalid plan: %s", bad);
    return -1;
  }
  p->rounding = rounding;
  self->ready = 1; /* only now may a Loop install it */
  return 0;
}

PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_urdf_state_native.Plan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The native loop's plan for one list of joint names (immutable; see plan.h).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)plan_init,
    .tp_dealloc = (destructor)plan_dealloc,
};
