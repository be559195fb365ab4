// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.nativeaccess.EpollBusyPoll;
import java.util.Objects;

/**
 * IRQ suspension (Linux 6.13): while an application's {@code epoll_wait} keeps finding events, its queue's
 * device IRQ stays masked for up to {@code irq-suspend-timeout}; once a poll finds nothing, {@code
 * gro-flush-timeout} and {@code defer-hard-irqs} take over again. It takes both halves: the application's epoll
 * instance with {@code prefer_busy_poll} ({@code EPIOCSPARAMS}, 6.9) and the queue's NAPI instance's settings
 * ({@code napi-set}, 6.13).
 *
 * @param epoll each epoll instance's busy-poll parameters; {@code preferBusyPoll} must be set
 * @param napi each NAPI instance's settings; {@code irqSuspendTimeoutNanos} must be above zero
 */
public record IrqSuspension(EpollBusyPoll epoll, NapiSettings napi) {
    /** The kernel that first suspends IRQs ({@code irq-suspend-timeout} in netdev {@code napi-set}). */
    public static final String NEEDED_KERNEL = NapiConfig.NEEDED_KERNEL;

    public IrqSuspension {
        Objects.requireNonNull(epoll, "epoll");
        Objects.requireNonNull(napi, "napi");
        if (!epoll.preferBusyPoll()) {
            throw new IllegalArgumentException("IRQ suspension needs prefer_busy_poll on the epoll instance");
        }
        if (napi.irqSuspendTimeoutNanos() == 0) {
            throw new IllegalArgumentException("IRQ suspension needs an irq-suspend-timeout above 0 ns");
        }
    }

    /**
     * The published recipe: the series' cover letter (Damato and Karsten, "Suspend IRQs during application busy
     * periods", net-next for Linux 6.13) benchmarks it as {@code suspend20}, and the kernel's
     * Documentation/networking/napi.rst ("IRQ suspension") explains each part.
     *
     * <ul>
     *   <li>{@code busy_poll_usecs} 0: with {@code prefer_busy_poll} the series makes {@code epoll_wait} poll the
     *       NAPI once even at 0, which is all suspension needs; more busy looping only burns CPU.
     *   <li>{@code busy_poll_budget} 64: the kernel's {@code NAPI_POLL_WEIGHT}, the most an unprivileged process
     *       may set.
     *   <li>{@code prefer_busy_poll} on: the application's pledge to poll, without which nothing is suspended.
     *   <li>{@code defer-hard-irqs} 100 and {@code gro-flush-timeout} 20,000 ns (20 us): napi.rst asks for "low
     *       values" that defer IRQs after a poll finds nothing; the cover letter's {@code suspend20} uses these.
     *   <li>{@code irq-suspend-timeout} 20,000,000 ns (20 ms): napi.rst's safety net, the longest the application
     *       may take between polls before IRQs come back; "much larger than gro_flush_timeout".
     * </ul>
     */
    public static IrqSuspension recipe() {
        return new IrqSuspension(
                new EpollBusyPoll(0, EpollBusyPoll.NAPI_POLL_WEIGHT, true), new NapiSettings(100, 20_000, 20_000_000));
    }
}
