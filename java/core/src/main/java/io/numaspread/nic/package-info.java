// SPDX-License-Identifier: Apache-2.0
/**
 * NIC discovery: a {@link io.numaspread.nic.Nic}'s PCI function, NUMA node and queue interrupts, from sysfs and
 * {@code /proc/interrupts}; its NAPI instances and leased queues from netdev netlink; and the NICs under an upper
 * device. It also holds the per-NAPI netlink calls that write ({@code napi-set} in {@link
 * io.numaspread.nic.NapiConfig}, behind {@link io.numaspread.nic.NapiSettingsChange.Access} and {@link
 * io.numaspread.nic.PerNapiThreaded}), but calls none of them itself: every write is one of the {@code irq}
 * package's changes, recorded in a state file first. The Netty module needs only the discovery.
 *
 * <pre>{@code
 * Nic nic = NicDiscovery.discover(new InterfaceName("eth0"), KernelPaths.LIVE);
 * nic.queues();                                             // the queue numbers, in order
 * SpreadPlan plan = Planner.plan(topology, nic.planRequest(topology, Purpose.IRQS));
 * }</pre>
 */
package io.numaspread.nic;
