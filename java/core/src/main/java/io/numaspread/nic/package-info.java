// SPDX-License-Identifier: Apache-2.0
/**
 * Read-only NIC discovery: a {@link io.numaspread.nic.Nic}'s PCI function, NUMA node and queue interrupts,
 * from sysfs and {@code /proc/interrupts}. It never writes; the {@code irq} package changes affinity, and
 * the Netty module needs only this one.
 *
 * <pre>{@code
 * Nic nic = NicDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE);
 * nic.queues();                                             // the queue numbers, in order
 * SpreadPlan plan = Planner.plan(topology, nic.planRequest(topology, Purpose.IRQS));
 * }</pre>
 */
package io.numaspread.nic;
