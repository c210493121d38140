// SPDX-License-Identifier: MIT
// Inclusive prefix sum over u32, first pass: each workgroup scans its 256
// elements of data in place and writes their total to sums[workgroup];
// with n <= 256 one workgroup scans everything (sums is then unused).
#version 450

#define WG 256

layout(local_size_x = WG) in;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Sums { uint sums[]; };

layout(push_constant) uniform Push {
	uint n;
	uint write_sums;
} pc;

shared uint tmp[WG];

void main()
{
	uint l = gl_LocalInvocationID.x;
	uint i = gl_GlobalInvocationID.x;

	tmp[l] = i < pc.n ? data[i] : 0u;
	barrier();
	// Hillis-Steele: log2(WG) steps, each adding the value d to the left.
	for (uint d = 1u; d < WG; d <<= 1) {
		uint v = l >= d ? tmp[l - d] : 0u;

		barrier();
		tmp[l] += v;
		barrier();
	}
	if (i < pc.n)
		data[i] = tmp[l];
	if (l == WG - 1u && pc.write_sums != 0u)
		sums[gl_WorkGroupID.x] = tmp[l];
}
