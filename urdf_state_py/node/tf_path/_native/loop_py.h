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
