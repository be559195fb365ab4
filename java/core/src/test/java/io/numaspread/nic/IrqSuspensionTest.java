// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.numaspread.nativeaccess.EpollBusyPoll;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** IRQ suspension's published recipe and what is not IRQ suspension. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IrqSuspensionTest {
    @Test
    void theRecipeIsTheCoverLettersSuspend20() {
        IrqSuspension recipe = IrqSuspension.recipe();
        assertEquals(new EpollBusyPoll(0, 64, true), recipe.epoll());
        assertEquals(new NapiSettings(100, 20_000, 20_000_000), recipe.napi());
    }

    @Test
    void withoutPreferBusyPollOrASuspendTimeoutItIsRefused() {
        NapiSettings napi = IrqSuspension.recipe().napi();
        assertEquals(
                "IRQ suspension needs prefer_busy_poll on the epoll instance",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> new IrqSuspension(new EpollBusyPoll(0, 64, false), napi))
                        .getMessage());
        assertEquals(
                "IRQ suspension needs an irq-suspend-timeout above 0 ns",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> new IrqSuspension(
                                        IrqSuspension.recipe().epoll(), new NapiSettings(100, 20_000, 0)))
                        .getMessage());
    }
}
