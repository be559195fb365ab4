// SPDX-License-Identifier: Apache-2.0
/**
 * The bottom package: where the kernel's files are ({@link io.numaspread.kernel.KernelPaths},
 * {@link io.numaspread.kernel.SysfsTree}), how they are read and written
 * ({@link io.numaspread.kernel.KernelFiles}), how numaspread's own files are replaced as root
 * ({@link io.numaspread.kernel.AtomicFile}) and kept in a directory only root can change
 * ({@link io.numaspread.kernel.TrustedDirectory}), errno names, and validated interface names. It depends on
 * nothing but {@code io.numaspread}.
 *
 * <pre>{@code
 * SysfsTree sysfs = SysfsTree.live();                      // or SysfsTree.at(copiedSysTree)
 * int maskBits = sysfs.maskBits();                         // CPU masks are sized from cpu/possible
 * KernelPaths paths = KernelPaths.LIVE;                    // /proc and /sys
 * InterfaceName nic = new InterfaceName("eth0");           // rejects names the kernel would not accept
 * }</pre>
 */
package io.numaspread.kernel;
