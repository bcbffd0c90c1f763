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

/* Subscription: an rcl subscription to sensor_msgs/JointState that this extension owns,
 * created on a node's rcl_node_t (rclpy's public Node.handle.pointer).
 *
 * Why: rclpy has no public way to keep its executors off one of a node's subscriptions
 * (the EventsExecutor serves every subscription in Node.subscriptions, whatever its
 * callback group). A subscription rclpy does not know is served by the native loop
 * alone, and still belongs to the node: `ros2 node info` lists it, with its QoS.
 *
 * The node handle's context manager is entered for this object's life (rclpy then
 * defers destroying the rcl node until close()), so rcl_subscription_fini never runs
 * on a finalised node. Its QoS events (incompatible QoS, and from rcl 6 on incompatible
 * type -- rclpy's default event handlers) are made here too; take_event() reads one. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <rcl/error_handling.h>
#include <rcl/event.h>
#include <rcl/subscription.h>
#include <rcl/version.h>
#include <rmw/time.h>
#include <rosidl_runtime_c/message_type_support_struct.h>

#include "subscription_py.h"

/* The generated C type support of sensor_msgs/msg/JointState (public, in
 * libsensor_msgs__rosidl_typesupport_c; declared here to need no sensor_msgs header). */
const rosidl_message_type_support_t *
rosidl_typesupport_c__get_message_type_support_handle__sensor_msgs__msg__JointState(void);

#define MAX_EVENTS 2

typedef struct {
  PyObject_HEAD
  rcl_subscription_t sub;
  rcl_event_t events[MAX_EVENTS];
  int kinds[MAX_EVENTS]; /* rcl_subscription_event_type_t of each */
  size_t n_events;
  PyObject *node_handle; /* entered while the subscription lives */
  int live;
} SubscriptionObject;

static int sub_init(SubscriptionObject *self, PyObject *args, PyObject *kwds) {
  static char *kw[] = {"node_handle", "topic", "history", "depth", "reliability", "durability",
                       "deadline_ns", "lifespan_ns", "liveliness", "lease_ns",
                       "avoid_ros_namespace_conventions", NULL};
  PyObject *node_handle, *pointer = NULL, *entered = NULL;
  const char *topic;
  int history, reliability, durability, liveliness, avoid;
  unsigned long long depth;
  long long deadline, lifespan, lease;
  rcl_node_t *node;
  if (self->node_handle) {
    PyErr_SetString(PyExc_RuntimeError, "Subscription.__init__ called twice");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "OsiKiiLLiLp", kw, &node_handle, &topic, &history,
                                   &depth, &reliability, &durability, &deadline, &lifespan,
                                   &liveliness, &lease, &avoid))
    return -1;
  if (deadline < 0 || lifespan < 0 || lease < 0) {
    PyErr_SetString(PyExc_ValueError, "negative QoS duration");
    return -1;
  }
  if (!(entered = PyObject_CallMethod(node_handle, "__enter__", NULL))) return -1;
  Py_DECREF(entered);
  Py_INCREF(node_handle);
  self->node_handle = node_handle; /* from here on, dealloc exits it */
  if (!(pointer = PyObject_GetAttrString(node_handle, "pointer"))) return -1;
  node = (rcl_node_t *)PyLong_AsVoidPtr(pointer);
  Py_DECREF(pointer);
  if (!node) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null node pointer");
    return -1;
  }
  rcl_subscription_options_t options = rcl_subscription_get_default_options();
  options.qos.history = (rmw_qos_history_policy_t)history;
  options.qos.depth = (size_t)depth;
  options.qos.reliability = (rmw_qos_reliability_policy_t)reliability;
  options.qos.durability = (rmw_qos_durability_policy_t)durability;
  options.qos.deadline = rmw_time_from_nsec((uint64_t)deadline);
  options.qos.lifespan = rmw_time_from_nsec((uint64_t)lifespan);
  options.qos.liveliness = (rmw_qos_liveliness_policy_t)liveliness;
  options.qos.liveliness_lease_duration = rmw_time_from_nsec((uint64_t)lease);
  options.qos.avoid_ros_namespace_conventions = avoid != 0;
  self->sub = rcl_get_zero_initialized_subscription();
  if (rcl_subscription_init(
          &self->sub, node,
          rosidl_typesupport_c__get_message_type_support_handle__sensor_msgs__msg__JointState(),
          topic, &options) != RCL_RET_OK) {
    PyErr_Format(PyExc_RuntimeError, "rcl_subscription_init: %s", rcl_get_error_string().str);
    rcl_reset_error();
    return -1;
  }
  self->live = 1;
  int wanted[] = {
    RCL_SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS,
#if RCL_VERSION_MAJOR >= 6
    RCL_SUBSCRIPTION_INCOMPATIBLE_TYPE,
#endif
  };
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    rcl_event_t *event = &self->events[self->n_events];
    *event = rcl_get_zero_initialized_event();
    rcl_ret_t ret = rcl_subscription_event_init(event, &self->sub,
                                                (rcl_subscription_event_type_t)wanted[i]);
    if (ret == RCL_RET_OK) {
      self->kinds[self->n_events++] = wanted[i];
    } else { /* RCL_RET_UNSUPPORTED and kin: rclpy goes on without that handler too */
      rcl_reset_error();
    }
  }
  return 0;
}

static void release(SubscriptionObject *self) {
  if (self->live) {
    for (size_t i = 0; i < self->n_events; i++)
      if (rcl_event_fini(&self->events[i]) != RCL_RET_OK) rcl_reset_error();
    self->n_events = 0;
    rcl_node_t *node = NULL;
    PyObject *pointer = self->node_handle ? PyObject_GetAttrString(self->node_handle, "pointer")
                                          : NULL;
    if (pointer) node = (rcl_node_t *)PyLong_AsVoidPtr(pointer);
    Py_XDECREF(pointer);
    PyErr_Clear();
    if (node && rcl_subscription_fini(&self->sub, node) != RCL_RET_OK) rcl_reset_error();
    self->live = 0;
  }
  if (self->node_handle) {
    PyObject *done = PyObject_CallMethod(self->node_handle, "__exit__", "OOO", Py_None, Py_None,
                                         Py_None);
    Py_XDECREF(done);
    PyErr_Clear();
    Py_CLEAR(self->node_handle);
  }
}

static PyObject *sub_close(SubscriptionObject *self, PyObject *unused) {
  (void)unused;
  release(self);
  Py_RETURN_NONE;
}

static void sub_dealloc(SubscriptionObject *self) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  release(self);
  PyErr_Restore(type, value, tb);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int check_live(SubscriptionObject *self) {
  if (!self->live) {
    PyErr_SetString(PyExc_RuntimeError, "the subscription is closed");
    return 0;
  }
  return 1;
}

static PyObject *sub_pointer(SubscriptionObject *self, void *closure) {
  (void)closure;
  if (!check_live(self)) return NULL;
  return PyLong_FromVoidPtr(&self->sub);
}

static PyObject *sub_event_pointers(SubscriptionObject *self, void *closure) {
  (void)closure;
  if (!check_live(self)) return NULL;
  PyObject *list = PyList_New((Py_ssize_t)self->n_events);
  for (size_t i = 0; list && i < self->n_events; i++) {
    PyObject *p = PyLong_FromVoidPtr(&self->events[i]);
    if (!p) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, p);
  }
  return list;
}

static PyObject *sub_topic(SubscriptionObject *self, void *closure) {
  (void)closure;
  if (!check_live(self)) return NULL;
  const char *name = rcl_subscription_get_topic_name(&self->sub);
  if (!name) {
    PyErr_SetString(PyExc_RuntimeError, "rcl_subscription_get_topic_name failed");
    rcl_reset_error();
    return NULL;
  }
  return PyUnicode_FromString(name);
}

/* take_event(index) -> None (nothing to take) or (kind, total_count, total_count_change,
 * last_policy_kind); kind: 'incompatible_qos' or 'incompatible_type'. */
static PyObject *sub_take_event(SubscriptionObject *self, PyObject *args) {
  Py_ssize_t index;
  rcl_ret_t ret;
  if (!PyArg_ParseTuple(args, "n", &index)) return NULL;
  if (!check_live(self)) return NULL;
  if (index < 0 || (size_t)index >= self->n_events) {
    PyErr_SetString(PyExc_IndexError, "no such event");
    return NULL;
  }
  if (self->kinds[index] == RCL_SUBSCRIPTION_REQUESTED_INCOMPATIBLE_QOS) {
    rmw_requested_qos_incompatible_event_status_t status;
    ret = rcl_take_event(&self->events[index], &status);
    if (ret == RCL_RET_OK)
      return Py_BuildValue("(siii)", "incompatible_qos", (int)status.total_count,
                           (int)status.total_count_change, (int)status.last_policy_kind);
  }
#if RCL_VERSION_MAJOR >= 6
  else {
    rmw_incompatible_type_status_t status;
    ret = rcl_take_event(&self->events[index], &status);
    if (ret == RCL_RET_OK)
      return Py_BuildValue("(siii)", "incompatible_type", (int)status.total_count,
                           (int)status.total_count_change, 0);
  }
#endif
  rcl_reset_error();
  Py_RETURN_NONE; /* RCL_RET_EVENT_TAKE_FAILED: nothing new */
}

static PyMethodDef sub_methods[] = {
    {"close", (PyCFunction)sub_close, METH_NOARGS,
     "finalise the subscription and its events, then release the node (idempotent)"},
    {"take_event", (PyCFunction)sub_take_event, METH_VARARGS,
     "take_event(index) -> None or (kind, total_count, total_count_change, last_policy_kind)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef sub_getset[] = {
    {"pointer", (getter)sub_pointer, NULL, "the rcl_subscription_t's address", NULL},
    {"event_pointers", (getter)sub_event_pointers, NULL, "the rcl_event_t addresses", NULL},
    {"topic_name", (getter)sub_topic, NULL, "the fully qualified topic name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject SubscriptionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_urdf_state_native.Subscription",
    .tp_basicsize = sizeof(SubscriptionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Subscription(node_handle, topic, history, depth, reliability, durability, "
              "deadline_ns, lifespan_ns, liveliness, lease_ns, avoid_ros_namespace_conventions)"
              ": a sensor_msgs/JointState subscription on the node's rcl handle",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)sub_init,
    .tp_dealloc = (destructor)sub_dealloc,
    .tp_methods = sub_methods,
    .tp_getset = sub_getset,
};
