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

#ifndef DPIF_KERNEL_H
#define DPIF_KERNEL_H 1

/* Our "system" dpif class: OVS's dpif-netlink (the kernel datapath),
 * unchanged, plus ports of type "ipip" (netdev-ipip.h) backed by the
 * kernel module's ovs_ipip devices (kernel-ipip.h).
 *
 * OVS's dpif_netlink_class cannot simply be copied under the same type:
 * its functions assert that a dpif's class is &dpif_netlink_class, and
 * dpif.c asserts that an opened dpif's class is the registered one.  So
 * each of our dpifs wraps one dpif-netlink dpif and forwards every call
 * to it, except for:
 *
 *   - port_add of an "ipip" netdev: creates the device (RTM_NEWLINK of
 *     kind "ovs_ipip" with the port's options, up), then adds it as an
 *     OVS_VPORT_TYPE_NETDEV vport through dpif-netlink, as for any Linux
 *     device.  On any failure no device is left behind.
 *   - port_del: after dpif-netlink detached the vport, deletes the device
 *     if it is an ovs_ipip device.
 *   - port_query_by_*, port_dump_next: a netdev vport that is an ovs_ipip
 *     device reads back as type "ipip" (dpif-netlink would say "system"
 *     whenever vswitchd has no "ipip" netdev of that name open, e.g. when
 *     it restarts, and then open it as a Linux device).
 *   - run: applies changed options (gro, local_ip, remote_ip) of the ipip
 *     ports it added to their devices.
 *
 * Every other port type, and every other call, is dpif-netlink's. */

/* Registers the class under "system" and disallows OVS's own.  Call before
 * anything opens a datapath or lists datapath types, and not when a dummy
 * class already took "system" (--enable-dummy=system or override) or the
 * kernel datapath is disabled.  Returns 0 or a positive errno. */
int dpif_kernel_register(void);

#endif /* dpif-kernel.h */
