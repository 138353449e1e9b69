// SPDX-License-Identifier: GPL-2.0
/*
 * stackdeep: drive the current task's kernel stack towards its end, on
 * purpose, inside the lab guest (labs 3 and 4; never loaded on a host).
 *
 *   echo R > /sys/kernel/debug/stackdeep/room
 *	recurses, `frame` bytes of locals per call, until one more
 *	call would leave fewer than R bytes between esp and the lowest address
 *	of the stack;
 *   echo N > /sys/kernel/debug/stackdeep/frames
 *	recurses exactly N calls, whatever the stack's size: the same call
 *	chain at every stage, which runs past the end of a small stack.
 *
 * At the deepest point it busy-waits with interrupts enabled (unless
 * still=1, below), so that
 * interrupts arrive at that depth and meet the kernel's checks
 * (check_stack_overflow() at IRQ entry): wait_ms milliseconds, and when
 * the module was loaded with irqs=N, on until N device interrupts have
 * been handled on this CPU (the kernel's own count, kstat.irqs_sum), at
 * most hold_ms. Meanwhile /sys/kernel/debug/stackdeep/deep reads Y, so
 * that a guest script knows when to make those interrupts. Then it
 * returns and logs how deep it went, whether the stack's end magic
 * survived, how many bytes just below the stack changed and how many
 * interrupts arrived. Nothing is printed at the deepest point: printk
 * itself needs more stack than may be left there.
 */
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define BELOW_BYTES 1024	/* how much of the memory under the stack to watch */

/*
 * The bytes of locals of each call: a learner's variant of lab 4 (and of
 * labs 3, 6 and 7, which descend too) sets it at load time, so that one
 * module gives each learner their own frame to measure.
 */
static unsigned int frame = 256;
module_param(frame, uint, 0444);
MODULE_PARM_DESC(frame, "bytes of locals per descend() call (64 to 1024, a multiple of 4)");
static unsigned int wait_ms = 100;
module_param(wait_ms, uint, 0644);
MODULE_PARM_DESC(wait_ms, "milliseconds to wait at the deepest point");
static unsigned int irqs;
module_param(irqs, uint, 0644);
MODULE_PARM_DESC(irqs, "device interrupts to wait for at the deepest point (0: none)");
static unsigned int hold_ms = 10000;
module_param(hold_ms, uint, 0644);
MODULE_PARM_DESC(hold_ms, "the longest wait for them, in milliseconds");
/*
 * still=1 (lab 6's decoys): the next descents run with this CPU's
 * interrupts off, so that no interrupt lands at the deepest point and
 * writes deeper still: how deep the stack went is the descent's own.
 */
static bool still;
module_param(still, bool, 0644);
MODULE_PARM_DESC(still, "descend with this CPU's interrupts off");

static unsigned long deepest_sp;
static struct dentry *dir;
/* Y while a descent waits at its deepest point: a guest script can start
 * the interrupts it wants to land there (debugfs file "deep"). */
static bool at_bottom;
/* Device interrupts handled on the descent's CPU while it waited. */
static unsigned long irqs_seen;
static char below_before[BELOW_BYTES];

/* The stop rule of one descent: a room to leave, or a number of calls. */
static unsigned long want_room;
static int want_frames;

/* Bytes between esp and the stack's lowest address (end_of_stack()). */
static unsigned long room_left(void)
{
	return current_stack_pointer - (unsigned long)task_stack_page(current);
}

/*
 * Wait at the deepest point, interrupts enabled (see the top comment).
 * By the clock, not by counting mdelay()s: each interrupt that finds the
 * stack low prints a report, and the report's console output can raise
 * the next serial interrupt at once, so the time spent between two
 * mdelay()s has no bound. Not inlined: its locals belong to the deepest
 * frame only, not to every descend() frame.
 */
static noinline void wait_at_bottom(void)
{
	unsigned long start_irqs = this_cpu_read(kstat.irqs_sum);
	u64 start = ktime_get_ns(), ms;

	WRITE_ONCE(at_bottom, true);
	do {
		mdelay(1);
		ms = div_u64(ktime_get_ns() - start, NSEC_PER_MSEC);
	} while (ms < wait_ms || (ms < hold_ms &&
		 this_cpu_read(kstat.irqs_sum) - start_irqs < irqs));
	irqs_seen = this_cpu_read(kstat.irqs_sum) - start_irqs;
	WRITE_ONCE(at_bottom, false);
}

/*
 * One frame of a known size: a volatile array the compiler must keep,
 * filled so that it is really written (and shows in stack-use scans).
 * Its size is the module's parameter, so the array has a variable length
 * (the kernel warns of those, -Wvla; here the size is bounded at load).
 * The kernel zeroes every local as its function starts (auto-var-init):
 * a fixed array a word a round (rep stos %eax), but this one, whose
 * length the compiler cannot know to be whole words, a byte a round. So
 * it is zeroed here, a word a round, as a fixed array is, then filled
 * (rep stos %al): the same writes at every frame size.
 */
// tag::descend[]
static noinline int descend(int depth)
{
	volatile u32 pad[frame / 4] __attribute__((uninitialized));
	bool deeper;
	int frames;

	memset32((u32 *)pad, 0, frame / 4);
	memset((char *)pad, 0x5a, frame);
	/*
	 * A frame costs `frame` plus the call's own words (about 20
	 * bytes on i386): by room, go one deeper only while that leaves R.
	 */
	if (want_frames)
		deeper = depth < want_frames;
	else
		deeper = room_left() >= want_room + frame + 64;
	if (deeper) {
		frames = descend(depth + 1);
	} else {
		deepest_sp = current_stack_pointer;
		wait_at_bottom();
		frames = depth;
	}
	return frames + (u8)pad[depth % (frame / 4)] - 0x5a;
}
// end::descend[]

/* One descent, then its report. */
static void descend_and_report(void)
{
	unsigned long *end = end_of_stack(current);
	char *below = (char *)task_stack_page(current) - BELOW_BYTES;
	int frames, changed = 0, i;
	unsigned long flags = 0;
	bool quiet = READ_ONCE(still);
	long left;

	/*
	 * With VMAP_STACK (lab 7's x86_64 kernel) the page below the stack is
	 * an unmapped guard page: reading it would fault, as the descent
	 * will when it gets there.
	 */
	if (!IS_ENABLED(CONFIG_VMAP_STACK))
		memcpy(below_before, below, BELOW_BYTES);
	if (quiet)
		local_irq_save(flags);
	frames = descend(1);
	if (quiet)
		local_irq_restore(flags);
	for (i = 0; i < BELOW_BYTES && !IS_ENABLED(CONFIG_VMAP_STACK); i++)
		changed += below[i] != below_before[i];
	left = (long)deepest_sp - (long)task_stack_page(current);
	pr_info("stackdeep: %d frames of %d bytes, deepest esp %#lx, %ld bytes %s the stack's end (THREAD_SIZE %lu)\n",
		frames, frame, deepest_sp, left < 0 ? -left : left,
		left < 0 ? "PAST" : "left above", THREAD_SIZE);
	pr_info("stackdeep: end magic %s; %d of the %d bytes below the stack changed\n",
		*end == STACK_END_MAGIC ? "intact" : "OVERWRITTEN",
		changed, BELOW_BYTES);
	pr_info("stackdeep: %lu device interrupts on this CPU while it waited there\n",
		irqs_seen);
}

static ssize_t room_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *pos)
{
	unsigned long room;
	int ret;

	ret = kstrtoul_from_user(buf, len, 10, &room);
	if (ret)
		return ret;
	if (room >= THREAD_SIZE)
		return -EINVAL;
	want_room = room;
	want_frames = 0;
	descend_and_report();
	return len;
}

static ssize_t frames_write(struct file *file, const char __user *buf,
			    size_t len, loff_t *pos)
{
	unsigned int frames;
	int ret;

	ret = kstrtouint_from_user(buf, len, 10, &frames);
	if (ret)
		return ret;
	if (!frames || frames > 256)
		return -EINVAL;
	want_frames = frames;
	descend_and_report();
	return len;
}

static const struct file_operations room_fops = {
	.owner = THIS_MODULE,
	.write = room_write,
};

static const struct file_operations frames_fops = {
	.owner = THIS_MODULE,
	.write = frames_write,
};

static int __init stackdeep_init(void)
{
	if (frame < 64 || frame > 1024 || frame % 4)
		return -EINVAL;
	dir = debugfs_create_dir("stackdeep", NULL);
	debugfs_create_file("room", 0200, dir, NULL, &room_fops);
	debugfs_create_file("frames", 0200, dir, NULL, &frames_fops);
	debugfs_create_bool("deep", 0444, dir, &at_bottom);
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
