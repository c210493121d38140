// SPDX-License-Identifier: MIT
// Never ends unless the host writes stop != 0, which the tests never do: a
// job that runs past any deadline.  It counts its turns so that the loop
// has an effect the compiler keeps.
#version 450

layout(local_size_x = 1) in;

layout(std430, set = 0, binding = 0) coherent buffer Flag {
	uint stop;
	uint turns;
} f;

void main()
{
	while (f.stop == 0u)
		f.turns += 1u;
}
