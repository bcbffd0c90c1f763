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

/* loop_run: see loop.h. The plan's step runs under shared->mutex; the mutex is never
 * held while Python runs (handoff, events), so Python can always pause the loop. A
 * failure is what hot_path.py makes of it: a failed wait or take is counted and retried
 * after a short sleep (never a busy loop), a failed clock read or publication counted. */
#include "loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rcl/error_handling.h>
#include <rcl/wait.h>
#include <rmw/serialized_message.h>

/* Re-check the stop flag at least this often. The guard condition is what stops the loop;
 * this only bounds a missed trigger, and every wake-up costs CPU in every robot of a
 * container, so it is long. */
#define WAIT_TIMEOUT_NS 5000000000LL
/* hot_path.py's busy-yield rule: after this much uninterrupted work, sleep YIELD_NS
 * (a handed-over message takes the GIL: the executor thread needs its turn). */
#define BUSY_YIELD_AFTER_NS 20000000LL
#define YIELD_NS 500000L

static int64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ns(long ns) {
  struct timespec pause = {0, ns};
  nanosleep(&pause, NULL);
}

static int stopping(loop_shared *sh) { return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE); }

/* 1 (and one fewer to come) when a test asked for this failure (Loop._inject_failures). */
static int injected(loop_shared *sh, int fault) {
  int64_t left = __atomic_load_n(&sh->faults[fault], __ATOMIC_ACQUIRE);
  while (left > 0)
    if (__atomic_compare_exchange_n(&sh->faults[fault], &left, left - 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      return 1;
  return 0;
}

/* Something happened that /diagnostics may show (see loop_shared.activity). */
static void active(loop_shared *sh) { __atomic_add_fetch(&sh->activity, 1, __ATOMIC_RELAXED); }

/* One more of ``counter`` (a field of sh), under the mutex Python reads it under. */
static void count(loop_shared *sh, uint64_t *counter) {
  pthread_mutex_lock(&sh->mutex);
  (*counter)++;
  pthread_mutex_unlock(&sh->mutex);
  active(sh);
}

/* ``what`` and rcl's error text into ``why``, cut to its size (rcl's error state reset). */
static void failure(char *why, size_t size, const char *what) {
  if (size && snprintf(why, size, "%s: %s", what, rcl_get_error_string().str) < 0) why[0] = 0;
  rcl_reset_error();
}

static int fill(const loop_io *io, rcl_wait_set_t *ws) {
  size_t i;
  if (rcl_wait_set_clear(ws) != RCL_RET_OK) return -1;
  for (i = 0; i < io->n_subscriptions; i++)
    if (rcl_wait_set_add_subscription(ws, io->subscriptions[i], NULL) != RCL_RET_OK) return -1;
  for (i = 0; i < io->n_events; i++)
    if (rcl_wait_set_add_event(ws, io->events[i], NULL) != RCL_RET_OK) return -1;
  return rcl_wait_set_add_guard_condition(ws, io->stop, NULL) == RCL_RET_OK ? 0 : -1;
}

/* Fills the wait set and waits: RCL_RET_OK, RCL_RET_TIMEOUT, or a failure (``why``). */
static rcl_ret_t wait_once(const loop_io *io, loop_shared *sh, rcl_wait_set_t *ws, char *why,
                           size_t size) {
  rcl_ret_t ret;
  if (injected(sh, FAULT_WAIT)) {
    snprintf(why, size, "rcl_wait: injected failure");
    return RCL_RET_ERROR;
  }
  if (fill(io, ws)) {
    failure(why, size, "filling the wait set");
    return RCL_RET_ERROR;
  }
  ret = rcl_wait(ws, WAIT_TIMEOUT_NS);
  if (ret != RCL_RET_OK && ret != RCL_RET_TIMEOUT) failure(why, size, "rcl_wait");
  return ret;
}

/* The plan's /tf out; counted as published only once rcl took it. Mutex held. */
static void publish(const loop_io *io, loop_shared *sh, int64_t now) {
  rmw_serialized_message_t out = rmw_get_zero_initialized_serialized_message();
  out.buffer = sh->plan->tf;
  out.buffer_length = out.buffer_capacity = sh->plan->tf_size;
  if (injected(sh, FAULT_PUBLISH) ||
      rcl_publish_serialized_message(io->publisher, &out, NULL) != RCL_RET_OK) {
    rcl_reset_error();
    sh->errors++;
    return;
  }
  plan_published(&sh->state, now);
}

/* One message from subscriptions[sub]: the plan's step, or Python. */
static void serve(const loop_io *io, loop_shared *sh, size_t sub,
                  const rmw_serialized_message_t *in) {
  int to_python = 1;
  pthread_mutex_lock(&sh->mutex);
  if (sub != 0 || !sh->plan) {
    sh->no_plan++;
  } else {
    rcl_time_point_value_t now = 0;
    if (injected(sh, FAULT_CLOCK) || rcl_clock_get_now(io->clock, &now) != RCL_RET_OK) {
      rcl_reset_error();
      sh->errors++; /* Python reads the clock itself: one error, no plan result */
    } else {
      int result = plan_step(sh->plan, &sh->state, in->buffer, in->buffer_length, now);
      if (result >= PLAN_MALFORMED) {
        sh->handed[result]++;
      } else {
        to_python = 0;
        sh->served++;
        if (result == PLAN_PUBLISH) publish(io, sh, now);
      }
    }
  }
  pthread_mutex_unlock(&sh->mutex);
  if (to_python) io->handoff(io->ctx, sub, in->buffer, in->buffer_length);
}

/* Takes and serves every message there is, one of each subscription in turn (round robin),
 * until all are drained; 1 when a take failed (the round ends there). */
static int drain(const loop_io *io, loop_shared *sh, rmw_serialized_message_t *in) {
  rmw_message_info_t info;
  int64_t busy_since = -1;
  size_t i, taken;
  do {
    taken = 0;
    for (i = 0; i < io->n_subscriptions && !stopping(sh); i++) {
      rcl_ret_t ret = injected(sh, FAULT_TAKE)
                          ? RCL_RET_ERROR
                          : rcl_take_serialized_message(io->subscriptions[i], in, &info, NULL);
      if (ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) continue;
      if (ret != RCL_RET_OK) {
        rcl_reset_error();
        count(sh, &sh->errors);
        return 1;
      }
      taken++;
      active(sh);
      serve(io, sh, i, in);
    }
    if (taken) {
      int64_t now = monotonic_ns();
      if (busy_since < 0) {
        busy_since = now;
      } else if (now - busy_since > BUSY_YIELD_AFTER_NS) {
        sleep_ns(YIELD_NS);
        busy_since = monotonic_ns();
      }
    }
  } while (taken && !stopping(sh));
  return 0;
}

int loop_run(const loop_io *io, loop_shared *sh, char *why, size_t why_size) {
  rcl_allocator_t allocator = rcl_get_default_allocator();
  rcl_wait_set_t ws = rcl_get_zero_initialized_wait_set();
  rmw_serialized_message_t in = rmw_get_zero_initialized_serialized_message();
  char last[256] = "";
  int failed = 0, failures = 0;
  size_t i;
  if (why_size) why[0] = '\0';
  if (rcl_wait_set_init(&ws, io->n_subscriptions, 1, 0, 0, 0, io->n_events, io->context,
                        allocator) != RCL_RET_OK) {
    failure(why, why_size, "rcl_wait_set_init");
    return -1;
  }
  if (rmw_serialized_message_init(&in, 0, &allocator) != RMW_RET_OK) {
    failure(why, why_size, "the message buffer");
    failed = -1;
    goto done;
  }
  while (!stopping(sh)) {
    rcl_ret_t ret = wait_once(io, sh, &ws, last, sizeof last);
    if (ret == RCL_RET_TIMEOUT) {
      failures = 0;
      continue;
    }
    if (ret != RCL_RET_OK) {
      if (stopping(sh)) break;
      if (!rcl_context_is_valid(io->context)) {
        snprintf(why, why_size, "the context was shut down");
        failed = -1;
        break;
      }
      count(sh, &sh->retries);
      if (++failures >= LOOP_GIVE_UP_AFTER) {
        snprintf(why, why_size, "%d waits in a row failed, the last: %s", failures, last);
        failed = -1;
        break;
      }
      sleep_ns(LOOP_RETRY_NS);
      continue;
    }
    failures = 0;
    if (stopping(sh) || ws.guard_conditions[0]) break;
    for (i = 0; i < io->n_events; i++)
      if (ws.events[i]) {
        active(sh);
        io->on_event(io->ctx, i);
      }
    if (drain(io, sh, &in)) sleep_ns(LOOP_RETRY_NS); /* never a busy loop on a failing take */
  }
done:
  rcl_reset_error();
  if (in.buffer && rcutils_uint8_array_fini(&in) != RCUTILS_RET_OK) rcl_reset_error();
  if (rcl_wait_set_fini(&ws) != RCL_RET_OK) rcl_reset_error();
  return failed;
}
