// SPDX-License-Identifier: GPL-2.0-only
// Refused by the engine: 144 bytes of push constants, past its 128.
#version 450

layout(local_size_x = 1) in;

layout(push_constant) uniform Push {
	vec4 v[8];
	uint tail[4];
} pc;

layout(std430, set = 0, binding = 0) buffer B { float b; };

void main()
{
	b = pc.v[7].w + float(pc.tail[3]);
}
