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

/* The benchmark's C floor (floor.c): JointState in, a pre-serialised /tf out. */
#ifndef URDF_STATE_FLOOR_H
#define URDF_STATE_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include <rcl/context.h>
#include <rcl/guard_condition.h>
#include <rcl/node.h>
#include <rcl/publisher.h>

typedef struct {
  uint64_t published, skipped, errors;
} floor_counts;

/* Subscribes to JointState on ``topic`` of ``node`` and serves until ``stop`` is
 * triggered; 0, or -1 when rcl failed (subscription, wait set, buffers). */
int floor_run(rcl_context_t *context, rcl_node_t *node, const char *topic,
              rcl_publisher_t *publisher, const rcl_guard_condition_t *stop,
              const uint8_t *tf_template, size_t tf_size, const size_t *stamp_offsets,
              size_t n_offsets, floor_counts *counts);

#endif
