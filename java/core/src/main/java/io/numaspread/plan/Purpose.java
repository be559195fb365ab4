// SPDX-License-Identifier: Apache-2.0
package io.numaspread.plan;

/** What is being placed; it decides the default allowed set. */
public enum Purpose {
    /** Device IRQs: every online CPU that is neither isolated nor nohz_full. */
    IRQS,
    /** This process's threads: the CPUs it may run on (its cpuset). */
    THREADS
}
