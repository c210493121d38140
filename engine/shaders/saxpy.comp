// SPDX-License-Identifier: MIT
// SAXPY: y[i] = a * x[i] + y[i] for i < n; a and n in push constants.
#version 450

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };

layout(push_constant) uniform Push {
	float a;
	uint n;
} pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;

	if (i < pc.n) {
		// Rounded twice, never fused: the CPU reference does the same.
		precise float ax = pc.a * x[i];
		precise float r = ax + y[i];

		y[i] = r;
	}
}
