/* SPDX-License-Identifier: GPL-2.0 */
/* Stands in for the kernel's <linux/percpu.h>: see kernel-shim.h. */
#include "../../kernel-shim.h"
