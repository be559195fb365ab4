// SPDX-License-Identifier: Apache-2.0
/**
 * The write side: moves a NIC's queue IRQs (and, optionally, its XPS masks) to a plan, all or nothing.
 * {@link io.numaspread.irq.AffinityTransaction} writes a state file before the first change, rolls every
 * change back when one write fails, and restores from that file later;
 * {@link io.numaspread.irq.NicPlacement} turns a NIC and its plan into that transaction's settings.
 *
 * <pre>{@code
 * NicPlacement placement = new NicPlacement(KernelPaths.LIVE, KernelFiles.DIRECT, Optional.empty(),
 *         NicPlacement.StateLocation.DEFAULT);
 * NicPlacement.Outcome outcome = placement.apply(nic, NicPlacement.Wanted.plan(plan),
 *         NicPlacement.Options.defaults());                      // needs root; refuses while irqbalance runs
 * new AffinityTransaction(KernelPaths.LIVE, KernelFiles.DIRECT, sysfs.maskBits())
 *         .restore(outcome.stateFile(), Optional.of(nic.name()));   // puts every value back
 * }</pre>
 */
package io.numaspread.irq;
