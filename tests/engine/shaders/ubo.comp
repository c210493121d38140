// SPDX-License-Identifier: GPL-2.0-only
// Refused by the engine: a uniform buffer, which its layout does not have.
#version 450

layout(local_size_x = 1) in;

layout(set = 0, binding = 0) uniform U { uint u; };
layout(std430, set = 0, binding = 1) buffer B { uint b; };

void main()
{
	b = u;
}
