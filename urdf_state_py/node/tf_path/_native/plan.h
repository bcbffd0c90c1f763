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

/* A plan of the native loop: native_loop.py's Plan as immutable C data, and the one
 * step that turns a serialised JointState into the /tf bytes of its name list.
 * Pure C (no Python, no ROS): the loop thread runs it without the GIL, under the
 * loop's mutex. Every index was checked against its array when the plan was built
 * (plan_check); every byte of the message is checked by js_decode before use. */
#ifndef URDF_STATE_PLAN_H
#define URDF_STATE_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint32_t n;             /* published joints: rows of w (2n: sources, then the joints) */
  uint32_t n_positions;   /* names (and positions) of the message */
  uint32_t m;             /* (src, dst) pairs copied into the merger's state */
  const uint8_t *names;   /* n_positions names, back to back (no NUL) ... */
  const uint64_t *name_at; /* ... name i is names[name_at[i]:name_at[i + 1]] */
  const int64_t *source;  /* (n) message index of each row's source value */
  const double *multiplier, *offset; /* (n) mimic rule (1, -0.0 for plain joints) */
  const double *lower, *upper;       /* (2n) source bounds, then own bounds */
  const uint8_t *unwarned;           /* (2n) rows whose joint was never warned about */
  const int64_t *src, *dst;          /* (m) message index -> state variable */
  const double *half_gain;           /* (n) complex, re/im interleaved */
  const double *basis;               /* (n, 4) complex, re/im interleaved */
  const uint8_t *rounding;           /* (n, 4) how numpy rounds Re(phase * basis) (ROUND_*) */
  const uint64_t *rotation_at;       /* (n, 4) byte offsets of qx qy qz qw in tf */
  const uint64_t *stamp_at;          /* (n) byte offsets of each sec (nanosec follows) */
  uint64_t tf_size;
  int64_t interval_ns;               /* the throttle's; 0: no limit */
  int ignore_timestamp, ignore_limits;
  /* the merger's arrays (owned by Python, kept alive and writable by the plan's owner) */
  double *q;
  int64_t *seen_ns, *last;           /* merger.seen_ns, merger.throttle._last */
  uint64_t n_vars;                   /* length of q, seen_ns and last */
  /* per step (only the thread holding the loop's mutex touches them) */
  uint8_t *tf;                       /* the message, patched in place */
  double *raw, *w, *checked;         /* (n), (2n), (n) */
  uint8_t *rows;                     /* (2n) rows clamped by this step's clip */
  uint8_t *last_rows;                /* (2n) rows clamped by the last step that published */
} js_plan;

/* What the loop keeps of the Python state while it runs a plan (see native_loop.py). */
typedef struct {
  int64_t last_now, writes;          /* PublishThrottle.loop_state() */
  int marked;                        /* Plan.marked is (marked_writes, marked_stamp) */
  int64_t marked_writes, marked_stamp;
  int clean;                         /* NativePlans.clean */
  uint64_t published, clamps;        /* since the last read from Python */
  int clamped_rows;                  /* plan->last_rows holds clamped rows, unread */
  int64_t last_tf_ns;
} js_state;

enum plan_result {
  PLAN_PUBLISH = 0,   /* plan->tf holds the /tf message */
  PLAN_THROTTLED,     /* rate-limited: nothing to publish (state updated) */
  PLAN_MALFORMED,     /* the reasons a message goes to Python, in this order */
  PLAN_OTHER_NAMES,
  PLAN_NON_FINITE,
  PLAN_NEW_CLAMP,
  PLAN_THROTTLE_WARNS,
  PLAN_NOT_CLEAN,
  PLAN_RESULTS
};

/* Names of the results from PLAN_MALFORMED on (the handed-over counters' keys). */
const char *plan_result_name(int result);

/* numpy's complex product, re = pr*br - pi*bi, rounds as one of these (its SIMD
 * loops fuse a multiply-add where the CPU has FMA): learnt per element. */
enum { ROUND_PLAIN = 0, ROUND_FMA_FIRST, ROUND_FMA_SECOND, ROUND_UNKNOWN };

/* Fills ``rounding`` (n * 4) from ``trials`` products numpy computed with the plan's
 * basis: ``phase`` (trials, n) complex, ``real`` (trials, n, 4) Re(phase * basis).
 * NULL, or why numpy's rounding could not be matched. */
const char *plan_learn_rounding(const js_plan *plan, uint8_t *rounding, const double *phase,
                                const double *real, size_t trials);

/* NULL when every index and offset of the plan lies inside its arrays, else why not. */
const char *plan_check(const js_plan *plan);

/* The JointState step's work on one message of the plan's name list, at node clock
 * ``now_ns``. Changes nothing for a result >= PLAN_MALFORMED (Python then runs the
 * JointState step on the same message, which reports its own clamps). PLAN_PUBLISH: plan->tf holds the /tf,
 * which the caller counts with plan_published once it went out. */
int plan_step(js_plan *plan, js_state *state, const uint8_t *data, size_t size, int64_t now_ns);

/* The /tf of a PLAN_PUBLISH step was published at node clock ``now_ns``. */
void plan_published(js_state *state, int64_t now_ns);

#endif
