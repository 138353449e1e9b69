// SPDX-License-Identifier: GPL-2.0
/*
 * A module that does nothing. tests/checks/70-vermagic.sh builds it against
 * a stage's kernel (never loads it: nothing runs on the host's kernel) and
 * reads the vermagic string the build stamped into it.
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kstack-workbook: vermagic probe");
