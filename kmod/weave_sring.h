/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: shared submission rings, their memory, mapping and doorbell.
 */
#ifndef _WEAVE_SRING_H_
#define _WEAVE_SRING_H_

#include <linux/types.h>

#include "weave_drm.h"
#include "weave_submit.h"

struct drm_device;
struct drm_file;
struct file;
struct mem_cgroup;
struct mm_struct;
struct page;
struct vm_area_struct;
struct weave_client;
struct weave_device;

/** WEAVE_MAX_CLIENT_RINGS - max_client_rings: the most rings of a file. */
#define WEAVE_MAX_CLIENT_RINGS		64
/**
 * WEAVE_SRING_PGOFF_END - The first mmap() page offset past the windows of
 * every ring handle, where the completion area is mapped.
 */
#define WEAVE_SRING_PGOFF_END	((unsigned long)(WEAVE_MAX_CLIENT_RINGS + 1) << 10)
/** WEAVE_MAX_RING_UNITS - max_ring_units: the largest ring, 1 MiB. */
#define WEAVE_MAX_RING_UNITS		65536
/** WEAVE_MIN_RING_UNITS - The smallest ring, 1 KiB. */
#define WEAVE_MIN_RING_UNITS		64

/* Descriptors one doorbell copies in and queues at once. */
#define WEAVE_SRING_BATCH		64
/* Descriptors the polling thread consumes of one ring per visit. */
#define WEAVE_SRING_POLL_BUDGET		WEAVE_SRING_BATCH

/**
 * struct weave_sring - A shared submission ring (see "DOC: shared
 * submission rings").
 *
 * Under the client's mutex, but @hdr, @sq and @descs, which user space
 * maps too: the kernel writes only @hdr, which user space cannot, and
 * reads @sq's tail and the descriptors once each.
 */
struct weave_sring {
	/** @handle: Its handle in the client. */
	u32 handle;
	/** @stream: The stream it feeds; zero once the stream is gone. */
	u32 stream;
	/** @units: Units of its descriptor area, a power of two. */
	u32 units;
	/** @head: Units consumed: the kernel's own copy of @hdr->head. */
	u32 head;
	/** @stopped: It stopped at an error, which @hdr tells. */
	bool stopped;
	/** @polled: Of poll mode: on &weave_spoll.rings while it lives. */
	bool polled;
	/**
	 * @poll_blocked: The polling thread could not queue what is
	 * published up to @poll_blocked_tail for now; written under the
	 * client's mutex, read racily by the thread.
	 */
	bool poll_blocked;
	/** @poll_blocked_tail: The tail @poll_blocked is about. */
	u32 poll_blocked_tail;
	/** @poll_faults: The thread's rounds of faulting a host write in. */
	u32 poll_faults;
	/** @poll_link: In &weave_spoll.rings, under its lock; or empty. */
	struct list_head poll_link;
	/** @client: The client, for the polling thread. */
	struct weave_client *client;
	/** @file: The client's file, for the polling thread. */
	struct drm_file *file;
	/**
	 * @mm: Of poll mode: the creator's address space, which host
	 * writes read; a reference on the struct (mmgrab()), not its pages.
	 */
	struct mm_struct *mm;
	/** @memcg: Of poll mode: the creator's memory cgroup; a reference. */
	struct mem_cgroup *memcg;
	/**
	 * @kcov_handle: Of poll mode: the creator's kcov_common_handle() at
	 * creation, under which the polling thread's work on the ring is
	 * remote coverage (see "DOC: ring polling"); zero for none.
	 */
	u64 kcov_handle;
	/** @hpage: The header page, the stream's (&weave_lstream.ring_page). */
	struct page *hpage;
	/** @hdr: The header, in @hpage. */
	struct drm_weave_ring_header *hdr;
	/** @sq: The submission area: its kernel mapping of @pages. */
	struct drm_weave_ring_sq *sq;
	/** @descs: The descriptors, in @sq. */
	u8 *descs;
	/** @npages: Entries of @pages. */
	u32 npages;
	/** @pages: The pages of the submission area; references. */
	struct page *pages[] __counted_by(npages);
};

/**
 * struct weave_sring_scratch - Where a doorbell copies descriptors, once
 * each, before it checks them; one per client, under its mutex.
 * @kt: The tasks of one batch.
 * @end: Per task of @kt, the ring position after it.
 * @raw: One descriptor as it was read.
 */
struct weave_sring_scratch {
	struct weave_ktask kt[WEAVE_SRING_BATCH];
	u32 end[WEAVE_SRING_BATCH];
	u8 raw[DRM_WEAVE_RING_DESC_MAX_UNITS * DRM_WEAVE_RING_UNIT];
};

int weave_ring_create_ioctl(struct drm_device *drm, void *data,
			    struct drm_file *file);
int weave_ring_destroy_ioctl(struct drm_device *drm, void *data,
			     struct drm_file *file);
int weave_sring_mmap(struct file *filp, struct vm_area_struct *vma);
int weave_sring_map_ro(struct vm_area_struct *vma, struct page **pages,
		       unsigned long n);
void weave_sring_init(struct weave_client *c);
void weave_sring_stream_gone(struct weave_client *c, u32 stream);
void weave_sring_fini(struct weave_client *c);
void weave_sring_stop(struct weave_sring *r, int err);
void weave_sring_flags(struct weave_sring *r, u32 set, u32 clear);
void weave_sring_unpoll(struct weave_client *c);
void weave_sring_poll_add(struct weave_device *wdev, struct weave_sring *r);
void weave_sring_poll_del(struct weave_device *wdev, struct weave_sring *r);
void weave_sring_poll_kick(struct weave_device *wdev);
void weave_sring_poll_waking(struct weave_client *c);

#endif /* _WEAVE_SRING_H_ */
