/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: a client's usage in its file's fdinfo.
 */
#ifndef _WEAVE_FDINFO_H_
#define _WEAVE_FDINFO_H_

struct drm_file;
struct drm_printer;
struct file;
struct seq_file;

void weave_show_fdinfo(struct drm_printer *p, struct drm_file *file);
void weave_show_fdinfo_file(struct seq_file *m, struct file *f);

#endif /* _WEAVE_FDINFO_H_ */
