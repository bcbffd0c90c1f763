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

/* Loop(): the native loop as a Python object (module _urdf_state_native).
 *   run(...)      serves the subscriptions until request_stop() (GIL released;
 *                 retaken only to hand a message or a QoS event to Python): None,
 *                 or why the loop could not go on (loop.h)
 *   pause()       waits until the loop is between two messages and holds it there;
 *   resume()      lets it go on (the same thread, once per pause())
 *   install(...)  while paused: the plan of subscription 0 (or None) and the Python state
 *                 it continues from; take_state() returns what the loop changed since
 *   counts()      while paused: messages handed to Python by reason, served, errors,
 *                 retries
 *   activity()    from any thread, no pause: how many messages, events and failures
 *                 the loop has seen (unchanged: nothing to pull)
 *   step(...)     while paused: the installed plan on one payload, in this thread
 *   _inject_failures(wait=0, take=0, clock=0, publish=0)  for tests only: the next n
 *                 waits, takes, clock reads or publications of this loop fail
 * native_loop.py's LoopSync drives pause/take_state/install/resume. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <pthread.h>
#include <string.h>

#include "loop.h"
#include "loop_py.h"

typedef struct {
  PyObject_HEAD
  loop_shared sh;
  PyObject *plan;          /* the installed Plan (sh.plan points into it) or NULL */
  PyObject *handlers;      /* during run(): one callable per subscription */
  PyObject *on_event;      /* during run(): called with a QoS event's index */
  PyThreadState *saved;    /* during run(): the loop thread's state, GIL released */
  unsigned long paused_by; /* thread holding the pause, 0: none */
  int running, ready;
} LoopObject;

static int loop_init(LoopObject *self, PyObject *args, PyObject *kwargs) {
  (void)args;
  (void)kwargs;
  if (self->ready) return 0; /* __init__ called again: nothing to redo */
  if (pthread_mutex_init(&self->sh.mutex, NULL)) {
    PyErr_SetString(PyExc_RuntimeError, "pthread_mutex_init failed");
    return -1;
  }
  self->ready = 1;
  return 0;
}

static void loop_dealloc(LoopObject *self) {
  Py_CLEAR(self->plan);
  /* A loop dropped while paused: unlocked by the thread that paused it, never destroyed
   * locked (only that thread may unlock it; otherwise the mutex is left as it is). */
  if (self->ready && self->paused_by == PyThread_get_thread_ident()) {
    self->paused_by = 0;
    pthread_mutex_unlock(&self->sh.mutex);
  }
  if (self->ready && !self->paused_by) pthread_mutex_destroy(&self->sh.mutex);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* fn(arg) with the GIL held; arg: a new reference, or NULL (its creation failed). */
static void call(PyObject *fn, PyObject *arg) {
  PyObject *result = arg ? PyObject_CallOneArg(fn, arg) : NULL;
  if (!result) PyErr_WriteUnraisable(fn); /* the handlers report their own errors */
  Py_XDECREF(result);
  Py_XDECREF(arg);
}

static void handoff(void *ctx, size_t sub, const uint8_t *data, size_t size) {
  LoopObject *self = ctx;
  PyEval_RestoreThread(self->saved);
  call(PyTuple_GET_ITEM(self->handlers, (Py_ssize_t)sub),
       PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)size));
  self->saved = PyEval_SaveThread();
}

static void on_event(void *ctx, size_t index) {
  LoopObject *self = ctx;
  PyEval_RestoreThread(self->saved);
  call(self->on_event, PyLong_FromSize_t(index));
  self->saved = PyEval_SaveThread();
}

/* ``seq`` of ints as an array of pointers (NULL entries refused). */
static void **pointers(PyObject *seq, Py_ssize_t *n, const char *what) {
  PyObject *fast = PySequence_Fast(seq, what);
  void **out;
  Py_ssize_t i;
  if (!fast) return NULL;
  *n = PySequence_Fast_GET_SIZE(fast);
  out = PyMem_Calloc((size_t)*n + 1, sizeof *out);
  if (!out) PyErr_NoMemory();
  for (i = 0; out && i < *n; i++) {
    out[i] = PyLong_AsVoidPtr(PySequence_Fast_GET_ITEM(fast, i));
    if (!out[i]) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: null pointer", what);
      PyMem_Free(out);
      out = NULL;
    }
  }
  Py_DECREF(fast);
  return out;
}

static PyObject *loop_run_py(LoopObject *self, PyObject *args) {
  unsigned long long context, publisher, guard, clock;
  PyObject *subs_obj, *events_obj, *handlers, *event_fn;
  void **subs = NULL, **events = NULL;
  Py_ssize_t n_subs = 0, n_events = 0;
  PyObject *result = NULL;
  char why[512];
  int st;
  if (!PyArg_ParseTuple(args, "KOKKKOO!O", &context, &subs_obj, &publisher, &guard, &clock,
                        &events_obj, &PyTuple_Type, &handlers, &event_fn))
    return NULL;
  if (self->running) {
    PyErr_SetString(PyExc_RuntimeError, "the loop runs already");
    return NULL;
  }
  if (!context || !publisher || !guard || !clock) {
    PyErr_SetString(PyExc_ValueError, "null handle pointer");
    return NULL;
  }
  if (!(subs = pointers(subs_obj, &n_subs, "subscriptions")) ||
      !(events = pointers(events_obj, &n_events, "events")))
    goto done;
  if (n_subs < 1 || PyTuple_GET_SIZE(handlers) != n_subs) {
    PyErr_SetString(PyExc_ValueError, "one handler per subscription, at least one");
    goto done;
  }
  loop_io io = {(rcl_context_t *)(uintptr_t)context, (rcl_subscription_t *const *)subs,
                (size_t)n_subs, (rcl_event_t *const *)events, (size_t)n_events,
                (rcl_publisher_t *)(uintptr_t)publisher,
                (const rcl_guard_condition_t *)(uintptr_t)guard, (rcl_clock_t *)(uintptr_t)clock,
                handoff, on_event, self};
  Py_INCREF(handlers);
  Py_INCREF(event_fn);
  self->handlers = handlers;
  self->on_event = event_fn;
  self->running = 1;
  self->saved = PyEval_SaveThread();
  st = loop_run(&io, &self->sh, why, sizeof why);
  PyEval_RestoreThread(self->saved);
  self->saved = NULL;
  self->running = 0;
  Py_CLEAR(self->handlers);
  Py_CLEAR(self->on_event);
  if (st == 0) {
    Py_INCREF(Py_None);
    result = Py_None;
  } else {
    result = PyUnicode_DecodeUTF8(why, (Py_ssize_t)strlen(why), "replace");
  }
done:
  PyMem_Free(subs);
  PyMem_Free(events);
  return result;
}

static PyObject *loop_request_stop(LoopObject *self, PyObject *unused) {
  (void)unused;
  __atomic_store_n(&self->sh.stop, 1, __ATOMIC_RELEASE);
  Py_RETURN_NONE;
}

static PyObject *loop_activity(LoopObject *self, PyObject *unused) {
  (void)unused;
  return PyLong_FromUnsignedLongLong(__atomic_load_n(&self->sh.activity, __ATOMIC_RELAXED));
}

static int require_paused(LoopObject *self) {
  if (self->paused_by != PyThread_get_thread_ident()) {
    PyErr_SetString(PyExc_RuntimeError, "the loop is not paused by this thread");
    return -1;
  }
  return 0;
}

static PyObject *loop_pause(LoopObject *self, PyObject *unused) {
  (void)unused;
  if (self->paused_by == PyThread_get_thread_ident()) {
    PyErr_SetString(PyExc_RuntimeError, "the loop is paused by this thread already");
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&self->sh.mutex);
  Py_END_ALLOW_THREADS
  self->paused_by = PyThread_get_thread_ident();
  Py_RETURN_NONE;
}

static PyObject *loop_resume(LoopObject *self, PyObject *unused) {
  (void)unused;
  if (require_paused(self)) return NULL;
  self->paused_by = 0;
  pthread_mutex_unlock(&self->sh.mutex);
  Py_RETURN_NONE;
}

/* install(plan|None, last_now, writes, marked, clean); marked: None or (writes, stamp).
 * The plan installed before goes first: if this one is refused, the loop has none. */
static PyObject *loop_install(LoopObject *self, PyObject *args) {
  PyObject *plan, *marked;
  long long last_now, writes, marked_writes = 0, marked_stamp = 0;
  int clean;
  js_state *s = &self->sh.state;
  if (require_paused(self)) return NULL;
  self->sh.plan = NULL;
  Py_CLEAR(self->plan); /* paused: the loop cannot be using it */
  if (!PyArg_ParseTuple(args, "OLLOp", &plan, &last_now, &writes, &marked, &clean))
    return NULL;
  if (plan != Py_None && !PyObject_TypeCheck(plan, &PlanType)) {
    PyErr_SetString(PyExc_TypeError, "install: a Plan or None");
    return NULL;
  }
  if (plan != Py_None && !((PlanObject *)plan)->ready) {
    PyErr_SetString(PyExc_ValueError, "install: a Plan whose __init__ did not complete");
    return NULL;
  }
  if (marked != Py_None && !PyArg_ParseTuple(marked, "LL", &marked_writes, &marked_stamp))
    return NULL;
  if (plan != Py_None) {
    Py_INCREF(plan);
    self->plan = plan;
    self->sh.plan = &((PlanObject *)plan)->p;
  }
  s->last_now = last_now;
  s->writes = writes;
  s->marked = marked != Py_None;
  s->marked_writes = marked_writes;
  s->marked_stamp = marked_stamp;
  s->clean = clean;
  s->published = s->clamps = 0;
  s->clamped_rows = 0;
  Py_RETURN_NONE;
}

/* (published, clamps, rows|None, last_tf_ns, last_now, writes, marked|None, clean) since
 * install(); the counts and rows restart from zero. */
static PyObject *loop_take_state(LoopObject *self, PyObject *unused) {
  js_state *s = &self->sh.state;
  PyObject *rows = Py_None, *marked = Py_None, *result;
  (void)unused;
  if (require_paused(self)) return NULL;
  if (s->clamped_rows && self->sh.plan)
    rows = PyBytes_FromStringAndSize((const char *)self->sh.plan->last_rows,
                                     2 * (Py_ssize_t)self->sh.plan->n);
  else
    Py_INCREF(rows);
  if (s->marked)
    marked = Py_BuildValue("(LL)", (long long)s->marked_writes, (long long)s->marked_stamp);
  else
    Py_INCREF(marked);
  result = rows && marked
               ? Py_BuildValue("(KKOLLLOO)", (unsigned long long)s->published,
                               (unsigned long long)s->clamps, rows, (long long)s->last_tf_ns,
                               (long long)s->last_now, (long long)s->writes, marked,
                               s->clean ? Py_True : Py_False)
               : NULL;
  Py_XDECREF(rows);
  Py_XDECREF(marked);
  if (result) {
    s->published = s->clamps = 0;
    s->clamped_rows = 0;
  }
  return result;
}

static PyObject *loop_counts(LoopObject *self, PyObject *unused) {
  PyObject *d;
  int r;
  (void)unused;
  if (require_paused(self) || !(d = PyDict_New())) return NULL;
  for (r = PLAN_MALFORMED; r < PLAN_RESULTS; r++) {
    PyObject *v = PyLong_FromUnsignedLongLong(self->sh.handed[r]);
    if (!v || PyDict_SetItemString(d, plan_result_name(r), v)) {
      Py_XDECREF(v);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(v);
  }
  PyObject *more = Py_BuildValue("{sKsKsKsK}", "no plan", (unsigned long long)self->sh.no_plan,
                                 "served", (unsigned long long)self->sh.served,
                                 "errors", (unsigned long long)self->sh.errors,
                                 "retries", (unsigned long long)self->sh.retries);
  r = more ? PyDict_Update(d, more) : -1;
  Py_XDECREF(more);
  if (r) Py_CLEAR(d);
  return d;
}

/* step(data, now_ns) -> ('publish', tf bytes) | ('throttled', None) | (reason, None). */
static PyObject *loop_step(LoopObject *self, PyObject *args) {
  Py_buffer data;
  long long now;
  int r;
  js_plan *p = self->sh.plan;
  if (require_paused(self) || !PyArg_ParseTuple(args, "y*L", &data, &now)) return NULL;
  if (!p) {
    PyBuffer_Release(&data);
    PyErr_SetString(PyExc_RuntimeError, "no plan installed");
    return NULL;
  }
  r = plan_step(p, &self->sh.state, data.buf, (size_t)data.len, now);
  PyBuffer_Release(&data);
  if (r == PLAN_PUBLISH) { /* the caller publishes it: counted as the loop counts its own */
    plan_published(&self->sh.state, now);
    return Py_BuildValue("(sy#)", "publish", (const char *)p->tf, (Py_ssize_t)p->tf_size);
  }
  return Py_BuildValue("(sO)", r == PLAN_THROTTLED ? "throttled" : plan_result_name(r), Py_None);
}

/* _inject_failures(wait=0, take=0, clock=0, publish=0): tests only (see loop.h). */
static PyObject *loop_inject_failures(LoopObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"wait", "take", "clock", "publish", NULL};
  long long n[FAULTS] = {0, 0, 0, 0};
  int f;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|LLLL", kw, &n[FAULT_WAIT], &n[FAULT_TAKE],
                                   &n[FAULT_CLOCK], &n[FAULT_PUBLISH]))
    return NULL;
  for (f = 0; f < FAULTS; f++) __atomic_store_n(&self->sh.faults[f], n[f], __ATOMIC_RELEASE);
  Py_RETURN_NONE;
}

static PyMethodDef loop_methods[] = {
    {"run", (PyCFunction)loop_run_py, METH_VARARGS,
     "run(context, subscriptions, publisher, guard, clock, events, handlers, on_event) -> "
     "None (stopped) or why it could not go on"},
    {"request_stop", (PyCFunction)loop_request_stop, METH_NOARGS, "end run() (with the guard)"},
    {"pause", (PyCFunction)loop_pause, METH_NOARGS, "hold the loop between two messages"},
    {"resume", (PyCFunction)loop_resume, METH_NOARGS, "let the loop go on"},
    {"install", (PyCFunction)loop_install, METH_VARARGS,
     "install(plan, last_now, writes, marked, clean), paused"},
    {"take_state", (PyCFunction)loop_take_state, METH_NOARGS, "what the loop changed, paused"},
    {"activity", (PyCFunction)loop_activity, METH_NOARGS,
     "messages, events and failures so far (any thread, no pause: changed means look)"},
    {"counts", (PyCFunction)loop_counts, METH_NOARGS, "messages handed to Python by reason"},
    {"step", (PyCFunction)loop_step, METH_VARARGS, "the installed plan on one payload"},
    {"_inject_failures", (PyCFunction)(void (*)(void))loop_inject_failures,
     METH_VARARGS | METH_KEYWORDS, "tests only: the next n waits, takes, clock reads, publications fail"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject LoopType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_urdf_state_native.Loop",
    .tp_basicsize = sizeof(LoopObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The native JointState -> /tf loop (see loop.h).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)loop_init,
    .tp_dealloc = (destructor)loop_dealloc,
    .tp_methods = loop_methods,
};
