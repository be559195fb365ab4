// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;

/**
 * Where one thread of a process runs now.
 *
 * @param name its {@code comm}: the first 15 bytes of its name
 * @param cpu the CPU it last ran on ({@code processor} in {@code stat})
 * @param allowed its {@code Cpus_allowed_list}
 */
public record ThreadPlacement(int tid, String name, int cpu, CpuSet allowed) {}
