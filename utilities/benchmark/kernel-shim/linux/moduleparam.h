/* SPDX-License-Identifier: GPL-2.0 */
/* Stands in for the kernel's <linux/moduleparam.h>: see kernel-shim.h. */
#include "../../kernel-shim.h"
