/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the bytes of buffers held resident, counted per user and for the
 * whole machine against their limits.
 */
#ifndef _WEAVE_PINNED_H_
#define _WEAVE_PINNED_H_

#include <linux/types.h>
#include <linux/uidgid.h>

struct seq_file;
struct weave_pin_user;

struct weave_pin_user *weave_eng_pinned_user_get(kuid_t uid);
void weave_eng_pinned_user_put(struct weave_pin_user *pu);
int weave_eng_pinned_charge(struct weave_pin_user *pu, u64 bytes);
void weave_eng_pinned_uncharge(struct weave_pin_user *pu, u64 bytes);
u64 weave_eng_pinned_user_bytes(const struct weave_pin_user *pu);

void weave_eng_pinned_set_limits(u64 max_user, u64 max_total);
void weave_eng_pinned_limits(u64 *max_user, u64 *max_total);
u64 weave_eng_pinned_total(void);
void weave_eng_pinned_show(struct seq_file *m);
void weave_eng_pinned_exit(void);

#endif /* _WEAVE_PINNED_H_ */
