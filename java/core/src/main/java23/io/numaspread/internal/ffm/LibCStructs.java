// SPDX-License-Identifier: Apache-2.0
package io.numaspread.internal.ffm;

import io.numaspread.internal.ffm.gen.epoll_params;
import io.numaspread.internal.ffm.gen.io_uring_napi;
import io.numaspread.internal.ffm.gen.libc_h;
import io.numaspread.internal.ffm.gen.pollfd;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The structs that {@link LibC}'s calls take and fill, built and read from the jextract layouts, and the header
 * constants that go in their fields. The backend passes such a struct to a call and reads what the kernel wrote
 * back; it gets them here because only {@code internal.ffm} may use the generated package. A struct the backend
 * never sees ({@code sched_param}, {@code sockaddr_nl}) is built inside its call in {@link LibC}.
 */
public final class LibCStructs {
    private LibCStructs() {}

    /** A {@code struct epoll_params} in {@code arena}, for {@link LibC#epollParams}. */
    public static MemorySegment epollParams(Arena arena, int usecs, int budget, boolean preferBusyPoll) {
        MemorySegment params = epoll_params.allocate(arena);
        epoll_params.busy_poll_usecs(params, usecs);
        epoll_params.busy_poll_budget(params, (short) budget);
        epoll_params.prefer_busy_poll(params, (byte) (preferBusyPoll ? 1 : 0));
        return params;
    }

    /** {@code busy_poll_usecs}, {@code busy_poll_budget} (unsigned) and {@code prefer_busy_poll} of a struct. */
    public static int[] epollParamsFields(MemorySegment params) {
        return new int[] {
            epoll_params.busy_poll_usecs(params),
            Short.toUnsignedInt(epoll_params.busy_poll_budget(params)),
            epoll_params.prefer_busy_poll(params)
        };
    }

    /**
     * A {@code struct io_uring_napi} in {@code arena}: {@code opcode} (as {@code <linux/io_uring.h>} names it without
     * its {@code IO_URING_NAPI_} prefix: {@code REGISTER_OP}, {@code STATIC_ADD_ID}, {@code STATIC_DEL_ID}) with
     * {@code op_param}, which for {@code REGISTER_OP} is a {@link #ioUringNapiTracking} number.
     */
    public static MemorySegment ioUringNapi(
            Arena arena, String opcode, int busyPollUsecs, boolean preferBusyPoll, int opParam) {
        MemorySegment napi = io_uring_napi.allocate(arena);
        io_uring_napi.busy_poll_to(napi, busyPollUsecs);
        io_uring_napi.prefer_busy_poll(napi, (byte) (preferBusyPoll ? 1 : 0));
        io_uring_napi.opcode(napi, (byte)
                switch (opcode) {
                    case "REGISTER_OP" -> libc_h.IO_URING_NAPI_REGISTER_OP();
                    case "STATIC_ADD_ID" -> libc_h.IO_URING_NAPI_STATIC_ADD_ID();
                    case "STATIC_DEL_ID" -> libc_h.IO_URING_NAPI_STATIC_DEL_ID();
                    default -> throw new IllegalArgumentException("no io_uring NAPI opcode " + opcode);
                });
        io_uring_napi.op_param(napi, opParam);
        return napi;
    }

    /**
     * The header's number for a NAPI tracking strategy named as {@code <linux/io_uring.h>} names it without its
     * {@code IO_URING_NAPI_TRACKING_} prefix ({@code STATIC}), or -1 for a name it does not define.
     */
    public static int ioUringNapiTracking(String name) {
        return switch (name) {
            case "DYNAMIC" -> libc_h.IO_URING_NAPI_TRACKING_DYNAMIC();
            case "STATIC" -> libc_h.IO_URING_NAPI_TRACKING_STATIC();
            case "INACTIVE" -> libc_h.IO_URING_NAPI_TRACKING_INACTIVE();
            default -> -1;
        };
    }

    /** {@code busy_poll_to}, {@code prefer_busy_poll} and {@code op_param} of a struct the kernel wrote back. */
    public static int[] ioUringNapiFields(MemorySegment napi) {
        return new int[] {
            io_uring_napi.busy_poll_to(napi), io_uring_napi.prefer_busy_poll(napi), io_uring_napi.op_param(napi)
        };
    }

    /** A {@code struct pollfd} in {@code arena} that waits for input on {@code fd}. */
    public static MemorySegment pollIn(Arena arena, int fd) {
        MemorySegment wait = pollfd.allocate(arena);
        pollfd.fd(wait, fd);
        pollfd.events(wait, (short) libc_h.POLLIN());
        return wait;
    }
}
