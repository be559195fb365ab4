// SPDX-License-Identifier: Apache-2.0
/**
 * numaspread's vocabulary: {@link io.numaspread.CpuSet}, an immutable set of CPU numbers in the kernel's
 * cpulist and hex-mask forms, and {@link io.numaspread.NumaspreadException}, the one exception, whose
 * {@link io.numaspread.NumaspreadException.Kind} says what went wrong (bad input, refused, rolled back, ...).
 *
 * <pre>{@code
 * CpuSet cpus = CpuSet.parse("0-3,8");      // a kernel cpulist, as in /sys and /proc
 * cpus.contains(8);                         // true
 * cpus.toString();                          // "0-3,8"
 * }</pre>
 *
 * <p>The packages, bottom up: {@code kernel} (reading /sys and /proc), {@code nativeaccess} (the FFM, JNA
 * or sysfs backend), {@code topology}, {@code plan} (pure), {@code nic} (read-only NIC discovery),
 * {@code irq} (the all-or-nothing IRQ affinity transaction) and {@code pin} (thread pinning). No package
 * depends on one above it.
 */
package io.numaspread;
