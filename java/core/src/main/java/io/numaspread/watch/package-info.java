// SPDX-License-Identifier: Apache-2.0
/**
 * Keeping a NIC's plan applied: the kernel's netlink events (link messages and kobject uevents) parsed from
 * their bytes, a periodic drift check, and the back-off from another writer that keeps moving an IRQ. The
 * {@link io.numaspread.watch.Watcher} writes only through the {@code irq} package's transaction; the parsers and
 * the back-off rules are pure functions over values.
 *
 * <pre>{@code
 * Watcher watcher = new Watcher(List.of(new InterfaceName("eth0")), KernelPaths.LIVE, backend.kernelFiles(),
 *         planning, settings, listener, Clock.systemUTC());
 * watcher.start();                    // applies; the listener hears each WatchEvent from here on
 * watcher.run(true);                  // until stopped; puts the original values back on the way out
 * }</pre>
 */
package io.numaspread.watch;
