// SPDX-License-Identifier: MIT
// Inclusive prefix sum over u32, last pass: adds the scanned total of the
// workgroups before each 256-element block to every element of it.
#version 450

#define WG 256

layout(local_size_x = WG) in;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(std430, set = 0, binding = 1) readonly buffer Sums { uint sums[]; };

layout(push_constant) uniform Push {
	uint n;
} pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	uint g = gl_WorkGroupID.x;

	if (g > 0u && i < pc.n)
		data[i] += sums[g - 1u];
}
