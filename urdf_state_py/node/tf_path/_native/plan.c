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

/* plan_step: the JointState step (joint_state_step.py) for one name list, in C
 * (see plan.h and native_loop.py).
 * The arithmetic is numpy's, operation for operation (built with
 * -ffp-contract=off: a multiply-add is fused only where numpy's is, see
 * plan_learn_rounding). */
#include "plan.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "js_cdr.h"

static const char *const RESULT_NAMES[] = {"malformed", "other names", "non-finite",
                                           "new clamp", "throttle warns", "not clean"};

const char *plan_result_name(int result) {
  if (result < PLAN_MALFORMED || result >= PLAN_RESULTS) return "unknown";
  return RESULT_NAMES[result - PLAN_MALFORMED];
}

static int fits(uint64_t offset, uint64_t width, uint64_t size) {
  return size >= width && offset <= size - width;
}

const char *plan_check(const js_plan *p) {
  const uint16_t one = 1;
  uint64_t i;
  if (*(const uint8_t *)&one != 1) return "not a little-endian host";
  if (!p->n || !p->m || !p->n_positions) return "empty plan";
  if (p->n > UINT32_MAX / 8 || p->n_positions > UINT32_MAX / 8) return "too many joints";
  for (i = 0; i < p->n_positions; i++)
    if (p->name_at[i] > p->name_at[i + 1]) return "name offsets out of order";
  for (i = 0; i < p->n; i++)
    if (p->source[i] < 0 || (uint64_t)p->source[i] >= p->n_positions) return "source index";
  for (i = 0; i < p->m; i++) {
    if (p->src[i] < 0 || (uint64_t)p->src[i] >= p->n_positions) return "src index";
    if (p->dst[i] < 0 || (uint64_t)p->dst[i] >= p->n_vars) return "dst index";
  }
  for (i = 0; i < 4 * (uint64_t)p->n; i++)
    if (!fits(p->rotation_at[i], 8, p->tf_size)) return "rotation offset";
  for (i = 0; i < p->n; i++)
    if (!fits(p->stamp_at[i], 8, p->tf_size)) return "stamp offset";
  if (p->interval_ns < 0) return "negative interval";
  return NULL;
}

/* numpy's fmax/fmin (NaN-ignoring) and maximum/minimum (NaN-propagating; the second
 * operand on a tie, as numpy gives it for either sign of zero). */
static double np_fmax(double a, double b) { return isnan(a) ? b : (isnan(b) || a >= b) ? a : b; }
static double np_fmin(double a, double b) { return isnan(a) ? b : (isnan(b) || a <= b) ? a : b; }
static double np_maximum(double a, double b) { return isnan(a) ? a : (a > b) ? a : b; }
static double np_minimum(double a, double b) { return isnan(a) ? a : (a < b) ? a : b; }

static int same_bytes(const double *a, const double *b, uint32_t n) {
  return memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

typedef struct {
  const js_plan *plan;
} match_ctx;

static int match_name(void *ctx, uint32_t index, const uint8_t *name, size_t length) {
  const js_plan *p = ((match_ctx *)ctx)->plan;
  uint64_t at, end;
  if (index >= p->n_positions) return 1; /* unreachable under js_decode's name cap; checked before any read all the same */
  at = p->name_at[index];
  end = p->name_at[index + 1];
  return end - at != length || memcmp(p->names + at, name, length);
}

/* Kinematics.resolve's two-stage clip (master, then mimic) into plan->w; a result
 * >= PLAN_MALFORMED when the JointState step must run. ``*clamped``: rows were clamped
 * (plan->rows). */
static int clip(js_plan *p, int *clamped) {
  const uint32_t n = p->n;
  double *raw = p->raw, *source = p->w, *effective = p->w + n, *checked = p->checked;
  int sources_clamped, any = 0;
  uint32_t i;
  for (i = 0; i < n; i++) source[i] = np_fmin(np_fmax(raw[i], p->lower[i]), p->upper[i]);
  sources_clamped = !same_bytes(raw, source, n);
  if (sources_clamped) {
    for (i = 0; i < n; i++)
      if (!isfinite(raw[i])) return PLAN_NON_FINITE;
    for (i = 0; i < n; i++)
      source[i] = np_minimum(np_maximum(raw[i], p->lower[i]), p->upper[i]);
  }
  for (i = 0; i < n; i++) {
    effective[i] = source[i] * p->multiplier[i];
    effective[i] += p->offset[i];
  }
  for (i = 0; i < n; i++)
    checked[i] = np_fmin(np_fmax(effective[i], p->lower[n + i]), p->upper[n + i]);
  if (!sources_clamped && same_bytes(checked, effective, n)) return PLAN_PUBLISH;
  for (i = 0; i < n; i++)
    checked[i] = np_minimum(np_maximum(effective[i], p->lower[n + i]), p->upper[n + i]);
  for (i = 0; i < n; i++) {
    p->rows[i] = raw[i] != source[i];
    p->rows[n + i] = checked[i] != effective[i];
  }
  for (i = 0; i < 2 * n; i++) any |= p->unwarned[i] & p->rows[i];
  if (any) return PLAN_NEW_CLAMP;
  memcpy(effective, checked, sizeof *checked * (size_t)n);
  *clamped = 1;
  return PLAN_PUBLISH;
}

/* PublishThrottle.check_quiet: PLAN_THROTTLE_WARNS (nothing changed), else publish?. */
static int throttle(const js_plan *p, js_state *s, int64_t stamp, int64_t now, int *publish) {
  int64_t newest, oldest, since, due;
  uint32_t j;
  if (s->last_now > now) return PLAN_THROTTLE_WARNS;
  if (s->marked && s->marked_writes == s->writes) {
    newest = oldest = s->marked_stamp;
  } else {
    newest = oldest = p->last[p->dst[0]];
    for (j = 1; j < p->m; j++) {
      int64_t v = p->last[p->dst[j]];
      if (v > newest) newest = v;
      if (v < oldest) oldest = v;
    }
  }
  if (stamp < newest) return PLAN_THROTTLE_WARNS;
  s->last_now = now;
  if (p->ignore_timestamp || p->interval_ns == 0) {
    *publish = 1;
    return PLAN_PUBLISH;
  }
  since = oldest > 0 ? oldest : 0;
  if (now < since) since = now;
  *publish = !__builtin_add_overflow(since, p->interval_ns, &due) && stamp >= due;
  return PLAN_PUBLISH;
}

static void put_double(uint8_t *at, double v) { memcpy(at, &v, sizeof v); }

static void put_u32(uint8_t *at, uint32_t v) {
  at[0] = (uint8_t)v;
  at[1] = (uint8_t)(v >> 8);
  at[2] = (uint8_t)(v >> 16);
  at[3] = (uint8_t)(v >> 24);
}

static double product_real(int rounding, double pr, double pi, double br, double bi) {
  switch (rounding) {
    case ROUND_FMA_FIRST: return fma(pr, br, -(pi * bi));
    case ROUND_FMA_SECOND: return fma(-pi, bi, pr * br);
    default: return pr * br - pi * bi;
  }
}

const char *plan_learn_rounding(const js_plan *p, uint8_t *rounding, const double *phase,
                                const double *real, size_t trials) {
  size_t e, t;
  for (e = 0; e < 4 * (size_t)p->n; e++) {
    unsigned possible = 7; /* bit r: ROUND r agrees with every trial so far */
    const double *b = p->basis + 2 * e;
    int r;
    for (t = 0; t < trials; t++) {
      const double *ph = phase + 2 * (t * p->n + e / 4);
      const double want = real[t * 4 * (size_t)p->n + e];
      for (r = 0; r < 3; r++)
        if (memcmp(&(double){product_real(r, ph[0], ph[1], b[0], b[1])}, &want, 8))
          possible &= ~(1u << r);
    }
    if (!possible) return "numpy's complex product rounds in an unknown way";
    rounding[e] = (possible & 1) ? ROUND_PLAIN : (possible & 2) ? ROUND_FMA_FIRST
                                                                 : ROUND_FMA_SECOND;
  }
  return NULL;
}

/* Kinematics.moving_transforms' rotations: Re(exp(w * half_gain) * basis), as numpy
 * computes complex products ((a+bi)(c+di) = (ac-bd) + (ad+bc)i, w as w+0i). */
static void write_rotations(js_plan *p) {
  const double *effective = p->w + p->n;
  uint32_t i, k;
  for (i = 0; i < p->n; i++) {
    const double gr = p->half_gain[2 * i], gi = p->half_gain[2 * i + 1];
    const double w = effective[i];
    double complex phase = CMPLX(w * gr - 0.0 * gi, w * gi + 0.0 * gr);
    phase = cexp(phase);
    for (k = 0; k < 4; k++) {
      const size_t e = 4 * (size_t)i + k;
      const double *b = p->basis + 2 * e;
      put_double(p->tf + p->rotation_at[e],
                 product_real(p->rounding[e], creal(phase), cimag(phase), b[0], b[1]));
    }
  }
}

int plan_step(js_plan *p, js_state *s, const uint8_t *data, size_t size, int64_t now_ns) {
  js_fields f;
  match_ctx ctx = {p};
  int64_t stamp;
  int st, publish = 0, clamped = 0;
  uint32_t i, j;
  st = js_decode(data, size, p->n_positions, match_name, &ctx, &f, NULL, 0);
  if (st == JS_CALLBACK_FAILED || st == JS_OVERSIZED) return PLAN_OTHER_NAMES;
  if (st != JS_OK) return PLAN_MALFORMED;
  if (f.name_count != p->n_positions || f.position_count != p->n_positions)
    return PLAN_OTHER_NAMES;
  if (!p->ignore_limits && !s->clean) return PLAN_NOT_CLEAN;
  for (i = 0; i < p->n; i++) p->raw[i] = js_position(data, &f, (uint32_t)p->source[i]);
  if ((st = clip(p, &clamped)) != PLAN_PUBLISH) return st;
  stamp = (int64_t)f.sec * 1000000000LL + (int64_t)f.nanosec;
  if ((st = throttle(p, s, stamp, now_ns, &publish)) != PLAN_PUBLISH) return st;
  if (clamped) { /* counted whenever it goes on past the throttle's check */
    s->clamps++;
    s->clamped_rows = 1;
    memcpy(p->last_rows, p->rows, 2 * (size_t)p->n);
  }
  for (j = 0; j < p->m; j++) p->seen_ns[p->dst[j]] = now_ns;
  if (!publish) return PLAN_THROTTLED;
  for (j = 0; j < p->m; j++) {
    p->q[p->dst[j]] = js_position(data, &f, (uint32_t)p->src[j]);
    p->last[p->dst[j]] = stamp;
  }
  s->writes++;
  s->marked = 1;
  s->marked_writes = s->writes;
  s->marked_stamp = stamp;
  if (p->ignore_limits) s->clean = 0;
  write_rotations(p);
  for (i = 0; i < p->n; i++) {
    put_u32(p->tf + p->stamp_at[i], (uint32_t)f.sec);
    put_u32(p->tf + p->stamp_at[i] + 4, f.nanosec);
  }
  return PLAN_PUBLISH;
}

void plan_published(js_state *s, int64_t now_ns) {
  s->published++;
  s->last_tf_ns = now_ns;
}
