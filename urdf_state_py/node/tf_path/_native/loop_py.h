/* The Python types of the native loop: Plan (plan_py.c) and Loop (loop_py.c). */
#ifndef URDF_STATE_LOOP_PY_H
#define URDF_STATE_LOOP_PY_H

#include <Python.h>

#include "plan.h"

typedef struct {
  PyObject_HEAD
  js_plan p;
  void *owned[24];       /* every block of p this object allocated (freed with it) */
  size_t n_owned;
  Py_buffer views[3];    /* q, seen_ns, last */
  int n_views;
  int ready;             /* __init__ completed: p is whole and checked */
} PlanObject;

extern PyTypeObject PlanType;
extern PyTypeObject LoopType;

#endif
