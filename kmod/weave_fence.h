/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's fences: hardware fences, in-fence gates, out-fence
 * proxies and joins.
 */
#ifndef _WEAVE_FENCE_H_
#define _WEAVE_FENCE_H_

#include <linux/dma-fence.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct weave_ectx;

/* A fence of the engine: a hardware fence or a gate. */
struct weave_fence {
	struct dma_fence base;
	spinlock_t lock;	/* the fence's lock */
};

/* A gate: signals when @in does, or when the client closes. */
struct weave_gate {
	struct weave_fence f;
	struct dma_fence *in;
	struct dma_fence_cb cb;
	struct weave_ectx *ctx;
	struct list_head link;	/* in &weave_ectx.gates, under gate_lock */
	atomic_t fired;
};

/* A weave fence standing in for another one, see weave_eng_proxy_create(). */
struct weave_proxy {
	struct weave_fence f;
	struct dma_fence *in;
	struct dma_fence_cb cb;
	u64 owner;	/* &weave_ectx.id of the job's client, or zero */
};

/* One input of a join. */
struct weave_join_in {
	struct dma_fence_cb cb;
	struct weave_join *join;
	struct dma_fence *fence;	/* a reference */
};

/*
 * A weave fence that signals once all its inputs have, see
 * weave_eng_join_create().
 */
struct weave_join {
	struct weave_fence f;
	atomic_t pending;	/* inputs not signalled, plus one until armed */
	u32 n;			/* used entries of @in */
	u32 max;		/* entries of @in */
	struct weave_join_in *in;
};

void weave_eng_fence_error(struct dma_fence *f, int err);
void weave_eng_hw_fence_init(struct weave_fence *f, u64 context, u64 seqno);
struct weave_gate *weave_eng_gate_create(struct weave_ectx *ctx,
					 struct dma_fence *in);
void weave_eng_gate_arm(struct weave_ectx *ctx, struct weave_gate *gate);
void weave_eng_gate_fire(struct weave_gate *gate, int err);
struct dma_fence *weave_eng_proxy_attach_at(struct weave_proxy *proxy,
					    struct dma_fence *in, u64 context,
					    u64 seqno);
u64 weave_eng_fence_owner(struct dma_fence *f);
struct dma_fence *weave_eng_fence_waited(struct dma_fence *f, u64 owner);
u32 weave_eng_ctx_gate_room(struct weave_ectx *ctx, u32 slot);
int weave_eng_ctx_gates_prepare(struct weave_ectx *ctx, u32 slot,
				struct dma_fence **fences, u32 *n);
void weave_eng_ctx_gates_commit(struct weave_ectx *ctx, u32 slot,
				struct dma_fence **gates, u32 n);
u64 weave_eng_ctx_gate_bytes(struct weave_ectx *ctx);
struct dma_fence *weave_eng_ctx_slot_fence(struct weave_ectx *ctx, u32 slot);
struct weave_proxy *weave_eng_proxy_create(void);
struct dma_fence *weave_eng_proxy_attach(struct weave_proxy *proxy,
					 struct dma_fence *in);
void weave_eng_proxy_put(struct weave_proxy *proxy);
struct weave_join *weave_eng_join_create(u32 max);
void weave_eng_join_add(struct weave_join *join, struct dma_fence *fence);
struct dma_fence *weave_eng_join_arm(struct weave_join *join);
void weave_eng_join_put(struct weave_join *join);

#endif /* _WEAVE_FENCE_H_ */
