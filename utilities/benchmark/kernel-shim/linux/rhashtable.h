/* SPDX-License-Identifier: GPL-2.0 */
/* Stands in for the kernel's <linux/rhashtable.h>: see kernel-shim-meter.h. */
#include "../../kernel-shim-meter.h"
