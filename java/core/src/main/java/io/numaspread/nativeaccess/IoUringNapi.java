// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import java.util.Objects;

/**
 * An io_uring ring's NAPI busy-poll settings, as {@code io_uring_register(IORING_REGISTER_NAPI)} (Linux 6.9) sets
 * them and writes back the ones in force before each call ({@code struct io_uring_napi}): how long the ring's
 * waits busy-poll, and which NAPI instances they poll.
 *
 * @param busyPollUsecs how long a wait busy-polls before it sleeps, in microseconds ({@code busy_poll_to})
 * @param preferBusyPoll whether the kernel should defer the NAPIs' softirq processing to this poller
 * @param tracking which NAPI instances the ring polls
 */
public record IoUringNapi(int busyPollUsecs, boolean preferBusyPoll, Tracking tracking) {
    public IoUringNapi {
        if (busyPollUsecs < 0) {
            throw new IllegalArgumentException("busy-poll time " + busyPollUsecs + " us is negative");
        }
        Objects.requireNonNull(tracking);
    }

    /**
     * {@code enum io_uring_napi_tracking_strategy}: where the ring's list of NAPI instances comes from. Linux 6.9 to
     * 6.12 know only dynamic tracking and write back {@link #DYNAMIC} whatever the ring's state.
     */
    public enum Tracking {
        /** The NAPI instances of the sockets the ring's requests touch, added as they come and aged out. */
        DYNAMIC,
        /** Exactly the NAPI IDs added with {@code IO_URING_NAPI_STATIC_ADD_ID} (Linux 6.13+). */
        STATIC,
        /** No busy polling: the state of a ring never registered, or unregistered (Linux 6.13+). */
        INACTIVE
    }
}
