/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the events of the weave trace system, for perf and trace-cmd.
 *
 * A job names its finished fence as the dma_fence events do (context and
 * seqno), so that one trace joins weave's events with theirs and with
 * gpu_scheduler's.  An event's entry orders its fields so that it packs
 * without holes; its printed fields keep their documented order.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM weave

#if !defined(_WEAVE_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _WEAVE_TRACE_H_

#include <linux/tracepoint.h>
#include <linux/types.h>

#include "weave_core.h"

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
		    TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
			     u64 seqno, u32 tasks, int error),
		    TP_ARGS(client, stream, queue, context, seqno, tasks, error),
		    TP_STRUCT__entry(__field(u64, client)
				     __field(u32, stream)
				     __field(u32, queue)
				     __field(u64, context)
				     __field(u64, seqno)
				     __field(u32, tasks)
				     __field(int, error)),
		    TP_fast_assign(__entry->client = client;
				   __entry->stream = stream;
				   __entry->queue = queue;
				   __entry->context = context;
				   __entry->seqno = seqno;
				   __entry->tasks = tasks;
				   __entry->error = error;),
		    TP_printk("client=%llu stream=%u queue=%u context=%llu seqno=%llu tasks=%u error=%d",
			      __entry->client, __entry->stream, __entry->queue,
			      __entry->context, __entry->seqno,
			      __entry->tasks, __entry->error)
);

/* A job handed to its queue's DRM GPU scheduler. */
DEFINE_EVENT(weave_job, weave_job_push,
	     TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
		      u64 seqno, u32 tasks, int error),
	     TP_ARGS(client, stream, queue, context, seqno, tasks, error)
);

/* The job starts running: inline in run_job, or on the queue's worker. */
DEFINE_EVENT(weave_job, weave_job_run,
	     TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
		      u64 seqno, u32 tasks, int error),
	     TP_ARGS(client, stream, queue, context, seqno, tasks, error)
);

/*
 * The job, started inline, goes on in the queue's worker from task @tasks:
 * the next may sleep, or the inline budget is spent.
 */
DEFINE_EVENT(weave_job, weave_job_handoff,
	     TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
		      u64 seqno, u32 tasks, int error),
	     TP_ARGS(client, stream, queue, context, seqno, tasks, error)
);

/* The job is done, having run @tasks, just before its fence signals. */
DEFINE_EVENT(weave_job, weave_job_done,
	     TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
		      u64 seqno, u32 tasks, int error),
	     TP_ARGS(client, stream, queue, context, seqno, tasks, error)
);

/* The queue's watchdog cuts the running job short. */
DEFINE_EVENT(weave_job, weave_job_timeout,
	     TP_PROTO(u64 client, u32 stream, u32 queue, u64 context,
		      u64 seqno, u32 tasks, int error),
	     TP_ARGS(client, stream, queue, context, seqno, tasks, error)
);

TRACE_DEFINE_ENUM(WEAVE_STRATEGY_INTERLEAVE);
TRACE_DEFINE_ENUM(WEAVE_STRATEGY_SEQUENTIAL);

/* One execution of slots: queued tasks handed to the engine as jobs. */
TRACE_EVENT(weave_exec,
	    TP_PROTO(u64 client, u32 stream, u32 strategy, u32 slots,
		     u32 tasks, u32 jobs),
	    TP_ARGS(client, stream, strategy, slots, tasks, jobs),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u32, stream)
			     __field(u32, strategy)
			     __field(u32, slots)
			     __field(u32, tasks)
			     __field(u32, jobs)),
	    TP_fast_assign(__entry->client = client;
			   __entry->stream = stream;
			   __entry->strategy = strategy;
			   __entry->slots = slots;
			   __entry->tasks = tasks;
			   __entry->jobs = jobs;),
	    TP_printk("client=%llu stream=%u strategy=%s slots=%u tasks=%u jobs=%u",
		      __entry->client, __entry->stream,
		      __print_symbolic(__entry->strategy,
				       { WEAVE_STRATEGY_INTERLEAVE,
					 "interleave" },
				       { WEAVE_STRATEGY_SEQUENTIAL,
					 "sequential" }),
		      __entry->slots, __entry->tasks, __entry->jobs)
);

/* A job, when pushed, waits for another job's or an in-sync's fence. */
TRACE_EVENT(weave_job_dep,
	    TP_PROTO(u64 client, u64 context, u64 seqno, u64 dep_context,
		     u64 dep_seqno),
	    TP_ARGS(client, context, seqno, dep_context, dep_seqno),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(u64, dep_context)
			     __field(u64, dep_seqno)),
	    TP_fast_assign(__entry->client = client;
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->dep_context = dep_context;
			   __entry->dep_seqno = dep_seqno;),
	    TP_printk("client=%llu context=%llu seqno=%llu dep_context=%llu dep_seqno=%llu",
		      __entry->client, __entry->context, __entry->seqno,
		      __entry->dep_context, __entry->dep_seqno)
);

/* A task of a running job ends, having run, failed or been skipped. */
TRACE_EVENT(weave_task,
	    TP_PROTO(u64 client, u32 queue, u64 context, u64 seqno,
		     u32 index, u32 kernel, int error),
	    TP_ARGS(client, queue, context, seqno, index, kernel, error),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(u32, queue)
			     __field(u32, index)
			     __field(u32, kernel)
			     __field(int, error)),
	    TP_fast_assign(__entry->client = client;
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->queue = queue;
			   __entry->index = index;
			   __entry->kernel = kernel;
			   __entry->error = error;),
	    TP_printk("client=%llu queue=%u context=%llu seqno=%llu index=%u kernel=%u error=%d",
		      __entry->client, __entry->queue, __entry->context,
		      __entry->seqno, __entry->index, __entry->kernel,
		      __entry->error)
);

/* A failure goes on what a task should have written. */
TRACE_EVENT(weave_failure,
	    TP_PROTO(u64 client, u64 context, u64 seqno, u32 index,
		     int error, u64 record),
	    TP_ARGS(client, context, seqno, index, error, record),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(u64, record)
			     __field(u32, index)
			     __field(int, error)),
	    TP_fast_assign(__entry->client = client;
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->record = record;
			   __entry->index = index;
			   __entry->error = error;),
	    TP_printk("client=%llu context=%llu seqno=%llu index=%u error=%d record=%llu",
		      __entry->client, __entry->context, __entry->seqno,
		      __entry->index, __entry->error, __entry->record)
);

/* A task is skipped: it reads bytes that carry the failure @record. */
TRACE_EVENT(weave_skip,
	    TP_PROTO(u64 client, u64 context, u64 seqno, u32 index,
		     u64 record),
	    TP_ARGS(client, context, seqno, index, record),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(u64, record)
			     __field(u32, index)),
	    TP_fast_assign(__entry->client = client;
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->record = record;
			   __entry->index = index;),
	    TP_printk("client=%llu context=%llu seqno=%llu index=%u record=%llu",
		      __entry->client, __entry->context, __entry->seqno,
		      __entry->index, __entry->record)
);

/* A capture window begins recording, or ends as a graph. */
TRACE_EVENT(weave_capture,
	    TP_PROTO(u64 client, u32 stream, u32 graph, bool begin,
		     u32 tasks),
	    TP_ARGS(client, stream, graph, begin, tasks),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u32, stream)
			     __field(u32, graph)
			     __field(bool, begin)
			     __field(u32, tasks)),
	    TP_fast_assign(__entry->client = client;
			   __entry->stream = stream;
			   __entry->graph = graph;
			   __entry->begin = begin;
			   __entry->tasks = tasks;),
	    TP_printk("client=%llu stream=%u graph=%u begin=%d tasks=%u",
		      __entry->client, __entry->stream, __entry->graph,
		      __entry->begin, __entry->tasks)
);

/* A graph is replayed on a stream. */
TRACE_EVENT(weave_replay,
	    TP_PROTO(u64 client, u32 graph, u32 stream, u32 tasks, u32 jobs),
	    TP_ARGS(client, graph, stream, tasks, jobs),
	    TP_STRUCT__entry(__field(u64, client)
			     __field(u32, graph)
			     __field(u32, stream)
			     __field(u32, tasks)
			     __field(u32, jobs)),
	    TP_fast_assign(__entry->client = client;
			   __entry->graph = graph;
			   __entry->stream = stream;
			   __entry->tasks = tasks;
			   __entry->jobs = jobs;),
	    TP_printk("client=%llu graph=%u stream=%u tasks=%u jobs=%u",
		      __entry->client, __entry->graph, __entry->stream,
		      __entry->tasks, __entry->jobs)
);

#endif /* _WEAVE_TRACE_H_ */

/* The header is found on the module's include path, kmod/. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE weave_trace
#include <trace/define_trace.h>
