// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The FFM backend on JDK 23 and newer: the overlay's version of the base's interface, with the same API, whose
 * {@link #load} binds libc and libnuma ({@link BoundFfmBackend}).
 */
non-sealed interface FfmBackend extends NativeBackend {
    /** Binds libc and, if it can, libnuma; masks hold {@code maskBits} CPUs, from {@code cpu/possible}. */
    static NativeBackend load(int maskBits) throws BackendUnavailableException {
        return BoundFfmBackend.load(maskBits);
    }
}
