/* The Python type Subscription (subscription_py.c): a JointState subscription this
 * extension owns, on a node's rcl handle. */
#ifndef URDF_STATE_SUBSCRIPTION_PY_H
#define URDF_STATE_SUBSCRIPTION_PY_H

#include <Python.h>

extern PyTypeObject SubscriptionType;

#endif
