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

#ifndef VPORT_GENEVE_H
#define VPORT_GENEVE_H 1

/* The geneve case of the tunnel vports (vport-tunnel.h), RFC 8926: an
 * Ethernet frame in UDP (destination port 6081 by default) behind a Geneve
 * header with the VNI (tun_id) and TLV options (tun_metadata0..63, mapped
 * with ovs-ofctl add-tlv-map).  The datapath port is OVS's shared
 * "genev_sys_PORT". */

/* The geneve type, for vport_tunnel_ops_find(). */
extern const struct vport_tunnel_ops vport_geneve_ops;

#endif /* vport-geneve.h */
