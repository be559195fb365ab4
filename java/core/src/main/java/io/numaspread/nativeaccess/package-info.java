// SPDX-License-Identifier: Apache-2.0
/**
 * The one way numaspread reaches the kernel: a {@link io.numaspread.nativeaccess.NativeBackend} chosen in
 * one place, {@link io.numaspread.nativeaccess.Backends}: FFM on JDK 23 and newer, JNA below, sysfs when
 * neither can be used. {@code -Dnumaspread.backend=ffm|jna|sysfs} forces one.
 *
 * <pre>{@code
 * Backends.Selection selection = Backends.live();
 * NativeBackend backend = selection.backend();             // backend.kind() is FFM, JNA or SYSFS
 * selection.unavailable();                                 // why each backend tried before it was not used
 * CpuSet mine = backend.affinity(0);                       // sched_getaffinity of the calling thread
 * }</pre>
 */
package io.numaspread.nativeaccess;
