// SPDX-License-Identifier: GPL-2.0
/*
 * stackdeep: drive the current task's kernel stack towards its end, on
 * purpose, inside the lab guest (labs 3 and 4; never loaded on a host).
 *
 *   echo R > /sys/kernel/debug/stackdeep/room
 *
 * recurses, STACKDEEP_FRAME bytes of locals per call, until one more call
 * would leave fewer than R bytes between esp and the lowest address of the
 * stack, then busy-waits there for wait_ms milliseconds with
 * interrupts enabled, so that device interrupts arrive at that depth and
 * meet the kernel's checks (check_stack_overflow() at IRQ entry). Then it
 * returns and logs how deep it went. Nothing is printed at the deepest
 * point: printk itself needs more stack than is left there.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define STACKDEEP_FRAME 256

static unsigned int wait_ms = 100;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "milliseconds to wait at the deepest point");

static unsigned long deepest_sp;
static struct dentry *dir;

/* Bytes between esp and the stack's lowest address (end_of_stack()). */
static unsigned long room_left(void)
{
	return current_stack_pointer - (unsigned long)task_stack_page(current);
}

/*
 * One frame of a known size: a volatile array the compiler must keep,
 * filled so that it is really written (and shows in stack-use scans).
 */
static noinline int descend(unsigned long room, int depth)
{
	volatile char pad[STACKDEEP_FRAME];
	int frames;

	memset((char *)pad, 0x5a, sizeof(pad));
	/*
	 * A frame costs STACKDEEP_FRAME plus the call's own words (about 20
	 * bytes on i386): go one deeper only while that leaves at least R.
	 */
	if (room_left() >= room + STACKDEEP_FRAME + 64) {
		frames = descend(room, depth + 1);
	} else {
		deepest_sp = current_stack_pointer;
		mdelay(wait_ms);
		frames = depth;
	}
	return frames + pad[depth % STACKDEEP_FRAME] - 0x5a;
}

static ssize_t room_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *pos)
{
	unsigned long room;
	int frames, ret;

	ret = kstrtoul_from_user(buf, len, 10, &room);
	if (ret)
		return ret;
	if (room >= THREAD_SIZE)
		return -EINVAL;
	frames = descend(room, 1);
	pr_info("stackdeep: %d frames of %d bytes, deepest esp %#lx, %lu bytes left above the stack's end (THREAD_SIZE %lu)\n",
		frames, STACKDEEP_FRAME, deepest_sp,
		deepest_sp - (unsigned long)task_stack_page(current),
		THREAD_SIZE);
	return len;
}

static const struct file_operations room_fops = {
	.owner = THIS_MODULE,
	.write = room_write,
};

static int __init stackdeep_init(void)
{
	dir = debugfs_create_dir("stackdeep", NULL);
	debugfs_create_file("room", 0200, dir, NULL, &room_fops);
	return 0;
}

static void __exit stackdeep_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(stackdeep_init);
module_exit(stackdeep_exit);
MODULE_DESCRIPTION("Drive a kernel stack towards its end, for the kstack-workbook labs");
MODULE_LICENSE("GPL");
