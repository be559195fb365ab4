// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import java.util.Optional;

/**
 * A CPU lease some process holds now: its lock file is locked.
 *
 * @param cpu the CPU
 * @param pid the process holding the lock, as the kernel lists it ({@code /proc/locks})
 * @param record what the holder wrote in the lock file; empty while it is still being written, or when it names
 *     another process than the lock's (a PID reused, a record left by a holder that crashed)
 */
public record HeldCpu(int cpu, long pid, Optional<LeaseRecord> record) {}
