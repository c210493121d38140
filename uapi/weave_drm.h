/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * weave: a multi-stream GPU task scheduler behind a DRM render node.
 *
 * This header is the whole user-space ABI of the weave driver.  It follows
 * Documentation/process/botching-up-ioctls.rst: every struct is made of
 * fixed-size types and is naturally aligned, user pointers travel as __u64,
 * padding and reserved fields must be zero, and unknown flags are rejected
 * with -EINVAL.
 */
#ifndef _WEAVE_DRM_H_
#define _WEAVE_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: weave uAPI overview
 *
 * weave registers one render node per device, driver name "weave".  Buffers
 * are GEM objects backed by shmem; they are created with
 * %DRM_IOCTL_WEAVE_BO_CREATE, mapped through the fake offset returned by
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET, shared through the core PRIME ioctls and
 * released with the core %DRM_IOCTL_GEM_CLOSE.
 *
 * %DRM_IOCTL_WEAVE_QUERY reports the uAPI version, the device's limits and
 * its usage.  New kinds of information are new query types, never new
 * ioctls, and the structs a query returns only grow at their end.
 *
 * A device can be unplugged while its files are open (its platform device
 * unbound from the driver).  From then on every ioctl on those files fails
 * with -ENODEV, the core's included; their work that had not completed is
 * cancelled and its fences signal with -ENODEV; a mapping made through
 * the node gets SIGBUS at its next access; and closing the files releases
 * everything.  A dma-buf exported from the device stays usable.  Binding
 * the device again makes a new node, which new opens reach.
 */

/**
 * DOC: uAPI version
 *
 * The major version changes only if the ABI breaks, which it must not.  The
 * minor version grows with every addition: a new ioctl, flag, query type or
 * field at the end of a query struct, or a field at the end of an ioctl's
 * struct, as uAPI 1.8 appended to &struct drm_weave_enqueue and &struct
 * drm_weave_wait.  An older program passes the shorter struct, whose
 * missing end the DRM core reads as zeroes; a newer program on an older
 * kernel is refused the new flag that goes with the field (-EINVAL).
 */
#define DRM_WEAVE_UAPI_MAJOR		1
#define DRM_WEAVE_UAPI_MINOR		13

#define DRM_WEAVE_QUERY			0x00
#define DRM_WEAVE_BO_CREATE		0x01
#define DRM_WEAVE_BO_MMAP_OFFSET	0x02
#define DRM_WEAVE_STREAM_CREATE		0x03
#define DRM_WEAVE_STREAM_DESTROY	0x04
#define DRM_WEAVE_ENQUEUE		0x05
#define DRM_WEAVE_FLUSH			0x06
#define DRM_WEAVE_STREAM_ISOLATE	0x07
#define DRM_WEAVE_WAIT			0x08
#define DRM_WEAVE_STREAM_QUERY		0x09
#define DRM_WEAVE_SET_PARAM		0x0a
#define DRM_WEAVE_CHECK			0x0b
#define DRM_WEAVE_READ			0x0c
#define DRM_WEAVE_CAPTURE		0x0d
#define DRM_WEAVE_REPLAY		0x0e
#define DRM_WEAVE_GRAPH_DESTROY		0x0f
#define DRM_WEAVE_RING_CREATE		0x10
#define DRM_WEAVE_RING_DESTROY		0x11
#define DRM_WEAVE_RING_ENTER		0x12
#define DRM_WEAVE_COMPLETIONS		0x13
#define DRM_WEAVE_SHADER_CREATE		0x14
#define DRM_WEAVE_SHADER_DESTROY	0x15
#define DRM_WEAVE_ENGINE_ATTACH		0x16

#define DRM_IOCTL_WEAVE_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_QUERY, struct drm_weave_query)
#define DRM_IOCTL_WEAVE_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_BO_CREATE, struct drm_weave_bo_create)
#define DRM_IOCTL_WEAVE_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_BO_MMAP_OFFSET, \
		 struct drm_weave_bo_mmap_offset)
#define DRM_IOCTL_WEAVE_STREAM_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_STREAM_CREATE, \
		 struct drm_weave_stream_create)
#define DRM_IOCTL_WEAVE_STREAM_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_STREAM_DESTROY, \
		struct drm_weave_stream_destroy)
#define DRM_IOCTL_WEAVE_ENQUEUE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_ENQUEUE, struct drm_weave_enqueue)
#define DRM_IOCTL_WEAVE_FLUSH \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_FLUSH, struct drm_weave_flush)
#define DRM_IOCTL_WEAVE_STREAM_ISOLATE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_STREAM_ISOLATE, \
		struct drm_weave_stream_isolate)
#define DRM_IOCTL_WEAVE_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_WAIT, struct drm_weave_wait)
#define DRM_IOCTL_WEAVE_STREAM_QUERY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_STREAM_QUERY, \
		 struct drm_weave_stream_query)
#define DRM_IOCTL_WEAVE_SET_PARAM \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_SET_PARAM, \
		struct drm_weave_set_param)
#define DRM_IOCTL_WEAVE_CHECK \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_CHECK, struct drm_weave_check)
#define DRM_IOCTL_WEAVE_READ \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_READ, struct drm_weave_read)
#define DRM_IOCTL_WEAVE_CAPTURE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_CAPTURE, struct drm_weave_capture)
#define DRM_IOCTL_WEAVE_REPLAY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_REPLAY, struct drm_weave_replay)
#define DRM_IOCTL_WEAVE_GRAPH_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_GRAPH_DESTROY, \
		struct drm_weave_graph_destroy)
#define DRM_IOCTL_WEAVE_RING_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_RING_CREATE, \
		 struct drm_weave_ring_create)
#define DRM_IOCTL_WEAVE_RING_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_RING_DESTROY, \
		struct drm_weave_ring_destroy)
#define DRM_IOCTL_WEAVE_RING_ENTER \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_RING_ENTER, \
		 struct drm_weave_ring_enter)
#define DRM_IOCTL_WEAVE_COMPLETIONS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_COMPLETIONS, \
		 struct drm_weave_completions)
#define DRM_IOCTL_WEAVE_SHADER_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_SHADER_CREATE, \
		 struct drm_weave_shader_create)
#define DRM_IOCTL_WEAVE_SHADER_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_WEAVE_SHADER_DESTROY, \
		struct drm_weave_shader_destroy)
#define DRM_IOCTL_WEAVE_ENGINE_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_WEAVE_ENGINE_ATTACH, \
		 struct drm_weave_engine_attach)

/**
 * enum drm_weave_query_type - What %DRM_IOCTL_WEAVE_QUERY reports.
 */
enum drm_weave_query_type {
	/**
	 * @DRM_WEAVE_QUERY_DEVICE_INFO: The uAPI version and the device's
	 * limits, as &struct drm_weave_device_info.
	 */
	DRM_WEAVE_QUERY_DEVICE_INFO = 0,

	/**
	 * @DRM_WEAVE_QUERY_MEMORY_USAGE: Device-wide buffer usage, as
	 * &struct drm_weave_memory_usage.
	 */
	DRM_WEAVE_QUERY_MEMORY_USAGE = 1,

	/**
	 * @DRM_WEAVE_QUERY_CLIENT_USAGE: The scheduling state of the calling
	 * file (client), as &struct drm_weave_client_usage.
	 */
	DRM_WEAVE_QUERY_CLIENT_USAGE = 2,

	/**
	 * @DRM_WEAVE_QUERY_ENGINES: The device's engine queues and the user
	 * engines attached to them, as &struct drm_weave_engines (uAPI
	 * 1.13).
	 */
	DRM_WEAVE_QUERY_ENGINES = 3,
};

/**
 * struct drm_weave_query - Argument of %DRM_IOCTL_WEAVE_QUERY.
 *
 * The kernel copies min(@size, its own size of the struct) bytes to
 * @pointer and zeroes the rest of the caller's @size bytes, so that a newer
 * user space reads zero in fields an older kernel does not know.  It then
 * sets @size to its own size of the struct, so the caller can tell which
 * fields were filled.  With @size zero, nothing is copied and @size is set:
 * that asks the kernel how big the struct is.
 *
 * Errors:
 *
 * - -EINVAL: @type is not a &enum drm_weave_query_type.
 * - -EFAULT: @pointer cannot be written.
 * - -EINTR: %DRM_WEAVE_QUERY_CLIENT_USAGE only: a signal arrived while
 *   the call waited for the client's lock; nothing was written.  (A
 *   handler installed with SA_RESTART restarts the call instead, as does
 *   drmIoctl().)
 * - -ENOMEM: %DRM_WEAVE_QUERY_ENGINES only, whose reply the kernel
 *   allocates: out of memory.  The other queries allocate nothing.
 * - -ENODEV: The device is unplugged.
 */
struct drm_weave_query {
	/** @type: One of &enum drm_weave_query_type. */
	__u32 type;

	/**
	 * @size: In: the number of bytes at @pointer.  Out: the size of the
	 * struct this kernel returns for @type.
	 */
	__u32 size;

	/** @pointer: User pointer to the struct to fill. */
	__u64 pointer;
};

/**
 * struct drm_weave_device_info - Reply to %DRM_WEAVE_QUERY_DEVICE_INFO.
 *
 * Fields are only ever added at the end.
 */
struct drm_weave_device_info {
	/** @uapi_major: %DRM_WEAVE_UAPI_MAJOR of the running driver. */
	__u32 uapi_major;

	/** @uapi_minor: %DRM_WEAVE_UAPI_MINOR of the running driver. */
	__u32 uapi_minor;

	/**
	 * @max_bo_size: The largest buffer %DRM_IOCTL_WEAVE_BO_CREATE
	 * accepts, in bytes; set by the module parameter max_bo_size.
	 */
	__u64 max_bo_size;

	/** @page_size: The granule buffer sizes are rounded up to. */
	__u32 page_size;

	/** @num_queues: Hardware queues of the soft engine. */
	__u32 num_queues;

	/**
	 * @max_streams: Slots in each client's pool; stream handle h maps to
	 * slot h % @max_streams.
	 */
	__u32 max_streams;

	/** @max_tasks: The largest slot threshold (tasks per slot ring). */
	__u32 max_tasks;

	/** @max_client_streams: Logical streams one client may have. */
	__u32 max_client_streams;

	/** @max_tasks_per_enqueue: Tasks one %DRM_IOCTL_WEAVE_ENQUEUE takes. */
	__u32 max_tasks_per_enqueue;

	/** @max_pending_tasks: Enqueued, uncompleted tasks per client. */
	__u64 max_pending_tasks;

	/** @max_staged_bytes: Staged, unexecuted host-write bytes per client. */
	__u64 max_staged_bytes;

	/** @max_bindings: Bindings one task may have. */
	__u32 max_bindings;

	/** @max_uniform_bytes: Inline uniform bytes one task may have. */
	__u32 max_uniform_bytes;

	/** @max_in_syncs: In-syncs one %DRM_IOCTL_WEAVE_ENQUEUE takes. */
	__u32 max_in_syncs;

	/** @job_timeout_ms: A job running longer is cut short. */
	__u32 job_timeout_ms;

	/** @default_strategy: The &enum drm_weave_strategy clients start with. */
	__u32 default_strategy;

	/** @pad: Reserved, zero. */
	__u32 pad;

	/**
	 * @max_slot_gates: Pending in-fence gates one slot holds, one per
	 * fence context; an enqueue that would pass it executes the slot
	 * first (uAPI 1.2; zero from an older kernel, whose limit was 128).
	 */
	__u32 max_slot_gates;

	/**
	 * @max_delay_us: The longest %DRM_WEAVE_KERNEL_DELAY, in microseconds
	 * (uAPI 1.2; zero from an older kernel, whose limit was 60000000).
	 */
	__u32 max_delay_us;

	/**
	 * @max_check_ranges: Ranges one %DRM_IOCTL_WEAVE_CHECK takes (uAPI
	 * 1.3; zero from an older kernel, which has no failure graph).
	 */
	__u32 max_check_ranges;

	/**
	 * @max_report_failures: Entries of &struct drm_weave_failure one
	 * report fills at most; a larger array is used up to this (uAPI 1.3).
	 */
	__u32 max_report_failures;

	/**
	 * @max_live_failures: Failures whose root task is one client's that
	 * stay distinct at once; past it the client's new failures share
	 * one record (%DRM_WEAVE_FAILURE_OVERFLOW) until some are cleared
	 * (uAPI 1.3).
	 */
	__u32 max_live_failures;

	/**
	 * @max_failure_skips: Skip records a failure keeps, its newest
	 * (uAPI 1.3).
	 */
	__u32 max_failure_skips;

	/**
	 * @slot_staging_bytes: Bytes of each slot's staging arena, which
	 * holds the bytes of its small host writes from enqueue until they
	 * are written (uAPI 1.4; zero from an older kernel, which staged
	 * each host write in memory of its own).  See
	 * &struct drm_weave_enqueue.
	 */
	__u32 slot_staging_bytes;

	/**
	 * @max_staging_slice: The largest host write that can go to the
	 * arena, half of it less 16 bytes (uAPI 1.4).  A host write of
	 * length L takes L rounded up to 16, plus 16, of the arena.
	 */
	__u32 max_staging_slice;

	/**
	 * @max_graphs: Graphs one client may hold at once (uAPI 1.5; zero
	 * from an older kernel, which has no graph capture).
	 */
	__u32 max_graphs;

	/** @max_graph_tasks: Tasks one graph may record (uAPI 1.5). */
	__u32 max_graph_tasks;

	/**
	 * @max_client_bos: Buffers that may be charged to one file (uAPI
	 * 1.6; zero from an older kernel, which had no such limit).  A
	 * buffer is charged to the file that gets its first handle: the one
	 * that creates it with %DRM_IOCTL_WEAVE_BO_CREATE, or imports a
	 * foreign dma-buf as it; it stays charged until it is freed, also
	 * after that file is closed.  Past this, or past
	 * @max_client_bo_bytes, the handle is refused with -EDQUOT.  Set by
	 * the module parameter max_client_bos.
	 */
	__u32 max_client_bos;

	/** @pad1: Reserved, zero. */
	__u32 pad1;

	/**
	 * @max_client_bo_bytes: Bytes of buffers that may be charged to one
	 * file, counted as @max_client_bos counts buffers (uAPI 1.6).  Set
	 * by the module parameter max_client_bo_bytes; by default a quarter
	 * of the machine's RAM.  This bounds what one file may make the
	 * kernel pin: a buffer's pages are pinned only while work that uses
	 * them is queued or running (see %DRM_IOCTL_WEAVE_BO_CREATE), and
	 * they are charged to the memory cgroup of the process that makes
	 * them resident.  What all the files of one user may make resident
	 * is bounded by @max_user_resident_bytes.
	 */
	__u64 max_client_bo_bytes;

	/**
	 * @max_buffer_claims: The most claims (byte ranges that carry one
	 * failure) one buffer holds; past it, its taints are coarsened (see
	 * "DOC: failure memory").  Set by the module parameter
	 * max_buffer_claims (uAPI 1.6; zero from an older kernel, which had
	 * no such limit).
	 */
	__u32 max_buffer_claims;

	/**
	 * @max_client_claims: The most claims that the failures whose root
	 * task is one client's hold, over all buffers, not counting one claim
	 * per buffer, which the buffer holds at no cost; past it, they are
	 * coarsened.  Set by the module parameter max_client_claims (uAPI
	 * 1.6).
	 */
	__u32 max_client_claims;

	/**
	 * @max_client_rings: The most shared submission rings one file may
	 * have at once (uAPI 1.9; zero from an older kernel, which has
	 * none); see "DOC: shared submission rings".
	 */
	__u32 max_client_rings;

	/**
	 * @max_ring_units: The largest &drm_weave_ring_create.units (uAPI
	 * 1.9).
	 */
	__u32 max_ring_units;

	/**
	 * @max_user_resident_bytes: The most bytes of buffers that one user
	 * (uid) may make resident through every weave device and file
	 * together (uAPI 1.12; zero from an older kernel, which had no such
	 * limit).  A buffer is charged its whole size, once, from the first
	 * call that makes its pages resident until it is freed: the first
	 * enqueue or replay of a task that binds it, READ, mmap() of it, or
	 * a dma-buf importer's attachment or vmap; a call that fails to
	 * make them resident charges nothing.  A file's calls charge
	 * the user who opened it; mmap() and an importer charge the user of
	 * the calling process.  The call that would go past this fails with
	 * -EDQUOT and does nothing: an enqueue or replay queues nothing, an
	 * mmap() maps nothing, an import attaches nothing.  Set by the
	 * module parameter max_user_resident_bytes, which root may change
	 * while the module is loaded; by default a quarter of the machine's
	 * RAM.
	 */
	__u64 max_user_resident_bytes;

	/**
	 * @max_resident_bytes: The most bytes of buffers that all users
	 * together may make resident, counted as @max_user_resident_bytes
	 * counts them (uAPI 1.12).  Past it the call fails with -ENOMEM and
	 * does nothing.  Set by the module parameter max_resident_bytes; by
	 * default half of the machine's RAM, so that the rest of the machine
	 * always keeps the other half.
	 */
	__u64 max_resident_bytes;

	/**
	 * @max_shader_bytes: The largest SPIR-V module
	 * %DRM_IOCTL_WEAVE_SHADER_CREATE takes, in bytes (uAPI 1.13; zero
	 * from an older kernel, which has no shaders).
	 */
	__u32 max_shader_bytes;

	/**
	 * @max_shader_entries: Entry points one shader may name (uAPI
	 * 1.13).
	 */
	__u32 max_shader_entries;

	/** @max_client_shaders: Shaders one file may hold (uAPI 1.13). */
	__u32 max_client_shaders;

	/** @pad2: Reserved, zero. */
	__u32 pad2;

	/**
	 * @max_client_shader_bytes: Bytes of SPIR-V that the shaders of one
	 * file may hold together (uAPI 1.13).
	 */
	__u64 max_client_shader_bytes;

	/**
	 * @num_engine_queues: The device's engine queues, for user engines
	 * to attach to (uAPI 1.13; see "DOC: user engines").  Set by the
	 * module parameter num_engine_queues.
	 */
	__u32 num_engine_queues;

	/** @pad3: Reserved, zero. */
	__u32 pad3;
};

/**
 * struct drm_weave_memory_usage - Reply to %DRM_WEAVE_QUERY_MEMORY_USAGE.
 *
 * Counts cover every client of the device, including buffers imported
 * through PRIME.  An object is counted until its last reference is gone,
 * not merely until its last handle is closed.
 */
struct drm_weave_memory_usage {
	/** @live_bos: The number of buffer objects alive on the device. */
	__u64 live_bos;

	/** @live_bytes: The sum of their sizes, in bytes. */
	__u64 live_bytes;

	/**
	 * @resident_bytes: The bytes of buffers made resident and not yet
	 * freed, of every user, through every weave device, against
	 * max_resident_bytes (uAPI 1.12; see &struct drm_weave_device_info).
	 */
	__u64 resident_bytes;
};

/**
 * struct drm_weave_client_usage - Reply to %DRM_WEAVE_QUERY_CLIENT_USAGE.
 *
 * What the kernel holds for the calling file's streams and tasks; other
 * files of the same device are not counted.  Buffer objects are not counted
 * here either (see &struct drm_weave_memory_usage), nor is the fixed
 * per-file bookkeeping (slot tables, stream and buffer-tracking records,
 * the job kept aside for a task the kernel cannot pack, see
 * &struct drm_weave_enqueue, until it is used).
 * The fields are one snapshot taken under the client's lock, but jobs
 * complete and are freed concurrently, so two queries may differ even if
 * the caller did nothing in between.
 *
 * The file's fdinfo (``/proc/<pid>/fdinfo/<fd>``) shows every field too,
 * for tools that read any process's usage: each under a ``weave-`` key
 * (``weave-pending-tasks``, ``weave-kernel-memory`` for @kernel_bytes,
 * ``weave-charged-memory`` for @bo_bytes, and so on), next to the DRM
 * client usage statistics' standard keys for the engine time of the
 * hardware queues (``drm-engine-soft``, whose capacity
 * ``drm-engine-capacity-soft`` is the number of queues, and one
 * ``weave-engine-q<N>`` per queue) and for the buffers the file has
 * handles to (``drm-total-memory`` and the others), which this struct
 * does not have.
 *
 * @kernel_bytes is always @ring_bytes + @job_bytes + @gate_bytes +
 * @arena_bytes + @alone_bytes (before uAPI 1.4: @ring_bytes + @job_bytes +
 * @staged_bytes + @gate_bytes).  Slot rings and staging arenas are made on
 * a slot's first task, and first small host write, and kept until the file
 * is closed (destroying a stream does not free them; a ring shrinks to
 * one chunk when a flush empties it), so once the client
 * is idle -- everything it enqueued flushed and waited for, and @jobs back
 * at zero, which follows completion shortly, as jobs are freed
 * asynchronously -- @kernel_bytes is @ring_bytes plus @arena_bytes plus
 * @job_bytes, which is then zero or the task arrays the kernel keeps for
 * the next jobs, at most four, of max_tasks entries each (the client's
 * threshold, %DRM_WEAVE_PARAM_MAX_TASKS).  A fresh file reads all zeroes.
 *
 * Fields are only ever added at the end.
 */
struct drm_weave_client_usage {
	/**
	 * @pending_tasks: Tasks enqueued and not yet completed, whether still
	 * queued in a slot's ring or encoded into a job; what
	 * max_pending_tasks (see &struct drm_weave_device_info) limits.
	 */
	__u64 pending_tasks;

	/**
	 * @queued_tasks: Of @pending_tasks, those still in the slots' rings:
	 * not yet executed (handed to a job).
	 */
	__u64 queued_tasks;

	/**
	 * @staged_bytes: Host-write bytes copied into the kernel and not yet
	 * written to their buffer (nor dropped); what max_staged_bytes
	 * limits.
	 */
	__u64 staged_bytes;

	/** @streams: Live logical streams of the client. */
	__u64 streams;

	/**
	 * @kernel_bytes: Bytes the kernel holds for the client's scheduling
	 * state: @ring_bytes + @job_bytes + @gate_bytes + @arena_bytes +
	 * @alone_bytes + @shared_ring_bytes (uAPI 1.9).
	 */
	__u64 kernel_bytes;

	/**
	 * @ring_bytes: Bytes of the slots' task rings.  A ring grows in
	 * chunks with the tasks queued on it, each taking only what it uses
	 * (32 bytes for a noop), and once they are flushed it keeps one chunk,
	 * so each slot that ever had a task holds at least that much.
	 */
	__u64 ring_bytes;

	/**
	 * @job_bytes: Bytes of the task arrays of encoded jobs not yet freed,
	 * at their allocated capacity, plus the arrays kept for reuse by the
	 * next jobs (at most four).
	 */
	__u64 job_bytes;

	/** @jobs: Jobs of the client encoded and not yet freed. */
	__u64 jobs;

	/**
	 * @gate_bytes: Bytes of the in-sync gates waiting on the client's
	 * slots for their next job (uAPI 1.1).  A slot keeps one per fence
	 * context, so listing the same syncobj again does not add one, and at
	 * most 128: a slot that would hold more is executed first.
	 */
	__u64 gate_bytes;

	/**
	 * @submitted_jobs: Jobs the client has pushed to a hardware queue
	 * since the file was opened; it only grows.  Each execution makes
	 * one job per backend stream it flushes with tasks on it: one for an
	 * interleaved set of slots, one per slot on the sequential path (see
	 * &enum drm_weave_strategy and &struct drm_weave_stream_isolate).
	 * New in uAPI 1.2: present when the returned &drm_weave_query.size
	 * covers it.
	 */
	__u64 submitted_jobs;

	/**
	 * @arena_bytes: Bytes of the slots' staging arenas, slot_staging_bytes
	 * (see &struct drm_weave_device_info) for each slot that had a host
	 * write small enough for one (uAPI 1.4).
	 */
	__u64 arena_bytes;

	/**
	 * @alone_bytes: Bytes of the staged host writes that have memory of
	 * their own, too large for their slot's arena, each its length
	 * rounded up to 16, plus 16 (uAPI 1.4).
	 */
	__u64 alone_bytes;

	/**
	 * @bo_bytes: Bytes of the buffers charged to the file, against
	 * max_client_bo_bytes (see &struct drm_weave_device_info), whether
	 * or not it still has a handle to them (uAPI 1.6).
	 */
	__u64 bo_bytes;

	/** @bos: The buffers charged to the file, against max_client_bos. */
	__u64 bos;

	/**
	 * @failure_claims: Claims that carry the client's failures (those
	 * whose root task is the client's) on any buffer, but the one claim
	 * each buffer holds at no cost; at most max_client_claims (uAPI 1.6;
	 * see "DOC: failure memory").
	 */
	__u64 failure_claims;

	/**
	 * @failure_records: The client's failures alive, overflow included;
	 * at most max_live_failures + 1 (uAPI 1.6).
	 */
	__u64 failure_records;

	/**
	 * @failure_bytes: Kernel memory, charged to the client, that its
	 * failures take: @failure_claims claims and @failure_records
	 * records, plus what is set aside for the failures of its pending
	 * tasks (uAPI 1.6).  Not part of @kernel_bytes.  Once the client is
	 * idle and its buffers carry no failure, this is at most what its
	 * last enqueue set aside: a record per task and two claims per write
	 * binding, plus one record.
	 */
	__u64 failure_bytes;

	/**
	 * @shared_ring_bytes: Bytes of the file's shared submission rings
	 * (uAPI 1.9): the pages of each ring's header and of its descriptor
	 * area, which the kernel allocates and charges to the memory cgroup
	 * of the caller of %DRM_IOCTL_WEAVE_RING_CREATE, and the one buffer
	 * into which the kernel copies descriptors, once the file has a
	 * ring.  Part of @kernel_bytes.
	 */
	__u64 shared_ring_bytes;

	/** @shared_rings: The file's shared submission rings (uAPI 1.9). */
	__u64 shared_rings;

	/**
	 * @user_resident_bytes: The bytes of buffers made resident and not
	 * yet freed that are charged to the user who opened the file,
	 * through all that user's files and processes, against
	 * max_user_resident_bytes (uAPI 1.12; see &struct
	 * drm_weave_device_info).
	 */
	__u64 user_resident_bytes;

	/**
	 * @shaders: The file's shaders (uAPI 1.13), against
	 * max_client_shaders.
	 */
	__u64 shaders;

	/**
	 * @shader_bytes: Bytes of SPIR-V its shaders hold (uAPI 1.13),
	 * against max_client_shader_bytes; charged to the memory cgroup of
	 * the caller of %DRM_IOCTL_WEAVE_SHADER_CREATE.  Part of
	 * @kernel_bytes.
	 */
	__u64 shader_bytes;
};

/**
 * DRM_WEAVE_BO_NO_MMAP - The buffer can never be mapped by user space.
 *
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET on it fails with -EPERM, and so does
 * mmap() of a dma-buf exported from it.  Bit 0.
 */
#define DRM_WEAVE_BO_NO_MMAP		0x00000001u

/**
 * DRM_WEAVE_BO_FLAGS - Every flag %DRM_IOCTL_WEAVE_BO_CREATE knows.
 */
#define DRM_WEAVE_BO_FLAGS		DRM_WEAVE_BO_NO_MMAP

/**
 * struct drm_weave_bo_create - Argument of %DRM_IOCTL_WEAVE_BO_CREATE.
 *
 * Creates a buffer object backed by shmem.  Its contents read as zeroes.
 * Its pages are allocated as they are first used, and pinned only while
 * they are in use: while tasks that bind the buffer are queued or their
 * jobs run (see &struct drm_weave_enqueue), while %DRM_IOCTL_WEAVE_READ
 * copies from it, and while a mapping of it has them mapped.  Otherwise
 * they are ordinary shmem pages that the kernel may reclaim and swap.
 * They are charged to the memory cgroup of the process whose call (an
 * ENQUEUE, a REPLAY, a READ) or page fault makes them resident first, and
 * from then until the buffer is freed its size counts against the limits
 * of resident bytes of a user and of the machine (uAPI 1.12; see
 * @max_user_resident_bytes in &struct drm_weave_device_info).
 *
 * The buffer is charged to this file's quota (uAPI 1.6): max_client_bos
 * buffers and max_client_bo_bytes bytes, see
 * &struct drm_weave_device_info.  The same holds for a foreign dma-buf
 * that the file imports with the core's PRIME ioctl, which fails with
 * -EDQUOT in the same way.
 *
 * Errors:
 *
 * - -EINVAL: @size is zero, or @flags has a bit outside
 *   %DRM_WEAVE_BO_FLAGS.
 * - -E2BIG: @size, rounded up to the page size, is over the device's
 *   max_bo_size (see &struct drm_weave_device_info).
 * - -EDQUOT: The buffer would take the file past max_client_bos buffers
 *   or max_client_bo_bytes bytes (uAPI 1.6).  Nothing was created.
 * - -ENOMEM: The kernel is out of memory, or the caller's memory cgroup,
 *   to which the buffer's bookkeeping is charged, is at its limit.
 */
struct drm_weave_bo_create {
	/**
	 * @size: In: the size in bytes.  Out: the size after rounding up to
	 * the page size.
	 */
	__u64 size;

	/** @flags: A combination of %DRM_WEAVE_BO_FLAGS. */
	__u32 flags;

	/** @handle: Out: the new buffer's GEM handle in this file. */
	__u32 handle;
};

/**
 * struct drm_weave_bo_mmap_offset - Argument of
 * %DRM_IOCTL_WEAVE_BO_MMAP_OFFSET.
 *
 * Returns the fake offset to pass to mmap() on the device's file to map
 * the buffer.  Mappings are shared and cached.
 *
 * Errors:
 *
 * - -EINVAL: @pad is not zero.
 * - -ENOENT: @handle names no buffer in this file.
 * - -EPERM: The buffer was created with %DRM_WEAVE_BO_NO_MMAP.
 */
struct drm_weave_bo_mmap_offset {
	/** @handle: The buffer's GEM handle. */
	__u32 handle;

	/** @pad: Must be zero. */
	__u32 pad;

	/** @offset: Out: the offset to pass to mmap(). */
	__u64 offset;
};

/**
 * DOC: Streams and tasks
 *
 * A client creates logical streams with %DRM_IOCTL_WEAVE_STREAM_CREATE.  A
 * stream handle lives in the client's own namespace.  Each stream maps onto
 * one slot of the client's pool of max_streams slots (see
 * &struct drm_weave_device_info): slot = handle % max_streams.  Streams that
 * share a slot share its FIFO.
 *
 * %DRM_IOCTL_WEAVE_ENQUEUE copies tasks into the slot's ring in the kernel.
 * When a slot holds max_tasks tasks, or on %DRM_IOCTL_WEAVE_FLUSH, the
 * scheduler executes it: it encodes the tasks into one job and pushes the
 * job to a hardware queue.  Before a task is queued, every other slot of the
 * client with queued tasks on a buffer the task binds is executed, so work
 * on shared buffers runs in enqueue order.
 *
 * Each stream counts its tasks: the sequence number of a task is the number
 * of tasks enqueued on the stream up to and including it.  A stream's
 * completed count says how many of them finished.
 */

/**
 * DRM_WEAVE_MAX_STRIDE - The largest &drm_weave_array.stride, in bytes.
 *
 * Bounds the bytes the kernel reads (and checks for zero) per element, so
 * an array's cost follows its count.  Added in uAPI 1.1; 1.0 had no bound.
 */
#define DRM_WEAVE_MAX_STRIDE		256

/**
 * struct drm_weave_array - A user array of structs.
 *
 * The kernel reads @count elements of @stride bytes each from @ptr.  A
 * @stride larger than the kernel's struct is accepted if the extra bytes
 * are zero; a smaller one is accepted if it covers the struct's first
 * version.  This lets the element structs grow.  @stride is at most
 * %DRM_WEAVE_MAX_STRIDE; a larger one is refused with -EINVAL.
 */
struct drm_weave_array {
	/** @ptr: User pointer to the first element. */
	__u64 ptr;
	/** @stride: Bytes from one element to the next. */
	__u32 stride;
	/** @count: Number of elements. */
	__u32 count;
};

/**
 * enum drm_weave_priority - Priority of a stream's jobs.
 */
enum drm_weave_priority {
	/** @DRM_WEAVE_PRIORITY_LOW: Runs after normal and high work. */
	DRM_WEAVE_PRIORITY_LOW = 0,
	/** @DRM_WEAVE_PRIORITY_NORMAL: The default. */
	DRM_WEAVE_PRIORITY_NORMAL = 1,
	/** @DRM_WEAVE_PRIORITY_HIGH: Runs first; needs CAP_SYS_NICE. */
	DRM_WEAVE_PRIORITY_HIGH = 2,
};

/**
 * struct drm_weave_stream_create - Argument of
 * %DRM_IOCTL_WEAVE_STREAM_CREATE.
 *
 * Errors:
 *
 * - -EINVAL: @flags or @pad is not zero, or @priority is unknown.
 * - -EPERM: @priority is high and the caller lacks CAP_SYS_NICE.
 * - -ENOSPC: The client already has max_client_streams streams (see
 *   &struct drm_weave_device_info).
 * - -ENOMEM: The kernel is out of memory; no stream was created.
 * - -EINTR: A signal arrived while the call waited for the client's lock,
 *   which another thread of the client held; nothing changed.  (A handler
 *   installed with SA_RESTART restarts the call instead, as does
 *   drmIoctl().)
 *
 * Handles are given out cyclically, from 1 to max_client_streams: each new
 * stream gets the lowest free handle above the last one given, wrapping
 * around to 1 at the end.  So the handle of a destroyed stream is not
 * reused at once, and a stale handle fails with -ENOENT, until
 * max_client_streams more streams have been created.
 */
struct drm_weave_stream_create {
	/** @flags: Must be zero. */
	__u32 flags;
	/** @priority: One of &enum drm_weave_priority. */
	__u32 priority;
	/** @handle: Out: the stream's handle, 1 to max_client_streams. */
	__u32 handle;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * struct drm_weave_stream_destroy - Argument of
 * %DRM_IOCTL_WEAVE_STREAM_DESTROY.
 *
 * Tasks still queued on the stream are executed first, so destroying a
 * stream never loses work; the call does not wait for them to complete.
 *
 * Errors:
 *
 * - -EINVAL: @pad is not zero.
 * - -ENOENT: @stream names no stream of this client.
 * - -ENOMEM: The kernel ran out of memory while packing the queued tasks
 *   of the stream's slot into a job.  The stream is not destroyed; the
 *   tasks it could not pack stay queued, in order.  Call again.
 * - -EINTR: A signal arrived while the call waited for the client's lock,
 *   which another thread of the client held; nothing changed.  (A handler
 *   installed with SA_RESTART restarts the call instead, as does
 *   drmIoctl().)
 */
struct drm_weave_stream_destroy {
	union {
		/**
		 * @stream: The stream (uAPI 1.7; named @handle before, which
		 * remains as an alias).
		 */
		__u32 stream;
		/** @handle: Old name of @stream. */
		__u32 handle;
	};
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * enum drm_weave_task_type - What a &struct drm_weave_task does.
 */
enum drm_weave_task_type {
	/** @DRM_WEAVE_TASK_LAUNCH: Run a built-in kernel. */
	DRM_WEAVE_TASK_LAUNCH = 0,
	/**
	 * @DRM_WEAVE_TASK_HOST_WRITE: Copy bytes from user memory into the
	 * range of the task's single binding.  The bytes are copied into the
	 * kernel at enqueue time.
	 */
	DRM_WEAVE_TASK_HOST_WRITE = 1,
};

/**
 * enum drm_weave_kernel - The soft engine's built-in kernels.
 */
enum drm_weave_kernel {
	/**
	 * @DRM_WEAVE_KERNEL_NOOP: Does nothing; no bindings.
	 */
	DRM_WEAVE_KERNEL_NOOP = 0,
	/**
	 * @DRM_WEAVE_KERNEL_FILL: Fills binding 0 (write) with the u32
	 * pattern in uniform bytes 0..3.  The binding's size is a multiple of 4.
	 */
	DRM_WEAVE_KERNEL_FILL = 1,
	/**
	 * @DRM_WEAVE_KERNEL_COPY: Copies binding 0 (read) into binding 1
	 * (write); both have the same size.  The two may be ranges of one
	 * buffer that overlap: the copy is then a memmove, and binding 1
	 * ends up holding what binding 0 held before the task.
	 */
	DRM_WEAVE_KERNEL_COPY = 2,
	/**
	 * @DRM_WEAVE_KERNEL_ADD_U32: Binding 2 (write) = binding 0 (read) +
	 * binding 1 (read), element-wise on u32, wrapping.  All three have the
	 * same size, a multiple of 4.  Binding 2 may be the very range of an
	 * input (in place) or lie apart from it; a binding 2 that overlaps an
	 * input's range of the same buffer otherwise is refused with -EINVAL,
	 * as its result would depend on the order the elements are computed
	 * in.  The inputs may overlap each other.
	 */
	DRM_WEAVE_KERNEL_ADD_U32 = 3,
	/**
	 * @DRM_WEAVE_KERNEL_CRC32C: Writes crc32c (seed ~0, final xor ~0) of
	 * binding 0 (read) as a u32 into binding 1 (write, size 4).
	 */
	DRM_WEAVE_KERNEL_CRC32C = 4,
	/**
	 * @DRM_WEAVE_KERNEL_DELAY: Waits for the number of microseconds in
	 * uniform bytes 0..3, at most 60000000 (60 s); no bindings.  The job
	 * timeout cuts it short.
	 */
	DRM_WEAVE_KERNEL_DELAY = 5,
	/**
	 * @DRM_WEAVE_KERNEL_FAIL: Fails with the positive errno (1 to 4095)
	 * in uniform bytes 0..3; its bindings are left unwritten, and a new
	 * failure taints the ones it writes (see "DOC: failures").  Other
	 * tasks, the job's later ones included, run as they would.  Before
	 * uAPI 1.3 the job's fences carried the error instead.
	 */
	DRM_WEAVE_KERNEL_FAIL = 6,
};

/**
 * DRM_WEAVE_ACCESS_READ - The task reads the binding.
 */
#define DRM_WEAVE_ACCESS_READ		0x00000001u
/**
 * DRM_WEAVE_ACCESS_WRITE - The task writes the binding.
 */
#define DRM_WEAVE_ACCESS_WRITE		0x00000002u

/**
 * struct drm_weave_binding - A buffer range a task uses.
 */
struct drm_weave_binding {
	/** @handle: GEM handle of the buffer. */
	__u32 handle;
	/** @access: %DRM_WEAVE_ACCESS_READ and/or %DRM_WEAVE_ACCESS_WRITE. */
	__u32 access;
	/** @offset: Byte offset of the range in the buffer. */
	__u64 offset;
	/** @size: Byte size of the range; not zero. */
	__u64 size;
};

/**
 * struct drm_weave_task - One task of %DRM_IOCTL_WEAVE_ENQUEUE.
 */
struct drm_weave_task {
	/** @type: One of &enum drm_weave_task_type. */
	__u32 type;
	/** @kernel: For a launch, one of &enum drm_weave_kernel; else zero. */
	__u32 kernel;
	/** @bindings: Array of &struct drm_weave_binding. */
	struct drm_weave_array bindings;
	/** @uniforms: User pointer to the launch's inline uniforms. */
	__u64 uniforms;
	/** @uniforms_size: Their size, at most max_uniform_bytes. */
	__u32 uniforms_size;
	/** @grid: Grid of a launch; zero means 1.  Kernels ignore it for now. */
	__u32 grid[3];
	/**
	 * @data: For a host write, user pointer to the bytes to write: as
	 * many as the single binding's size.  Zero otherwise.
	 */
	__u64 data;
	/**
	 * @label: Any value; reported, to this client only, with a failure
	 * that starts at or skips this task (uAPI 1.3; an older caller's
	 * shorter stride leaves it zero).
	 */
	__u32 label;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * struct drm_weave_sync - A syncobj point.
 */
struct drm_weave_sync {
	/** @flags: Must be zero. */
	__u32 flags;
	/** @handle: The syncobj handle. */
	__u32 handle;
	/**
	 * @timeline_value: The timeline point, or zero for a binary
	 * syncobj.
	 */
	__u64 timeline_value;
};

/**
 * struct drm_weave_enqueue - Argument of %DRM_IOCTL_WEAVE_ENQUEUE.
 *
 * Validates and copies every task into the kernel, then queues them in
 * order on the stream's slot.  Either all tasks are queued or none is: a
 * bad task fails the call before anything is queued.  Host-write bytes are
 * copied at once, so the caller may reuse its memory when the call returns.
 *
 * They are copied into the stream's slot's staging arena (uAPI 1.4; see
 * slot_staging_bytes in &struct drm_weave_device_info) while the host
 * writes this call put there take at most half of it, and into memory of
 * their own otherwise.  A full arena is pressure: the call executes the
 * slot and submits its work, as %DRM_IOCTL_WEAVE_FLUSH would, then waits
 * for the arena's bytes to come back as the tasks that hold them run.  It
 * fails with -EBUSY if job_timeout_ms passes with none coming back, which
 * happens only when the work ahead is held (by an in-sync, say).  Staging
 * bytes are never reused before the task that holds them ran or was
 * dropped, and carry no failure: see "DOC: failures".
 *
 * The in-syncs gate the tasks: they do not start before every listed
 * syncobj point has signalled.  (Other tasks encoded into the same job may
 * wait with them.)  A point that has no fence yet fails the call.  Fences
 * of one timeline (fence context) count once, the latest one; a slot that
 * would have more than 128 distinct in-fences pending is executed before
 * the new tasks are queued.
 *
 * Queuing a slot's max_tasks-th task executes the slot within this call,
 * and so does queuing a task on a buffer that tasks queued on another slot
 * use (that slot is executed first).  These executions happen after the
 * call has committed to queuing its tasks, so they never fail it, nor lose
 * a task, nor keep one queued.  A task the kernel has no memory to pack
 * into a job does not run: what it should have written takes a new
 * failure, error -ENOMEM and cause %DRM_WEAVE_FAILURE_ENCODE, in the
 * task's place in the order (after the earlier work on those bytes;
 * later tasks that read them are skipped, later writes make them good),
 * and its stream stays active (since uAPI 1.4).  The kernel keeps memory
 * aside for that, per file, which this call makes first if a previous one
 * used it: -ENOMEM if it cannot.  Only if a second task of the same call
 * cannot be packed, and memory aside cannot be made again in between,
 * does that task fail its stream instead (see &enum
 * drm_weave_stream_state, error -ENOMEM), as every such task did before
 * uAPI 1.4.  A job the kernel cannot submit stays in the kernel until the
 * next %DRM_IOCTL_WEAVE_FLUSH.  (A FLUSH in the same situation keeps the
 * tasks queued and fails instead.)
 *
 * Errors:
 *
 * - -EINVAL: @flags has a bit other than %DRM_WEAVE_ENQUEUE_FLUSH, or a
 *   reserved field is not zero; @tasks.count is zero (without the flag) or
 *   over max_tasks_per_enqueue; a stride is too small or its extra bytes are
 *   not zero; a task has an unknown type or kernel, the wrong number of
 *   bindings for its kernel, an access mask that is zero or unknown, a
 *   binding of size zero, a range outside its buffer, sizes or overlaps
 *   its kernel rejects (see &enum drm_weave_kernel), uniforms over
 *   max_uniform_bytes, fewer than 4 uniform bytes for a kernel that reads
 *   uniform bytes 0..3, a delay or errno out of range, a buffer imported
 *   from another device, or a stride over %DRM_WEAVE_MAX_STRIDE; in-syncs
 *   on a stream that records its capture window (uAPI 1.5).
 * - -ENOENT: @stream, a binding's buffer or an in-sync syncobj does not
 *   exist in this file, or a syncobj point has no fence.
 * - -ENOSPC: The stream records its capture window, and the recording
 *   would pass max_graph_tasks (uAPI 1.5); or the stream's slot holds
 *   in-fence gates that executing it
 *   could not hand to a job, and this call's in-fences would take it past
 *   max_slot_gates (see &struct drm_weave_device_info).  This happens only
 *   after the kernel ran out of memory packing the slot's tasks, even the
 *   memory it keeps aside (their stream failed, see &enum
 *   drm_weave_stream_state); the next task queued on the slot without
 *   in-syncs takes the gates into its job.
 * - -E2BIG: A host write is larger than max_staged_bytes.
 * - -EBUSY: The client would exceed max_pending_tasks or max_staged_bytes,
 *   or the slot's staging arena stayed full for job_timeout_ms while the
 *   call waited (see above); wait for work to complete and retry.  (Not
 *   -EAGAIN: libdrm's drmIoctl() restarts on it, and would spin.)
 * - -EINTR: A signal arrived while the call waited for the client's lock
 *   or the staging arena, or while it faulted its user memory in; nothing
 *   was queued.  (A handler installed with SA_RESTART restarts the call
 *   instead, as does drmIoctl().)  The call faults user memory in with no
 *   lock held and outside the device's unplug guard; like any access to
 *   user memory that wait ends when the page comes or with a fatal signal.
 * - -ECANCELED: The stream has failed (see &struct drm_weave_stream_query).
 * - -EFAULT: A user pointer cannot be read, or its memory cannot be
 *   faulted in (a page that keeps being taken away from under the call
 *   too).
 * - -ENOMEM: The kernel is out of memory, or the caller's memory cgroup is
 *   at its limit (what the kernel keeps for the client, staged host-write
 *   bytes and the memory set aside for the tasks' failures included, see
 *   "DOC: failure memory", is charged to it, and so are the pages of the
 *   buffers the tasks bind that this call makes resident, see
 *   &struct drm_weave_bo_create); nothing was queued.
 * - -EDQUOT, -ENOMEM: The buffers the tasks bind that this call would
 *   make resident first would take the file's user past
 *   max_user_resident_bytes (-EDQUOT), or all users past
 *   max_resident_bytes (-ENOMEM; uAPI 1.12, see &struct
 *   drm_weave_device_info); nothing was queued.  The buffers of jobs that
 *   completed before the call, whose handles were closed, no longer count
 *   by then: the call lets go of them before it refuses.
 *
 * With %DRM_WEAVE_ENQUEUE_FLUSH, see "DOC: enqueue with flush" for what
 * the flag adds and the errors that come with it.
 */
struct drm_weave_enqueue {
	/** @stream: The stream handle. */
	__u32 stream;
	/** @flags: Zero or %DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8). */
	__u32 flags;
	/** @tasks: Array of &struct drm_weave_task. */
	struct drm_weave_array tasks;
	/** @in_syncs: Array of &struct drm_weave_sync to wait on. */
	struct drm_weave_array in_syncs;
	/**
	 * @seqno: Out: the stream's sequence number after the last task.
	 * Launches that a capture window records take none (uAPI 1.5): a
	 * call whose tasks were all recorded returns the stream's last
	 * sequence number so far (zero if it has none), and one that also
	 * queued tasks (host writes, refused while the stream records)
	 * returns that of its last queued task.  With
	 * %DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8) it is written on -EINPROGRESS
	 * too, and a call with no tasks returns the stream's last sequence
	 * number so far.
	 */
	__u64 seqno;
	/**
	 * @out_syncs: Array of &struct drm_weave_sync to set to the fence
	 * of the flushed work; only with %DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8;
	 * before, the struct ended at @seqno).
	 */
	struct drm_weave_array out_syncs;
};

/**
 * DRM_WEAVE_ENQUEUE_FLUSH - Flush the stream once the tasks are queued.
 *
 * A flag of &drm_weave_enqueue.flags (uAPI 1.8): see "DOC: enqueue with
 * flush".
 */
#define DRM_WEAVE_ENQUEUE_FLUSH		0x00000001u

/**
 * DOC: enqueue with flush
 *
 * With %DRM_WEAVE_ENQUEUE_FLUSH (uAPI 1.8), %DRM_IOCTL_WEAVE_ENQUEUE
 * queues its tasks, then executes the stream's slot and submits its work
 * as %DRM_IOCTL_WEAVE_FLUSH of the stream does, under one hold of the
 * client's lock, and sets each syncobj point of @out_syncs to one fence
 * that signals when everything flushed so far on the stream's slot, this
 * call's tasks included, has completed: "submit these and signal that"
 * is one call.  A point of zero replaces the syncobj's fence (a binary
 * syncobj); any other adds the fence at that point of a timeline syncobj,
 * as FLUSH's out-sync.  An out-sync's flags must be zero, and there are
 * at most max_in_syncs of them (see &struct drm_weave_device_info).
 *
 * Every out-sync is resolved, and what setting it takes allocated, before
 * anything is queued: a bad one fails the call with nothing queued and no
 * syncobj changed.  Out-syncs without the flag are refused (-EINVAL): what
 * ENQUEUE alone queues has no fence yet.  With the flag, @tasks may be
 * empty (then @in_syncs must be too): the call is a FLUSH of the stream
 * that sets several out-syncs, and @seqno is the stream's last sequence
 * number so far.
 *
 * A stream that records its capture window refuses the flag with -EBUSY,
 * as it refuses FLUSH, and records nothing (see "DOC: graph capture").  On
 * an isolated stream, the flush is FLUSH's: the slot's tasks make jobs of
 * their own (see &struct drm_weave_stream_isolate).
 *
 * Once its tasks are queued the call never fails as if nothing had been:
 * if the flush then leaves work of the slot unsubmitted, because the
 * kernel ran out of memory, or a signal cut short a wait for a buffer's
 * reservation lock (FLUSH's -ENOMEM and -EINTR), or the stream failed
 * meanwhile, the call returns -EINPROGRESS.  The tasks are queued and
 * @seqno is theirs; nothing is lost, failed or reordered, as for FLUSH;
 * the out-syncs are unchanged.  The same call with no tasks and the same
 * out-syncs (or FLUSH) submits the rest and sets them.  So neither the
 * caller nor a restart of the call (drmIoctl() restarts on EINTR) queues
 * the tasks twice.
 *
 * Errors, besides those of ENQUEUE and FLUSH:
 *
 * - -EINVAL: an unknown flag (so a kernel before uAPI 1.8 refuses the
 *   flag); @out_syncs not empty without the flag; @tasks empty without
 *   it, or with @in_syncs not empty; an out-sync's flags not zero; more
 *   than max_in_syncs out-syncs; an out-sync stride too small or over
 *   %DRM_WEAVE_MAX_STRIDE, or its extra bytes not zero.
 * - -ENOENT: an out-sync's syncobj does not exist; nothing was queued.
 * - -EBUSY: the stream records its capture window; nothing was recorded.
 * - -EINPROGRESS: the tasks were queued and not all submitted (see
 *   above).
 * - -EFAULT: @out_syncs cannot be read; nothing was queued.
 */

/**
 * DRM_WEAVE_FLUSH_ALL - Flush every stream of the client.
 */
#define DRM_WEAVE_FLUSH_ALL		0x00000001u

/**
 * struct drm_weave_flush - Argument of %DRM_IOCTL_WEAVE_FLUSH.
 *
 * Executes the stream's slot (or, with %DRM_WEAVE_FLUSH_ALL, every slot of
 * the client) and submits the resulting jobs.  It does not wait.
 *
 * If @out_sync.handle is not zero, the syncobj point is given a fence that
 * signals when everything flushed so far on the stream (or on every stream)
 * has completed.  Export it as a sync_file with the core syncobj ioctls.
 *
 * Errors:
 *
 * - -EINVAL: unknown @flags, @stream not zero with %DRM_WEAVE_FLUSH_ALL,
 *   or @out_sync.flags not zero.
 * - -ENOENT: @stream or the out-sync syncobj does not exist.
 * - -EBUSY: @stream records its capture window (uAPI 1.5; see "DOC:
 *   graph capture").
 * - -ECANCELED: The stream has failed (nothing was flushed).  Never with
 *   %DRM_WEAVE_FLUSH_ALL, see below.
 * - -ENOMEM: The kernel ran out of memory, and not all of the work was
 *   submitted; some of it may have been.  Nothing is lost, failed or
 *   reordered: tasks it had no memory to pack into a job stay queued on
 *   their streams, in order, ahead of anything enqueued later, and a job it
 *   could not submit stays in the kernel, ahead of every later task of the
 *   client.  The out-sync is left unchanged.  Calling the same FLUSH again
 *   submits the rest and sets the out-sync.  (A job held back is also
 *   submitted by any later FLUSH or threshold execution of the client.)
 * - -EINTR: A signal arrived while the call waited for the client's lock
 *   (nothing changed), or for the reservation lock of a buffer of the
 *   work it submits (drivers of 2026-12-04 and before did not interrupt
 *   that wait); then the work stays as for -ENOMEM: nothing is lost, and
 *   the same FLUSH again submits it.  (A handler installed with SA_RESTART
 *   restarts the call instead, as does drmIoctl().)
 *
 * Earlier threshold executions do not make a FLUSH fail: it returns 0
 * exactly when all of its work was submitted, and then the out-sync, if
 * any, was set.
 *
 * %DRM_WEAVE_FLUSH_ALL does not fail because a stream of the client has
 * failed, where a FLUSH of that stream does.  It acts on the client's
 * slots, not on one stream: it submits all of the client's queued work,
 * the failed stream's included, as %DRM_IOCTL_WEAVE_STREAM_DESTROY of the
 * failed stream would, so that one failed stream never holds back the
 * others.  The failure is reported by the failed stream's own ENQUEUE,
 * FLUSH and WAIT (-ECANCELED) and by %DRM_IOCTL_WEAVE_STREAM_QUERY.
 *
 * Nor does it fail because a stream records its capture window, where a
 * FLUSH of that stream fails with -EBUSY: it submits every slot's queued
 * work, the recording slot's too (the tasks of the slot's other streams,
 * and the owner's refused host writes), while the owner's launches stay
 * in the recording, which goes on (see "DOC: graph capture").
 */
struct drm_weave_flush {
	/** @stream: The stream handle; zero with %DRM_WEAVE_FLUSH_ALL. */
	__u32 stream;
	/** @flags: Zero or %DRM_WEAVE_FLUSH_ALL. */
	__u32 flags;
	/** @out_sync: Syncobj point to signal; handle zero for none. */
	struct drm_weave_sync out_sync;
};

/**
 * enum drm_weave_isolation - Operation of %DRM_IOCTL_WEAVE_STREAM_ISOLATE.
 */
enum drm_weave_isolation {
	/** @DRM_WEAVE_ISOLATION_LEAVE: Release the stream's hold. */
	DRM_WEAVE_ISOLATION_LEAVE = 0,
	/** @DRM_WEAVE_ISOLATION_ENTER: Take a hold for the stream. */
	DRM_WEAVE_ISOLATION_ENTER = 1,
};

/**
 * struct drm_weave_stream_isolate - Argument of
 * %DRM_IOCTL_WEAVE_STREAM_ISOLATE.
 *
 * While a stream's slot is isolated, the slot's tasks run only on its own
 * backend stream and no other slot's tasks are placed there: every
 * execution that involves it takes the sequential path, so its tasks make
 * jobs of their own.  Isolation belongs to the slot, so it covers every
 * stream folded onto the same slot.
 *
 * Each stream holds the isolation of its slot at most once.  The slot is
 * isolated while at least one stream holds it: streams folded onto one
 * slot may each enter, and the slot stays isolated until the last of them
 * leaves.  Destroying a stream releases its hold, and closing the file
 * releases all of them.
 *
 * Both operations first execute the slot, as %DRM_IOCTL_WEAVE_FLUSH of the
 * stream does: tasks queued before ENTER are submitted as they would have
 * been without it, before isolation begins, and tasks queued while
 * isolated are submitted, isolated, before LEAVE ends it.  Neither waits.
 * Unlike FLUSH, neither fails while @stream records its capture window:
 * they execute the slot as %DRM_WEAVE_FLUSH_ALL does then (the slot's
 * queued tasks are submitted, the owner's launches stay recorded), and
 * the stream's own hold changes, never the window's (see "DOC: graph
 * capture").
 *
 * Errors:
 *
 * - -EINVAL: @op is unknown.
 * - -ENOENT: @stream names no stream of this client.
 * - -EALREADY: ENTER on a stream that holds its slot's isolation already,
 *   or LEAVE on one that holds none (even if another stream on the slot
 *   does; the slot's isolation is then unchanged).
 * - -ENOMEM: The kernel ran out of memory while executing the slot, as
 *   for %DRM_IOCTL_WEAVE_FLUSH (a task it could not pack, or a job of the
 *   client it could not submit); the stream's hold is unchanged and the
 *   tasks not yet submitted stay queued, in order.  Call again.
 * - -EINTR: A signal arrived while the call waited for the client's lock,
 *   or for a buffer's reservation lock as for %DRM_IOCTL_WEAVE_FLUSH; the
 *   stream's hold is unchanged.  (A handler installed with SA_RESTART
 *   restarts the call instead, as does drmIoctl().)
 */
struct drm_weave_stream_isolate {
	union {
		/**
		 * @stream: The stream (uAPI 1.7; named @handle before, which
		 * remains as an alias).
		 */
		__u32 stream;
		/** @handle: Old name of @stream. */
		__u32 handle;
	};
	/** @op: One of &enum drm_weave_isolation. */
	__u32 op;
};

/**
 * struct drm_weave_wait - Argument of %DRM_IOCTL_WEAVE_WAIT.
 *
 * Waits until every task of the stream's slot that was executed so far has
 * completed: executed by %DRM_IOCTL_WEAVE_FLUSH (of any stream of the slot,
 * or with %DRM_WEAVE_FLUSH_ALL), by the slot's threshold, by the
 * cross-stream ordering of an enqueue that binds a buffer the slot's tasks
 * use, or by %DRM_IOCTL_WEAVE_STREAM_DESTROY of a stream of the slot.
 * Tasks still queued are not waited for.  Streams folded onto one slot
 * share what they wait for.
 *
 * With %DRM_WEAVE_WAIT_SEQNO (uAPI 1.8) it waits instead until the
 * stream's tasks up to sequence number @seqno, as %DRM_IOCTL_WEAVE_ENQUEUE
 * returned it, have completed (the stream's completed count, see &struct
 * drm_weave_stream_query, reached @seqno), while later work may still
 * run.  A @seqno already completed, or zero, returns at once.  Tasks up
 * to @seqno that are still queued are waited for too: the wait does not
 * execute the slot, so it ends when a flush, the threshold or the
 * cross-stream ordering has executed them and they completed, or at the
 * deadline.  Launches that a capture window records take no sequence
 * number, so a seqno always names queued work, and the wait works while
 * the stream records (the owner's refused host writes are queued work,
 * which %DRM_WEAVE_FLUSH_ALL submits).
 *
 * Errors:
 *
 * - -EINVAL: @flags is unknown (a kernel before uAPI 1.8 refuses
 *   %DRM_WEAVE_WAIT_SEQNO); @seqno is not zero without the flag; @seqno
 *   is past the stream's last sequence number, one ENQUEUE has not
 *   returned yet.
 * - -ENOENT: @stream names no stream of this client.
 * - -EBUSY: @stream records its capture window (uAPI 1.5), without
 *   %DRM_WEAVE_WAIT_SEQNO.
 * - -ETIME: @timeout_ns passed first.
 * - -ERESTARTSYS: A signal interrupted the wait, or the wait for the
 *   client's lock before it (restarted transparently by the C library if
 *   the handler was installed with SA_RESTART; -EINTR otherwise).
 * - -ECANCELED: The work completed but the stream has failed.
 * - -ENODEV: The device is unplugged, or was while the call waited: the
 *   work was cancelled.
 */
struct drm_weave_wait {
	union {
		/**
		 * @stream: The stream (uAPI 1.7; named @handle before, which
		 * remains as an alias).
		 */
		__u32 stream;
		/** @handle: Old name of @stream. */
		__u32 handle;
	};
	/** @flags: Zero or %DRM_WEAVE_WAIT_SEQNO. */
	__u32 flags;
	/**
	 * @timeout_ns: Absolute CLOCK_MONOTONIC deadline in nanoseconds; zero
	 * polls, and %INT64_MAX waits forever.
	 */
	__s64 timeout_ns;
	/**
	 * @seqno: With %DRM_WEAVE_WAIT_SEQNO, the stream's sequence number to
	 * wait for; else zero (uAPI 1.8; before, the struct ended at
	 * @timeout_ns).
	 */
	__u64 seqno;
};

/**
 * DRM_WEAVE_WAIT_SEQNO - Wait for a sequence number of the stream.
 *
 * A flag of &drm_weave_wait.flags (uAPI 1.8).
 */
#define DRM_WEAVE_WAIT_SEQNO		0x00000001u

/**
 * enum drm_weave_stream_state - The state of a stream.
 */
enum drm_weave_stream_state {
	/** @DRM_WEAVE_STREAM_ACTIVE: The stream takes work. */
	DRM_WEAVE_STREAM_ACTIVE = 0,
	/**
	 * @DRM_WEAVE_STREAM_FAILED: In an execution that
	 * %DRM_IOCTL_WEAVE_ENQUEUE caused, the kernel had no memory to pack
	 * one of the stream's tasks into a job, not even the memory it keeps
	 * aside for one such task per call, so the task counts as executed
	 * and completed without running (-ENOMEM); the stream refuses new
	 * work with -ECANCELED until it is destroyed.  Before uAPI 1.4 every
	 * task the kernel had no memory to pack failed its stream; since, it
	 * taints what it should have written instead
	 * (%DRM_WEAVE_FAILURE_ENCODE), and this is the last resort.  Before
	 * uAPI 1.3 a job that hung failed its streams too (-ETIMEDOUT);
	 * since, it taints what it should have written instead (see "DOC:
	 * failures").
	 */
	DRM_WEAVE_STREAM_FAILED = 1,
};

/**
 * struct drm_weave_stream_query - Argument of %DRM_IOCTL_WEAVE_STREAM_QUERY.
 *
 * Errors:
 *
 * - -EINVAL: @pad or @pad2 is not zero.
 * - -ENOENT: @stream names no stream of this client.
 * - -EINTR: A signal arrived while the call waited for the client's lock,
 *   which another thread of the client held; nothing changed.  (A handler
 *   installed with SA_RESTART restarts the call instead, as does
 *   drmIoctl().)
 */
struct drm_weave_stream_query {
	union {
		/**
		 * @stream: In: the stream (uAPI 1.7; named @handle before, which
		 * remains as an alias).
		 */
		__u32 stream;
		/** @handle: Old name of @stream. */
		__u32 handle;
	};
	/** @pad: Must be zero. */
	__u32 pad;
	/** @enqueued: Tasks enqueued on the stream. */
	__u64 enqueued;
	/** @executed: Of those, tasks handed to the backend. */
	__u64 executed;
	/** @completed: Of those, tasks whose job completed. */
	__u64 completed;
	/** @slot: The slot the stream maps to. */
	__u32 slot;
	/** @priority: Its &enum drm_weave_priority. */
	__u32 priority;
	/** @state: Its &enum drm_weave_stream_state. */
	__u32 state;
	/**
	 * @isolated: 1 if the stream's slot is isolated (by any stream's
	 * hold, see &struct drm_weave_stream_isolate), else 0.
	 */
	__u32 isolated;
	/** @error: The negative errno the stream failed with, or zero. */
	__s32 error;
	/** @pad2: Must be zero (refused with -EINVAL since uAPI 1.2). */
	__u32 pad2;
};

/**
 * enum drm_weave_strategy - How one execution places its slots' tasks.
 */
enum drm_weave_strategy {
	/**
	 * @DRM_WEAVE_STRATEGY_INTERLEAVE: Round-robin the tasks of every slot
	 * in the execution onto the first slot's backend stream, as one job.
	 */
	DRM_WEAVE_STRATEGY_INTERLEAVE = 0,
	/**
	 * @DRM_WEAVE_STRATEGY_SEQUENTIAL: Each slot's tasks become a job on
	 * its own backend stream.
	 */
	DRM_WEAVE_STRATEGY_SEQUENTIAL = 1,
};

/**
 * enum drm_weave_param - A per-client setting.
 */
enum drm_weave_param {
	/**
	 * @DRM_WEAVE_PARAM_STRATEGY: The client's &enum drm_weave_strategy;
	 * the module parameter strategy is the default.
	 */
	DRM_WEAVE_PARAM_STRATEGY = 0,
	/**
	 * @DRM_WEAVE_PARAM_MAX_TASKS: The client's slot threshold, 1 to the
	 * device's max_tasks.  Settable only before the client's first
	 * enqueue.
	 */
	DRM_WEAVE_PARAM_MAX_TASKS = 1,
};

/**
 * struct drm_weave_set_param - Argument of %DRM_IOCTL_WEAVE_SET_PARAM.
 *
 * Errors:
 *
 * - -EINVAL: @param is unknown, @pad is not zero, or @value is out of range.
 * - -EBUSY: The setting can no longer change for this client.
 * - -ENOMEM: The kernel is out of memory; the setting is unchanged.
 * - -EINTR: A signal arrived while the call waited for the client's lock,
 *   which another thread of the client held; nothing changed.  (A handler
 *   installed with SA_RESTART restarts the call instead, as does
 *   drmIoctl().)
 */
struct drm_weave_set_param {
	/** @param: One of &enum drm_weave_param. */
	__u32 param;
	/** @pad: Must be zero. */
	__u32 pad;
	/** @value: The new value. */
	__u64 value;
};

/**
 * DOC: failures
 *
 * Failures live on bytes.  A task that fails (its kernel returns an
 * error, its job runs past job_timeout_ms or is cancelled, an in-sync
 * signals an error, the kernel has no memory to pack it into a job)
 * taints the byte ranges it should have written with a new *failure*; a
 * task that reads tainted bytes is *skipped*: it does not run, and the
 * ranges it should have written take the same failure, which records the
 * skip.  A task whose bindings touch no tainted byte runs as usual, even
 * in the same job as a failing one, so two chains of work never
 * contaminate each other.  A successful write, a host write included,
 * makes exactly the bytes it wrote good again; reporting a failure does
 * not clear it.
 *
 * A failure has an id, unique for the life of the device and never zero,
 * the negative errno of its root cause (&enum drm_weave_failure_cause),
 * the root task, and its newest %DRM_WEAVE_FAILURE_SKIPS skips.  It lives
 * as long as a byte carries it.  Taints belong to the buffer: a buffer
 * shared through PRIME shows them in every process that imported it, to
 * %DRM_IOCTL_WEAVE_CHECK of a file of any weave device, the exporter's or
 * another that imported it (since uAPI 1.7; before, a file of another
 * device saw its bytes good).  Only its own device's work runs on it:
 * %DRM_IOCTL_WEAVE_ENQUEUE and %DRM_IOCTL_WEAVE_READ of a buffer imported
 * from another device fail with -EINVAL.  The
 * stream, sequence number and label of a task are reported only to the
 * client that enqueued it; others see the errno, the kernel and the id.
 *
 * The kernel memory failures take is bounded, per buffer and per client,
 * whatever the pattern of ranges: past a limit, taints are coarsened (see
 * "DOC: failure memory").
 *
 * %DRM_IOCTL_WEAVE_CHECK reports the failures on buffer ranges;
 * %DRM_IOCTL_WEAVE_READ reads a range once the work that writes it is
 * done, or reports its failures.  A mapping
 * of a buffer shows its bytes as they are, failed or not.  A task's
 * failure is not reported on fences, nor does it change its stream's
 * state; a fence's error says that work was cut short (timeout, close,
 * unplug) or that the kernel had no memory to record a failure.
 */

/**
 * DOC: failure memory
 *
 * What the kernel holds for failures is bounded and charged to the memory
 * cgroup of the client whose enqueue set it aside (uAPI 1.6).  A failure
 * has a record; the byte ranges that carry it are *claims*, one per
 * maximal range of one failure on one buffer.  Each %DRM_IOCTL_WEAVE_ENQUEUE
 * (and %DRM_IOCTL_WEAVE_REPLAY) sets aside, and may fail with -ENOMEM for,
 * a record per task and two claims per write binding, up to the client's
 * limits; the work that runs the tasks takes from that and never
 * allocates.  What is set aside and not yet taken is at most as much
 * again as the limits.  The limits, reported in
 * &struct drm_weave_device_info:
 *
 * - max_buffer_claims: the claims one buffer holds.
 * - max_client_claims: the claims that a client's failures hold, wherever
 *   they travel, but one per buffer, which the buffer holds at no cost.
 * - max_live_failures: the client's distinct failures; past it, and when
 *   what its enqueues set aside runs out, its failures share one record
 *   (%DRM_WEAVE_FAILURE_OVERFLOW).
 *
 * &struct drm_weave_client_usage counts what a client holds.  When a
 * change of taints would need a claim past a limit, or past what was set
 * aside, the buffer's taints are *coarsened* instead:
 *
 * - A byte that failed is never reported good: a report may grow coarser,
 *   never wrong.
 * - Bytes a failure lies inside keep the failure they carry, which then
 *   also stands for the new one.
 * - Otherwise the nearest claim on the buffer (the one before or after the
 *   range, whichever is closer) grows to cover the range and the gap
 *   between: the range takes that claim's failure, and the bytes of the
 *   gap, which may never have failed, become tainted with it.
 * - A successful write that would split a claim in two leaves it whole:
 *   the bytes it wrote stay tainted until a later write covers the
 *   claim's edge, or the whole claim.
 *
 * A failure any of whose claims was so coarsened has
 * %DRM_WEAVE_FAILURE_COARSE in its report, for the rest of its life; only
 * bytes carrying such a failure may be tainted without having failed, or
 * carry another failure than their own.  A task that reads such bytes is
 * skipped.  Work that needs no new claim (a write over a whole claim, or
 * at its edge, a failure over a claim of its own) stays exact on a
 * coarsened buffer too.
 */

/**
 * enum drm_weave_failure_cause - Why a failure began.
 */
enum drm_weave_failure_cause {
	/**
	 * @DRM_WEAVE_FAILURE_KERNEL: The root task's kernel returned the
	 * error (%DRM_WEAVE_KERNEL_FAIL).
	 */
	DRM_WEAVE_FAILURE_KERNEL = 0,
	/**
	 * @DRM_WEAVE_FAILURE_OVERFLOW: The client already had
	 * max_live_failures failures, or what its enqueues set aside for
	 * failures ran out (uAPI 1.6, see "DOC: failure memory"); this one
	 * stands for every such failure of the client's tasks, and names the
	 * first.  It counts in &drm_weave_client_usage.failure_records, not
	 * against max_live_failures, and goes, as any failure does, once no
	 * byte carries it: a later overflow is a new failure, which names its
	 * own first task.
	 */
	DRM_WEAVE_FAILURE_OVERFLOW = 1,
	/**
	 * @DRM_WEAVE_FAILURE_TIMEOUT: The root task's job ran past
	 * job_timeout_ms and was cut short (-ETIMEDOUT) while the task ran or
	 * before it could; the job's other unfinished tasks share it.
	 */
	DRM_WEAVE_FAILURE_TIMEOUT = 2,
	/**
	 * @DRM_WEAVE_FAILURE_IN_FENCE: An in-sync of the root task's
	 * %DRM_IOCTL_WEAVE_ENQUEUE signalled with the error.  The call's
	 * tasks did not run; what they should have written shares it.
	 */
	DRM_WEAVE_FAILURE_IN_FENCE = 3,
	/**
	 * @DRM_WEAVE_FAILURE_CANCELED: The root task's client closed its
	 * file, or the device was unplugged, before the task finished
	 * (-ECANCELED or -ENODEV); the job's other unfinished tasks share it.
	 * What matters to a process that shares the buffers through PRIME.
	 */
	DRM_WEAVE_FAILURE_CANCELED = 4,
	/**
	 * @DRM_WEAVE_FAILURE_ENCODE: The kernel had no memory to pack the
	 * root task into a job (-ENOMEM) in an execution that
	 * %DRM_IOCTL_WEAVE_ENQUEUE caused after it had committed to queuing
	 * the task, so the task did not run; its stream stays active (uAPI
	 * 1.4; before, such a task failed its stream).
	 */
	DRM_WEAVE_FAILURE_ENCODE = 5,
	/**
	 * @DRM_WEAVE_FAILURE_CAPTURE: A capture window refused the root
	 * task, which did not run (uAPI 1.5; see "DOC: graph capture"): a
	 * host write that the window's owner enqueued while recording, or
	 * one into a buffer that a window records (-EBUSY); or a task that
	 * a window recorded before it was doomed (the doom's errno).
	 */
	DRM_WEAVE_FAILURE_CAPTURE = 6,
};

/**
 * DRM_WEAVE_FAILURE_SKIPS - Skip records a failure keeps, its newest.
 */
#define DRM_WEAVE_FAILURE_SKIPS		16

/**
 * DRM_WEAVE_FAILURE_TASK_OWN - The task is the calling client's: its
 * @stream, @seqno and @label are filled.  Without it they are zero.
 */
#define DRM_WEAVE_FAILURE_TASK_OWN	0x00000001u

/**
 * DRM_WEAVE_FAILURE_COARSE - Some bytes carry the failure only because
 * their buffer's taints were coarsened: they may never have failed, or
 * have failed with another failure, which this one then stands for (uAPI
 * 1.6; see "DOC: failure memory").
 */
#define DRM_WEAVE_FAILURE_COARSE	0x00000001u

/**
 * struct drm_weave_failure_task - A task in a failure report.
 */
struct drm_weave_failure_task {
	/** @seqno: The task's sequence number on its stream. */
	__u64 seqno;
	/** @stream: Its stream handle. */
	__u32 stream;
	/** @label: Its &drm_weave_task.label. */
	__u32 label;
	/** @type: Its &enum drm_weave_task_type. */
	__u32 type;
	/** @kernel: For a launch, its &enum drm_weave_kernel; else zero. */
	__u32 kernel;
	/** @flags: Zero or %DRM_WEAVE_FAILURE_TASK_OWN. */
	__u32 flags;
	/** @pad: Zero. */
	__u32 pad;
};

/**
 * struct drm_weave_failure - A failure in a report.
 */
struct drm_weave_failure {
	/** @id: The failure's id, never zero. */
	__u64 id;
	/** @error: The negative errno of its root cause. */
	__s32 error;
	/** @cause: Its &enum drm_weave_failure_cause. */
	__u32 cause;
	/** @root: The task where it began. */
	struct drm_weave_failure_task root;
	/**
	 * @buffers: Buffers that carried it when its range was read, so at
	 * least 1.  CHECK does not wait for work in flight, which may change
	 * that the moment after.
	 */
	__u32 buffers;
	/**
	 * @nskips: Its skip records in the report, oldest first, at @first_skip
	 * of the report's skip array; at most %DRM_WEAVE_FAILURE_SKIPS.
	 */
	__u32 nskips;
	/** @first_skip: Index of the first in the report's skip array. */
	__u32 first_skip;
	/**
	 * @flags: Zero or %DRM_WEAVE_FAILURE_COARSE (uAPI 1.6; before, this
	 * was padding, always zero).
	 */
	__u32 flags;
	/** @skips_dropped: Earlier skips, no longer kept. */
	__u64 skips_dropped;
};

/**
 * struct drm_weave_check_range - A buffer range of %DRM_IOCTL_WEAVE_CHECK.
 */
struct drm_weave_check_range {
	/** @handle: In: GEM handle of the buffer. */
	__u32 handle;
	/** @flags: In: must be zero. */
	__u32 flags;
	/** @offset: In: byte offset of the range. */
	__u64 offset;
	/** @size: In: byte size of the range; not zero. */
	__u64 size;
	/**
	 * @nfailures: Out: distinct failures on the range; zero if all its
	 * bytes are good.
	 */
	__u32 nfailures;
	/** @first: Out: index of the first of them in the failure array. */
	__u32 first;
};

/**
 * struct drm_weave_check - Argument of %DRM_IOCTL_WEAVE_CHECK.
 *
 * Reports the failures on up to max_check_ranges buffer ranges, as they
 * stand: it neither waits for queued work nor orders anything.  Each
 * range's failures follow one another in @failures, ordered by the first
 * byte each taints; a failure on two ranges is reported twice.  Each
 * failure's skips follow one another in @skips.
 *
 * If @failures or @skips is too short, the entries that fit are written
 * and the call fails with -ENOSPC; @nfailures and @nskips and each range's
 * counts still say how many there are.  Which failures each range carries
 * is read at one moment, under one hold of the lock of the device's
 * failures, for all ranges (since uAPI 1.7; before, range by range), so a
 * report never shows one task's write in some of its ranges and not in
 * others; work that completes afterwards may change it.  (The ranges of a
 * buffer imported from another weave device are read under that device's
 * lock: one moment for each run of consecutive ranges whose buffers
 * belong to one device.)  A failure's skips and buffer count are read as
 * its entry is written.
 *
 * Errors:
 *
 * - -EINVAL: @flags, @pad or a range's flags not zero; @ranges.count zero
 *   or over max_check_ranges; a stride too small or over
 *   %DRM_WEAVE_MAX_STRIDE, or its extra bytes not zero; a range of size
 *   zero or outside its buffer.
 * - -ENOENT: A range's buffer does not exist in this file.
 * - -EBUSY: A capture window of this client records a task that binds a
 *   range's buffer: what it will hold is not known yet (uAPI 1.5).
 * - -ENOSPC: The arrays were too short; see above.
 * - -EFAULT: A user pointer cannot be read or written.
 * - -ENOMEM: The kernel is out of memory; the counts are not set.
 * - -EINTR: A signal arrived while the call waited for the client's lock;
 *   nothing was written.  (A handler installed with SA_RESTART restarts
 *   the call instead, as does drmIoctl().)
 */
struct drm_weave_check {
	/** @ranges: In and out: array of &struct drm_weave_check_range. */
	struct drm_weave_array ranges;
	/**
	 * @failures: Out: array of &struct drm_weave_failure; its @count is
	 * the room, of which at most max_report_failures is used.
	 */
	struct drm_weave_array failures;
	/** @skips: Out: array of &struct drm_weave_failure_task; room. */
	struct drm_weave_array skips;
	/** @flags: Must be zero. */
	__u32 flags;
	/** @pad: Must be zero. */
	__u32 pad;
	/** @nfailures: Out: failure entries of the whole report. */
	__u32 nfailures;
	/**
	 * @nskips: Out: skip entries of the whole report, counted over its
	 * first max_report_failures failures (at most
	 * %DRM_WEAVE_FAILURE_SKIPS each): with that much room in both
	 * arrays, the call returns everything.
	 */
	__u32 nskips;
};

/**
 * struct drm_weave_read - Argument of %DRM_IOCTL_WEAVE_READ.
 *
 * Copies @size bytes at @offset of a buffer to @data once the work that
 * writes them is done: it first submits the client's queued work (as
 * %DRM_IOCTL_WEAVE_FLUSH with %DRM_WEAVE_FLUSH_ALL), then waits for every
 * writer of the buffer that is known to its reservation object, this
 * client's or another's.  If a byte of the range then carries a failure,
 * nothing is copied: the call fails with -EIO and fills @failures and
 * @skips as %DRM_IOCTL_WEAVE_CHECK would for this one range.  Work
 * submitted while the call runs may or may not be seen.
 *
 * Errors:
 *
 * - -EINVAL: @flags not zero; @size zero; the range outside the
 *   buffer; a buffer imported from another device; a report array's
 *   stride too small or over %DRM_WEAVE_MAX_STRIDE.
 * - -ENOENT: @handle names no buffer of this file.
 * - -EBUSY: As for %DRM_IOCTL_WEAVE_CHECK (uAPI 1.5); nothing was
 *   submitted.
 * - -EIO: The range carries failures, reported in @failures and @skips.
 * - -ENOSPC: As -EIO, but @failures or @skips was too short (see
 *   &struct drm_weave_check).
 * - -ETIME: @timeout_ns passed first.
 * - -ERESTARTSYS: A signal interrupted the wait, or the pinning of the
 *   buffer's pages for the copy.
 * - -ENOMEM: The kernel could not submit all queued work, as FLUSH, had no
 *   memory for the report, or could not make the buffer's pages resident
 *   (charged to the caller's memory cgroup, see
 *   &struct drm_weave_bo_create).
 * - -EFAULT: @data or a report array cannot be written.
 * - -ENODEV: The device is unplugged.  The copy itself runs outside the
 *   device's unplug guard: one that a fault on @data holds up does not
 *   hold up an unplug.
 */
struct drm_weave_read {
	/** @handle: GEM handle of the buffer. */
	__u32 handle;
	/** @flags: Must be zero. */
	__u32 flags;
	/** @offset: Byte offset of the range. */
	__u64 offset;
	/** @size: Byte size of the range; not zero. */
	__u64 size;
	/** @data: User pointer to @size bytes to copy into. */
	__u64 data;
	/**
	 * @timeout_ns: Absolute CLOCK_MONOTONIC deadline of the wait, in
	 * nanoseconds; zero polls, and %INT64_MAX waits forever.
	 */
	__s64 timeout_ns;
	/** @failures: Out, on -EIO: array of &struct drm_weave_failure. */
	struct drm_weave_array failures;
	/** @skips: Out, on -EIO: array of &struct drm_weave_failure_task. */
	struct drm_weave_array skips;
	/** @nfailures: Out: failures on the range; zero if it was copied. */
	__u32 nfailures;
	/** @nskips: Out: as &drm_weave_check.nskips. */
	__u32 nskips;
};

/**
 * DOC: graph capture
 *
 * A stream can record the tasks it is given, once, into a *graph*, and
 * replay the graph many times at a fraction of the cost of enqueuing them:
 * a replay copies no task from user space and checks none, as that was
 * done when they were recorded, and submits them as one job, made from
 * what sealing the graph prepared (uAPI 1.5).
 *
 * A slot has at most one capture *window*, owned by one of the streams
 * folded onto it.  %DRM_WEAVE_CAPTURE_PREPARE opens it: the slot is
 * executed and isolated (as %DRM_IOCTL_WEAVE_STREAM_ISOLATE does, with a
 * hold of its own that the stream's own isolation calls cannot drop), and
 * its work so far drains.  Tasks the owner enqueues now run as usual: a
 * warm-up.  %DRM_WEAVE_CAPTURE_BEGIN drains the warm-up and starts
 * recording: from then on, the launches the owner enqueues are recorded
 * instead of run, their bindings and uniforms checked and copied once.
 * %DRM_WEAVE_CAPTURE_END seals the recording into a graph, releases the
 * isolation and closes the window.  %DRM_WEAVE_CAPTURE_ABORT closes it
 * from any state, recording nothing.  (Releasing the isolation executes
 * the slot; if the kernel has no memory for that, the window closes all
 * the same and the slot stays isolated until a FLUSH of it succeeds.)
 * Other streams of the client keep working throughout; other streams of
 * the same slot too, but their tasks run, and are never interleaved with
 * other slots' while the window is open.
 *
 * A window is *doomed* by any failure or skip of the owner's tasks while
 * it is open (see "DOC: failures"), and by a host write the owner enqueues
 * while recording, which is refused: it is queued but does not run, and
 * its destination takes a failure of cause %DRM_WEAVE_FAILURE_CAPTURE
 * (-EBUSY), as does any host write of the client into a buffer that a
 * window records.  A doomed window does not seal: BEGIN or END fails with
 * -EIO, closes the window, and taints what the recorded tasks write, with
 * the doom's errno and cause %DRM_WEAVE_FAILURE_CAPTURE.  It says why:
 * &drm_weave_capture.error is the doom's errno and
 * &drm_weave_capture.failure the id of the failure that doomed it, for a
 * refused host write the one its destination takes (since uAPI 1.7;
 * before, zero).  So that this failure exists, END of a window that a
 * refused host write doomed first submits the slot and waits for it, as
 * BEGIN drains it.
 *
 * END called with another stream of the slot *abandons* a recording
 * window: it closes it, recording nothing, and fails with -ECANCELED,
 * naming the owner, so that a window left open never wedges the slot's
 * other streams.  END of a window that is only prepared fails with
 * -EBADFD, whoever calls it, as there is nothing to seal; ABORT, which
 * any stream of the slot may call, closes a window in any state.
 * Destroying the owner stream, or closing the file, closes the window as
 * ABORT does.  ABORT and abandoning record nothing, doomed window or not:
 * the recorded tasks never run and taint nothing, their bytes keep what
 * they held (only BEGIN or END by the owner, which asked for the graph,
 * taints what a doomed window recorded).  What the doom itself did stays:
 * the failure or skip that doomed it, and a refused host write's failure.
 *
 * While the owner records, %DRM_IOCTL_WEAVE_WAIT and %DRM_IOCTL_WEAVE_FLUSH
 * of it fail with -EBUSY, as does a replay onto it: they promise the
 * stream's work, and what it records is not work yet; and so do
 * %DRM_IOCTL_WEAVE_CHECK and %DRM_IOCTL_WEAVE_READ of a buffer that a
 * recorded task binds: what it will hold is not known yet.  What only
 * executes the slot does not fail: FLUSH with %DRM_WEAVE_FLUSH_ALL, and
 * the owner's %DRM_IOCTL_WEAVE_STREAM_ISOLATE, submit the slot's queued
 * tasks (other streams', and the owner's refused host writes), and the
 * owner's launches stay recorded; the window's isolation hold is its own,
 * which the owner's ENTER and LEAVE neither take nor drop.  Other streams
 * of the slot flush, wait and isolate as usual.  A graph holds
 * references to the buffers it uses; %DRM_IOCTL_WEAVE_GRAPH_DESTROY drops
 * them, even while replays of it are in flight, which keep their own.
 */

/**
 * enum drm_weave_capture_op - What %DRM_IOCTL_WEAVE_CAPTURE does.
 */
enum drm_weave_capture_op {
	/**
	 * @DRM_WEAVE_CAPTURE_PREPARE: Open a window on the stream's slot,
	 * owned by the stream; isolate the slot and drain it.
	 */
	DRM_WEAVE_CAPTURE_PREPARE = 0,
	/**
	 * @DRM_WEAVE_CAPTURE_BEGIN: The owner of a prepared window drains
	 * its warm-up and starts recording.
	 */
	DRM_WEAVE_CAPTURE_BEGIN = 1,
	/**
	 * @DRM_WEAVE_CAPTURE_END: The owner of a recording window seals it
	 * into a graph (&drm_weave_capture.graph); another stream of the
	 * slot abandons it.  The window closes either way.  A window that is
	 * only prepared is refused to both (-EBADFD).
	 */
	DRM_WEAVE_CAPTURE_END = 2,
	/**
	 * @DRM_WEAVE_CAPTURE_ABORT: Close the slot's window, whatever its
	 * state, recording nothing; no window is no error.
	 */
	DRM_WEAVE_CAPTURE_ABORT = 3,
	/** @DRM_WEAVE_CAPTURE_QUERY: Only report the slot's window. */
	DRM_WEAVE_CAPTURE_QUERY = 4,
};

/**
 * enum drm_weave_capture_state - The state of a slot's capture window.
 */
enum drm_weave_capture_state {
	/** @DRM_WEAVE_CAPTURE_NONE: The slot has no window. */
	DRM_WEAVE_CAPTURE_NONE = 0,
	/** @DRM_WEAVE_CAPTURE_PREPARED: Prepared: the owner warms up. */
	DRM_WEAVE_CAPTURE_PREPARED = 1,
	/** @DRM_WEAVE_CAPTURE_RECORDING: The owner's launches are recorded. */
	DRM_WEAVE_CAPTURE_RECORDING = 2,
};

/**
 * struct drm_weave_capture - Argument of %DRM_IOCTL_WEAVE_CAPTURE.
 *
 * See "DOC: graph capture".  The out fields are written whether the call
 * succeeds or not; a refused call leaves the window as it was.
 *
 * Errors:
 *
 * - -EINVAL: @flags, @pad or @pad2 is not zero (@pad2 since uAPI 1.7;
 *   before, it was not checked), or @op is unknown.  Nothing changes.
 * - -ENOENT: @stream names no stream of this client.
 * - -EBUSY: PREPARE on a slot that already has a window.
 * - -EBADFD: BEGIN but @stream owns no prepared window; END on a slot
 *   whose window is not recording, by any stream of the slot.  Nothing
 *   changes.
 * - -EIO: BEGIN or END of a doomed window: it is closed, and what it
 *   recorded is tainted; @error and @failure say why.
 * - -ECANCELED: END by a stream that does not own the recording window:
 *   abandoned, closed without a graph, nothing tainted; @owner names its
 *   owner, @error and @failure its doom if any.
 * - -ENOSPC: END of a client that holds max_graphs graphs; the window
 *   goes on recording.
 * - -ERESTARTSYS: A signal interrupted a drain (PREPARE, BEGIN and END did
 *   not change the window), or the wait of any op for the client's lock
 *   (nothing changed).  Restarted if the handler was installed with
 *   SA_RESTART, -EINTR otherwise.
 * - -ENOMEM: The kernel is out of memory; nothing changed.
 * - -ENODEV: The device is unplugged.
 */
struct drm_weave_capture {
	/** @stream: The calling stream. */
	__u32 stream;
	/** @op: One of &enum drm_weave_capture_op. */
	__u32 op;
	/** @flags: Must be zero. */
	__u32 flags;
	/** @pad: Must be zero. */
	__u32 pad;
	/** @state: Out: the window's &enum drm_weave_capture_state after. */
	__u32 state;
	/** @owner: Out: the window's owner stream, zero if none. */
	__u32 owner;
	/** @graph: Out: the graph END made, zero if none. */
	__u32 graph;
	/** @ntasks: Out: the tasks the window recorded so far. */
	__u32 ntasks;
	/** @error: Out: the negative errno that doomed the window, or 0. */
	__s32 error;
	/** @pad2: Must be zero; written zero. */
	__u32 pad2;
	/**
	 * @failure: Out: the id of the failure that doomed the window (see
	 * &struct drm_weave_failure), zero if none did.
	 */
	__u64 failure;
};

/**
 * struct drm_weave_replay - Argument of %DRM_IOCTL_WEAVE_REPLAY.
 *
 * Queues the graph's tasks on @stream, in their recorded order, and
 * submits them at once, as %DRM_IOCTL_WEAVE_ENQUEUE followed by
 * %DRM_IOCTL_WEAVE_FLUSH would: after the stream's earlier work and after
 * earlier replays of the same graph, ordered against other streams that
 * use the same buffers exactly as enqueued tasks are, and counted as the
 * stream's tasks.  What a failed replay writes is tainted, and the next
 * good replay clears it.
 *
 * Once the graph's tasks are queued the call never fails as if nothing
 * had been (uAPI 1.9): if the FLUSH part then leaves work of the slot
 * unsubmitted, because the kernel ran out of memory, or a signal cut short
 * a wait for a buffer's reservation lock, or the stream failed meanwhile,
 * the call returns -EINPROGRESS, as ENQUEUE with
 * %DRM_WEAVE_ENQUEUE_FLUSH does.  The tasks are queued and @seqno is
 * theirs; the out-sync is unchanged, and FLUSH with it submits the rest
 * and sets it (or FLUSH_ALL, after the stream failed).  So neither the
 * caller nor a restart of the call (drmIoctl() restarts on EINTR) queues
 * the graph twice.  Before uAPI 1.9 that case returned -ENOMEM or -EINTR,
 * which also meant that nothing was queued.
 *
 * Errors:
 *
 * - -EINVAL: @flags, @pad or an in-sync's flags not zero; a stride too
 *   small or too large; more than max_in_syncs in-syncs.
 * - -ENOENT: @graph, @stream or a syncobj does not exist in this file, or
 *   an in-sync point has no fence.
 * - -EBUSY: @stream is recording; or the client would pass
 *   max_pending_tasks.
 * - -ECANCELED: The stream has failed; nothing was queued.
 * - -ENOMEM: The kernel is out of memory, or the caller's memory cgroup
 *   cannot take the pages of the graph's buffers that the call makes
 *   resident (see &struct drm_weave_bo_create); nothing was queued.
 * - -EINPROGRESS: The tasks were queued and not all submitted (see above).
 * - -EFAULT: An array cannot be read, or @seqno written.
 * - -EINTR: A signal arrived while the call waited for the client's lock
 *   or for its in-syncs' memory to be faulted in: nothing was queued (a
 *   handler installed with SA_RESTART restarts the call instead).
 * - -ENODEV: The device is unplugged.
 */
struct drm_weave_replay {
	/** @graph: The graph. */
	__u32 graph;
	/** @stream: The stream to run it on. */
	__u32 stream;
	/** @flags: Must be zero. */
	__u32 flags;
	/** @pad: Must be zero. */
	__u32 pad;
	/** @in_syncs: Array of &struct drm_weave_sync that gate the replay. */
	struct drm_weave_array in_syncs;
	/**
	 * @out_sync: A syncobj point the replay's fence is set on, as
	 * FLUSH's; handle zero for none.
	 */
	struct drm_weave_sync out_sync;
	/**
	 * @seqno: Out: the stream's sequence number of the graph's last
	 * task; for a graph without tasks, of the stream's last task so far
	 * (zero if it has none).  Also written on -EINPROGRESS.
	 */
	__u64 seqno;
};

/**
 * struct drm_weave_graph_destroy - Argument of
 * %DRM_IOCTL_WEAVE_GRAPH_DESTROY.
 *
 * Errors: -EINVAL if @pad is not zero; -ENOENT if @graph names no graph
 * of this client; -EINTR if a signal arrived while the call waited for
 * the client's lock (nothing changed; a handler installed with SA_RESTART
 * restarts the call instead).
 */
struct drm_weave_graph_destroy {
	/** @graph: The graph. */
	__u32 graph;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * DOC: shared submission rings
 *
 * A shared submission ring (uAPI 1.9) carries tasks from a process to
 * the kernel through memory both map, as io_uring's submission queue
 * does, instead of an array passed to %DRM_IOCTL_WEAVE_ENQUEUE.  A ring
 * feeds one stream, and a stream has at most one ring.  It is made of
 * two regions, each mapped with mmap() of the render node at the offset
 * that %DRM_IOCTL_WEAVE_RING_CREATE returns (below the offsets of
 * buffers, which it never collides with):
 *
 * - the header, &struct drm_weave_ring_header, one page that only the
 *   kernel writes: user space may map it read-only, and mmap() with
 *   PROT_WRITE fails with -EPERM;
 * - the submission area, written by user space: &struct
 *   drm_weave_ring_sq, whose @tail says how far it has published, then,
 *   from offset %DRM_WEAVE_RING_SQ_DESCS, the descriptors, @units units of
 *   %DRM_WEAVE_RING_UNIT bytes.
 *
 * Positions: &drm_weave_ring_header.head and &drm_weave_ring_sq.tail count
 * units, free running modulo 2^32; unit n lives at (n % @units).  The
 * units from head to tail are published and not yet consumed: they are
 * user space's to have written, and the kernel's to read.  A tail more
 * than @units ahead of head (backwards included) is an error of the ring.
 *
 * Descriptors: a descriptor is &struct drm_weave_ring_desc (two units),
 * then its bindings (&struct drm_weave_binding each), then its uniform
 * bytes, packed, the whole rounded up to whole units; its @units says how
 * many, and must be exactly that.  A descriptor never wraps: where fewer
 * units are left before the end of the area than the next descriptor
 * takes, user space writes a skip, a descriptor of type
 * %DRM_WEAVE_RING_DESC_SKIP of one or more units (only its first two
 * bytes are read), which the kernel steps over, and goes on at the
 * start.  Fixed units with a length are a compromise: a no-op launch
 * takes 32 bytes, a launch with a binding and four bytes of uniforms 64,
 * and the largest descriptor %DRM_WEAVE_RING_DESC_MAX_UNITS units.
 *
 * Protocol: user space writes descriptors past the tail, then publishes
 * them with a release store of the new tail (smp_store_release(), or
 * __atomic_store_n(..., __ATOMIC_RELEASE)).  The kernel reads the tail
 * with an acquire load, copies each descriptor once into its own memory
 * and checks the copy only, so rewriting a ring at any moment never
 * changes what was checked; after queueing, it stores the new head with
 * a release store, and user space that reads it with an acquire load may
 * reuse the units before it.
 *
 * Consuming: %DRM_IOCTL_WEAVE_RING_ENTER, the doorbell, consumes what is
 * published on every ring of the file, at most
 * %DRM_WEAVE_RING_ENTER_MAX descriptors (skips included) per call, and
 * says how many.  Each task goes through every rule of
 * %DRM_IOCTL_WEAVE_ENQUEUE (the checks, the limits, the ordering across
 * streams, thresholds, isolation, capture windows, failures, staging),
 * as if enqueued alone, in ring order, without in-syncs (which
 * %DRM_IOCTL_WEAVE_ENQUEUE keeps).  A task the limits refuse for now
 * (-EBUSY, -ENOMEM) stays published: the call ends there, and the next
 * consumes it.
 *
 * Errors: a descriptor that ENQUEUE would refuse with an error that says
 * it is wrong (-EINVAL, -ENOENT, -E2BIG, -EFAULT, -ECANCELED), or a tail
 * out of range, stops its ring: the header's @error gets the negative
 * errno, @error_index the position of the bad descriptor (the head, which
 * stays there), and @flags %DRM_WEAVE_RING_STOPPED.  Nothing after it is
 * consumed until %DRM_IOCTL_WEAVE_RING_ENTER with
 * %DRM_WEAVE_RING_ENTER_RESUME on that ring acknowledges the error and
 * consumes again from the same position, where user space will have
 * rewritten the descriptor (or made it a skip).  Other rings, and other
 * files, go on.
 *
 * Poll mode (uAPI 1.10): a ring made with %DRM_WEAVE_RING_CREATE_POLL is
 * also consumed by a kernel thread of the device, with no system call,
 * and its doorbell wakes that thread.  The thread consumes a bounded
 * number of descriptors of each polled ring in turn, with the same rules
 * as the doorbell (which still consumes polled rings too), and sleeps
 * once no polled ring has had anything to consume for the time the
 * module parameter ring_poll_idle_us sets.  Before it sleeps it sets
 * %DRM_WEAVE_RING_NEED_WAKEUP in the header of every polled ring; while
 * it polls, the flag is clear, and a doorbell returns with the flag of
 * its file's polled rings clear.  So that no wake-up is lost, both sides
 * follow io_uring's SQPOLL protocol: the kernel sets the flag, makes a
 * full barrier, then reads every tail again and sleeps only if nothing
 * new is published; user space stores the tail (release), makes a full
 * barrier (__atomic_thread_fence(__ATOMIC_SEQ_CST)), then reads the
 * flags, and rings the doorbell if the flag is set.  A producer that
 * keeps publishing while the thread polls makes no system call.  A task
 * the thread cannot queue for now (a limit, a full staging arena) stays
 * published and the thread tries again while it polls, but once it
 * sleeps only a doorbell consumes it: user space about to wait for what
 * it published checks the flag first, as after publishing.  A ring whose
 * process has exited (its address space is gone) is not consumed.  Work
 * the thread does for a ring is charged to the memory cgroup of the
 * caller of %DRM_IOCTL_WEAVE_RING_CREATE, and host writes read that
 * caller's memory.
 *
 * Completions: &drm_weave_ring_header.completed is the stream's completed
 * count (see "DOC: streams and slots"), updated as jobs complete, so a
 * process sees how far its tasks got without a system call;
 * %DRM_IOCTL_WEAVE_WAIT with %DRM_WEAVE_WAIT_SEQNO stays the way to sleep
 * until then.  &drm_weave_ring_header.seqno is the sequence number of
 * the last task consumed from the ring.  The same count of every stream
 * of the file, rings or not, is also in one read-only area, the
 * completion page (uAPI 1.11, see "DOC: completion page").
 *
 * Limits and memory: a file has at most max_client_rings rings of at most
 * max_ring_units units (see &struct drm_weave_device_info).  Their pages
 * are charged to the memory cgroup of the caller that creates them and
 * counted in &drm_weave_client_usage.shared_ring_bytes.  Destroying the
 * ring, or its stream, or closing the file, ends consumption; what was
 * published and not consumed is dropped, and a mapping keeps the ring's
 * pages until it is unmapped (and holds the file open, as any mapping of
 * the node does).  The header page is the stream's: a later ring of the
 * same stream has it again, reset.  After an unplug, the mappings get
 * SIGBUS as those of buffers do.
 */

/**
 * DRM_WEAVE_RING_UNIT - The unit of a ring's descriptor area, in bytes.
 */
#define DRM_WEAVE_RING_UNIT		16

/**
 * DRM_WEAVE_RING_SQ_DESCS - Offset of the descriptors in the submission
 * area, in bytes: after &struct drm_weave_ring_sq, a cache line apart.
 */
#define DRM_WEAVE_RING_SQ_DESCS		64

/**
 * DRM_WEAVE_RING_DESC_MAX_UNITS - The most units of one descriptor: its
 * head, eight bindings and 64 bytes of uniforms.
 */
#define DRM_WEAVE_RING_DESC_MAX_UNITS	18

/**
 * DRM_WEAVE_RING_DESC_SKIP - &drm_weave_ring_desc.type of a skip.
 */
#define DRM_WEAVE_RING_DESC_SKIP	0xff

/**
 * DRM_WEAVE_RING_ENTER_MAX - The most descriptors, skips included, one
 * %DRM_IOCTL_WEAVE_RING_ENTER consumes.
 */
#define DRM_WEAVE_RING_ENTER_MAX	4096

/**
 * DRM_WEAVE_RING_STOPPED - A flag of &drm_weave_ring_header.flags: the
 * ring stopped at an error (see "DOC: shared submission rings").
 */
#define DRM_WEAVE_RING_STOPPED		0x00000001u

/**
 * DRM_WEAVE_RING_NEED_WAKEUP - A flag of &drm_weave_ring_header.flags:
 * user space must ring the doorbell (%DRM_IOCTL_WEAVE_RING_ENTER) for
 * what it publishes to be consumed.  Always set on a ring of doorbell
 * mode; on a ring of poll mode (uAPI 1.10), set while the device's
 * polling thread sleeps, clear while it polls (see "DOC: shared
 * submission rings", Poll mode).
 */
#define DRM_WEAVE_RING_NEED_WAKEUP	0x00000002u

/**
 * struct drm_weave_ring_header - The page of a ring that the kernel
 * writes; user space maps it read-only.
 */
struct drm_weave_ring_header {
	/**
	 * @head: Units consumed, modulo 2^32; written with a release store
	 * after the descriptors before it are queued.
	 */
	__u32 head;
	/**
	 * @flags: %DRM_WEAVE_RING_STOPPED, %DRM_WEAVE_RING_NEED_WAKEUP.
	 */
	__u32 flags;
	/** @error: Zero, or the negative errno the ring stopped with. */
	__s32 error;
	/** @error_index: The position (a head) of the bad descriptor. */
	__u32 error_index;
	/**
	 * @seqno: The stream's sequence number of the last task consumed
	 * from this ring (zero before the first).
	 */
	__u64 seqno;
	/**
	 * @completed: The stream's completed count, raised as its jobs
	 * complete: tasks up to this sequence number are done.
	 */
	__u64 completed;
	/** @reserved: Zero; for what a later version adds. */
	__u64 reserved[4];
};

/**
 * struct drm_weave_ring_sq - The start of a ring's submission area, which
 * user space writes.
 */
struct drm_weave_ring_sq {
	/**
	 * @tail: Units published, modulo 2^32; written with a release store
	 * after the descriptors before it.
	 */
	__u32 tail;
	/** @pad: Ignored. */
	__u32 pad;
};

/**
 * struct drm_weave_ring_desc - The head of a descriptor in a ring, the
 * fields of &struct drm_weave_task with the arrays inline.
 *
 * Followed by @num_bindings &struct drm_weave_binding and @uniforms_size
 * bytes of uniforms, packed; see "DOC: shared submission rings".
 */
struct drm_weave_ring_desc {
	/** @units: Units the descriptor takes, its head included. */
	__u8 units;
	/**
	 * @type: One of &enum drm_weave_task_type, or
	 * %DRM_WEAVE_RING_DESC_SKIP.
	 */
	__u8 type;
	/** @num_bindings: Bindings that follow, at most 8. */
	__u8 num_bindings;
	/** @uniforms_size: Uniform bytes after them, at most 64. */
	__u8 uniforms_size;
	/** @kernel: As &drm_weave_task.kernel. */
	__u32 kernel;
	/** @grid: As &drm_weave_task.grid. */
	__u32 grid[3];
	/** @label: As &drm_weave_task.label. */
	__u32 label;
	/** @data: As &drm_weave_task.data, for a host write. */
	__u64 data;
};

/**
 * DRM_WEAVE_RING_CREATE_POLL - A flag of &drm_weave_ring_create.flags
 * (uAPI 1.10): the ring is of poll mode, consumed by the device's
 * polling thread too (see "DOC: shared submission rings", Poll mode).
 */
#define DRM_WEAVE_RING_CREATE_POLL	0x00000001u

/**
 * struct drm_weave_ring_create - Argument of %DRM_IOCTL_WEAVE_RING_CREATE.
 *
 * Makes a shared submission ring for @stream; see "DOC: shared submission
 * rings".  Map @header_size bytes at @header_offset (read-only) and
 * @sq_size bytes at @sq_offset.
 *
 * Errors:
 *
 * - -EINVAL: @flags has a bit other than %DRM_WEAVE_RING_CREATE_POLL
 *   (before uAPI 1.10: is not zero), or @units is not a power of two
 *   from 64 to max_ring_units.
 * - -ENOENT: @stream names no stream of this client.
 * - -EBUSY: the stream has a ring already.
 * - -ENOSPC: the file has max_client_rings rings.
 * - -ENOMEM: out of memory, or over the caller's memory cgroup limit.
 * - -EINTR: a signal arrived while the call waited for the client's lock.
 */
struct drm_weave_ring_create {
	/** @stream: The stream the ring feeds. */
	__u32 stream;
	/** @flags: Zero or %DRM_WEAVE_RING_CREATE_POLL (uAPI 1.10). */
	__u32 flags;
	/**
	 * @units: Size of the descriptor area, in units of
	 * %DRM_WEAVE_RING_UNIT bytes: a power of two, at least 64.
	 */
	__u32 units;
	/** @ring: Out: the ring's handle, from 1. */
	__u32 ring;
	/** @header_offset: Out: the mmap() offset of the header. */
	__u64 header_offset;
	/** @sq_offset: Out: the mmap() offset of the submission area. */
	__u64 sq_offset;
	/** @header_size: Out: bytes of the header's mapping, a page. */
	__u32 header_size;
	/** @sq_size: Out: bytes of the submission area's mapping. */
	__u32 sq_size;
};

/**
 * struct drm_weave_ring_destroy - Argument of
 * %DRM_IOCTL_WEAVE_RING_DESTROY.
 *
 * What was published and not consumed is dropped; tasks consumed stay
 * queued.  Errors: -EINVAL if @pad is not zero; -ENOENT if @ring names
 * no ring of this file; -EINTR as for &struct drm_weave_ring_create.
 */
struct drm_weave_ring_destroy {
	/** @ring: The ring. */
	__u32 ring;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * DRM_WEAVE_RING_ENTER_RESUME - A flag of &drm_weave_ring_enter.flags:
 * first acknowledge the error of ring &drm_weave_ring_enter.ring, which
 * must be stopped, and let it be consumed again.
 */
#define DRM_WEAVE_RING_ENTER_RESUME	0x00000001u

/**
 * struct drm_weave_ring_enter - Argument of %DRM_IOCTL_WEAVE_RING_ENTER,
 * the doorbell.
 *
 * Consumes the descriptors published on every ring of the file, ring by
 * ring, at most %DRM_WEAVE_RING_ENTER_MAX in all, and sets @consumed to
 * their number; see "DOC: shared submission rings".  A ring that stops
 * at a bad descriptor is not an error of the call, which goes on with
 * the other rings: its header tells.
 *
 * Errors (@consumed is written in any case):
 *
 * - -EINVAL: @flags is unknown, @pad is not zero, or @ring is not zero
 *   without %DRM_WEAVE_RING_ENTER_RESUME.
 * - -ENOENT: with %DRM_WEAVE_RING_ENTER_RESUME, @ring names no ring.
 * - -EALREADY: with %DRM_WEAVE_RING_ENTER_RESUME, the ring is not
 *   stopped.
 * - -EBUSY, -ENOMEM: a task met a limit, or memory ran out, and nothing
 *   was consumed; as for %DRM_IOCTL_WEAVE_ENQUEUE, the task stays
 *   published.
 * - -EINTR, -ERESTARTSYS: a signal, before anything was consumed.
 * - -ENODEV: the device is unplugged.
 */
struct drm_weave_ring_enter {
	/** @flags: Zero or %DRM_WEAVE_RING_ENTER_RESUME. */
	__u32 flags;
	/** @ring: The ring to resume, or zero. */
	__u32 ring;
	/** @consumed: Out: descriptors consumed, skips included. */
	__u32 consumed;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * DOC: completion page
 *
 * The completion page (uAPI 1.11) tells a process how far each of its
 * streams got without a system call, whether the stream has a shared ring
 * or not.  %DRM_IOCTL_WEAVE_COMPLETIONS returns the mmap() offset and size
 * of the file's completion area, one __u64 per possible stream handle:
 * the entry of stream h (1 to max_client_streams, see &struct
 * drm_weave_device_info) is the one at index h - 1.  It holds the
 * stream's completed count, raised as its jobs complete, the value
 * %DRM_IOCTL_WEAVE_WAIT with %DRM_WEAVE_WAIT_SEQNO compares against (and
 * &drm_weave_ring_header.completed of the stream's ring, which is
 * written in the same place): tasks up to that sequence number are done.
 * Read it with an acquire load (__atomic_load_n(..., __ATOMIC_ACQUIRE));
 * what the tasks before it wrote is then visible.  WAIT stays the way to
 * sleep.
 *
 * The area is made on the first call, for every stream the file has and
 * will have, and later calls return the same one.  Only the kernel writes
 * it: mmap() with PROT_WRITE fails with -EPERM, and mprotect() to make a
 * mapping writable with -EACCES.  The mapping must be of the whole area,
 * at the offset returned (-EINVAL otherwise).  Its pages are charged to
 * the memory cgroup of the first caller and counted in
 * &drm_weave_client_usage.shared_ring_bytes; they are freed when the file
 * is closed and the last mapping is gone.  A completion writes its entry
 * in place: nothing is allocated as jobs complete.
 *
 * The entry of a handle that names no stream is zero.  When a stream is
 * destroyed its entry is set to zero and no longer raised, also by its
 * tasks that complete after that; a later stream that has the handle
 * (handles are given out cyclically) starts again from zero.  Once the
 * file is closed, the entries do not change any more.  After an unplug,
 * the mappings get SIGBUS as those of buffers do.
 */

/**
 * struct drm_weave_completions - Argument of %DRM_IOCTL_WEAVE_COMPLETIONS.
 *
 * Makes the file's completion area on the first call and returns where
 * to map it; see "DOC: completion page".  Map @size bytes at @offset,
 * read-only.
 *
 * Errors:
 *
 * - -EINVAL: @flags or @pad is not zero.
 * - -ENOMEM: out of memory, or over the caller's memory cgroup limit.
 * - -EINTR: a signal arrived while the call waited for the client's lock.
 * - -ENODEV: the device is unplugged.
 */
struct drm_weave_completions {
	/** @flags: Must be zero. */
	__u32 flags;
	/** @pad: Must be zero. */
	__u32 pad;
	/** @offset: Out: the mmap() offset of the area. */
	__u64 offset;
	/** @size: Out: bytes of the area's mapping, whole pages. */
	__u32 size;
	/**
	 * @entries: Out: its __u64 entries, max_client_streams: stream h's
	 * is entry h - 1.
	 */
	__u32 entries;
};

/**
 * DOC: shaders
 *
 * A shader holds a SPIR-V module of the caller's own compute kernels, for
 * the user engine to run (uAPI 1.13).  %DRM_IOCTL_WEAVE_SHADER_CREATE
 * copies the module into the kernel and names the entry points that the
 * file's tasks may run; the shader is then immutable, and lives until
 * %DRM_IOCTL_WEAVE_SHADER_DESTROY or until the file is closed.  Its
 * handle is private to the file.
 *
 * The kernel checks what it can check cheaply and exactly: the module's
 * size (a whole number of 32-bit words, at least its five-word header, at
 * most max_shader_bytes), the alignment of the user pointer to the module
 * (4 bytes, as Vulkan's vkCreateShaderModule() asks), the header (the
 * SPIR-V magic number in the host's byte order, a version from 1.0 to
 * 1.6, an id bound of 1 to 4194303, a zero schema), that the module is a
 * sequence of instructions whose word counts add up to its size, and that
 * every named entry point is an OpEntryPoint of the GLCompute execution
 * model.  It does not validate the module further: the engine runs
 * SPIRV-Tools' validator on it before building a pipeline, and a module
 * that fails there fails the tasks that use it.  The cost of the checks is
 * linear in the module's size.
 *
 * The bytes count against the file's max_client_shader_bytes and
 * max_client_shaders (see &struct drm_weave_device_info) and are charged
 * to the memory cgroup of the caller; &struct drm_weave_client_usage
 * reports them.
 */

/** DRM_WEAVE_SHADER_NAME_SIZE - Bytes of an entry point's name field. */
#define DRM_WEAVE_SHADER_NAME_SIZE	64

/**
 * struct drm_weave_shader_entry - An entry point a shader names.
 */
struct drm_weave_shader_entry {
	/**
	 * @name: The entry point's name, as its OpEntryPoint spells it: 1
	 * to 63 bytes, then a NUL, and the bytes after the NUL zero.
	 */
	char name[DRM_WEAVE_SHADER_NAME_SIZE];
};

/**
 * struct drm_weave_shader_create - Argument of
 * %DRM_IOCTL_WEAVE_SHADER_CREATE.
 *
 * Makes a shader from the SPIR-V module at @code; see "DOC: shaders".
 * Entry point i of the shader is entry i of @entries.
 *
 * Errors:
 *
 * - -EINVAL: @flags or @pad is not zero; @code_size is not a multiple of
 *   4 or is less than 20; @code is not 4-byte aligned; the header is not
 *   that of a SPIR-V module of version 1.0 to 1.6 in the host's byte
 *   order; an instruction's word count is zero or runs past the end;
 *   @entries is empty, is longer than max_shader_entries, has a stride
 *   less than the size of &struct drm_weave_shader_entry or over
 *   %DRM_WEAVE_MAX_STRIDE, has bytes past that struct in an element
 *   that are not zero, or has a name that is empty, not NUL-terminated,
 *   followed by bytes that are not zero, or the same as an earlier one.
 * - -E2BIG: @code_size is over max_shader_bytes.
 * - -ENOENT: a name of @entries is not the name of an OpEntryPoint of
 *   the GLCompute execution model in the module.
 * - -EDQUOT: the shader would take the file past max_client_shaders
 *   shaders or max_client_shader_bytes bytes.
 * - -EFAULT: @code or @entries could not be read.
 * - -ENOMEM: out of memory, or over the caller's memory cgroup limit.
 * - -EINTR: a signal arrived while the call waited for the client's lock.
 * - -ENODEV: the device is unplugged.
 *
 * Nothing is made on any error.
 */
struct drm_weave_shader_create {
	/** @code: User pointer to the SPIR-V module, 4-byte aligned. */
	__u64 code;
	/** @code_size: Its size in bytes. */
	__u32 code_size;
	/** @flags: Must be zero. */
	__u32 flags;
	/** @entries: Array of &struct drm_weave_shader_entry. */
	struct drm_weave_array entries;
	/** @shader: Out: the shader's handle, never zero. */
	__u32 shader;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * struct drm_weave_shader_destroy - Argument of
 * %DRM_IOCTL_WEAVE_SHADER_DESTROY.
 *
 * Drops the file's handle of a shader.
 *
 * Errors:
 *
 * - -EINVAL: @pad is not zero.
 * - -ENOENT: @shader is not a shader of the file.
 * - -EINTR: a signal arrived while the call waited for the client's lock.
 * - -ENODEV: the device is unplugged.
 */
struct drm_weave_shader_destroy {
	/** @shader: The shader's handle. */
	__u32 shader;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * DOC: user engines
 *
 * Besides the soft engine's hardware queues, a device has
 * num_engine_queues engine queues (see &struct drm_weave_device_info), on
 * which a user engine runs the clients' own kernels: a privileged process
 * (weave-engine) that attaches to one or more of them with
 * %DRM_IOCTL_WEAVE_ENGINE_ATTACH and drives a device of its own, such as
 * a Vulkan device.
 *
 * Attaching needs CAP_SYS_ADMIN (the DRM core's root-only ioctls): an
 * engine reaches the buffers of every client whose work it runs, as a
 * ublk server with zero copy or a VDUSE daemon does.  It returns a file
 * of its own, the engine's file: the engine holds its queues as long as
 * that file is open, and closing it (also by the process's exit or
 * death) detaches it.  A queue has one engine at most.  Each attachment
 * gets a new generation number, which %DRM_WEAVE_QUERY_ENGINES reports
 * with the engine's name, so that a client can tell which queues have an
 * engine, what it runs, and whether it was replaced.
 *
 * The engine's file holds a reference to the device: an engine attached
 * to a device that is unplugged keeps its file until it closes it, and
 * the module cannot be unloaded while one is open.
 *
 * uAPI 1.13 makes the attachment and its report; the protocol by which
 * an engine takes jobs and answers for them comes with a later version.
 */

/** DRM_WEAVE_ENGINE_NAME_SIZE - Bytes of an engine's name field. */
#define DRM_WEAVE_ENGINE_NAME_SIZE	32

/**
 * struct drm_weave_engine_attach - Argument of
 * %DRM_IOCTL_WEAVE_ENGINE_ATTACH.
 *
 * Attaches the caller as the user engine of the engine queues in @queues
 * and returns the engine's file; see "DOC: user engines".
 *
 * Errors:
 *
 * - -EACCES: the caller lacks CAP_SYS_ADMIN.
 * - -EINVAL: @flags or @pad is not zero; @queues is zero or names a queue
 *   at or past num_engine_queues; @name is empty, not NUL-terminated, has
 *   a byte that is not printable ASCII, or bytes after its NUL that are
 *   not zero.
 * - -EBUSY: a queue of @queues has an engine already.  Nothing was
 *   attached.
 * - -EMFILE, -ENFILE: no file descriptor for the engine's file.
 * - -ENOMEM: out of memory.
 * - -ENODEV: the device is unplugged.
 */
struct drm_weave_engine_attach {
	/** @queues: Bit i: engine queue i. */
	__u64 queues;
	/**
	 * @name: What the engine runs, for people and tools: 1 to 31
	 * printable ASCII bytes, then a NUL, then zeroes (for example
	 * "vulkan:llvmpipe (LLVM 15.0.6)").
	 */
	char name[DRM_WEAVE_ENGINE_NAME_SIZE];
	/** @flags: Must be zero. */
	__u32 flags;
	/** @fd: Out: the engine's file, close-on-exec. */
	__s32 fd;
	/** @generation: Out: the attachment's generation, never zero. */
	__u32 generation;
	/** @pad: Must be zero. */
	__u32 pad;
};

/**
 * DRM_WEAVE_ENGINE_ATTACHED - &drm_weave_engine_queue.flags: the queue
 * has an engine.
 */
#define DRM_WEAVE_ENGINE_ATTACHED	0x00000001u

/**
 * DRM_WEAVE_MAX_ENGINE_QUEUES - The most engine queues a device has.
 */
#define DRM_WEAVE_MAX_ENGINE_QUEUES	16

/**
 * struct drm_weave_engine_queue - One engine queue, in &struct
 * drm_weave_engines.
 */
struct drm_weave_engine_queue {
	/** @flags: %DRM_WEAVE_ENGINE_ATTACHED, or zero. */
	__u32 flags;
	/**
	 * @generation: The generation of its engine, or of its last one if
	 * it has none now; zero if it never had one.
	 */
	__u32 generation;
	/** @name: Its engine's name, or its last one's; zeroes if none. */
	char name[DRM_WEAVE_ENGINE_NAME_SIZE];
};

/**
 * struct drm_weave_engines - Reply to %DRM_WEAVE_QUERY_ENGINES.
 *
 * A snapshot: an engine may attach or detach right after.
 */
struct drm_weave_engines {
	/** @num_engine_queues: Entries of @queues in use. */
	__u32 num_engine_queues;
	/** @pad: Reserved, zero. */
	__u32 pad;
	/** @queues: Engine queue i is entry i; the rest are zero. */
	struct drm_weave_engine_queue queues[DRM_WEAVE_MAX_ENGINE_QUEUES];
};

#if defined(__cplusplus)
}
#endif

#endif /* _WEAVE_DRM_H_ */
