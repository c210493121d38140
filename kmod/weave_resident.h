/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the bytes of buffers made resident, counted per user and for the
 * whole machine against their limits.
 */
#ifndef _WEAVE_RESIDENT_H_
#define _WEAVE_RESIDENT_H_

#include <linux/types.h>
#include <linux/uidgid.h>

struct seq_file;
struct weave_res_user;

struct weave_res_user *weave_eng_resident_user_get(kuid_t uid);
void weave_eng_resident_user_put(struct weave_res_user *pu);
int weave_eng_resident_charge(struct weave_res_user *pu, u64 bytes);
void weave_eng_resident_uncharge(struct weave_res_user *pu, u64 bytes);
u64 weave_eng_resident_user_bytes(const struct weave_res_user *pu);

void weave_eng_resident_params_apply(void);
void weave_eng_resident_limits(u64 *max_user, u64 *max_total);
u64 weave_eng_resident_total(void);
void weave_eng_resident_show(struct seq_file *m);
void weave_eng_resident_exit(void);

#endif /* _WEAVE_RESIDENT_H_ */
