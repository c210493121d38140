// SPDX-License-Identifier: MIT
// Spins until the host writes stop != 0, which the deadline tests never do,
// counting its turns so that the loop has an effect the compiler keeps and
// the host sees it run.  llvmpipe ends a loop after 65535 iterations
// (gallivm's guard against endless loops, one counter per invocation that
// every loop entry resets), so one invocation is not endless there: the
// tests dispatch the most workgroups the device takes, about 2.8e14 of
// 65535 turns each, years of work.
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
