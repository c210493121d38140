// SPDX-License-Identifier: MIT
// A checksum of n u32 words: out[0] = sum of x[i] * (2i + 1) and out[1] =
// xor of x[i] rotated left by i % 32, both order-free, so that any schedule
// gives the same bits; out must be zero before the task.
#version 450

#define WG 128

layout(local_size_x = WG) in;

layout(std430, set = 0, binding = 0) readonly buffer X { uint x[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint sum; uint xored; } o;

layout(push_constant) uniform Push {
	uint n;
} pc;

shared uint s_sum[WG];
shared uint s_xor[WG];

void main()
{
	uint l = gl_LocalInvocationID.x;
	uint i = gl_GlobalInvocationID.x;
	uint v = i < pc.n ? x[i] : 0u;
	uint r = i & 31u;

	s_sum[l] = v * (2u * i + 1u);
	s_xor[l] = r == 0u ? v : (v << r) | (v >> (32u - r));
	barrier();
	for (uint d = WG / 2u; d > 0u; d >>= 1) {
		if (l < d) {
			s_sum[l] += s_sum[l + d];
			s_xor[l] ^= s_xor[l + d];
		}
		barrier();
	}
	if (l == 0u) {
		atomicAdd(o.sum, s_sum[0]);
		atomicXor(o.xored, s_xor[0]);
	}
}
