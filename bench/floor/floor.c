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

/* The benchmark's C floor: the node's I/O with no work in between, on rcl directly.
 * Its own JointState subscription on the node (sensor-data QoS, as the node's), a wait
 * set holding it and a stop guard condition (GIL released), rcl_take_serialized_message,
 * the JointState's stamp copied into a pre-serialised TFMessage,
 * rcl_publish_serialized_message. No decoding, no FK. The other handles are rclpy's
 * (their .pointer); the caller holds their context managers while this runs. */
#include "floor.h"

#include <stdlib.h>
#include <string.h>

#include <rcl/error_handling.h>
#include <rcl/publisher.h>
#include <rcl/subscription.h>
#include <rcl/wait.h>
#include <rmw/qos_profiles.h>
#include <rmw/serialized_message.h>

#define WAIT_TIMEOUT_NS 100000000LL /* re-check the stop guard at least this often */

/* The generated C type support of sensor_msgs/msg/JointState (public, in
 * libsensor_msgs__rosidl_typesupport_c; declared here to need no sensor_msgs header). */
const rosidl_message_type_support_t *
rosidl_typesupport_c__get_message_type_support_handle__sensor_msgs__msg__JointState(void);

static int serve(rcl_wait_set_t *wait_set, rcl_subscription_t *subscription,
                 rcl_publisher_t *publisher, const rcl_guard_condition_t *stop,
                 rmw_serialized_message_t *in, rmw_serialized_message_t *out,
                 const size_t *stamp_offsets, size_t n_offsets, floor_counts *counts);

int floor_run(rcl_context_t *context, rcl_node_t *node, const char *topic,
              rcl_publisher_t *publisher, const rcl_guard_condition_t *stop,
              const uint8_t *tf_template, size_t tf_size, const size_t *stamp_offsets,
              size_t n_offsets, floor_counts *counts) {
  rcl_allocator_t allocator = rcl_get_default_allocator();
  rcl_wait_set_t wait_set = rcl_get_zero_initialized_wait_set();
  rmw_serialized_message_t in = rmw_get_zero_initialized_serialized_message();
  rmw_serialized_message_t out = rmw_get_zero_initialized_serialized_message();
  rcl_subscription_t subscription = rcl_get_zero_initialized_subscription();
  rcl_subscription_options_t options = rcl_subscription_get_default_options();
  int failed = 0;
  size_t i;
  for (i = 0; i < n_offsets; i++) /* every patch stays inside the template */
    if (tf_size < 8 || stamp_offsets[i] > tf_size - 8) return -1;
  options.qos = rmw_qos_profile_sensor_data;
  if (rcl_subscription_init(
          &subscription, node,
          rosidl_typesupport_c__get_message_type_support_handle__sensor_msgs__msg__JointState(),
          topic, &options) != RCL_RET_OK) {
    rcl_reset_error();
    return -1;
  }
  if (rcl_wait_set_init(&wait_set, 1, 1, 0, 0, 0, 0, context, allocator) != RCL_RET_OK) {
    rcl_reset_error();
    failed = -1;
    goto done;
  }
  if (rmw_serialized_message_init(&in, 0, &allocator) != RMW_RET_OK ||
      rmw_serialized_message_init(&out, tf_size, &allocator) != RMW_RET_OK) {
    rcl_reset_error();
    failed = -1;
    goto done;
  }
  memcpy(out.buffer, tf_template, tf_size);
  out.buffer_length = tf_size;
  failed = serve(&wait_set, &subscription, publisher, stop, &in, &out, stamp_offsets, n_offsets,
                 counts);
done:
  rcl_reset_error();
  if (in.buffer && rcutils_uint8_array_fini(&in) != RCUTILS_RET_OK) rcl_reset_error();
  if (out.buffer && rcutils_uint8_array_fini(&out) != RCUTILS_RET_OK) rcl_reset_error();
  if (rcl_wait_set_fini(&wait_set) != RCL_RET_OK) rcl_reset_error();
  if (rcl_subscription_fini(&subscription, node) != RCL_RET_OK) rcl_reset_error();
  return failed;
}

/* Waits and serves until ``stop`` is triggered: 0, or -1 when the wait set failed. */
static int serve(rcl_wait_set_t *wait_set, rcl_subscription_t *subscription,
                 rcl_publisher_t *publisher, const rcl_guard_condition_t *stop,
                 rmw_serialized_message_t *in, rmw_serialized_message_t *out,
                 const size_t *stamp_offsets, size_t n_offsets, floor_counts *counts) {
  rmw_message_info_t info;
  size_t i;
  for (;;) {
    rcl_ret_t ret;
    if (rcl_wait_set_clear(wait_set) != RCL_RET_OK ||
        rcl_wait_set_add_subscription(wait_set, subscription, NULL) != RCL_RET_OK ||
        rcl_wait_set_add_guard_condition(wait_set, stop, NULL) != RCL_RET_OK)
      return -1;
    ret = rcl_wait(wait_set, WAIT_TIMEOUT_NS);
    if (ret == RCL_RET_TIMEOUT) continue;
    if (ret != RCL_RET_OK) return -1;
    if (wait_set->guard_conditions[0]) return 0;
    for (;;) { /* everything available, then wait again */
      ret = rcl_take_serialized_message(subscription, in, &info, NULL);
      if (ret == RCL_RET_SUBSCRIPTION_TAKE_FAILED) break;
      if (ret != RCL_RET_OK) {
        counts->errors++;
        rcl_reset_error();
        break;
      }
      if (in->buffer_length < 12 || in->buffer[0] != 0 || in->buffer[1] != 1) {
        counts->skipped++; /* the driver sends little-endian XCDR1; anything else is not ours */
        continue;
      }
      for (i = 0; i < n_offsets; i++) memcpy(out->buffer + stamp_offsets[i], in->buffer + 4, 8);
      if (rcl_publish_serialized_message(publisher, out, NULL) != RCL_RET_OK) {
        counts->errors++;
        rcl_reset_error();
      } else {
        counts->published++;
      }
    }
  }
}
