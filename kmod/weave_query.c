// SPDX-License-Identifier: GPL-2.0-only
/*
 * weave: the query ioctls: %DRM_IOCTL_WEAVE_QUERY (device info, memory
 * usage, client usage) and %DRM_IOCTL_WEAVE_STREAM_QUERY.
 */

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "weave_arena.h"
#include "weave_bo.h"
#include "weave_client.h"
#include "weave_core.h"
#include "weave_device.h"
#include "weave_drm.h"
#include "weave_engine.h"
#include "weave_failure.h"
#include "weave_fence.h"
#include "weave_graph.h"
#include "weave_shader.h"
#include "weave_uengine.h"
#include "weave_resident.h"
#include "weave_propagate.h"
#include "weave_query.h"
#include "weave_sring.h"

/**
 * struct weave_query - How to answer one &enum drm_weave_query_type.
 */
struct weave_query {
	/** @size: The size of the reply struct, in bytes. */
	u32 size;

	/**
	 * @fill: Fill in the reply struct for the caller's @file.  @reply is
	 * zeroed beforehand and is @size bytes long.  Returns 0, or
	 * -ERESTARTSYS if a signal interrupted it.
	 */
	int (*fill)(struct weave_device *wdev, struct drm_file *file,
		    void *reply);
};

/* The largest reply struct any query may have, in bytes. */
#define WEAVE_QUERY_REPLY_MAX	1024
/*
 * Replies up to this size are made on the stack, so that the queries of
 * info and usage allocate nothing; a larger one (the engines') is
 * allocated for the call.
 */
#define WEAVE_QUERY_STACK_REPLY	256

/*
 * WEAVE_QUERY(type, fill) - A &struct weave_query entry whose reply is a
 * struct @type; fails to build if @type outgrows WEAVE_QUERY_REPLY_MAX.
 */
#define WEAVE_QUERY(type, _fill)					\
	{								\
		.size = sizeof(struct type) +				\
			BUILD_BUG_ON_ZERO(sizeof(struct type) >		\
					  WEAVE_QUERY_REPLY_MAX),	\
		.fill = (_fill),					\
	}

static int weave_query_device_info(struct weave_device *wdev,
				   struct drm_file *file, void *reply)
{
	struct drm_weave_device_info *info = reply;

	info->uapi_major = DRM_WEAVE_UAPI_MAJOR;
	info->uapi_minor = DRM_WEAVE_UAPI_MINOR;
	info->max_bo_size = wdev->max_bo_size;
	info->page_size = PAGE_SIZE;
	info->num_queues = wdev->limits.num_queues;
	info->max_streams = wdev->limits.max_streams;
	info->max_tasks = wdev->limits.max_tasks;
	info->max_client_streams = wdev->limits.max_client_streams;
	info->max_tasks_per_enqueue = WEAVE_MAX_TASKS_PER_ENQUEUE;
	info->max_pending_tasks = wdev->limits.max_pending_tasks;
	info->max_staged_bytes = wdev->limits.max_staged_bytes;
	info->max_bindings = WEAVE_MAX_BINDINGS;
	info->max_uniform_bytes = WEAVE_MAX_UNIFORM_BYTES;
	info->max_in_syncs = WEAVE_MAX_IN_SYNCS;
	info->job_timeout_ms = wdev->limits.job_timeout_ms;
	info->default_strategy = wdev->limits.strategy;
	info->max_slot_gates = WEAVE_MAX_SLOT_GATES;
	info->max_delay_us = WEAVE_MAX_DELAY_US;
	info->max_check_ranges = WEAVE_MAX_CHECK_RANGES;
	info->max_report_failures = WEAVE_MAX_REPORT_FAILURES;
	info->max_live_failures = WEAVE_MAX_LIVE_FAILURES;
	info->max_failure_skips = WEAVE_FAILURE_SKIPS;
	info->slot_staging_bytes = wdev->limits.slot_staging_bytes;
	info->max_staging_slice = wdev->limits.slot_staging_bytes / 2 -
				  WEAVE_ARENA_GRANULE;
	info->max_graphs = WEAVE_MAX_GRAPHS;
	info->max_graph_tasks = WEAVE_MAX_GRAPH_TASKS;
	info->max_client_bos = wdev->max_client_bos;
	info->max_client_bo_bytes = wdev->max_client_bo_bytes;
	info->max_buffer_claims = wdev->limits.max_buffer_claims;
	info->max_client_claims = wdev->limits.max_client_claims;
	info->max_client_rings = WEAVE_MAX_CLIENT_RINGS;
	info->max_ring_units = WEAVE_MAX_RING_UNITS;
	weave_eng_resident_limits(&info->max_user_resident_bytes,
				  &info->max_resident_bytes);
	info->max_shader_bytes = WEAVE_MAX_SHADER_BYTES;
	info->max_shader_entries = WEAVE_MAX_SHADER_ENTRIES;
	info->max_client_shaders = WEAVE_MAX_CLIENT_SHADERS;
	info->max_client_shader_bytes = WEAVE_MAX_CLIENT_SHADER_BYTES;
	info->num_engine_queues = wdev->limits.num_engine_queues;
	return 0;
}

static int weave_query_memory_usage(struct weave_device *wdev,
				    struct drm_file *file, void *reply)
{
	struct drm_weave_memory_usage *usage = reply;

	usage->live_bos = atomic64_read(&wdev->live_bos);
	usage->live_bytes = atomic64_read(&wdev->live_bytes);
	usage->resident_bytes = weave_eng_resident_total();
	return 0;
}

/**
 * weave_client_usage() - What the kernel holds for a client.
 * @c: The client.
 * @usage: Filled in.
 *
 * Takes the client's mutex, under which the streams, the rings and the
 * queued tasks hold still.  The engine's counters are atomics that jobs
 * update without it; the engine context they live in outlives every job,
 * and the client holds a reference to it until close.  Both
 * %DRM_WEAVE_QUERY_CLIENT_USAGE and the file's fdinfo report it.
 *
 * Context: Process context; takes &weave_client.lock, interruptibly.
 * Return: 0, or -ERESTARTSYS.
 */
int weave_client_usage(struct weave_client *c,
		       struct drm_weave_client_usage *usage)
{
	struct weave_ectx *ctx = c->ectx;

	if (weave_client_lock(c))
		return -ERESTARTSYS;
	usage->pending_tasks = atomic64_read(&ctx->pending_tasks);
	usage->queued_tasks = weave_core_queued(&c->core);
	usage->staged_bytes = atomic64_read(&ctx->staged_bytes);
	usage->streams = c->nstreams;
	usage->ring_bytes = c->core.ring_bytes;
	usage->job_bytes = atomic64_read(&ctx->job_bytes);
	usage->jobs = atomic64_read(&ctx->jobs);
	usage->gate_bytes = weave_eng_ctx_gate_bytes(ctx);
	usage->submitted_jobs = atomic64_read(&ctx->submitted_jobs);
	usage->arena_bytes = ctx->arena_bytes;
	usage->alone_bytes = atomic64_read(&ctx->alone_bytes);
	usage->bo_bytes = atomic64_read(&c->quota->bytes);
	usage->bos = atomic64_read(&c->quota->bos);
	usage->shared_ring_bytes = c->sring_bytes;
	usage->shared_rings = c->nsrings;
	usage->shaders = c->nshaders;
	usage->shader_bytes = c->shader_bytes;
	mutex_unlock(&c->lock);
	usage->user_resident_bytes = weave_eng_resident_user_bytes(c->resident_user);
	usage->kernel_bytes = usage->ring_bytes + usage->job_bytes +
			      usage->gate_bytes + usage->arena_bytes +
			      usage->alone_bytes + usage->shared_ring_bytes +
			      usage->shader_bytes;
	weave_eng_ctx_fail_usage(ctx, &usage->failure_claims,
				 &usage->failure_records,
				 &usage->failure_bytes);
	return 0;
}

static int weave_query_client_usage(struct weave_device *wdev,
				    struct drm_file *file, void *reply)
{
	return weave_client_usage(file->driver_priv, reply);
}

static int weave_query_engines(struct weave_device *wdev,
			       struct drm_file *file, void *reply)
{
	weave_uengines_report(wdev, reply);
	return 0;
}

/* Indexed by &enum drm_weave_query_type; a new query is one line here. */
static const struct weave_query weave_queries[] = {
	[DRM_WEAVE_QUERY_DEVICE_INFO] =
		WEAVE_QUERY(drm_weave_device_info, weave_query_device_info),
	[DRM_WEAVE_QUERY_MEMORY_USAGE] =
		WEAVE_QUERY(drm_weave_memory_usage, weave_query_memory_usage),
	[DRM_WEAVE_QUERY_CLIENT_USAGE] =
		WEAVE_QUERY(drm_weave_client_usage, weave_query_client_usage),
	[DRM_WEAVE_QUERY_ENGINES] =
		WEAVE_QUERY(drm_weave_engines, weave_query_engines),
};

/*
 * Zero @len bytes of user memory, in chunks so that a large buffer does
 * not keep the CPU for long.
 */
static int weave_clear_user(void __user *ptr, size_t len)
{
	while (len) {
		size_t chunk = min_t(size_t, len, SZ_64K);

		if (clear_user(ptr, chunk))
			return -EFAULT;
		ptr += chunk;
		len -= chunk;
		cond_resched();
	}

	return 0;
}

/**
 * weave_query_ioctl() - Handle %DRM_IOCTL_WEAVE_QUERY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_query.
 * @file: The client's file.
 *
 * The reply is filled in inside a drm_dev_enter() section, and written to
 * user memory after it.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_query_ioctl(struct drm_device *drm, void *data,
		      struct drm_file *file)
{
	struct drm_weave_query *args = data;
	void __user *ptr = u64_to_user_ptr(args->pointer);
	u64 stack[WEAVE_QUERY_STACK_REPLY / sizeof(u64)] = {};
	const struct weave_query *query;
	void *reply = stack;
	u32 type = args->type;
	u32 len;
	int ret, idx;

	if (type >= ARRAY_SIZE(weave_queries))
		return -EINVAL;
	type = array_index_nospec(type, ARRAY_SIZE(weave_queries));
	query = &weave_queries[type];
	if (!query->fill)
		return -EINVAL;

	if (!args->size) {
		args->size = query->size;
		return 0;
	}

	/* Refuse a range that cannot be user memory before writing any. */
	if (!access_ok(ptr, args->size))
		return -EFAULT;

	if (query->size > sizeof(stack)) {
		reply = kzalloc(query->size, GFP_KERNEL);
		if (!reply)
			return -ENOMEM;
	}
	if (!drm_dev_enter(drm, &idx)) {
		if (reply != stack)
			kfree(reply);
		return -ENODEV;
	}
	ret = query->fill(to_weave_device(drm), file, reply);
	drm_dev_exit(idx);
	len = min(args->size, query->size);
	if (!ret && copy_to_user(ptr, reply, len))
		ret = -EFAULT;
	if (reply != stack)
		kfree(reply);
	if (ret)
		return ret;
	if (args->size > len) {
		ret = weave_clear_user(ptr + len, args->size - len);
		if (ret)
			return ret;
	}

	args->size = query->size;

	return 0;
}

/**
 * weave_stream_query_ioctl() - Handle %DRM_IOCTL_WEAVE_STREAM_QUERY.
 * @drm: The DRM device.
 * @data: A &struct drm_weave_stream_query.
 * @file: The client's file.
 *
 * Return: 0 or a negative errno as documented on the struct.
 */
int weave_stream_query_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file)
{
	struct drm_weave_stream_query *args = data;
	struct weave_client *c = file->driver_priv;
	struct weave_lstream *ls;
	u32 slot;

	if (args->pad || args->pad2)
		return -EINVAL;

	if (weave_client_lock(c))
		return -ERESTARTSYS;
	ls = weave_client_stream(c, args->handle);
	if (IS_ERR(ls)) {
		mutex_unlock(&c->lock);
		return PTR_ERR(ls);
	}
	slot = weave_core_slot(&c->core, args->handle);
	args->enqueued = ls->enqueued;
	args->executed = atomic64_read(&ls->executed);
	args->completed = atomic64_read(&ls->completed);
	args->slot = slot;
	args->priority = ls->priority;
	args->error = atomic_read(&ls->error);
	args->state = args->error ? DRM_WEAVE_STREAM_FAILED :
				    DRM_WEAVE_STREAM_ACTIVE;
	args->isolated = weave_core_isolated(&c->core, args->handle);
	mutex_unlock(&c->lock);
	return 0;
}
