/* SPDX-License-Identifier: GPL-2.0 */
/* Stands in for the kernel's <linux/openvswitch.h>: the uapi header
 * itself, after kernel-shim-meter.h's types: see kernel-shim-meter.h. */
#include "../../kernel-shim-meter.h"
#include_next <linux/openvswitch.h>
