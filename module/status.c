// SPDX-License-Identifier: GPL-2.0
/*
 * What the module reports about itself beyond UIDGEN_IOC_INFO: the status
 * files in /sys/class/misc/uid/ (Documentation/ABI/testing/
 * sysfs-class-misc-uid), the clocks and counters INFO does not carry (the
 * node ID, floor, grant, deadline, token and high water are INFO's alone),
 * and the per-slot table in debugfs, /sys/kernel/debug/uidgen/slots.
 * Every value is read locklessly, a snapshot of counters and clocks that
 * may move while it is read. The show functions find the device through
 * the misc device's drvdata, the debugfs file through its private data.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

/* The device behind /sys/class/misc/uid: misc_register() set drvdata. */
static struct uidgen_device *uidgen_sysfs_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct uidgen_device, misc);
}

static ssize_t anchor_ms_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n", uidgen_sysfs_dev(dev)->gen.anchor_ms);
}
static DEVICE_ATTR_RO(anchor_ms);

/* The Unix time the generator's clock reads, in ns. */
static u64 uidgen_id_clock_ns(const struct uidgen_gen *g)
{
	return uidgen_clock_ns(g, ktime_get_boottime_ns()) +
	       g->l.epoch_ms * NSEC_PER_MSEC;
}

static ssize_t now_ms_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	const struct uidgen_gen *g = &uidgen_sysfs_dev(dev)->gen;
	u64 now = uidgen_tick(g, ktime_get_boottime_ns());

	/* The Unix time the generator's clock reads, in ms (tick start). */
	return sysfs_emit(buf, "%llu\n", uidgen_tick_end_ms(g, now) -
			  DIV_ROUND_UP(g->l.tick_us, USEC_PER_MSEC));
}
static DEVICE_ATTR_RO(now_ms);

/**
 * uidgen_clock_offset_ms() - The ID clock minus the wall clock.
 * @ud: the device
 *
 * What clock steps during this load left, and a floor's lead.
 *
 * Context: any.
 * Return: the difference in ms, signed.
 */
s64 uidgen_clock_offset_ms(struct uidgen_device *ud)
{
	s64 d = (s64)(uidgen_id_clock_ns(&ud->gen) - ktime_get_real_ns());

	return d < 0 ? -(s64)div_u64(-d, NSEC_PER_MSEC) :
	       (s64)div_u64(d, NSEC_PER_MSEC);
}

static ssize_t clock_offset_ms_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  uidgen_clock_offset_ms(uidgen_sysfs_dev(dev)));
}
static DEVICE_ATTR_RO(clock_offset_ms);

/* One counter summed over the slots; @off is its offset in the slot. */
static u64 uidgen_slot_sum(const struct uidgen_gen *g, size_t off)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < g->nr_slots; i++)
		sum += atomic64_read((atomic64_t *)((char *)&g->slots[i] + off));
	return sum;
}

/* IDs slot @slot issued: one word per CPU. */
static u64 uidgen_issued_slot(const struct uidgen_device *ud, unsigned int slot)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(&ud->issued[slot], cpu);
	return sum;
}

/* IDs all slots issued: each CPU's words once, O(CPUs x slots). */
static ssize_t issued_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	const struct uidgen_device *ud = uidgen_sysfs_dev(dev);
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < ud->gen.nr_slots; i++)
		sum += uidgen_issued_slot(ud, i);
	return sysfs_emit(buf, "%llu\n", sum);
}
static DEVICE_ATTR_RO(issued);

static ssize_t waits_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  uidgen_slot_sum(&uidgen_sysfs_dev(dev)->gen,
					  offsetof(struct uidgen_slot, waits)));
}
static DEVICE_ATTR_RO(waits);

static ssize_t behind_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  uidgen_slot_sum(&uidgen_sysfs_dev(dev)->gen,
					  offsetof(struct uidgen_slot, behind)));
}
static DEVICE_ATTR_RO(behind);

static ssize_t grant_waits_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct uidgen_device *ud = uidgen_sysfs_dev(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ud->node.grant_waits));
}
static DEVICE_ATTR_RO(grant_waits);

static ssize_t observe_moved_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct uidgen_device *ud = uidgen_sysfs_dev(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ud->observe_moved));
}
static DEVICE_ATTR_RO(observe_moved);

static ssize_t observe_refused_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct uidgen_device *ud = uidgen_sysfs_dev(dev);

	return sysfs_emit(buf, "%lld\n", atomic64_read(&ud->observe_refused));
}
static DEVICE_ATTR_RO(observe_refused);

static struct attribute *uidgen_attrs[] = {
	&dev_attr_anchor_ms.attr,
	&dev_attr_now_ms.attr,
	&dev_attr_clock_offset_ms.attr,
	&dev_attr_issued.attr,
	&dev_attr_waits.attr,
	&dev_attr_behind.attr,
	&dev_attr_grant_waits.attr,
	&dev_attr_observe_moved.attr,
	&dev_attr_observe_refused.attr,
	NULL,
};

static const struct attribute_group uidgen_group = {
	.attrs = uidgen_attrs,
};

const struct attribute_group *uidgen_groups[] = {
	&uidgen_group,
	NULL,
};

/* debugfs: the per-slot table, /sys/kernel/debug/uidgen/slots */

static int uidgen_slots_show(struct seq_file *m, void *v)
{
	const struct uidgen_device *ud = m->private;
	const struct uidgen_gen *g = &ud->gen;
	u64 now = uidgen_tick(g, ktime_get_boottime_ns());
	unsigned int i;

	seq_puts(m, "slot issued waits behind last_tick borrowed\n");
	for (i = 0; i < g->nr_slots; i++) {
		struct uidgen_slot *s = &g->slots[i];
		u64 tick = (u64)atomic64_read(&s->last) >> g->l.seq_bits;

		seq_printf(m, "%u %llu %lld %lld %llu %llu\n", i,
			   uidgen_issued_slot(ud, i), atomic64_read(&s->waits),
			   atomic64_read(&s->behind), tick,
			   tick > now ? tick - now : 0);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uidgen_slots);

/**
 * uidgen_debugfs_init() - Create /sys/kernel/debug/uidgen/slots.
 * @ud: the device whose slots it shows
 *
 * Context: module init.
 */
void uidgen_debugfs_init(struct uidgen_device *ud)
{
	ud->debugfs = debugfs_create_dir("uidgen", NULL);
	debugfs_create_file("slots", 0400, ud->debugfs, ud,
			    &uidgen_slots_fops);
}

/**
 * uidgen_debugfs_exit() - Remove it.
 * @ud: the device
 *
 * Context: module exit.
 */
void uidgen_debugfs_exit(struct uidgen_device *ud)
{
	debugfs_remove(ud->debugfs);
}
