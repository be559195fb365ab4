// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netty;

import io.numaspread.nativeaccess.IoUringNapi;
import java.util.List;

/**
 * One io_uring loop's NAPI busy polling as its ring read it back after
 * {@link PinnedEventLoopGroup.Builder#ioUringBusyPoll}.
 *
 * @param ringFd the ring's descriptor
 * @param settings what the kernel wrote back after the register
 * @param napiIds the NAPI IDs the ring polls under static tracking, its own queues'; empty under dynamic tracking
 */
public record IoUringLoopNapi(int ringFd, IoUringNapi settings, List<Integer> napiIds) {
    public IoUringLoopNapi {
        napiIds = List.copyOf(napiIds);
    }
}
