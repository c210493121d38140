/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the soft engine's job templates: a graph's tasks encoded once.
 */
#ifndef _WEAVE_TEMPLATE_H_
#define _WEAVE_TEMPLATE_H_

#include <linux/types.h>

struct dma_fence;
struct weave_bstream;
struct weave_entry;
struct weave_insync;
struct weave_lstream;
struct weave_template;

struct weave_template *
weave_eng_template_create(const struct weave_entry *entries, u32 n);
int weave_eng_template_queue(struct weave_bstream *bs,
			     struct weave_template *tmpl,
			     struct weave_lstream *ls, u64 first_seqno,
			     struct weave_insync *in, struct dma_fence **gates,
			     u32 ngates);

#endif /* _WEAVE_TEMPLATE_H_ */
