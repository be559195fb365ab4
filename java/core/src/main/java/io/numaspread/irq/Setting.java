// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;

/** The CPUs one kernel file should hold. */
public record Setting(Target target, CpuSet cpus) {}
