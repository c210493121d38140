/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/rbtree.h>: the same interface over a plain,
 * unbalanced binary search tree with parent pointers.  Callers descend
 * through rb_left and rb_right and link a node where their search ended,
 * as with the kernel's; rb_insert_color() has nothing to rebalance.  The
 * operations are as correct as the kernel's, only not O(log n).  rb_erase()
 * clears the erased node's links, so a walk from it stops.
 */
#ifndef _WEAVE_TEST_LINUX_RBTREE_H
#define _WEAVE_TEST_LINUX_RBTREE_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/types.h>

struct rb_node {
	struct rb_node *rb_parent;
	struct rb_node *rb_right;
	struct rb_node *rb_left;
};

struct rb_root {
	struct rb_node *rb_node;
};

#define RB_ROOT			((struct rb_root) { NULL })
#define rb_entry(ptr, type, member)	container_of(ptr, type, member)

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **link)
{
	node->rb_parent = parent;
	node->rb_left = NULL;
	node->rb_right = NULL;
	*link = node;
}

static inline void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	(void)node;
	(void)root;
}

/* Put @new (may be NULL) where @old hangs under @parent (NULL: the root). */
static inline void __rb_replace_child(struct rb_node *parent,
				      struct rb_node *old,
				      struct rb_node *new,
				      struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
	if (new)
		new->rb_parent = parent;
}

static inline void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *succ;

	if (!node->rb_left) {
		__rb_replace_child(node->rb_parent, node, node->rb_right, root);
	} else if (!node->rb_right) {
		__rb_replace_child(node->rb_parent, node, node->rb_left, root);
	} else {
		/* Two children: the in-order successor takes its place. */
		succ = node->rb_right;
		while (succ->rb_left)
			succ = succ->rb_left;
		if (succ != node->rb_right) {
			__rb_replace_child(succ->rb_parent, succ, succ->rb_right,
					   root);
			succ->rb_right = node->rb_right;
			succ->rb_right->rb_parent = succ;
		}
		succ->rb_left = node->rb_left;
		succ->rb_left->rb_parent = succ;
		__rb_replace_child(node->rb_parent, node, succ, root);
	}
	node->rb_parent = NULL;
	node->rb_left = NULL;
	node->rb_right = NULL;
}

static inline struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	while (n && n->rb_left)
		n = n->rb_left;
	return n;
}

static inline struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	while (n && n->rb_right)
		n = n->rb_right;
	return n;
}

static inline struct rb_node *rb_next(const struct rb_node *node)
{
	const struct rb_node *n = node;

	if (n->rb_right) {
		n = n->rb_right;
		while (n->rb_left)
			n = n->rb_left;
		return (struct rb_node *)n;
	}
	/* Up while we come from a right child. */
	while (n->rb_parent && n == n->rb_parent->rb_right)
		n = n->rb_parent;
	return n->rb_parent;
}

static inline struct rb_node *rb_prev(const struct rb_node *node)
{
	const struct rb_node *n = node;

	if (n->rb_left) {
		n = n->rb_left;
		while (n->rb_right)
			n = n->rb_right;
		return (struct rb_node *)n;
	}
	while (n->rb_parent && n == n->rb_parent->rb_left)
		n = n->rb_parent;
	return n->rb_parent;
}

#endif
