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

/* JointState CDR decoder: see js_cdr.h. Mirrors joint_state_cdr.py step for
 * step (same order of checks, so the same verdict and text for every payload). */
#include "js_cdr.h"

#include <stdio.h>
#include <string.h>

#define NAMES_START 12u /* encapsulation (4) + stamp (8): frame_id's length comes next */

static const char *const REASONS[] = {"ok", "encapsulation", "truncated", "string", "oversized",
                                      "callback"};

const char *js_reason(int status) {
  if (status < 0 || status > JS_CALLBACK_FAILED) return "unknown";
  return REASONS[status];
}

typedef struct {
  const uint8_t *data;
  uint64_t size;
  int big_endian;
  uint64_t double_align;
  char *detail;
  size_t detail_size;
} reader;

static int fail(reader *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static int fail(reader *r, int status, const char *fmt, ...) {
  if (r->detail && r->detail_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail, r->detail_size, fmt, ap);
    va_end(ap);
  }
  return status;
}

/* ``at`` rounded up so that ``at - 4`` is a multiple of ``to`` (at >= 4). */
static uint64_t align(uint64_t at, uint64_t to) { return at + (to - (at - 4) % to) % to; }

/* The caller has checked at + 4 <= size. */
static uint32_t u32(const reader *r, uint64_t at) {
  const uint8_t *p = r->data + at;
  if (r->big_endian)
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
  return ((uint32_t)p[3] << 24) | ((uint32_t)p[2] << 16) | ((uint32_t)p[1] << 8) | p[0];
}

/* End of the CDR string whose length is at ``at`` (checked: bounds, NUL). ``what``
 * names the field; ``index`` >= 0 names a name instead. */
static int string_end(reader *r, uint64_t at, const char *what, int64_t index, uint64_t *end) {
  char label[32];
  uint32_t length = 0;
  if (at + 4 <= r->size) {
    length = u32(r, at);
    *end = at + 4 + length;
    if (*end <= r->size && length && r->data[*end - 1] == 0) return JS_OK;
  }
  if (index >= 0) {
    snprintf(label, sizeof label, "name[%lld]", (long long)index);
    what = label;
  }
  if (at + 4 > r->size)
    return fail(r, JS_TRUNCATED, "%s: no length at byte %llu of %llu", what,
                (unsigned long long)at, (unsigned long long)r->size);
  if (*end > r->size)
    return fail(r, JS_TRUNCATED, "%s: %lu bytes at byte %llu, beyond the %llu-byte payload", what,
                (unsigned long)length, (unsigned long long)(at + 4), (unsigned long long)r->size);
  return fail(r, JS_STRING, "%s: no NUL terminator", what);
}

/* Count, start and end of the double sequence whose count is at ``at``, checked. */
static int doubles(reader *r, uint64_t at, const char *field, uint32_t *count, uint64_t *start,
                   uint64_t *end) {
  if (at + 4 > r->size)
    return fail(r, JS_TRUNCATED, "%s: no count at byte %llu of %llu", field,
                (unsigned long long)at, (unsigned long long)r->size);
  *count = u32(r, at);
  *start = *count ? align(at + 4, r->double_align) : at + 4; /* an empty sequence is not aligned */
  *end = *start + 8 * (uint64_t)*count;
  if (*end > r->size)
    return fail(r, JS_TRUNCATED, "%s: %lu values beyond the %llu-byte payload", field,
                (unsigned long)*count, (unsigned long long)r->size);
  return JS_OK;
}

/* Strict UTF-8, as Python's decoder has it: no overlong forms, no surrogates, <= U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    uint8_t c = s[i], lo = 0x80, hi = 0xBF;
    size_t need, k;
    if (c < 0x80) { i++; continue; }
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) { need = 2; lo = 0xA0; }
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) need = 2;
    else if (c == 0xED) { need = 2; hi = 0x9F; }
    else if (c == 0xF0) { need = 3; lo = 0x90; }
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else if (c == 0xF4) { need = 3; hi = 0x8F; }
    else return 0;
    if (n - i - 1 < need || s[i + 1] < lo || s[i + 1] > hi) return 0;
    for (k = 2; k <= need; k++)
      if ((s[i + k] & 0xC0) != 0x80) return 0;
    i += need + 1;
  }
  return 1;
}

static int read_names(reader *r, int64_t max_names, js_name_fn on_name, void *ctx,
                      js_fields *out, uint64_t *count_at) {
  uint64_t at, end;
  uint32_t count, i;
  int st;
  if (r->size < NAMES_START)
    return fail(r, JS_TRUNCATED, "%llu bytes: not even a stamp", (unsigned long long)r->size);
  if ((st = string_end(r, NAMES_START, "header.frame_id", -1, &end))) return st;
  at = align(end, 4);
  if (at + 4 > r->size)
    return fail(r, JS_TRUNCATED, "no name count (%llu bytes)", (unsigned long long)r->size);
  count = u32(r, at);
  at += 4;
  if (max_names >= 0 && (int64_t)count > max_names)
    return fail(r, JS_OVERSIZED, "%lu names, more than the %lld this model accepts",
                (unsigned long)count, (long long)max_names);
  if ((uint64_t)count * 5 > r->size - at) /* each name takes >= 5 bytes (length + NUL) */
    return fail(r, JS_TRUNCATED, "%lu names cannot fit in the %llu-byte payload",
                (unsigned long)count, (unsigned long long)r->size);
  for (i = 0; i < count; i++) {
    const uint8_t *raw;
    size_t length;
    at = align(at, 4);
    if ((st = string_end(r, at, NULL, i, &end))) return st;
    raw = r->data + at + 4;
    length = (size_t)(end - 1 - (at + 4));
    if (memchr(raw, 0, length))
      return fail(r, JS_STRING, "name[%lu]: embedded NUL", (unsigned long)i);
    if (!utf8_valid(raw, length))
      return fail(r, JS_STRING, "name[%lu]: not UTF-8", (unsigned long)i);
    if (on_name && on_name(ctx, i, raw, length)) return JS_CALLBACK_FAILED;
    at = end;
  }
  out->name_count = count;
  out->names_end = at;
  *count_at = align(at, 4);
  return JS_OK;
}

int js_decode(const uint8_t *data, size_t size, int64_t max_names, js_name_fn on_name,
              void *ctx, js_fields *out, char *detail, size_t detail_size) {
  reader r = {data, size, 0, 8, detail, detail_size};
  uint64_t at = 0, start, end;
  uint32_t count, unused;
  int st;
  if (detail && detail_size) detail[0] = '\0';
  if (size < 2 || data[0] != 0 || (data[1] != 0 && data[1] != 1 && data[1] != 6 && data[1] != 7)) {
    char hex[9] = "";
    size_t i;
    for (i = 0; i < size && i < 4; i++) snprintf(hex + 2 * i, 3, "%02x", data[i]);
    return fail(&r, JS_ENCAPSULATION, "not a plain CDR payload (header %s, %llu bytes)", hex,
                (unsigned long long)size);
  }
  if (size < 4)
    return fail(&r, JS_TRUNCATED, "%llu bytes: not even a header", (unsigned long long)size);
  r.size -= data[3] & 3u; /* XCDR: the options' last two bits count padding bytes at the end */
  r.big_endian = data[1] == 0 || data[1] == 6;
  r.double_align = data[1] >= 6 ? 4 : 8; /* XCDR2 plain: 8-byte values aligned to 4 */
  if ((st = read_names(&r, max_names, on_name, ctx, out, &at))) return st;
  if ((st = doubles(&r, at, "position", &count, &start, &end))) return st;
  out->position_count = count;
  out->positions_at = start;
  /* velocity and effort are not needed, but rclpy rejects them truncated, and so do we */
  if ((st = doubles(&r, align(end, 4), "velocity", &unused, &start, &end))) return st;
  if ((st = doubles(&r, align(end, 4), "effort", &unused, &start, &end))) return st;
  out->big_endian = r.big_endian;
  out->sec = (int32_t)u32(&r, 4);
  out->nanosec = u32(&r, 8);
  return JS_OK;
}

double js_position(const uint8_t *data, const js_fields *fields, uint32_t i) {
  const uint8_t *p = data + fields->positions_at + 8 * (uint64_t)i;
  uint64_t bits = 0;
  double value;
  int k;
  for (k = 0; k < 8; k++) bits |= (uint64_t)p[fields->big_endian ? k : 7 - k] << (8 * (7 - k));
  memcpy(&value, &bits, sizeof value);
  return value;
}
