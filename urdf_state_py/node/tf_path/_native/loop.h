/* The native JointState -> /tf loop: a wait set on rclpy's rcl handles, without the GIL.
 * Pure C on rcl (no Python): module bindings (loop_py.c) supply the callbacks that take
 * the GIL for the uncommon message. */
#ifndef URDF_STATE_LOOP_H
#define URDF_STATE_LOOP_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <rcl/context.h>
#include <rcl/event.h>
#include <rcl/guard_condition.h>
#include <rcl/publisher.h>
#include <rcl/subscription.h>
#include <rcl/time.h>

#include "plan.h"

/* A message for Python: route ``route`` (index into the subscriptions), its bytes. */
typedef void (*loop_handoff_fn)(void *ctx, size_t route, const uint8_t *data, size_t size);
/* QoS event ``index`` is ready (Python takes and handles it). */
typedef void (*loop_event_fn)(void *ctx, size_t index);

typedef struct {
  pthread_mutex_t mutex;  /* held by the loop while it runs a plan, by Python to pause it */
  js_plan *plan;          /* route 0's plan, or NULL: every message goes to Python */
  js_state state;
  uint64_t handed[PLAN_RESULTS]; /* messages handed to Python, by plan result */
  uint64_t no_plan, errors;
  int stop;               /* set (atomically; the guard condition triggered) to end loop_run */
} loop_shared;

typedef struct {
  rcl_context_t *context;
  rcl_subscription_t *const *subscriptions;  /* route i: subscriptions[i] */
  size_t n_subscriptions;
  rcl_event_t *const *events;
  size_t n_events;
  rcl_publisher_t *publisher;     /* /tf */
  const rcl_guard_condition_t *stop;
  rcl_clock_t *clock;             /* the node clock ("now" of the throttle, seen_ns) */
  loop_handoff_fn handoff;
  loop_event_fn on_event;
  void *ctx;
} loop_io;

/* Serves until ``shared->stop`` is set and the guard condition triggered; 0, or -1 when
 * rcl failed (wait set, buffers, wait). Call without the GIL. */
int loop_run(const loop_io *io, loop_shared *shared);

#endif
