// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The FFM backend's branch of {@link NativeBackend}, and how it is loaded. In this Java 17 base, {@link #load}
 * only says why FFM cannot be used; the multi-release jar's Java 23 overlay has the same interface, with the
 * same API ({@code jar --validate}), whose {@code load} binds libc and libnuma.
 *
 * <p>Non-sealed because the base cannot name the overlay's implementation; package-private, so that nothing
 * outside this package implements it.
 */
non-sealed interface FfmBackend extends NativeBackend {
    /**
     * @throws BackendUnavailableException always here: the JDK is too old for the overlay, or numaspread-core was
     *     read without it
     */
    static NativeBackend load(int maskBits) throws BackendUnavailableException {
        int feature = Runtime.version().feature();
        int overlayFeature = 23;
        throw new BackendUnavailableException(
                BackendKind.FFM,
                feature < overlayFeature
                        ? "it needs JDK " + overlayFeature + " or newer and this is JDK " + feature
                        : "its classes are not here: numaspread-core must be loaded as its multi-release jar, not"
                                + " from a classes folder or a jar without Multi-Release: true");
    }
}
