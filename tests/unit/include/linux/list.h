/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test stand-in for <linux/list.h>: the circular doubly linked list, with
 * the few helpers the tested files use.  list_del() poisons the entry, as
 * the kernel's does, so a use after deletion faults.
 */
#ifndef _WEAVE_TEST_LINUX_LIST_H
#define _WEAVE_TEST_LINUX_LIST_H

#include <linux/container_of.h>
#include <linux/types.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_POISON1	((struct list_head *)0x100)
#define LIST_POISON2	((struct list_head *)0x122)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void __list_link(struct list_head *entry,
			       struct list_head *prev, struct list_head *next)
{
	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	prev->next = entry;
}

static inline void list_add(struct list_head *entry, struct list_head *head)
{
	__list_link(entry, head, head->next);
}

static inline void list_add_tail(struct list_head *entry,
				 struct list_head *head)
{
	__list_link(entry, head->prev, head);
}

static inline void __list_unlink(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
}

static inline void list_del(struct list_head *entry)
{
	__list_unlink(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

static inline void list_del_init(struct list_head *entry)
{
	__list_unlink(entry);
	INIT_LIST_HEAD(entry);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline void list_move(struct list_head *entry, struct list_head *head)
{
	__list_unlink(entry);
	list_add(entry, head);
}

/* Join @list, which is left as it was, at the front of @head. */
static inline void list_splice(const struct list_head *list,
			       struct list_head *head)
{
	struct list_head *first = list->next, *last = list->prev;

	if (list_empty(list))
		return;
	first->prev = head;
	last->next = head->next;
	head->next->prev = last;
	head->next = first;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

#endif
