/*
 * Copyright (c) 2026 The ovs-percpu authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#ifndef HEADER_KEY_CHECK_H
#define HEADER_KEY_CHECK_H 1

/* The check that tests/test-header-key.c and tests/fuzz/fuzz-header-key.c
 * make of lib/flow/header-key.h's claim, against OVS's own miniflow_extract():
 *
 *   - a frame that gets a header key is left with the layer offsets,
 *     Ethernet padding and RSS hash miniflow_extract() gives it, and the
 *     TCP flags miniflow_get_tcp_flags() reads from its miniflow;
 *
 *   - two frames, received on the same port, that get equal header keys
 *     have equal miniflows.
 *
 * The _tunnel variants make the same checks of tunnel header keys
 * (header_key_extract_tunnel()): each frame is a decapsulated packet whose
 * metadata is as a tunnel vport leaves it, with the tunnel metadata given,
 * and miniflow_extract() reads that metadata too. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/types.h"

struct flow_tnl;

/* What header_key_check_pair() found. */
enum header_key_pair {
    HEADER_KEY_PAIR_NONE,       /* Neither frame has a header key. */
    HEADER_KEY_PAIR_ONE,        /* One of them has. */
    HEADER_KEY_PAIR_DIFFERENT,  /* Both have, and the keys differ. */
    HEADER_KEY_PAIR_SAME,       /* Both have the same key (and, unless the
                                 * check failed, the same miniflow). */
};

bool header_key_check_frame(const uint8_t *frame, size_t len,
                            odp_port_t in_port, char **errorp);
enum header_key_pair header_key_check_pair(const uint8_t *a, size_t a_len,
                                           const uint8_t *b, size_t b_len,
                                           odp_port_t in_port,
                                           char **errorp);
bool header_key_check_tunnel_frame(const uint8_t *frame, size_t len,
                                   const struct flow_tnl *,
                                   odp_port_t in_port, char **errorp);
enum header_key_pair header_key_check_tunnel_pair(
    const uint8_t *a, size_t a_len, const struct flow_tnl *a_tnl,
    const uint8_t *b, size_t b_len, const struct flow_tnl *b_tnl,
    odp_port_t in_port, char **errorp);

#endif /* header-key-check.h */
