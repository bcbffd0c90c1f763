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

/* Python binding of the native code (module urdf_state_py.node.tf_path._urdf_state_native).
 * decode(): the native JointState decoder, for native.py and its tests.
 * Plan, Loop: the native JointState -> /tf loop (plan_py.c, loop_py.c).
 * Subscription: the JointState subscription the loop serves (subscription_py.c).
 * build_info(): what this build was compiled against (native.py refuses to
 * use the module when the running ROS 2 differs). */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE /* dladdr */
#include <Python.h>

#include <dlfcn.h>
#include <string.h>

#include <rcl/init.h>
#include <rcl/version.h>
#include <rmw/subscription_options.h>

#include "js_cdr.h"
#include "loop_py.h"
#include "subscription_py.h"

#ifndef URDF_STATE_BUILT_RMW
#define URDF_STATE_BUILT_RMW "unknown"
#endif
#ifndef URDF_STATE_BUILT_PREFIX
#define URDF_STATE_BUILT_PREFIX "unknown"
#endif

typedef struct {
  PyObject *names; /* tuple of name_count str */
} names_ctx;

static int collect_name(void *ctx, uint32_t index, const uint8_t *name, size_t length) {
  names_ctx *c = ctx;
  PyObject *s = PyUnicode_DecodeUTF8((const char *)name, (Py_ssize_t)length, "strict");
  if (!s) return 1;
  PyTuple_SET_ITEM(c->names, index, s);
  return 0;
}

/* The first pass checks everything without building a string. ``key`` is the
 * caller's cache of the last name section (encapsulation id + bytes 12 to the end
 * of the names): when this payload has the same, names and the new key are None.
 * Otherwise a second pass builds the tuple, whose size is bounded by the payload. */
static PyObject *decode(PyObject *self, PyObject *args) {
  Py_buffer buf, key;
  long long max_names;
  js_fields fields;
  char detail[256];
  names_ctx ctx = {NULL};
  PyObject *positions = NULL, *new_key = NULL, *result = NULL;
  const uint8_t *data;
  int st;
  (void)self;
  if (!PyArg_ParseTuple(args, "y*Ly*", &buf, &max_names, &key)) return NULL;
  data = buf.buf;
  st = js_decode(data, (size_t)buf.len, max_names, NULL, NULL, &fields, detail, sizeof detail);
  if (st != JS_OK) {
    result = Py_BuildValue("(ss)", js_reason(st), detail);
    goto done;
  }
  size_t section = (size_t)fields.names_end - 12; /* names_end >= 12 once accepted */
  if ((size_t)key.len != section + 2 || memcmp(key.buf, data, 2) ||
      memcmp((const uint8_t *)key.buf + 2, data + 12, section)) {
    ctx.names = PyTuple_New(fields.name_count);
    if (!ctx.names) goto done; /* its NULL slots are fine to free if the fill stops */
    st = js_decode(data, (size_t)buf.len, max_names, collect_name, &ctx, &fields, NULL, 0);
    if (st != JS_OK) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "second decode disagreed");
      goto done;
    }
    new_key = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(section + 2));
    if (!new_key) goto done;
    memcpy(PyBytes_AS_STRING(new_key), data, 2);
    memcpy(PyBytes_AS_STRING(new_key) + 2, data + 12, section);
  }
  positions = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)fields.position_count * 8);
  if (!positions) goto done;
  for (uint32_t i = 0; i < fields.position_count; i++) {
    double v = js_position(data, &fields, i);
    memcpy(PyBytes_AS_STRING(positions) + 8 * (size_t)i, &v, sizeof v);
  }
  result = Py_BuildValue("(OOlkO)", ctx.names ? ctx.names : Py_None, positions, (long)fields.sec,
                         (unsigned long)fields.nanosec, new_key ? new_key : Py_None);
done:
  Py_XDECREF(ctx.names);
  Py_XDECREF(positions);
  Py_XDECREF(new_key);
  PyBuffer_Release(&key);
  PyBuffer_Release(&buf);
  return result;
}

/* rcl: from rcl's own header; the others as setup.py found them.
 * loaded_rcl, loaded_rmw: the files of the librcl and librmw this process resolved
 * (native.py checks they are of the distro this build is for). */
static PyObject *build_info(PyObject *self, PyObject *unused) {
  Dl_info info;
  const char *rcl = "", *rmw = "";
  (void)self;
  (void)unused;
  if (dladdr((void *)&rcl_init, &info) && info.dli_fname) rcl = info.dli_fname;
  if (dladdr((void *)&rmw_get_default_subscription_options, &info) && info.dli_fname)
    rmw = info.dli_fname;
  return Py_BuildValue("{ssssssssss}", "rcl", RCL_VERSION_STR, "rmw", URDF_STATE_BUILT_RMW,
                       "prefix", URDF_STATE_BUILT_PREFIX, "loaded_rcl", rcl, "loaded_rmw", rmw);
}

static PyMethodDef methods[] = {
    {"decode", decode, METH_VARARGS,
     "decode(data, max_names, key) -> (names|None, positions, sec, nanosec, key|None) or (reason, detail)"},
    {"build_info", build_info, METH_NOARGS, "the rcl/rmw versions this build is for, and the libraries loaded"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_urdf_state_native",
    .m_doc = "Native hot path of urdf_state_py.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__urdf_state_native(void) {
  PyObject *m;
  if (PyType_Ready(&PlanType) < 0 || PyType_Ready(&LoopType) < 0 ||
      PyType_Ready(&SubscriptionType) < 0)
    return NULL;
  if (!(m = PyModule_Create(&module))) return NULL;
  Py_INCREF(&PlanType);
  Py_INCREF(&LoopType);
  Py_INCREF(&SubscriptionType);
  if (PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0 ||
      PyModule_AddObject(m, "Loop", (PyObject *)&LoopType) < 0 ||
      PyModule_AddObject(m, "Subscription", (PyObject *)&SubscriptionType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
