/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the events of the weave trace system, for perf and trace-cmd.
 *
 * A job names its finished fence as the dma_fence events do (context and
 * seqno), so that one trace joins weave's events with theirs and with
 * gpu_scheduler's.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM weave

#if !defined(_WEAVE_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _WEAVE_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

TRACE_EVENT(weave_enqueue,
	    TP_PROTO(u64 client, u32 stream, u32 slot, u32 count,
		     bool recorded),
	    TP_ARGS(client, stream, slot, count, recorded),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u32, stream)
			     __field(u32, slot)
			     __field(u32, count)
			     __field(bool, recorded)),
	    TP_fast_assign(__entry->client = client;
			   __entry->stream = stream;
			   __entry->slot = slot;
			   __entry->count = count;
			   __entry->recorded = recorded;),
	    TP_printk("client=%llu stream=%u slot=%u count=%u recorded=%d",
		      __entry->client, __entry->stream, __entry->slot,
		      __entry->count, __entry->recorded)
);

DECLARE_EVENT_CLASS(weave_job,
		    TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
			     u32 tasks, int error),
		    TP_ARGS(client, queue, context, seqno, tasks, error),
		    TP_STRUCT__entry(__field(u64, client)
				     __field(u32, queue)
				     __field(u64, context)
				     __field(u64, seqno)
				     __field(u32, tasks)
				     __field(int, error)),
		    TP_fast_assign(__entry->client = client;
				   __entry->queue = queue;
				   __entry->context = context;
				   __entry->seqno = seqno;
				   __entry->tasks = tasks;
				   __entry->error = error;),
		    TP_printk("client=%llu queue=%u context=%llu seqno=%llu tasks=%u error=%d",
			      __entry->client, __entry->queue,
			      __entry->context, __entry->seqno,
			      __entry->tasks, __entry->error)
);

/* A job handed to its queue's DRM GPU scheduler. */
DEFINE_EVENT(weave_job, weave_job_push,
	     TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		      u32 tasks, int error),
	     TP_ARGS(client, queue, context, seqno, tasks, error)
);

/* The job starts running: inline in run_job, or on the queue's worker. */
DEFINE_EVENT(weave_job, weave_job_run,
	     TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		      u32 tasks, int error),
	     TP_ARGS(client, queue, context, seqno, tasks, error)
);

/*
 * The job, started inline, goes on in the queue's worker from task @tasks:
 * the next may sleep, or the inline budget is spent.
 */
DEFINE_EVENT(weave_job, weave_job_handoff,
	     TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		      u32 tasks, int error),
	     TP_ARGS(client, queue, context, seqno, tasks, error)
);

/* The job is done, having run @tasks, just before its fence signals. */
DEFINE_EVENT(weave_job, weave_job_done,
	     TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		      u32 tasks, int error),
	     TP_ARGS(client, queue, context, seqno, tasks, error)
);

/* The queue's watchdog cuts the running job short. */
DEFINE_EVENT(weave_job, weave_job_timeout,
	     TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		      u32 tasks, int error),
	     TP_ARGS(client, queue, context, seqno, tasks, error)
);

#endif /* _WEAVE_TRACE_H_ */

/* The header is found on the module's include path, kmod/. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE weave_trace
#include <trace/define_trace.h>
