/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * weave: the debugfs files of a device and of its clients.
 */
#ifndef _WEAVE_DEBUGFS_H_
#define _WEAVE_DEBUGFS_H_

struct drm_minor;
struct weave_client;
struct weave_device;

void weave_debugfs_init(struct drm_minor *minor);
void weave_debugfs_client_add(struct weave_client *c);
void weave_debugfs_client_remove(struct weave_client *c);
void weave_debugfs_unplug(struct weave_device *wdev);

#endif /* _WEAVE_DEBUGFS_H_ */
