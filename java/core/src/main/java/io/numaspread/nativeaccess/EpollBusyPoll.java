// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

/**
 * An epoll instance's busy-poll parameters, {@code struct epoll_params} of Linux 6.9's {@code EPIOCSPARAMS} and
 * {@code EPIOCGPARAMS}: how long {@code epoll_wait} polls the NAPI instance of its sockets before it sleeps.
 *
 * @param usecs how long to busy-poll, in microseconds; 0 turns busy polling of this instance off
 * @param budget packets per poll; above 64 (the kernel's {@code NAPI_POLL_WEIGHT}) needs {@code CAP_NET_ADMIN}
 * @param preferBusyPoll whether the kernel should defer the queue's softirq processing to this poller
 */
public record EpollBusyPoll(int usecs, int budget, boolean preferBusyPoll) {
    /** The kernel's {@code NAPI_POLL_WEIGHT}: the largest budget an unprivileged process may set. */
    public static final int NAPI_POLL_WEIGHT = 64;

    public EpollBusyPoll {
        if (usecs < 0) {
            throw new IllegalArgumentException("busy-poll time " + usecs + " us is negative");
        }
        if (budget < 0 || budget > 0xffff) {
            throw new IllegalArgumentException("busy-poll budget " + budget + " is outside 0-65535");
        }
    }
}
