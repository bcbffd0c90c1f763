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

/* The native JointState -> /tf loop: a wait set on rclpy's rcl handles, without the GIL.
 * Pure C on rcl (no Python): module bindings (loop_py.c) supply the callbacks that take
 * the GIL for the uncommon message. All its state is in one loop_shared per loop (no
 * global), so a process may run several. */
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

/* A message for Python: from subscriptions[sub], its bytes. */
typedef void (*loop_handoff_fn)(void *ctx, size_t sub, const uint8_t *data, size_t size);
/* QoS event ``index`` is ready (Python takes and handles it). */
typedef void (*loop_event_fn)(void *ctx, size_t index);

/* Failures a test makes happen (Loop._inject_failures): the next n of each fail. */
enum { FAULT_WAIT = 0, FAULT_TAKE, FAULT_CLOCK, FAULT_PUBLISH, FAULTS };

typedef struct {
  pthread_mutex_t mutex;  /* held by the loop while it runs a plan or counts, by Python to
                           * pause it: every field below but ``stop`` and ``faults`` */
  js_plan *plan;          /* subscription 0's plan, or NULL: every message goes to Python */
  js_state state;
  uint64_t handed[PLAN_RESULTS]; /* messages handed to Python, by plan result */
  uint64_t no_plan;       /* messages handed to Python with no plan for their subscription */
  uint64_t served;        /* messages the plan served (published or rate-limited) */
  uint64_t errors;        /* failed takes, clock reads and publications */
  uint64_t retries;       /* failed waits, each retried after a short sleep */
  int stop;               /* set (atomically; the guard condition triggered) to end loop_run */
  uint64_t activity;      /* atomic: messages taken, events and failures so far, read without
                           * a pause (an idle robot's /diagnostics is then not rebuilt) */
  int64_t faults[FAULTS]; /* atomic: failures still to inject, by FAULT_* */
} loop_shared;

typedef struct {
  rcl_context_t *context;
  rcl_subscription_t *const *subscriptions;  /* index i: subscriptions[i] */
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

/* Serves until ``shared->stop`` is set and the guard condition triggered: 0. A failed
 * wait is retried after a short sleep (counted); -1 when the loop cannot go on (its wait
 * set cannot be made, LOOP_GIVE_UP_AFTER waits in a row failed, or the context was shut
 * down), with why in ``why``. Call without the GIL. */
int loop_run(const loop_io *io, loop_shared *shared, char *why, size_t why_size);

/* Consecutive failed waits after which loop_run gives up (each after LOOP_RETRY_NS). */
#define LOOP_GIVE_UP_AFTER 100
#define LOOP_RETRY_NS 10000000L

#endif
