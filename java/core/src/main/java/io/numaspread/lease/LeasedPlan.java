// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.CpuSet;
import io.numaspread.plan.SpreadPlan;

/**
 * A plan made around the CPUs other processes hold.
 *
 * @param plan the plan
 * @param shared the CPUs of the plan that another process holds too: none while free CPUs were enough
 */
public record LeasedPlan(SpreadPlan plan, CpuSet shared) {}
