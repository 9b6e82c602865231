/* SPDX-License-Identifier: GPL-2.0 */
/* Stands in for the kernel's <linux/timekeeping.h>: see kernel-shim.h. */
#include "../../kernel-shim.h"
