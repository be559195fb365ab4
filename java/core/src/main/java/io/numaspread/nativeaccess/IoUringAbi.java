// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What JNA needs for {@code io_uring_register(IORING_REGISTER_NAPI)}: the syscall's number, the same on x86_64 and
 * aarch64 (the io_uring calls came after the unified syscall table), and Linux 6.13's {@code <linux/io_uring.h>}
 * numbers and {@code struct io_uring_napi}. The FFM bindings take them from the headers (headers/numaspread.h).
 */
final class IoUringAbi {
    static final long SYS_IO_URING_REGISTER = 427;
    static final int IORING_REGISTER_NAPI = 27;
    static final int IORING_UNREGISTER_NAPI = 28;
    static final int NAPI_REGISTER_OP = 0;
    static final int NAPI_STATIC_ADD_ID = 1;
    static final int NAPI_STATIC_DEL_ID = 2;
    /** {@code sizeof(struct io_uring_napi)}: u32 busy_poll_to, u8 prefer, u8 opcode, u8 pad[2], u32 op_param, resv. */
    static final int NAPI_SIZE = 16;

    private IoUringAbi() {}

    /** The kernel's number of a tracking strategy ({@code IO_URING_NAPI_TRACKING_*}). */
    static int number(IoUringNapi.Tracking tracking) {
        return switch (tracking) {
            case DYNAMIC -> 0;
            case STATIC -> 1;
            case INACTIVE -> 255;
        };
    }

    /** A {@code struct io_uring_napi} of {@code opcode}, whose {@code op_param} is {@code param}. */
    static byte[] napi(int opcode, int busyPollUsecs, boolean preferBusyPoll, int param) {
        return ByteBuffer.allocate(NAPI_SIZE)
                .order(ByteOrder.nativeOrder())
                .putInt(busyPollUsecs)
                .put((byte) (preferBusyPoll ? 1 : 0))
                .put((byte) opcode)
                .putShort((short) 0)
                .putInt(param)
                .putInt(0)
                .array();
    }

    /** The settings a {@code struct io_uring_napi} written back by the kernel holds. */
    static IoUringNapi settings(byte[] napi) {
        ByteBuffer read = ByteBuffer.wrap(napi).order(ByteOrder.nativeOrder());
        int usecs = read.getInt();
        boolean prefer = read.get() != 0;
        return new IoUringNapi(usecs, prefer, tracking(read.getInt(8)));
    }

    /**
     * The tracking strategy the kernel's {@code op_param} names. Linux 6.9 to 6.12 write back zeros there (their
     * {@code resv}), which is {@link IoUringNapi.Tracking#DYNAMIC}, the only tracking they have.
     */
    static IoUringNapi.Tracking tracking(int number) {
        return switch (number) {
            case 0 -> IoUringNapi.Tracking.DYNAMIC;
            case 1 -> IoUringNapi.Tracking.STATIC;
            case 255 -> IoUringNapi.Tracking.INACTIVE;
            default ->
                throw new IllegalStateException(
                        "the kernel wrote back NAPI tracking " + number + ", which is none of <linux/io_uring.h>'s");
        };
    }
}
