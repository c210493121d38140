// SPDX-License-Identifier: GPL-2.0-only
// Refused by the engine: a storage buffer in set 1; it binds set 0 only.
#version 450

layout(local_size_x = 1) in;

layout(std430, set = 1, binding = 0) buffer B { uint b; };

void main()
{
	b = 1u;
}
