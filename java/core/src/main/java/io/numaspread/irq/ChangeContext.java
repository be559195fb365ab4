// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.PerNapiThreaded;

/**
 * What the changes read and write the kernel through, shared by one {@link AffinityTransaction}'s changes.
 *
 * @param maskBits the number of CPUs the machine can have (cpu/possible), which sizes hex masks
 * @param threads how NAPI threads are found, pinned and scheduled
 * @param napiSettings each NAPI's busy-poll settings (netdev netlink, Linux 6.13)
 */
record ChangeContext(
        KernelPaths paths,
        KernelFiles files,
        int maskBits,
        NapiThreads threads,
        NapiSettingsChange.Access napiSettings,
        IrqAffinity irqs,
        XpsMasks xps,
        NapiThreadAffinity napiThreads,
        ThreadedNapi threaded) {
    ChangeContext(
            KernelPaths paths,
            KernelFiles files,
            int maskBits,
            NapiThreads threads,
            NapiSettingsChange.Access napiSettings) {
        this(
                paths,
                files,
                maskBits,
                threads,
                napiSettings,
                new IrqAffinity(paths, files),
                new XpsMasks(paths, files),
                new NapiThreadAffinity(paths, threads),
                new ThreadedNapi(paths, files));
    }

    PerNapiThreaded perNapi() {
        return threads.perNapi();
    }

    /** Who reads and writes {@code target}'s kind of value. */
    SettingWriter writer(Target target) {
        return switch (target.kind()) {
            case IRQ -> irqs;
            case XPS -> xps;
            case NAPI_THREAD -> napiThreads;
        };
    }

    /** A napi-set that the probe found denied, before any change: what was to be done, and the kernel's error. */
    static NumaspreadException napiSetRefused(String doing, String error) {
        return new NumaspreadException(
                NumaspreadException.Kind.REFUSED,
                doing + ": " + error + ": netdev netlink napi-set needs CAP_NET_ADMIN; nothing was changed");
    }
}
