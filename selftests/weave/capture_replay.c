// SPDX-License-Identifier: GPL-2.0
/*
 * weave: replaying captured graphs (uAPI 1.5).  Replays, byte for byte as
 * the same tasks enqueued, with syncs, through failures and their
 * recovery; destroying graphs, closing files that hold graphs and
 * windows; the limits max_graphs and max_graph_tasks; and what the
 * fuzzers found.  The capture window itself is capture.c's.
 */
#include "weave_test_capture.h"

/* --- replay -------------------------------------------------------------------- */

/*
 * A graph of a checked chain, replayed several times, on its stream and
 * on others, writes exactly the bytes the same tasks enqueued write.
 */
TEST_F(cap, replay_matches_enqueue)
{
	uint32_t t1 = cap_other_slot(_metadata, self, self->s), t2;
	uint32_t bo, res, bo2, res2, graph, *map, crc, streams[4];
	uint32_t pa = 0x01234567, pb = 0x10305070;
	struct weave_test_batch b;
	unsigned int i;

	t2 = cap_other_slot(_metadata, self, self->s);
	bo = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	bo2 = weave_test_bo(_metadata, self->fd, 4 * self->page, 0);
	res2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	crc = weave_test_chain_crc(self->page, pa, pb);

	weave_test_batch_init(&b);
	weave_test_chain(&b, bo, self->page, pa, pb, res, 8);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	weave_test_chain(&b, bo2, self->page, pa, pb, res2, 8);
	weave_test_enqueue(_metadata, self->fd, t1, &b);
	weave_test_finish(_metadata, self->fd, t1);
	map = weave_test_map(_metadata, self->fd, res2, self->page);
	EXPECT_EQ(crc, map[2]);
	weave_test_unmap(_metadata, map, self->page);

	streams[0] = self->s;
	streams[1] = self->s;
	streams[2] = t1;
	streams[3] = t2;
	for (i = 0; i < 4; i++) {
		/* Clear, so that each replay writes every byte anew. */
		cap_fill_now(_metadata, self->fd, t2, bo, 4 * self->page, 0);
		cap_fill_now(_metadata, self->fd, t2, res, self->page, 0);
		cap_replay_wait(_metadata, self->fd, graph, streams[i]);
		cap_expect_same(_metadata, self->fd, bo, bo2, 4 * self->page);
		cap_expect_same(_metadata, self->fd, res, res2, self->page);
		weave_test_expect_good(_metadata, self->fd, bo, 0,
				       4 * self->page);
		weave_test_expect_good(_metadata, self->fd, res, 0,
				       self->page);
	}
	/* Back to back, without waiting in between. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, weave_replay(self->fd, graph, streams[i + 1], NULL,
					  0, NULL, NULL));
	weave_test_wait(_metadata, self->fd, self->s);
	weave_test_wait(_metadata, self->fd, t1);
	weave_test_wait(_metadata, self->fd, t2);
	cap_expect_same(_metadata, self->fd, bo, bo2, 4 * self->page);
	cap_expect_same(_metadata, self->fd, res, res2, self->page);
}

/*
 * A replayed task with every binding it may have (past the few an encoded
 * task keeps inline, a buffer bound twice) fails on each range it writes,
 * and on none it only reads.
 */
TEST_F(cap, replay_fails_on_every_written_binding)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), w[4], r, graph;
	struct drm_weave_binding bind[8];
	struct weave_test_report *rep;
	struct weave_test_batch b;
	uint64_t rseq = 0;
	unsigned int i;

	ASSERT_EQ(8u, self->info.max_bindings);
	rep = malloc(sizeof(*rep));
	ASSERT_NE(NULL, rep);
	for (i = 0; i < 4; i++)
		w[i] = weave_test_bo(_metadata, self->fd, 2 * self->page, 0);
	r = weave_test_bo(_metadata, self->fd, self->page, 0);
	bind[0] = weave_binding(r, DRM_WEAVE_ACCESS_READ, 0, self->page);
	for (i = 0; i < 4; i++)
		bind[1 + i] = weave_binding(w[i], DRM_WEAVE_ACCESS_WRITE, 0, 64);
	/* The last three: a second range of w[3], r again, w[0] again. */
	bind[5] = weave_binding(w[3], DRM_WEAVE_ACCESS_WRITE, self->page, 64);
	bind[6] = weave_binding(r, DRM_WEAVE_ACCESS_READ, 64, 64);
	bind[7] = weave_binding(w[0], DRM_WEAVE_ACCESS_READ |
				 DRM_WEAVE_ACCESS_WRITE, self->page, 128);
	weave_test_batch_init(&b);
	weave_test_launch(&b, DRM_WEAVE_KERNEL_FAIL, bind, 8, 1, EIO);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	weave_test_wait(_metadata, self->fd, t);
	for (i = 1; i < 8; i++) {
		if (bind[i].handle == r)
			continue;
		ASSERT_EQ(1u, weave_test_report(_metadata, self->fd,
						bind[i].handle, bind[i].offset,
						bind[i].size, rep)) {
			TH_LOG("binding %u", i);
		}
		EXPECT_EQ(-EIO, rep->failure[0].error);
		weave_test_expect_task(_metadata, &rep->failure[0].root, t,
				       rseq, 0, DRM_WEAVE_KERNEL_FAIL);
	}
	/* Outside the written ranges, and the read buffer: good. */
	weave_test_expect_good(_metadata, self->fd, w[1], 64,
			       2 * self->page - 64);
	weave_test_expect_good(_metadata, self->fd, w[3], 64, self->page - 64);
	weave_test_expect_good(_metadata, self->fd, r, 0, self->page);
	free(rep);
}

/* A replay's tasks count as the stream's, and its seqno is the last one. */
TEST_F(cap, replay_counts_and_seqno)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), graph;
	struct drm_weave_stream_query q0, q;
	struct weave_test_batch b;
	uint64_t seq = 0, rseq = 0;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	weave_test_noop(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, t, b.task, b.n, NULL, 0, &seq));
	weave_test_batch_init(&b);
	weave_test_finish(_metadata, self->fd, t);
	q0 = weave_test_squery(_metadata, self->fd, t);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	EXPECT_EQ(seq + 3, rseq);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, NULL, 0, NULL, &rseq));
	EXPECT_EQ(seq + 6, rseq);
	weave_test_wait(_metadata, self->fd, t);
	q = weave_test_squery(_metadata, self->fd, t);
	EXPECT_EQ(q0.enqueued + 6, q.enqueued);
	EXPECT_EQ(q0.executed + 6, q.executed);
	EXPECT_EQ(q0.completed + 6, q.completed);
	/* The next enqueue follows on. */
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, t, b.task, b.n, NULL, 0, &seq));
	EXPECT_EQ(rseq + 1, seq);
}

/*
 * A replay gated on an in-sync does not start before it signals; its
 * out-sync signals once it has run.
 */
TEST_F_TIMEOUT(cap, replay_in_sync_and_out_sync, 60)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), bo, graph, out_obj;
	struct drm_weave_sync in, out;
	struct weave_test_gate gate;
	struct weave_test_batch b;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	out_obj = weave_test_syncobj(_metadata, self->fd);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x9a7e);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	out = weave_sync(out_obj, 0);
	ASSERT_EQ(0, weave_replay(self->fd, graph, t, &in, 1, &out, NULL));
	usleep(100000);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page, 0);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, t).completed);
	EXPECT_EQ(0, weave_test_sync_file_status(_metadata, self->fd, out_obj,
						 0));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);

	ASSERT_EQ(0, drmSyncobjWait(self->fd, &out_obj, 1,
				    weave_timeout_ns(WEAVE_TEST_WAIT_NS), 0,
				    NULL));
	EXPECT_EQ(1, weave_test_sync_file_status(_metadata, self->fd, out_obj,
						 0));
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0x9a7e);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, t).completed);
	drmSyncobjDestroy(self->fd, out_obj);
}

/*
 * A replay is ordered against other streams' tasks on its buffers as
 * enqueued tasks are: after those queued before it, before those after.
 */
TEST_F(cap, replay_ordered_with_other_streams)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), in, out, out2, graph;
	struct weave_test_batch b;

	in = weave_test_bo(_metadata, self->fd, self->page, 0);
	out = weave_test_bo(_metadata, self->fd, self->page, 0);
	out2 = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, in, 0, out, 0, self->page);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	/* Queued, not flushed, on another slot, then the replay. */
	weave_test_delay(&b, 100000);
	weave_test_fill_task(&b, in, 0, self->page, 0x0dde4);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  NULL));
	/* Then a reader of the replay's output. */
	weave_test_copy_task(&b, out, 0, out2, 0, self->page);
	weave_test_enqueue(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	weave_test_wait(_metadata, self->fd, self->s);
	weave_test_expect_range(_metadata, self->fd, out, self->page, 0,
				self->page,
				0x0dde4);
	weave_test_expect_range(_metadata, self->fd, out2, self->page, 0,
				self->page,
				0x0dde4);
}

/*
 * A replay clears its way by executing another slot's task on the graph's
 * buffer, whose job may be done and freed before the replay's own is
 * queued: the buffer must stay pinned for the replay all the same.  Each
 * round races the other job's completion; a replay that lost its pin
 * warns, and runs on pages that are gone.
 */
TEST_F(cap, replay_keeps_its_pins_while_it_clears_its_way)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), bo, graph, i;
	struct weave_test_batch b;

	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x5a5a);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	for (i = 0; i < 64; i++) {
		weave_test_fill_task(&b, bo, 0, self->page, i);
		weave_test_enqueue(_metadata, self->fd, t, &b);
		ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0,
					  NULL, NULL));
		weave_test_wait(_metadata, self->fd, self->s);
		weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
					self->page, 0x5a5a);
	}
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	weave_test_close_bo(_metadata, self->fd, bo);
}

/* REPLAY's refusals, with the errno the uAPI documents; nothing queued. */
TEST_F(cap, replay_errors)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s), graph, obj, fresh;
	struct drm_weave_sync in[2], *many;
	struct drm_weave_replay r;
	struct weave_test_batch b;
	uint32_t i, n;

	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	fresh = weave_test_syncobj(_metadata, self->fd);

	EXPECT_EQ(-ENOENT, weave_replay(self->fd, 0, t, NULL, 0, NULL, NULL));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, WEAVE_TEST_BAD_HANDLE, t,
					NULL, 0, NULL, NULL));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, WEAVE_TEST_BAD_HANDLE,
					NULL, 0, NULL, NULL));
	in[0] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));
	/* A point with no fence. */
	in[0] = weave_sync(fresh, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));
	in[0] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, t, NULL, 0, in,
					NULL));
	/* An in-sync's flags. */
	in[0] = weave_sync(obj, 0);
	in[0].flags = 1;
	EXPECT_EQ(-EINVAL, weave_replay(self->fd, graph, t, in, 1, NULL,
					NULL));

	/* The replay's own flags and pad, and strides. */
	in[0] = weave_sync(obj, 0);
	memset(&r, 0, sizeof(r));
	r.graph = graph;
	r.stream = t;
	r.flags = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.flags = 0;
	r.pad = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.pad = 0;
	r.in_syncs.ptr = (uintptr_t)in;
	r.in_syncs.count = 1;
	r.in_syncs.stride = sizeof(in[0]) - 4;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));
	r.in_syncs.stride = DRM_WEAVE_MAX_STRIDE + 8;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd, DRM_IOCTL_WEAVE_REPLAY,
					    &r));

	/* More in-syncs than max_in_syncs. */
	n = self->info.max_in_syncs + 1;
	many = calloc(n, sizeof(*many));
	ASSERT_NE(NULL, many);
	for (i = 0; i < n; i++)
		many[i] = weave_sync(obj, 0);
	EXPECT_EQ(-EINVAL, weave_replay(self->fd, graph, t, many, n, NULL,
					NULL));
	free(many);

	/* Nothing was queued by any of them. */
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd, t).enqueued);
	EXPECT_EQ(0u, weave_test_client_usage(_metadata,
					      self->fd).pending_tasks);
	/* And a good one goes through, a stride with zero tail too. */
	r.in_syncs.stride = sizeof(in[0]) + 8;
	{
		unsigned char wide[sizeof(in[0]) + 8];

		memset(wide, 0, sizeof(wide));
		memcpy(wide, &in[0], sizeof(in[0]));
		r.in_syncs.ptr = (uintptr_t)wide;
		EXPECT_EQ(0, weave_test_ioctl(self->fd,
					      DRM_IOCTL_WEAVE_REPLAY, &r));
	}
	weave_test_wait(_metadata, self->fd, t);
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd, t).completed);
	drmSyncobjDestroy(self->fd, obj);
	drmSyncobjDestroy(self->fd, fresh);
}

/*
 * A replay whose input is tainted skips and taints its outputs; once the
 * input is rewritten, the next replay makes them good.
 */
TEST_F(cap, failed_replay_then_good_replay)
{
	uint32_t t = cap_other_slot(_metadata, self, self->s);
	uint32_t in, out, res, graph, *map;
	const struct drm_weave_failure *f;
	struct weave_test_batch b;
	uint64_t fail_seq;

	in = weave_test_bo(_metadata, self->fd, self->page, 0);
	out = weave_test_bo(_metadata, self->fd, self->page, 0);
	res = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_copy_task(&b, in, 0, out, 0, self->page);
	weave_test_crc_task(&b, out, 0, self->page, res, 0);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	cap_fill_now(_metadata, self->fd, t, in, self->page, 0x1357);
	cap_replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_good(_metadata, self->fd, out, 0, self->page);
	weave_test_expect_range(_metadata, self->fd, out, self->page, 0,
				self->page,
				0x1357);

	/* A FAIL writes the input, then a replay. */
	weave_test_fail_task(&b, in, 0, self->page, EBADMSG)->label = 12;
	fail_seq = weave_test_enqueue_seq(_metadata, self->fd, t, &b);
	weave_test_finish(_metadata, self->fd, t);
	cap_replay_wait(_metadata, self->fd, graph, self->s);
	weave_test_expect_range(_metadata, self->fd, out, self->page, 0,
				self->page,
				0x1357);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, out, 0,
					self->page, self->r));
	f = &self->r->failure[0];
	weave_test_log_failure(_metadata, self->r, 0);
	EXPECT_EQ(-EBADMSG, f->error);
	EXPECT_EQ((uint32_t)DRM_WEAVE_FAILURE_KERNEL, f->cause);
	weave_test_expect_task(_metadata, &f->root, t, fail_seq, 12,
			       DRM_WEAVE_KERNEL_FAIL);
	ASSERT_LE(1u, f->nskips);
	EXPECT_EQ((uint32_t)DRM_WEAVE_KERNEL_COPY,
		  self->r->skip[f->first_skip].kernel);
	EXPECT_EQ(self->s, self->r->skip[f->first_skip].stream);
	ASSERT_EQ(1u, weave_test_report(_metadata, self->fd, res, 0, 4,
					self->r));
	EXPECT_EQ(-EBADMSG, self->r->failure[0].error);

	/* Rewritten, the next replay makes the outputs good. */
	cap_fill_now(_metadata, self->fd, t, in, self->page, 0x2468);
	cap_replay_wait(_metadata, self->fd, graph, t);
	weave_test_expect_good(_metadata, self->fd, out, 0, self->page);
	weave_test_expect_good(_metadata, self->fd, res, 0, 4);
	weave_test_expect_range(_metadata, self->fd, out, self->page, 0,
				self->page,
				0x2468);
	map = weave_test_map(_metadata, self->fd, res, self->page);
	{
		uint32_t *want = malloc(self->page), i;

		ASSERT_NE(NULL, want);
		for (i = 0; i < self->page / 4; i++)
			want[i] = 0x2468;
		EXPECT_EQ(weave_test_crc32c(want, self->page), map[0]);
		free(want);
	}
	weave_test_unmap(_metadata, map, self->page);
}

/* --- destroying graphs ------------------------------------------------------- */

/*
 * Destroyed while a replay of it is in flight, held by a gate whatever the
 * time the destroy takes: the replay completes, correct, and
 * afterwards nothing of the graph holds a buffer or the module.  The
 * baseline is taken after the stream ran a job of its own, so that what
 * its slot keeps of its last job counts in it.
 */
TEST_F_TIMEOUT(cap, destroy_during_replay, 120)
{
	struct drm_weave_memory_usage base;
	struct weave_test_gate gate;
	struct weave_test_batch b;
	struct drm_weave_sync in;
	uint32_t bo, graph;
	long refs;

	weave_test_batch_init(&b);
	weave_test_delay(&b, 1000);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	weave_test_finish(_metadata, self->fd, self->s);
	weave_test_client_idle(_metadata, self->fd);
	refs = weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_fill_task(&b, bo, 0, self->page, 0xde57);
	graph = cap_record(_metadata, self->fd, self->s, &b);

	/* The replay is held by a gate until the graph is gone. */
	weave_test_gate_open(_metadata, &gate, self->fd);
	in = weave_sync(gate.syncobj, 0);
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, &in, 1, NULL,
				  NULL));
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(1u, weave_test_squery(_metadata, self->fd,
					self->s).completed);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(-ENOENT, weave_replay(self->fd, graph, self->s, NULL, 0,
					NULL, NULL));
	weave_test_gate_pending(_metadata, self->fd, &gate);
	weave_test_gate_wait(_metadata, self->fd, &gate);
	weave_test_wait(_metadata, self->fd, self->s);
	weave_test_expect_range(_metadata, self->fd, bo, self->page, 0,
				self->page,
				0xde57);
	weave_test_expect_good(_metadata, self->fd, bo, 0, self->page);

	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	TH_LOG("jobs freed; %llu buffers live, %llu before; weave.ko held %ld times, %ld before",
	       (unsigned long long)weave_test_usage(_metadata,
						    self->fd).live_bos,
	       (unsigned long long)base.live_bos, weave_test_module_refs(),
	       refs);
	cap_await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
}

/* A graph keeps its buffers alive; destroying it lets them go. */
TEST_F(cap, graph_holds_its_buffers)
{
	struct drm_weave_memory_usage base;
	struct weave_test_batch b;
	uint32_t bo, graph;

	weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 0x601d);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	weave_test_assert_usage(_metadata, self->fd, &base, 1, self->page);
	/* Replays still write it. */
	cap_replay_wait(_metadata, self->fd, graph, self->s);
	ASSERT_EQ(0, weave_graph_destroy(self->fd, graph));
	weave_test_client_idle(_metadata, self->fd);
	cap_await_live_bos(_metadata, self->fd, base.live_bos);
}

/* GRAPH_DESTROY's refusals: -ENOENT, -EINVAL; the graph stays usable. */
TEST_F(cap, destroy_errors)
{
	struct drm_weave_graph_destroy d;
	struct weave_test_batch b;
	uint32_t graph;
	int fd2;

	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, 0));
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd,
					       WEAVE_TEST_BAD_HANDLE));
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	graph = cap_record(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph + 1));

	memset(&d, 0, sizeof(d));
	d.graph = graph;
	d.pad = 1;
	EXPECT_EQ(-EINVAL, weave_test_ioctl(self->fd,
					    DRM_IOCTL_WEAVE_GRAPH_DESTROY, &d));

	/* Graphs are the client's: another file cannot name this one. */
	fd2 = weave_test_open(_metadata);
	EXPECT_EQ(-ENOENT, weave_graph_destroy(fd2, graph));
	close(fd2);

	cap_replay_wait(_metadata, self->fd, graph, self->s);
	EXPECT_EQ(0, weave_graph_destroy(self->fd, graph));
	EXPECT_EQ(-ENOENT, weave_graph_destroy(self->fd, graph));
}

/* --- closing files with graphs and windows ----------------------------------- */

/*
 * On @fd: a graph replayed and still running, another graph idle, and a
 * window recording on another slot.  Returns 0 or a negative errno; no
 * test assertions, so that a child process can run it.
 */
static int leave_graphs_and_window(int fd, uint64_t page)
{
	struct drm_weave_task task[2];
	struct drm_weave_binding bind;
	struct drm_weave_capture c;
	uint32_t a = 0, s2 = 0, bo = 0, delay = 300000, word = 0xc105e;
	uint64_t size = page;
	int i, ret;

	ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &a);
	if (!ret)
		ret = weave_stream_create(fd, DRM_WEAVE_PRIORITY_NORMAL, &s2);
	if (!ret)
		ret = weave_bo_create(fd, &size, 0, &bo);
	if (ret)
		return ret;
	bind = weave_binding(bo, DRM_WEAVE_ACCESS_WRITE, 0, page);
	weave_task_launch(&task[0], DRM_WEAVE_KERNEL_DELAY, NULL, 0, &delay,
			  sizeof(delay));
	weave_task_launch(&task[1], DRM_WEAVE_KERNEL_FILL, &bind, 1, &word,
			  sizeof(word));
	/* Two graphs, the first replayed. */
	for (i = 0; i < 2; i++) {
		ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_PREPARE, NULL);
		if (!ret)
			ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_BEGIN, NULL);
		if (!ret)
			ret = weave_enqueue(fd, a, task, 2, NULL, 0, NULL);
		if (!ret)
			ret = weave_capture(fd, a, DRM_WEAVE_CAPTURE_END, &c);
		if (!ret && !i)
			ret = weave_replay(fd, c.graph, a, NULL, 0, NULL,
					   NULL);
		if (ret)
			return ret;
	}
	/* A window recording on the other stream's slot. */
	ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_PREPARE, NULL);
	if (!ret)
		ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_BEGIN, NULL);
	if (!ret)
		ret = weave_enqueue(fd, s2, task, 2, NULL, 0, NULL);
	if (!ret)
		ret = weave_capture(fd, s2, DRM_WEAVE_CAPTURE_QUERY, &c);
	if (!ret && (c.state != DRM_WEAVE_CAPTURE_RECORDING || c.ntasks != 2))
		ret = -EPROTO;
	return ret;
}

TEST_F(cap, close_with_graphs_and_a_window)
{
	struct drm_weave_memory_usage base;
	long refs = weave_test_settled_refs();
	int fd2;

	base = weave_test_usage(_metadata, self->fd);
	fd2 = weave_test_open(_metadata);
	ASSERT_EQ(0, leave_graphs_and_window(fd2, self->page));
	ASSERT_EQ(0, close(fd2));
	cap_await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
	/* The device works on. */
	cap_chain_works(_metadata, self, self->s, 9);
}

TEST_F(cap, exit_with_graphs_and_a_window)
{
	struct drm_weave_memory_usage base;
	long refs = weave_test_settled_refs();
	int status;
	pid_t pid;

	base = weave_test_usage(_metadata, self->fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd2 = weave_device_open(0);

		_exit(fd2 < 0 ? 2 :
		      leave_graphs_and_window(fd2, self->page) ? 3 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	cap_await_live_bos(_metadata, self->fd, base.live_bos);
	weave_test_await_refs(_metadata, refs);
	cap_chain_works(_metadata, self, self->s, 10);
}

/* --- limits ----------------------------------------------------------------------- */

/*
 * With max_graphs graphs, END fails with -ENOSPC and the window goes on
 * recording; once a graph is destroyed, END seals it.
 */
TEST_F_TIMEOUT(cap, max_graphs, 240)
{
	struct drm_weave_capture c;
	struct weave_test_batch b;
	uint32_t i, first = 0, g;

	weave_test_batch_init(&b);
	for (i = 0; i < self->info.max_graphs; i++) {
		weave_test_noop(&b);
		g = cap_record(_metadata, self->fd, self->s, &b);
		if (!i)
			first = g;
	}
	cap_start(_metadata, self->fd, self->s);
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	EXPECT_EQ(-ENOSPC, cap_capture(self->fd, self->s, DRM_WEAVE_CAPTURE_END,
				       &c));
	EXPECT_EQ((uint32_t)DRM_WEAVE_CAPTURE_RECORDING, c.state);
	EXPECT_EQ(self->s, c.owner);
	EXPECT_EQ(0u, c.graph);
	EXPECT_EQ(1u, c.ntasks);
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, 1);
	EXPECT_EQ(1u, cap_isolated(_metadata, self->fd, self->s));
	weave_test_noop(&b);
	weave_test_enqueue(_metadata, self->fd, self->s, &b);
	ASSERT_EQ(0, weave_graph_destroy(self->fd, first));
	g = cap_end(_metadata, self->fd, self->s, 2);
	cap_replay_wait(_metadata, self->fd, g, self->s);
}

/*
 * A recording holds max_graph_tasks tasks: an enqueue that would pass it
 * fails with -ENOSPC and records none of its tasks; the graph seals with
 * them all and replays them all.
 */
TEST_F_TIMEOUT(cap, max_graph_tasks, 120)
{
	uint32_t max = self->info.max_graph_tasks, per, n, done, graph;
	struct drm_weave_task *noop;
	struct drm_weave_stream_query q;
	uint32_t i;

	per = self->info.max_tasks_per_enqueue;
	if (per > max)
		per = max;
	noop = calloc(per, sizeof(*noop));
	ASSERT_NE(NULL, noop);
	for (i = 0; i < per; i++)
		weave_task_launch(&noop[i], DRM_WEAVE_KERNEL_NOOP, NULL, 0,
				  NULL, 0);
	cap_start(_metadata, self->fd, self->s);
	for (done = 0; done < max - 1; done += n) {
		n = max - 1 - done < per ? max - 1 - done : per;
		ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, n, NULL, 0,
					   NULL));
	}
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, max - 1);
	/*
	 * Two would pass it: neither is recorded (ENQUEUE's all-or-nothing;
	 * a ring records the first, as if enqueued alone).
	 */
	if (per >= 2) {
		EXPECT_EQ(-ENOSPC, weave_test_enqueue_whole(self->fd, self->s,
							    noop, 2, NULL));
		cap_expect_window(_metadata, self->fd, self->s,
				  DRM_WEAVE_CAPTURE_RECORDING, self->s,
				  max - 1);
	}
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, 1, NULL, 0, NULL));
	EXPECT_EQ(-ENOSPC, weave_enqueue(self->fd, self->s, noop, 1, NULL, 0,
					 NULL));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, max);
	graph = cap_end(_metadata, self->fd, self->s, max);
	free(noop);

	q = weave_test_squery(_metadata, self->fd, self->s);
	cap_replay_wait(_metadata, self->fd, graph, self->s);
	EXPECT_EQ(q.completed + max,
		  weave_test_squery(_metadata, self->fd, self->s).completed);
}

/* --- found by the fuzzers ---------------------------------------------- */

/* REPLAY of @graph on @stream with @n in-syncs at @in, @stride apart. */
static int replay_raw(int fd, uint32_t graph, uint32_t stream,
		      const void *in, uint32_t n, uint32_t stride)
{
	struct drm_weave_replay r;

	memset(&r, 0, sizeof(r));
	r.graph = graph;
	r.stream = stream;
	r.in_syncs.ptr = (uintptr_t)in;
	r.in_syncs.stride = stride;
	r.in_syncs.count = n;
	return weave_test_ioctl(fd, DRM_IOCTL_WEAVE_REPLAY, &r);
}

/*
 * A graph that recorded nothing replays as nothing, but its in-syncs are
 * checked as those of any replay: a bad one fails the call.
 */
TEST_F(cap, replay_of_an_empty_graph_checks_its_in_syncs)
{
	const uint32_t size = sizeof(struct drm_weave_sync);
	struct drm_weave_sync in[2];
	uint32_t obj, fresh, graph;
	uint8_t wide[2 * 64];

	obj = weave_test_syncobj(_metadata, self->fd);
	ASSERT_EQ(0, drmSyncobjSignal(self->fd, &obj, 1));
	fresh = weave_test_syncobj(_metadata, self->fd);
	cap_start(_metadata, self->fd, self->s);
	graph = cap_end(_metadata, self->fd, self->s, 0);

	in[0] = weave_sync(obj, 0);
	EXPECT_EQ(0, replay_raw(self->fd, graph, self->s, in, 1, size));
	in[1] = weave_sync(WEAVE_TEST_BAD_HANDLE, 0);
	EXPECT_EQ(-ENOENT, replay_raw(self->fd, graph, self->s, in, 2, size));
	/* A point with no fence. */
	in[1] = weave_sync(fresh, 0);
	EXPECT_EQ(-ENOENT, replay_raw(self->fd, graph, self->s, in, 2, size));
	in[1] = weave_sync(obj, 0);
	in[1].flags = 1;
	EXPECT_EQ(-EINVAL, replay_raw(self->fd, graph, self->s, in, 2, size));
	/* A longer stride's extra bytes must be zero. */
	memset(wide, 0, sizeof(wide));
	memcpy(wide, &in[0], size);
	memcpy(wide + 64, &in[0], size);
	wide[64 + size] = 1;
	EXPECT_EQ(-EINVAL, replay_raw(self->fd, graph, self->s, wide, 2, 64));
	EXPECT_EQ(-EFAULT, replay_raw(self->fd, graph, self->s,
				      WEAVE_TEST_BAD_PTR, 1, size));
	EXPECT_EQ(0, replay_raw(self->fd, graph, self->s, NULL, 0, size));
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).enqueued);

	drmSyncobjDestroy(self->fd, obj);
	drmSyncobjDestroy(self->fd, fresh);
}

/* A replay of an empty graph reports the stream's last seqno. */
TEST_F(cap, replay_of_an_empty_graph_reports_the_last_seqno)
{
	uint64_t seq = 0, rseq = 1;
	struct weave_test_batch b;
	uint32_t graph;

	cap_start(_metadata, self->fd, self->s);
	graph = cap_end(_metadata, self->fd, self->s, 0);
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  &rseq));
	EXPECT_EQ(0u, rseq);
	weave_test_batch_init(&b);
	weave_test_noop(&b);
	weave_test_noop(&b);
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, b.task, b.n, NULL, 0,
				   &seq));
	ASSERT_EQ(0, weave_replay(self->fd, graph, self->s, NULL, 0, NULL,
				  &rseq));
	EXPECT_EQ(2u, seq);
	EXPECT_EQ(seq, rseq);
	weave_test_wait(_metadata, self->fd, self->s);
	EXPECT_EQ(2u, weave_test_squery(_metadata, self->fd, self->s).completed);
}

/*
 * An ENQUEUE that would take the recording past max_graph_tasks fails
 * with -ENOSPC having recorded and queued nothing, and holds nothing: the
 * buffer it binds goes with its handle, and closing the file warns of
 * nothing left behind.
 */
TEST_F(cap, enqueue_a_full_recording_refuses_holds_nothing)
{
	uint32_t max = self->info.max_graph_tasks, bo;
	struct drm_weave_memory_usage base;
	struct drm_weave_task *noop;
	struct weave_test_batch b;
	uint8_t bytes[64];

	ASSERT_GE(self->info.max_tasks_per_enqueue, max);
	noop = calloc(max, sizeof(*noop));
	ASSERT_NE(NULL, noop);
	memset(bytes, 0x3e, sizeof(bytes));
	weave_test_settled_refs();
	base = weave_test_usage(_metadata, self->fd);
	bo = weave_test_bo(_metadata, self->fd, self->page, 0);
	cap_start(_metadata, self->fd, self->s);
	/* Zeroed tasks are no-op launches. */
	ASSERT_EQ(0, weave_enqueue(self->fd, self->s, noop, max, NULL, 0,
				   NULL));
	free(noop);

	weave_test_batch_init(&b);
	weave_test_fill_task(&b, bo, 0, self->page, 3);
	weave_test_write_task(&b, bo, 0, sizeof(bytes), bytes);
	EXPECT_EQ(-ENOSPC, weave_test_submit(self->fd, self->s, &b));
	cap_expect_window(_metadata, self->fd, self->s,
			  DRM_WEAVE_CAPTURE_RECORDING, self->s, max);
	EXPECT_EQ(0u, weave_test_squery(_metadata, self->fd,
					self->s).enqueued);

	cap_do(_metadata, self->fd, self->s, DRM_WEAVE_CAPTURE_ABORT);
	weave_test_close_bo(_metadata, self->fd, bo);
	weave_test_client_idle(_metadata, self->fd);
	cap_await_live_bos(_metadata, self->fd, base.live_bos);
}

TEST_HARNESS_MAIN
