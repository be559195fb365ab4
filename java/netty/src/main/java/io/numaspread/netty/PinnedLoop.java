// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.netty.channel.IoEventLoop;
import io.numaspread.CpuSet;
import io.numaspread.plan.Assignment;

/**
 * One event loop of a {@link PinnedEventLoopGroup}.
 *
 * @param index the loop's position in the group, which is also its assignment's index
 * @param assignment where the plan put it
 * @param cpus the CPUs its thread may run on, as the kernel reported them from inside the loop after the pin
 * @param tid its thread's Linux thread id
 */
public record PinnedLoop(int index, IoEventLoop loop, Assignment assignment, CpuSet cpus, int tid, String threadName) {}
