// SPDX-License-Identifier: GPL-2.0-only
// Refused by the engine: a buffer reference (a physical pointer) reaches
// memory no task bound.
#version 450
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 1) in;

layout(buffer_reference, std430) buffer Ptr { uint v; };

layout(push_constant) uniform Push { Ptr p; } pc;

void main()
{
	pc.p.v = 1u;
}
