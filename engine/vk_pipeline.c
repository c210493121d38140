// SPDX-License-Identifier: MIT
/*
 * Compute pipelines: a checked SPIR-V module's entry point behind the
 * engine's one layout (set 0 of push-descriptor storage buffers, one
 * push-constant range), kept in memory by module, entry and binding count.
 */
#include <stdlib.h>
#include <string.h>

#include "wvk_private.h"

static void wvk_pipeline_release(struct wvk_device *d, struct wvk_pipeline *p)
{
	if (p->pipeline)
		vkDestroyPipeline(d->dev, p->pipeline, NULL);
	if (p->layout)
		vkDestroyPipelineLayout(d->dev, p->layout, NULL);
	if (p->set_layout)
		vkDestroyDescriptorSetLayout(d->dev, p->set_layout, NULL);
	free(p->spirv);
	free(p->entry);
	free(p);
}

void wvk_pipelines_destroy(struct wvk_device *dev)
{
	struct wvk_pipeline *p, *next;

	for (p = dev->pipelines; p; p = next) {
		next = p->next;
		wvk_pipeline_release(dev, p);
	}
	dev->pipelines = NULL;
}

static int wvk_make_layout(struct wvk_device *d, struct wvk_pipeline *p)
{
	VkDescriptorSetLayoutBinding b[WVK_BINDINGS_MAX];
	VkDescriptorSetLayoutCreateInfo sci = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
		.bindingCount = p->nbindings,
		.pBindings = b,
	};
	VkPushConstantRange range = {
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		.size = d->info.push_bytes,
	};
	VkPipelineLayoutCreateInfo lci = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &p->set_layout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &range,
	};
	VkResult res;
	uint32_t i;

	for (i = 0; i < p->nbindings; i++)
		b[i] = (VkDescriptorSetLayoutBinding) {
			.binding = i,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	res = vkCreateDescriptorSetLayout(d->dev, &sci, NULL, &p->set_layout);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreateDescriptorSetLayout");
	res = vkCreatePipelineLayout(d->dev, &lci, NULL, &p->layout);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreatePipelineLayout");
	return 0;
}

static int wvk_make_pipeline(struct wvk_device *d, struct wvk_pipeline *p)
{
	VkShaderModuleCreateInfo mci = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = p->size,
		.pCode = p->spirv,
	};
	VkComputePipelineCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.pName = p->entry,
		},
	};
	VkResult res;
	int ret;

	ret = wvk_make_layout(d, p);
	if (ret)
		return ret;
	pci.layout = p->layout;
	res = vkCreateShaderModule(d->dev, &mci, NULL, &pci.stage.module);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreateShaderModule");
	res = vkCreateComputePipelines(d->dev, d->cache, 1, &pci, NULL,
				       &p->pipeline);
	vkDestroyShaderModule(d->dev, pci.stage.module, NULL);
	if (res != VK_SUCCESS)
		return wvk_vk_err(d, res, "vkCreateComputePipelines");
	return 0;
}

/* The most storage buffers a pipeline of @d binds. */
static uint32_t wvk_max_bindings(const struct wvk_device *d)
{
	uint32_t n = WVK_BINDINGS_MAX;

	if (d->info.max_push_descriptors < n)
		n = d->info.max_push_descriptors;
	return n;
}

static struct wvk_pipeline *wvk_lookup(struct wvk_device *d, uint64_t hash,
				       const void *spirv, size_t size,
				       const char *entry, uint32_t nbindings)
{
	struct wvk_pipeline *p;

	for (p = d->pipelines; p; p = p->next)
		if (p->hash == hash && p->size == size &&
		    p->nbindings == nbindings && !strcmp(p->entry, entry) &&
		    !memcmp(p->spirv, spirv, size))
			return p;
	return NULL;
}

int wvk_pipeline_get(struct wvk_device *dev, const void *spirv, size_t size,
		     const char *entry, uint32_t nbindings,
		     struct wvk_pipeline **out)
{
	struct wvk_spirv_facts facts;
	struct wvk_pipeline *p;
	uint64_t hash;
	int ret;

	if (wvk_device_lost(dev))
		return wvk_fail(-ENODEV, "the device was lost");
	if (!spirv || !size || size % 4)
		return wvk_fail(-EINVAL, "%zu bytes are no SPIR-V module", size);
	if (!entry || !*entry)
		return wvk_fail(-EINVAL, "no entry point named");
	if (nbindings > wvk_max_bindings(dev))
		return wvk_fail(-EINVAL, "%u bindings, beyond %u", nbindings,
				wvk_max_bindings(dev));
	hash = wvk_hash(spirv, size, wvk_hash(entry, strlen(entry), nbindings));
	p = wvk_lookup(dev, hash, spirv, size, entry, nbindings);
	if (p) {
		*out = p;
		return 0;
	}

	p = calloc(1, sizeof(*p));
	if (!p)
		return wvk_fail(-ENOMEM, "out of memory");
	/* A copy, word-aligned whatever the caller's bytes were. */
	p->spirv = malloc(size);
	p->entry = strdup(entry);
	if (!p->spirv || !p->entry) {
		wvk_pipeline_release(dev, p);
		return wvk_fail(-ENOMEM, "out of memory");
	}
	memcpy(p->spirv, spirv, size);
	p->size = size;
	p->hash = hash;
	p->nbindings = nbindings;
	ret = wvk_spirv_check(dev, p->spirv, size / 4, entry, nbindings,
			      &facts);
	if (!ret) {
		p->push_used = facts.push_bytes;
		ret = wvk_make_pipeline(dev, p);
	}
	if (ret) {
		wvk_pipeline_release(dev, p);
		return ret;
	}
	p->next = dev->pipelines;
	dev->pipelines = p;
	*out = p;
	return 0;
}
