// SPDX-License-Identifier: Apache-2.0
/**
 * The host-wide CPU lease registry, so that several JVMs on one host do not put their I/O threads on the same
 * CPUs while free ones remain: {@link io.numaspread.lease.CpuLeases} holds one lock file per CPU under {@code
 * /run/numaspread/cpus}, locked for as long as its holder lives, and {@link io.numaspread.lease.LeasedPlanner}
 * plans around the CPUs other processes hold, a pure function of the plan request and the held CPUs.
 */
package io.numaspread.lease;
