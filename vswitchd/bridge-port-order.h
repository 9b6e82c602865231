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

#ifndef BRIDGE_PORT_ORDER_H
#define BRIDGE_PORT_ORDER_H 1

/* A port's bundle outlives the port's datapath port.
 *
 * OVS 3.1's bridge.c deletes a port in two steps of one reconfiguration:
 * bridge_del_ports() calls port_destroy(), which unregisters the port's
 * bundle (ofproto_bundle_unregister()) and each interface's port settings
 * (ofproto_port_unregister(), which takes the interface out of its
 * bundle), both published to the translation layer at once; only later
 * does bridge_delete_or_reconfigure_ports() delete the interfaces from the
 * datapath (ofproto_port_del()), after every other deletion before them.
 * In between, the datapath still receives on the port, and a packet that
 * misses is translated with an OpenFlow port that has no bundle: the
 * NORMAL action drops it and OVS logs "received packet on unknown port N"
 * (WARN).  The window lasts as long as the datapath port deletions before
 * it, each of which waits for the forwarding threads to reload.  Every
 * datapath has it, dpif-netdev and Linux's included; a flood of misses
 * from the port during "del-port" shows it every time.
 *
 * The fix belongs in bridge.c's order, which we compile unchanged from the
 * OVS tree.  So ovs-vswitchd is linked with --wrap for the functions
 * below, and this module defers those two unregistrations until the
 * interfaces' datapath ports are gone: ofproto-dpif then takes a deleted
 * interface out of its bundle itself, once its datapath port is deleted
 * (port_del()), and destroys the bundle with its last interface.  What is
 * deferred is done, as bridge.c asked, before anything could reuse what it
 * names: before a port is added to or a bundle registered with the same
 * ofproto, before that ofproto is destroyed, and at the end of each
 * bridge_run(), so that no state outlives a reconfiguration.
 *
 * Main thread only, as bridge.c. */

void bridge_port_order_flush(void);

#endif /* bridge-port-order.h */
