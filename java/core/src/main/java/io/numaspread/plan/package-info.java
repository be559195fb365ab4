// SPDX-License-Identifier: Apache-2.0
/**
 * The planner: a pure function from a {@link io.numaspread.topology.Topology} and a
 * {@link io.numaspread.plan.PlanRequest} to a {@link io.numaspread.plan.SpreadPlan}, keeping the Linux
 * mana driver's priorities: one queue per CPU while free CPUs remain, NUMA locality by distance, SMT sibling
 * dislocality. It reads nothing and changes nothing. {@link io.numaspread.plan.Planner#poll} gives busy-poll
 * threads cores of their own, which the IRQ and thread plans then avoid.
 *
 * <pre>{@code
 * SpreadPlan irqs = Planner.plan(topology, PlanRequest.irqs(0, 8));          // 8 queues near node 0
 * SpreadPlan loops = Planner.plan(topology, PlanRequest.threads(1, 4).withMode(Mode.CPU));
 * loops.get(0).cpus();                                                      // where thread 0 goes
 * }</pre>
 */
package io.numaspread.plan;
