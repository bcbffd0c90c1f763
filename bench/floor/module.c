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

/* Python binding of the benchmark's C floor (module urdf_state_floor, built by
 * bench/setup.py; floor.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "floor.h"

/* run(context, node, topic, publisher, guard, template, offsets): the rclpy handles'
 * .pointer values (the caller holds their context managers), the JointState topic,
 * the pre-serialised TFMessage and the offsets of its stamps. Returns
 * (published, skipped, errors, ok) once the guard condition is triggered. */
static PyObject *run(PyObject *self, PyObject *args) {
  unsigned long long context, node, publisher, guard;
  const char *topic;
  Py_buffer tf;
  PyObject *offsets_obj, *seq = NULL, *result = NULL;
  size_t *offsets = NULL;
  floor_counts counts = {0, 0, 0};
  Py_ssize_t n, i;
  int st;
  (void)self;
  if (!PyArg_ParseTuple(args, "KKsKKy*O", &context, &node, &topic, &publisher, &guard, &tf,
                        &offsets_obj))
    return NULL;
  if (!context || !node || !publisher || !guard) {
    PyErr_SetString(PyExc_ValueError, "null handle pointer");
    goto done;
  }
  seq = PySequence_Fast(offsets_obj, "offsets must be a sequence of ints");
  if (!seq) goto done;
  n = PySequence_Fast_GET_SIZE(seq);
  offsets = PyMem_Calloc((size_t)n + 1, sizeof *offsets);
  if (!offsets) {
    PyErr_NoMemory();
    goto done;
  }
  for (i = 0; i < n; i++) {
    offsets[i] = PyLong_AsSize_t(PySequence_Fast_GET_ITEM(seq, i));
    if (PyErr_Occurred()) goto done;
  }
  Py_BEGIN_ALLOW_THREADS
  st = floor_run((rcl_context_t *)(uintptr_t)context, (rcl_node_t *)(uintptr_t)node, topic,
                 (rcl_publisher_t *)(uintptr_t)publisher,
                 (const rcl_guard_condition_t *)(uintptr_t)guard, tf.buf, (size_t)tf.len, offsets,
                 (size_t)n, &counts);
  Py_END_ALLOW_THREADS
  result = Py_BuildValue("(KKKO)", (unsigned long long)counts.published,
                         (unsigned long long)counts.skipped, (unsigned long long)counts.errors,
                         st == 0 ? Py_True : Py_False);
done:
  PyMem_Free(offsets);
  Py_XDECREF(seq);
  PyBuffer_Release(&tf);
  return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS,
     "run(context, node, topic, publisher, guard, template, offsets) -> counts"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "urdf_state_floor",
    .m_doc = "The benchmark's C floor: JointState in, a pre-serialised /tf out, on rcl.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit_urdf_state_floor(void) { return PyModule_Create(&module); }
