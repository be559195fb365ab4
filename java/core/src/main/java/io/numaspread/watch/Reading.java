// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import io.numaspread.nic.Nic;
import io.numaspread.plan.PollPlan;
import io.numaspread.plan.SpreadPlan;
import java.util.Optional;

/** What one check read: the NIC, the plan made for it, and what that plan depends on. */
record Reading(Nic nic, SpreadPlan plan, Optional<PollPlan> poll, NicSnapshot snapshot) {}
