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

#ifndef GSO_PRIVATE_H
#define GSO_PRIVATE_H 1

/* What gso.c shares with its per-protocol files (gso-tcp.c).  Not for use
 * outside the GSO module. */

#include <stddef.h>
#include <stdint.h>

#include "gso.h"
#include "openvswitch/types.h"

struct dp_packet;
struct net_hdrs;

/* gso.c: checksums over a packet's bytes, laid out as 'h' says. */
void gso_ipv4_hdr_csum(void *data, const struct net_hdrs *h);
ovs_be16 gso_l4_csum(const void *data, const struct net_hdrs *h,
                     uint16_t l4_len);

/* gso-tcp.c: TCP over IPv4 or IPv6. */
int gso_tcp_hdr_len(const struct dp_packet *, const struct net_hdrs *,
                    uint16_t *hdr_len);
int gso_tcp_segment(struct dp_packet *, const struct net_hdrs *,
                    uint16_t hdr_len, uint16_t segsz, struct gso_output *,
                    size_t *n_segs);

#endif /* gso-private.h */
