// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import java.util.OptionalLong;

/**
 * One queue's traffic counters as the driver keeps them (netdev {@code qstats-get}, Linux 6.10+): for a receive
 * queue the packets and bytes it passed to the stack, for a transmit queue those it sent. Empty where the driver
 * does not count.
 */
public record QueueCounters(boolean receive, int queue, OptionalLong packets, OptionalLong bytes) {}
