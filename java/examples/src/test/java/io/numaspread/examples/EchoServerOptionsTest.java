// SPDX-License-Identifier: Apache-2.0
package io.numaspread.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The echo server's --irq-suspension and --transport flags: what they turn on and what they refuse to go with. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EchoServerOptionsTest {
    @Test
    void irqSuspensionIsOffUnlessAsked() {
        assertFalse(EchoServer.Options.parse(new String[] {"--nic", "eth0"}).irqSuspension());
    }

    @Test
    void irqSuspensionTakesNoBusyPollOfItsOwn() {
        EchoServer.Options options =
                EchoServer.Options.parse(new String[] {"--nic", "eth0", "--steer-by", "napi-id", "--irq-suspension"});
        assertTrue(options.irqSuspension());
        assertEquals(0, options.busyPollUsecs());
    }

    @Test
    void irqSuspensionAndBusyPollAreOneOrTheOther() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> EchoServer.Options.parse(
                        new String[] {"--nic", "eth0", "--busy-poll", "50", "--irq-suspension"}));
        assertEquals("give one of --busy-poll and --irq-suspension", refused.getMessage());
    }

    @Test
    void irqSuspensionNeedsTheNic() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> EchoServer.Options.parse(new String[] {"--default-loops", "4", "--irq-suspension"}));
        assertTrue(refused.getMessage().contains("--irq-suspension"), refused.getMessage());
    }

    @Test
    void theTransportIsEpollUnlessAsked() {
        assertEquals(
                EchoServer.Transport.EPOLL,
                EchoServer.Options.parse(new String[] {"--nic", "eth0"}).transport());
        assertEquals(
                EchoServer.Transport.IO_URING,
                EchoServer.Options.parse(new String[] {"--nic", "eth0", "--transport", "io_uring", "--busy-poll", "50"})
                        .transport());
    }

    @Test
    void anUnknownTransportIsNamed() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> EchoServer.Options.parse(new String[] {"--nic", "eth0", "--transport", "nio"}));
        assertEquals("--transport is epoll or io_uring, not 'nio'", refused.getMessage());
    }

    @Test
    void irqSuspensionIsEpollsAlone() {
        IllegalArgumentException refused = assertThrows(
                IllegalArgumentException.class,
                () -> EchoServer.Options.parse(
                        new String[] {"--nic", "eth0", "--transport", "io_uring", "--irq-suspension"}));
        assertEquals(
                "--irq-suspension is for epoll loops; io_uring loops busy-poll with --busy-poll", refused.getMessage());
    }
}
