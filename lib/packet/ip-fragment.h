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

#ifndef IP_FRAGMENT_H
#define IP_FRAGMENT_H 1

/* IPv4 and IPv6 fragmentation on output, and the ICMP error that replaces it
 * when the datagram must not be fragmented.
 *
 * When a packet leaves through a port (or a tunnel) whose MTU it exceeds,
 * the datapath either cuts it into fragments with ip_fragment_v4(), or, if
 * its DF bit is set, drops it and answers the sender with
 * ip_icmp_frag_needed() so that path MTU discovery (RFC 1191) works.  An
 * IPv6 datagram that a tunnel cannot carry whole is answered with
 * ip6_icmp_packet_too_big() (RFC 8201).
 *
 * TCP packets marked for segmentation are cut by gso_segment() first,
 * which never needs fragmentation.
 *
 * Threads: both functions work only on the packets passed in and on memory
 * they allocate; any thread may call them on packets it owns. */

#include <stdint.h>

#include "gso.h"
#include "openvswitch/types.h"

struct dp_packet;
struct in6_addr;

/* The smallest MTU an IPv6 link may have (RFC 8200, section 5). */
#define IP6_MIN_MTU 1280

int ip_fragment_v4(struct dp_packet *, int mtu, struct gso_output *);
int ip_fragment_v6(struct dp_packet *, int mtu, ovs_be32 id,
                   struct gso_output *);
struct dp_packet *ip_icmp_frag_needed(const struct dp_packet *orig,
                                      ovs_be32 src, int mtu);
struct dp_packet *ip6_icmp_packet_too_big(const struct dp_packet *orig,
                                          const struct in6_addr *src,
                                          int mtu);

#endif /* ip-fragment.h */
