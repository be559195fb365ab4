// SPDX-License-Identifier: Apache-2.0
/**
 * The write side: moves a NIC's queue IRQs (and, optionally, its XPS masks) to a plan, all or nothing.
 * {@link io.numaspread.irq.AffinityTransaction} writes a state file before the first change, rolls every
 * change back when one write fails, and restores from that file later;
 * {@link io.numaspread.irq.NicPlacement} turns a NIC and its plan into that transaction's settings, and is the one
 * entry of apply ({@code apply}) and of restore ({@code restore}).
 *
 * <pre>{@code
 * NicPlacement placement = new NicPlacement(KernelPaths.LIVE, KernelFiles.DIRECT, Optional.empty(),
 *         NicPlacement.StateLocation.DEFAULT);
 * NicPlacement.Outcome outcome = placement.apply(nic, Wanted.plan(plan),
 *         NicPlacement.Options.defaults());                      // needs root; refuses while irqbalance runs
 * placement.restore(outcome.stateFile(), Optional.of(nic.name()), NapiThreads.NONE);   // puts every value back
 * }</pre>
 */
package io.numaspread.irq;
