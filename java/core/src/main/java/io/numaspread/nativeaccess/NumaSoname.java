package io.numaspread.nativeaccess;

/** libnuma is loaded by its soname: the unversioned {@code libnuma.so} exists only with the -dev package. */
final class NumaSoname {
    static final String VALUE = "libnuma.so.1";

    private NumaSoname() {
    }
}
