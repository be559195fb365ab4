// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The {@code getsockopt} constants JNA needs, from {@code <asm-generic/socket.h>}, which every Linux
 * architecture that numaspread builds for (x86_64, aarch64) uses. The FFM bindings take them from the headers.
 */
final class SocketOption {
    static final int SOL_SOCKET = 1;
    static final int SO_INCOMING_CPU = 49;

    private SocketOption() {
    }
}
