/* loop_run: see loop.h. The plan's step runs under shared->mutex; the mutex is never
 * held while Python runs (handoff, events), so Python can always pause the loop. */
#include "loop.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rcl/error_handling.h>
#include <rcl/wait.h>
#include <rmw/serialized_message.h>

#define WAIT_TIMEOUT_NS 100000000LL  /* re-check the stop flag at least this often */
/* hot_path.py's busy-yield rule: after this much uninterrupted work, sleep YIELD_NS
 * (a handed-over message takes the GIL: the executor thread needs its turn). */
#define BUSY_YIELD_AFTER_NS 20000000LL
#define YIELD_NS 500000L

static int64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int stopping(loop_shared *sh) { return __atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE); }

static int fill(const loop_io *io, rcl_wait_set_t *ws) {
  size_t i;
  if (rcl_wait_set_clear(ws) != RCL_RET_OK) return -1;
  for (i = 0; i < io->n_subscriptions; i++)
    if (rcl_wait_set_add_subscription(ws, io->subscriptions[i], NULL) != RCL_RET_OK) return -1;
  for (i = 0; i < io->n_events; i++)
    if (rcl_wait_set_add_event(ws, io->events[i], NULL) != RCL_RET_OK) return -1;
  return rcl_wait_set_add_guard_condition(ws, io->stop, NULL) == RCL_RET_OK ? 0 : -1;
}

/* One message of route ``route``: the plan's step, or Python. */
static void serve(const loop_io *io, loop_shared *sh, size_t route,
                  const rmw_serialized_message_t *in) {
  int result = PLAN_MALFORMED;
  pthread_mutex_lock(&sh->mutex);
  if (route == 0 && sh->plan) {
    rcl_time_point_value_t now = 0;
    if (rcl_clock_get_now(io->clock, &now) != RCL_RET_OK) {
      rcl_reset_error();
      sh->errors++;
    } else {
      result = plan_step(sh->plan, &sh->state, in->buffer, in->buffer_length, now);
    }
    if (result == PLAN_PUBLISH && sh->plan) {
      rmw_serialized_message_t out = rmw_get_zero_initialized_serialized_message();
      out.buffer = sh->plan->tf;
      out.buffer_length = out.buffer_capacity = sh->plan->tf_size;
      if (rcl_publish_serialized_message(io->publisher, &out, NULL) != RCL_RET_OK) {
        rcl_reset_error();
        sh->errors++;
      }
    }
    if (result >= PLAN_MALFORMED) sh->handed[result]++;
  } else {
    sh->no_plan++;
  }
  pthread_mutex_unlock(&sh->mutex);
  if (result >= PLAN_MALFORMED) io->handoff(io->ctx, route, in->buffer, in->buffer_length);
}

int loop_run(const loop_io *io, loop_shared *sh) {
  rcl_allocator_t allocator = rcl_get_default_allocator();
  rcl_wait_set_t ws = rcl_get_zero_initialized_wait_set();
  rmw_serialized_message_t in = rmw_get_zero_initialized_serialized_message();
  rmw_message_info_t info;
  int failed = 0;
  int64_t busy_since = -1;
  if (rcl_wait_set_init(&ws, io->n_subscriptions, 1, 0, 0, 0, io->n_events, io->context,
                        allocator) != RCL_RET_OK) {
    rcl_reset_error();
    return -1;
  }
  if (rmw_serialized_message_init(&in, 0, &allocator) != RMW_RET_OK) {
    rcl_reset_error();
    failed = -1;
    goto done;
  }
  while (!stopping(sh)) {
    size_t i, taken;
    rcl_ret_t ret;
    if (fill(io, &ws)) {
      failed = -1;
      break;
    }
    ret = rcl_wait(&ws, WAIT_TIMEOUT_NS);
    if (ret == RCL_RET_TIMEOUT) continue;
    if (ret != RCL_RET_OK) {
      failed = -1;
      break;
    }
    if (stopping(sh) || ws.guard_conditions[0]) break;
    for (i = 0; i < io->n_events; i++)
      if (ws.events[i]) io->on_event(io->ctx, i);
    do { /* round robin: one message of each route in turn, until all are drained */
      taken = 0;
      for (i = 0; i < io->n_subscriptions && !stopping(sh); i++) {
        ret = rcl_take_serialized_message(io->subscriptions[i], &in, &info, NULL);
        if (ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) continue;
        if (ret != RCL_RET_OK) {
          rcl_reset_error();
          sh->errors++;
          continue;
        }
        taken++;
        serve(io, sh, i, &in);
      }
      if (taken) {
        int64_t now = monotonic_ns();
        if (busy_since < 0) {
          busy_since = now;
        } else if (now - busy_since > BUSY_YIELD_AFTER_NS) {
          struct timespec pause = {0, YIELD_NS};
          nanosleep(&pause, NULL);
          busy_since = monotonic_ns();
        }
      } else {
        busy_since = -1;
      }
    } while (taken && !stopping(sh));
  }
done:
  rcl_reset_error();
  if (in.buffer && rcutils_uint8_array_fini(&in) != RCUTILS_RET_OK) rcl_reset_error();
  if (rcl_wait_set_fini(&ws) != RCL_RET_OK) rcl_reset_error();
  return failed;
}
