// SPDX-License-Identifier: MIT
/*
 * Jobs: an ordered array of dispatches checked whole, recorded into one
 * command buffer with a barrier only where a task depends on an earlier
 * one, submitted with a timeline semaphore value, and waited for until a
 * deadline.
 */
#include <stdlib.h>
#include <string.h>

#include "wvk_private.h"

struct wvk_job {
	struct wvk_device *dev;
	VkCommandBuffer cmd;
	uint64_t value;		/* the timeline value it signals */
	uint32_t ntasks;
	uint32_t barriers;
	bool done;		/* seen complete, or failed with the device */
	int status;
	uint32_t nbindings;
	struct wvk_binding bindings[];	/* of all tasks, for the copies */
};

static int wvk_check_binding(const struct wvk_device *d, uint32_t t,
			     uint32_t i, const struct wvk_binding *b)
{
	const struct wvk_device_info *info = &d->info;

	if (!b->buf || b->buf->dev != d)
		return wvk_fail(-EINVAL, "task %u binding %u: no buffer of this device",
				t, i);
	if (!b->access || b->access & ~(uint32_t)WVK_RW)
		return wvk_fail(-EINVAL, "task %u binding %u: access %u", t, i,
				b->access);
	if (!b->size || b->offset > b->buf->size ||
	    b->size > b->buf->size - b->offset)
		return wvk_fail(-EINVAL, "task %u binding %u: bytes %llu + %llu are not within the buffer's %llu",
				t, i, (unsigned long long)b->offset,
				(unsigned long long)b->size,
				(unsigned long long)b->buf->size);
	if (b->offset % info->storage_offset_align)
		return wvk_fail(-EINVAL, "task %u binding %u: offset %llu is not a multiple of %llu",
				t, i, (unsigned long long)b->offset,
				(unsigned long long)info->storage_offset_align);
	if (b->size > info->max_storage_range)
		return wvk_fail(-EINVAL, "task %u binding %u: %llu bytes, beyond the storage range %u",
				t, i, (unsigned long long)b->size,
				info->max_storage_range);
	return 0;
}

static int wvk_check_task(const struct wvk_device *d, uint32_t t,
			  const struct wvk_task *task)
{
	const struct wvk_device_info *info = &d->info;
	uint32_t i;
	int ret;

	if (!task->pipeline)
		return wvk_fail(-EINVAL, "task %u has no pipeline", t);
	for (i = 0; i < 3; i++)
		if (!task->groups[i] ||
		    task->groups[i] > info->max_group_count[i])
			return wvk_fail(-EINVAL, "task %u: %u x %u x %u workgroups; each from 1 to %u x %u x %u",
					t, task->groups[0], task->groups[1],
					task->groups[2],
					info->max_group_count[0],
					info->max_group_count[1],
					info->max_group_count[2]);
	if (task->push_size > info->push_bytes ||
	    (task->push_size && !task->push))
		return wvk_fail(-EINVAL, "task %u: %u push-constant bytes; at most %u",
				t, task->push_size, info->push_bytes);
	if (task->nbindings != task->pipeline->nbindings ||
	    (task->nbindings && !task->bindings))
		return wvk_fail(-EINVAL, "task %u: %u bindings, its pipeline has %u",
				t, task->nbindings, task->pipeline->nbindings);
	for (i = 0; i < task->nbindings; i++) {
		ret = wvk_check_binding(d, t, i, &task->bindings[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether two tasks touch common bytes of a buffer, one of them writing. */
static bool wvk_conflict(const struct wvk_task *a, const struct wvk_task *b)
{
	uint32_t i, j;

	for (i = 0; i < a->nbindings; i++) {
		const struct wvk_binding *x = &a->bindings[i];

		for (j = 0; j < b->nbindings; j++) {
			const struct wvk_binding *y = &b->bindings[j];

			if (x->buf == y->buf &&
			    ((x->access | y->access) & WVK_WRITE) &&
			    x->offset < y->offset + y->size &&
			    y->offset < x->offset + x->size)
				return true;
		}
	}
	return false;
}

static void wvk_barrier(VkCommandBuffer cmd, VkPipelineStageFlags dst_stage,
			VkAccessFlags dst)
{
	VkMemoryBarrier mb = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
		.dstAccessMask = dst,
	};

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			     dst_stage, 0, 1, &mb, 0, NULL, 0, NULL);
}

static void wvk_record_task(struct wvk_device *d, VkCommandBuffer cmd,
			    const struct wvk_task *task,
			    const struct wvk_task *prev)
{
	VkDescriptorBufferInfo bi[WVK_BINDINGS_MAX];
	VkWriteDescriptorSet w[WVK_BINDINGS_MAX];
	const struct wvk_pipeline *p = task->pipeline;
	unsigned char push[WVK_PUSH_MAX] = { 0 };
	uint32_t i;

	if (!prev || prev->pipeline != p)
		vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
				  p->pipeline);
	for (i = 0; i < task->nbindings; i++) {
		bi[i] = (VkDescriptorBufferInfo) {
			.buffer = task->bindings[i].buf->buf,
			.offset = task->bindings[i].offset,
			.range = task->bindings[i].size,
		};
		w[i] = (VkWriteDescriptorSet) {
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstBinding = i,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &bi[i],
		};
	}
	if (task->nbindings)
		d->push_descriptor_set(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
				       p->layout, 0, task->nbindings, w);
	/* The whole range, so that bytes the task did not pass read zero. */
	if (task->push_size)
		memcpy(push, task->push, task->push_size);
	vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
			   d->info.push_bytes, push);
	vkCmdDispatch(cmd, task->groups[0], task->groups[1], task->groups[2]);
}

static int wvk_record(struct wvk_job *job, const struct wvk_task *tasks)
{
	VkCommandBufferAllocateInfo ai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = job->dev->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	VkCommandBufferBeginInfo bi = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	struct wvk_device *d = job->dev;
	uint32_t t, i, since = 0;	/* tasks after the last barrier */
	VkResult res;

	res = vkAllocateCommandBuffers(d->dev, &ai, &job->cmd);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkAllocateCommandBuffers");
	res = vkBeginCommandBuffer(job->cmd, &bi);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkBeginCommandBuffer");
	for (t = 0; t < job->ntasks; t++) {
		/*
		 * A barrier orders everything recorded before it: only the
		 * tasks since the last one can still overlap task t.
		 */
		for (i = since; i < t; i++)
			if (wvk_conflict(&tasks[i], &tasks[t]))
				break;
		if (i < t) {
			wvk_barrier(job->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
				    VK_ACCESS_SHADER_READ_BIT |
				    VK_ACCESS_SHADER_WRITE_BIT);
			job->barriers++;
			since = t;
		}
		wvk_record_task(d, job->cmd, &tasks[t], t ? &tasks[t - 1] : NULL);
	}
	/* What the tasks wrote, visible to the host once the job signals. */
	wvk_barrier(job->cmd, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	res = vkEndCommandBuffer(job->cmd);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkEndCommandBuffer");
	return 0;
}

static int wvk_submit(struct wvk_job *job)
{
	struct wvk_device *d = job->dev;
	uint64_t value = d->timeline_value + 1;
	VkTimelineSemaphoreSubmitInfo ti = {
		.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
		.signalSemaphoreValueCount = 1,
		.pSignalSemaphoreValues = &value,
	};
	VkSubmitInfo si = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.pNext = &ti,
		.commandBufferCount = 1,
		.pCommandBuffers = &job->cmd,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &d->timeline,
	};
	VkResult res;
	uint32_t i;

	for (i = 0; i < job->nbindings; i++)
		wvk_buffer_copy_in(job->bindings[i].buf,
				   job->bindings[i].offset,
				   job->bindings[i].size);
	res = vkQueueSubmit(d->queue, 1, &si, VK_NULL_HANDLE);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkQueueSubmit");
	d->timeline_value = value;
	job->value = value;
	return 0;
}

static void wvk_job_release(struct wvk_job *job)
{
	if (job->cmd)
		vkFreeCommandBuffers(job->dev->dev, job->dev->pool, 1,
				     &job->cmd);
	free(job);
}

int wvk_job_submit(struct wvk_device *dev, const struct wvk_task *tasks,
		   uint32_t ntasks, struct wvk_job **out)
{
	struct wvk_job *job;
	uint32_t t, n = 0;
	int ret;

	if (wvk_device_lost(dev))
		return wvk_fail(-ENODEV, "the device was lost");
	if (!tasks || !ntasks || ntasks > WVK_TASKS_MAX)
		return wvk_fail(-EINVAL, "%u tasks; from 1 to %u", ntasks,
				WVK_TASKS_MAX);
	for (t = 0; t < ntasks; t++) {
		ret = wvk_check_task(dev, t, &tasks[t]);
		if (ret)
			return ret;
		n += tasks[t].nbindings;
	}
	job = calloc(1, sizeof(*job) + n * sizeof(job->bindings[0]));
	if (!job)
		return wvk_fail(-ENOMEM, "out of memory");
	job->dev = dev;
	job->ntasks = ntasks;
	job->status = -EINPROGRESS;
	for (t = 0; t < ntasks; t++) {
		memcpy(&job->bindings[job->nbindings], tasks[t].bindings,
		       tasks[t].nbindings * sizeof(job->bindings[0]));
		job->nbindings += tasks[t].nbindings;
	}
	ret = wvk_record(job, tasks);
	if (!ret)
		ret = wvk_submit(job);
	if (ret) {
		wvk_job_release(job);
		return ret;
	}
	for (t = 0; t < job->nbindings; t++)
		job->bindings[t].buf->busy++;
	dev->njobs++;
	*out = job;
	return 0;
}

/* The job will not touch its buffers again: let them go. */
static void wvk_job_complete(struct wvk_job *job, int status)
{
	uint32_t i;

	for (i = 0; i < job->nbindings; i++) {
		struct wvk_binding *b = &job->bindings[i];

		if (!status && (b->access & WVK_WRITE))
			wvk_buffer_copy_out(b->buf, b->offset, b->size);
		b->buf->busy--;
	}
	job->done = true;
	job->status = status;
}

int wvk_job_wait(struct wvk_job *job, uint64_t deadline_ns)
{
	struct wvk_device *d = job->dev;
	VkSemaphoreWaitInfo wi = {
		.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
		.semaphoreCount = 1,
		.pSemaphores = &d->timeline,
		.pValues = &job->value,
	};
	uint64_t now = wvk_now_ns();
	VkResult res;
	int ret;

	if (job->done)
		return job->status;
	/* An abandoned device's work may still run: nothing is let go. */
	if (d->abandoned)
		return wvk_fail(-ENODEV, "the device was abandoned");
	res = vkWaitSemaphores(d->dev, &wi,
			       deadline_ns > now ? deadline_ns - now : 0);
	if (res == VK_SUCCESS) {
		wvk_job_complete(job, 0);
		return 0;
	}
	if (res == VK_TIMEOUT)
		return wvk_fail(-ETIMEDOUT, "the job (timeline value %llu) is still running",
				(unsigned long long)job->value);
	ret = wvk_vk_err(d, res, "vkWaitSemaphores");
	/* A lost device runs nothing any more. */
	if (d->lost)
		wvk_job_complete(job, ret);
	return ret;
}

int wvk_job_status(const struct wvk_job *job, uint32_t task)
{
	if (task >= job->ntasks)
		return wvk_fail(-EINVAL, "the job has %u tasks", job->ntasks);
	return job->done ? job->status : -EINPROGRESS;
}

uint32_t wvk_job_barriers(const struct wvk_job *job)
{
	return job->barriers;
}

int wvk_job_free(struct wvk_job *job)
{
	if (!job)
		return 0;
	if (!job->done)
		return wvk_fail(-EBUSY, "the job has not been seen complete");
	job->dev->njobs--;
	wvk_job_release(job);
	return 0;
}
