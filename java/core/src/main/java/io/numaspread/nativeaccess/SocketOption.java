// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * The {@code getsockopt} and {@code ioctl} constants JNA needs: socket options from {@code <asm-generic/socket.h>},
 * which every Linux architecture that numaspread builds for (x86_64, aarch64) uses, and Linux 6.9's epoll
 * busy-poll ioctls from {@code <linux/eventpoll.h>}, whose numbers are the same on both. The FFM bindings take
 * them from the headers (headers/numaspread.h).
 */
final class SocketOption {
    static final int SOL_SOCKET = 1;
    static final int SO_INCOMING_CPU = 49;
    static final int SO_INCOMING_NAPI_ID = 56;

    /** {@code _IOW(0x8A, 0x01, struct epoll_params)}. */
    static final long EPIOCSPARAMS = 0x40088a01L;
    /** {@code _IOR(0x8A, 0x02, struct epoll_params)}. */
    static final long EPIOCGPARAMS = 0x80088a02L;
    /** {@code sizeof(struct epoll_params)}: u32 usecs, u16 budget, u8 prefer, u8 pad. */
    static final int EPOLL_PARAMS_SIZE = 8;

    private SocketOption() {}
}
