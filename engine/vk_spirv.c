// SPDX-License-Identifier: MIT
/*
 * The SPIR-V check: a module is validated by SPIRV-Tools for Vulkan 1.3,
 * then read for what the engine allows of a kernel (capabilities, logical
 * addressing, storage buffers of set 0, push-constant bytes, workgroup
 * size) before the driver ever sees it.
 */
#include <stdlib.h>
#include <string.h>
#include <spirv-tools/libspirv.h>

#include "wvk_private.h"

#define SPV_MAGIC		0x07230203u
#define SPV_MAX_IDS		(1u << 20)
#define SPV_MAX_DEPTH		16

/* Opcodes, decorations and enumerants of the SPIR-V specification. */
enum {
	OP_CAPABILITY = 17, OP_MEMORY_MODEL = 14, OP_ENTRY_POINT = 15,
	OP_EXECUTION_MODE = 16, OP_TYPE_BOOL = 20, OP_TYPE_INT = 21,
	OP_TYPE_FLOAT = 22, OP_TYPE_VECTOR = 23, OP_TYPE_MATRIX = 24,
	OP_TYPE_ARRAY = 28, OP_TYPE_STRUCT = 30, OP_TYPE_POINTER = 32,
	OP_CONSTANT = 43, OP_CONSTANT_COMPOSITE = 44, OP_SPEC_CONSTANT = 50,
	OP_SPEC_CONSTANT_COMPOSITE = 51, OP_VARIABLE = 59, OP_DECORATE = 71,
	OP_MEMBER_DECORATE = 72, OP_EXECUTION_MODE_ID = 331,
	DEC_BLOCK = 2, DEC_BUFFER_BLOCK = 3, DEC_ARRAY_STRIDE = 6,
	DEC_MATRIX_STRIDE = 7, DEC_BUILTIN = 11, DEC_BINDING = 33,
	DEC_SET = 34, DEC_OFFSET = 35,
	BUILTIN_WORKGROUP_SIZE = 25, MODEL_GLCOMPUTE = 5, ADDRESSING_LOGICAL = 0,
	MODE_LOCAL_SIZE = 17, MODE_LOCAL_SIZE_ID = 38,
	SC_INPUT = 1, SC_UNIFORM = 2, SC_WORKGROUP = 4, SC_PRIVATE = 6,
	SC_FUNCTION = 7, SC_PUSH_CONSTANT = 9, SC_STORAGE_BUFFER = 12,
};

#define ID_BLOCK	0x1u
#define ID_BUFFER_BLOCK	0x2u
#define ID_HAS_SET	0x4u
#define ID_HAS_BINDING	0x8u
#define ID_WG_SIZE	0x10u

struct spv_id {
	uint32_t def;		/* word index of the defining instruction */
	uint32_t set;
	uint32_t binding;
	uint32_t stride;	/* ArrayStride */
	uint32_t flags;
};

struct spv_module {
	const uint32_t *w;
	size_t n;
	struct spv_id *ids;
	uint32_t bound;
};

uint64_t wvk_hash(const void *data, size_t size, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;
	size_t i;

	for (i = 0; i < size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Whether the device lets a shader declare capability @cap. */
static bool wvk_cap_allowed(const struct wvk_device *d, uint32_t cap)
{
	const VkSubgroupFeatureFlags ops = d->subgroup_ops;

	switch (cap) {
	case 0:		/* Matrix */
	case 1:		/* Shader */
		return true;
	case 9:		/* Float16 */
		return d->features12.shaderFloat16;
	case 10:	/* Float64 */
		return d->features.shaderFloat64;
	case 11:	/* Int64 */
		return d->features.shaderInt64;
	case 12:	/* Int64Atomics */
		return d->features12.shaderBufferInt64Atomics;
	case 22:	/* Int16 */
		return d->features.shaderInt16;
	case 39:	/* Int8 */
		return d->features12.shaderInt8;
	case 61:	/* GroupNonUniform */
		return ops & VK_SUBGROUP_FEATURE_BASIC_BIT;
	case 62:	/* GroupNonUniformVote */
		return ops & VK_SUBGROUP_FEATURE_VOTE_BIT;
	case 63:	/* GroupNonUniformArithmetic */
		return ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
	case 64:	/* GroupNonUniformBallot */
		return ops & VK_SUBGROUP_FEATURE_BALLOT_BIT;
	case 65:	/* GroupNonUniformShuffle */
		return ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
	case 66:	/* GroupNonUniformShuffleRelative */
		return ops & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
	case 67:	/* GroupNonUniformClustered */
		return ops & VK_SUBGROUP_FEATURE_CLUSTERED_BIT;
	case 68:	/* GroupNonUniformQuad */
		return ops & VK_SUBGROUP_FEATURE_QUAD_BIT;
	case 4433:	/* StorageBuffer16BitAccess */
		return d->features11.storageBuffer16BitAccess;
	case 4434:	/* UniformAndStorageBuffer16BitAccess */
		return d->features11.uniformAndStorageBuffer16BitAccess;
	case 4435:	/* StoragePushConstant16 */
		return d->features11.storagePushConstant16;
	case 4448:	/* StorageBuffer8BitAccess */
		return d->features12.storageBuffer8BitAccess;
	case 4449:	/* UniformAndStorageBuffer8BitAccess */
		return d->features12.uniformAndStorageBuffer8BitAccess;
	case 4450:	/* StoragePushConstant8 */
		return d->features12.storagePushConstant8;
	case 5345:	/* VulkanMemoryModel */
		return d->features12.vulkanMemoryModel;
	case 5346:	/* VulkanMemoryModelDeviceScope */
		return d->features12.vulkanMemoryModelDeviceScope;
	default:	/* PhysicalStorageBufferAddresses, images, ... */
		return false;
	}
}

static int wvk_validate(const uint32_t *words, size_t nwords)
{
	spv_const_binary_t bin = { .code = words, .wordCount = nwords };
	spv_diagnostic diag = NULL;
	spv_context ctx;
	spv_result_t r;
	int ret = 0;

	ctx = spvContextCreate(SPV_ENV_VULKAN_1_3);
	if (!ctx)
		return wvk_fail(-ENOMEM, "SPIRV-Tools: no context");
	r = spvValidate(ctx, &bin, &diag);
	if (r != SPV_SUCCESS)
		ret = wvk_fail(-EINVAL, "invalid SPIR-V (%d) at word %zu: %s",
			       r, diag ? diag->position.index : 0,
			       diag && diag->error ? diag->error : "?");
	spvDiagnosticDestroy(diag);
	spvContextDestroy(ctx);
	return ret;
}

/* The words of the instruction defining @id, or NULL. */
static const uint32_t *spv_def(const struct spv_module *m, uint32_t id)
{
	if (!id || id >= m->bound || !m->ids[id].def)
		return NULL;
	return m->w + m->ids[id].def;
}

/* The value of a 32-bit (spec) constant; false if @id is none. */
static bool spv_const(const struct spv_module *m, uint32_t id, uint32_t *v)
{
	const uint32_t *ins = spv_def(m, id);

	if (!ins || ((ins[0] & 0xffff) != OP_CONSTANT &&
		     (ins[0] & 0xffff) != OP_SPEC_CONSTANT))
		return false;
	*v = ins[3];
	return true;
}

/* The MatrixStride (or Offset, @dec) of member @member of struct @st. */
static bool spv_member_dec(const struct spv_module *m, uint32_t st,
			   uint32_t member, uint32_t dec, uint32_t *v)
{
	size_t i = 5;

	while (i < m->n) {
		const uint32_t *ins = m->w + i;

		if ((ins[0] & 0xffff) == OP_MEMBER_DECORATE && ins[1] == st &&
		    ins[2] == member && ins[3] == dec && (ins[0] >> 16) > 4) {
			*v = ins[4];
			return true;
		}
		i += ins[0] >> 16;
	}
	return false;
}

/*
 * An upper bound of the bytes a type of an explicitly laid-out block takes
 * (0: a type a push-constant block may not hold).  @mstride is the
 * MatrixStride of the member holding it.
 */
static uint64_t spv_size(const struct spv_module *m, uint32_t type,
			 uint32_t mstride, int depth)
{
	const uint32_t *ins = spv_def(m, type);
	uint32_t len, i, nmem, off;
	uint64_t end = 0, sz;

	if (!ins || depth > SPV_MAX_DEPTH)
		return 0;
	switch (ins[0] & 0xffff) {
	case OP_TYPE_INT:
	case OP_TYPE_FLOAT:
		return ins[2] / 8;
	case OP_TYPE_VECTOR:
		return ins[3] * spv_size(m, ins[2], 0, depth + 1);
	case OP_TYPE_MATRIX:
		/* Columns or rows of MatrixStride bytes: at most 4 of either. */
		return 4ull * mstride;
	case OP_TYPE_ARRAY:
		if (!spv_const(m, ins[3], &len))
			return 0;
		return (uint64_t)len * m->ids[type].stride;
	case OP_TYPE_STRUCT:
		nmem = (ins[0] >> 16) - 2;
		for (i = 0; i < nmem; i++) {
			uint32_t ms = 0;

			if (!spv_member_dec(m, type, i, DEC_OFFSET, &off))
				return 0;
			spv_member_dec(m, type, i, DEC_MATRIX_STRIDE, &ms);
			sz = spv_size(m, ins[2 + i], ms, depth + 1);
			if (!sz)
				return 0;
			if (off + sz > end)
				end = off + sz;
		}
		return end;
	default:
		return 0;
	}
}

/* One module-scope variable: is the engine's layout able to bind it? */
static int spv_check_var(const struct spv_module *m, const uint32_t *ins,
			 uint32_t nbindings, struct wvk_spirv_facts *f)
{
	const uint32_t *ptr = spv_def(m, ins[1]);
	uint32_t id = ins[2], sc = ins[3], pointee;
	const struct spv_id *v = &m->ids[id];
	uint64_t sz;

	if (!ptr || (ptr[0] & 0xffff) != OP_TYPE_POINTER)
		return wvk_fail(-EINVAL, "variable %%%u has no pointer type", id);
	pointee = ptr[3];
	if (!spv_def(m, pointee))
		return wvk_fail(-EINVAL, "variable %%%u points to no type", id);
	switch (sc) {
	case SC_INPUT:
	case SC_WORKGROUP:
	case SC_PRIVATE:
	case SC_FUNCTION:
		return 0;
	case SC_PUSH_CONSTANT:
		sz = spv_size(m, pointee, 0, 0);
		if (!sz)
			return wvk_fail(-EINVAL, "push-constant block %%%u has a type the engine does not lay out",
					id);
		if (sz > f->push_bytes)
			f->push_bytes = (uint32_t)(sz > UINT32_MAX ? UINT32_MAX : sz);
		return 0;
	case SC_UNIFORM:
		if (!(m->ids[pointee].flags & ID_BUFFER_BLOCK))
			return wvk_fail(-EINVAL, "variable %%%u is a uniform buffer; the engine binds storage buffers only",
					id);
		break;
	case SC_STORAGE_BUFFER:
		break;
	default:
		return wvk_fail(-EINVAL, "variable %%%u is of storage class %u, which the engine does not bind",
				id, sc);
	}
	ptr = spv_def(m, pointee);
	if (!ptr || (ptr[0] & 0xffff) != OP_TYPE_STRUCT)
		return wvk_fail(-EINVAL, "variable %%%u is an array of buffers", id);
	if (!(v->flags & ID_HAS_SET) || !(v->flags & ID_HAS_BINDING))
		return wvk_fail(-EINVAL, "buffer %%%u has no set or binding", id);
	if (v->set != 0 || v->binding >= nbindings)
		return wvk_fail(-EINVAL, "buffer %%%u is at set %u binding %u; the pipeline has set 0, bindings 0 to %u",
				id, v->set, v->binding, nbindings - 1);
	return 0;
}

/* The first pass: definitions and decorations of each id. */
static int spv_index(struct spv_module *m, const struct wvk_device *d)
{
	size_t i = 5;

	while (i < m->n) {
		const uint32_t *ins = m->w + i;
		uint32_t op = ins[0] & 0xffff, len = ins[0] >> 16;
		struct spv_id *t;

		if (op == OP_CAPABILITY && !wvk_cap_allowed(d, ins[1]))
			return wvk_fail(-EINVAL, "capability %u is not allowed on %s",
					ins[1], d->info.name);
		if (op == OP_MEMORY_MODEL && ins[1] != ADDRESSING_LOGICAL)
			return wvk_fail(-EINVAL, "addressing model %u: only logical addressing is allowed",
					ins[1]);
		if (op == OP_DECORATE && len >= 3) {
			t = &m->ids[ins[1]];
			if (ins[2] == DEC_SET && len >= 4)
				t->flags |= ID_HAS_SET;
			if (ins[2] == DEC_BINDING && len >= 4)
				t->flags |= ID_HAS_BINDING;
			if (ins[2] == DEC_BLOCK)
				t->flags |= ID_BLOCK;
			else if (ins[2] == DEC_BUFFER_BLOCK)
				t->flags |= ID_BUFFER_BLOCK;
			else if (ins[2] == DEC_SET && len >= 4)
				t->set = ins[3];
			else if (ins[2] == DEC_BINDING && len >= 4)
				t->binding = ins[3];
			else if (ins[2] == DEC_ARRAY_STRIDE && len >= 4)
				t->stride = ins[3];
			else if (ins[2] == DEC_BUILTIN && len >= 4 &&
				 ins[3] == BUILTIN_WORKGROUP_SIZE)
				t->flags |= ID_WG_SIZE;
		}
		/* Types, constants and variables: the result id is word 1 or 2. */
		if ((op >= OP_TYPE_BOOL && op <= OP_TYPE_POINTER) && len >= 2)
			m->ids[ins[1]].def = (uint32_t)i;
		else if ((op == OP_CONSTANT || op == OP_SPEC_CONSTANT ||
			  op == OP_CONSTANT_COMPOSITE ||
			  op == OP_SPEC_CONSTANT_COMPOSITE ||
			  op == OP_VARIABLE) && len >= 3)
			m->ids[ins[2]].def = (uint32_t)i;
		i += len;
	}
	return 0;
}

/* The entry point's workgroup size, within the device's limits. */
static int spv_check_size(const struct spv_module *m, const struct wvk_device *d,
			  uint32_t entry_id, struct wvk_spirv_facts *f)
{
	const struct wvk_device_info *info = &d->info;
	uint64_t total = 1;
	size_t i = 5;
	uint32_t k;

	for (; i < m->n; i += m->w[i] >> 16) {
		const uint32_t *ins = m->w + i;
		uint32_t op = ins[0] & 0xffff, len = ins[0] >> 16;

		if (op == OP_EXECUTION_MODE && ins[1] == entry_id &&
		    ins[2] == MODE_LOCAL_SIZE && len >= 6)
			memcpy(f->local_size, ins + 3, sizeof(f->local_size));
		/* Constants' ids; no specialisation, so their defaults. */
		if (op == OP_EXECUTION_MODE_ID && ins[1] == entry_id &&
		    ins[2] == MODE_LOCAL_SIZE_ID && len >= 6)
			for (k = 0; k < 3; k++)
				if (!spv_const(m, ins[3 + k], &f->local_size[k]))
					return wvk_fail(-EINVAL, "LocalSizeId names no constant");
		/* A WorkgroupSize constant overrides every entry's LocalSize. */
		if ((op == OP_CONSTANT_COMPOSITE ||
		     op == OP_SPEC_CONSTANT_COMPOSITE) && len >= 6 &&
		    (m->ids[ins[2]].flags & ID_WG_SIZE))
			for (k = 0; k < 3; k++)
				if (!spv_const(m, ins[3 + k], &f->local_size[k]))
					return wvk_fail(-EINVAL, "the WorkgroupSize constant is not made of constants");
	}
	for (k = 0; k < 3; k++) {
		if (!f->local_size[k] ||
		    f->local_size[k] > info->max_group_size[k])
			return wvk_fail(-EINVAL, "workgroup size %u x %u x %u is beyond %u x %u x %u",
					f->local_size[0], f->local_size[1],
					f->local_size[2], info->max_group_size[0],
					info->max_group_size[1],
					info->max_group_size[2]);
		total *= f->local_size[k];
	}
	if (total > info->max_group_invocations)
		return wvk_fail(-EINVAL, "workgroup of %llu invocations, beyond %u",
				(unsigned long long)total,
				info->max_group_invocations);
	return 0;
}

/* The second pass: the entry point, the variables, the push constants. */
static int spv_check(const struct spv_module *m, const struct wvk_device *d,
		     const char *entry, uint32_t nbindings,
		     struct wvk_spirv_facts *f)
{
	uint32_t entry_id = 0;
	size_t i;
	int ret;

	for (i = 5; i < m->n; i += m->w[i] >> 16) {
		const uint32_t *ins = m->w + i;
		uint32_t op = ins[0] & 0xffff, len = ins[0] >> 16;

		if (op == OP_ENTRY_POINT && len >= 4 && ins[1] == MODEL_GLCOMPUTE &&
		    strnlen((const char *)(ins + 3), (len - 3) * 4) < (len - 3) * 4 &&
		    !strcmp((const char *)(ins + 3), entry))
			entry_id = ins[2];
		if (op == OP_VARIABLE && len >= 4 && ins[3] != SC_FUNCTION) {
			ret = spv_check_var(m, ins, nbindings, f);
			if (ret)
				return ret;
		}
	}
	if (!entry_id)
		return wvk_fail(-EINVAL, "the module has no GLCompute entry point \"%s\"",
				entry);
	if (f->push_bytes > d->info.push_bytes)
		return wvk_fail(-EINVAL, "the push constants take %u bytes, beyond %u",
				f->push_bytes, d->info.push_bytes);
	return spv_check_size(m, d, entry_id, f);
}

int wvk_spirv_check(const struct wvk_device *dev, const uint32_t *words,
		    size_t nwords, const char *entry, uint32_t nbindings,
		    struct wvk_spirv_facts *facts)
{
	struct spv_module m = { .w = words, .n = nwords };
	int ret;

	memset(facts, 0, sizeof(*facts));
	if (nwords < 5)
		return wvk_fail(-EINVAL, "%zu words are no SPIR-V module", nwords);
	if (words[0] != SPV_MAGIC)
		return wvk_fail(-EINVAL, "bad SPIR-V magic 0x%08x%s", words[0],
				words[0] == __builtin_bswap32(SPV_MAGIC) ?
				" (the other byte order)" : "");
	ret = wvk_validate(words, nwords);
	if (ret)
		return ret;
	m.bound = words[3];
	if (m.bound > SPV_MAX_IDS)
		return wvk_fail(-EINVAL, "id bound %u is beyond the engine's %u",
				m.bound, SPV_MAX_IDS);
	m.ids = calloc(m.bound, sizeof(*m.ids));
	if (!m.ids)
		return wvk_fail(-ENOMEM, "out of memory");
	ret = spv_index(&m, dev);
	if (!ret)
		ret = spv_check(&m, dev, entry, nbindings, facts);
	free(m.ids);
	return ret;
}
