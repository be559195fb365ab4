// SPDX-License-Identifier: Apache-2.0
/**
 * Pins threads to CPUs through the selected backend, refusing CPUs outside this process's allowed set
 * before the kernel is asked, and records each pin as a JFR event.
 *
 * <pre>{@code
 * ThreadPinner pinner = ThreadPinner.live();
 * pinner.pinCurrentThread(CpuSet.parse("2-3"));
 * SpreadPlan plan = Planner.plan(topology, PlanRequest.threads(0, 8));
 * ThreadFactory threads = PinnedThreadFactory.builder(plan, pinner).names("io-%d").build();
 * }</pre>
 */
package io.numaspread.pin;
