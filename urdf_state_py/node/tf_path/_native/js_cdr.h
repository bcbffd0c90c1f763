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

/* The JointState CDR decoder of the native loop: the same checks, verdicts and
 * error texts as urdf_state_py/node/tf_path/joint_state_cdr.py (test_native_decoder.py
 * runs that module's fuzz against both). Every byte is hostile: each count and
 * length is checked against the payload before use, all offset arithmetic is
 * done in uint64_t on values bounded by the payload size, nothing is allocated.
 * Pure C99, no Python, no ROS: the loop thread calls it without the GIL. */
#ifndef URDF_STATE_JS_CDR_H
#define URDF_STATE_JS_CDR_H

#include <stddef.h>
#include <stdint.h>

enum js_status {
  JS_OK = 0,
  JS_ENCAPSULATION,   /* the reasons of MalformedJointState, in this order */
  JS_TRUNCATED,
  JS_STRING,
  JS_OVERSIZED,
  JS_CALLBACK_FAILED, /* the caller's name callback returned non-zero */
};

/* Reason string of a status (``encapsulation`` ... ``oversized``), as Python has it. */
const char *js_reason(int status);

typedef struct {
  int32_t sec;
  uint32_t nanosec;
  int big_endian;
  uint32_t name_count;
  uint32_t position_count;
  uint64_t positions_at;  /* offset of the first position double in the payload */
  uint64_t names_end;     /* offset just past the last name string */
} js_fields;

/* Called for every name after its checks pass; non-zero stops the decode. */
typedef int (*js_name_fn)(void *ctx, uint32_t index, const uint8_t *name, size_t length);

/* Decodes ``data[0:size]``. ``max_names`` < 0: no limit. ``detail`` (may be
 * NULL) receives the error text that Python's ``str(err)`` shows after the
 * ``reason: `` prefix. */
int js_decode(const uint8_t *data, size_t size, int64_t max_names, js_name_fn on_name,
              void *ctx, js_fields *out, char *detail, size_t detail_size);

/* Position ``i`` (< position_count) of a payload js_decode accepted. */
double js_position(const uint8_t *data, const js_fields *fields, uint32_t i);

#endif
