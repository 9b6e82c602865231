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

#ifndef VPORT_GRE_H
#define VPORT_GRE_H 1

/* The gre case of the tunnel vports (vport-tunnel.h), RFC 2784/2890: IP
 * protocol 47, an Ethernet frame (protocol 0x6558) or, with
 * packet_type=legacy_l3, an L3 packet, with the optional checksum (csum
 * option) and key (key, in_key, out_key).  Sequence numbers are not sent.
 * The datapath port is OVS's shared "gre_sys".  gre carries IPv4 and IPv6
 * underlays; OVS's "ip6gre" type, the same GRE over IPv6 only, has the
 * datapath port "ip6gre_sys" and takes received GRE over IPv6 before a gre
 * port does, as Linux's ip6gre device takes it before its ip_gre one. */

/* The gre and ip6gre types, for vport_tunnel_ops_find(). */
extern const struct vport_tunnel_ops vport_gre_ops;
extern const struct vport_tunnel_ops vport_ip6gre_ops;

#endif /* vport-gre.h */
