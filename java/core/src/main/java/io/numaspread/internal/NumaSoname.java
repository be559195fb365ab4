// SPDX-License-Identifier: Apache-2.0
package io.numaspread.internal;

/**
 * libnuma's soname, for the JNA backend in the base and the FFM bindings in the overlay: the unversioned
 * {@code libnuma.so} exists only with the -dev package. Not exported from the module.
 */
public final class NumaSoname {
    public static final String VALUE = "libnuma.so.1";

    private NumaSoname() {}
}
