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

#ifndef VPORT_VXLAN_H
#define VPORT_VXLAN_H 1

/* The vxlan case of the tunnel vports (vport-tunnel.h), RFC 7348: an
 * Ethernet frame in UDP (destination port from the port's dst_port, 4789 by
 * default) behind an 8-byte VXLAN header carrying the 24-bit VNI (tun_id).
 * Its options (key, remote_ip, local_ip, tos, ttl, csum, df_default) are
 * OVS's own netdev-vport "vxlan" class's, applied by ofproto into the
 * tunnel metadata; the datapath port is OVS's shared "vxlan_sys_PORT". */

/* The vxlan type, for vport_tunnel_ops_find(). */
extern const struct vport_tunnel_ops vport_vxlan_ops;

#endif /* vport-vxlan.h */
