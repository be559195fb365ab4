// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaspread.irq.Target;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.SysfsBackend;
import io.numaspread.watch.WatchEvent;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * numaspread_fight_backoff_seconds, scraped as Prometheus would: how much longer the current round of a fight
 * leaves the IRQ alone, falling to 0 when that back-off is over or the fight ends, and back up with a new round.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class WatchMetricsBackoffTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final Target IRQ_51 = Target.irq(51, "i40e-eth0-TxRx-1");
    private static final Target IRQ_52 = Target.irq(52, "i40e-eth0-TxRx-2");

    private final List<String> lines = new ArrayList<>();
    private final MovableClock clock = new MovableClock(Instant.parse("2026-12-01T12:00:00Z"));
    private final WatchMetrics metrics = new WatchMetrics(
            List.of(new InterfaceName("eth0")),
            lines::add,
            KernelPaths.LIVE,
            Optional.empty(),
            "sysfs",
            "polling",
            SysfsBackend.live(),
            clock);

    @Test
    void fallsToZeroWhenTheRoundsBackoffIsOver() throws IOException {
        fight(IRQ_51, 6);
        assertEquals(6.0, backoff("51"));
        clock.advance(Duration.ofMillis(2500));
        assertEquals(3.5, backoff("51"));
        clock.advance(Duration.ofSeconds(4));
        assertEquals(0.0, backoff("51"), "the back-off is over");
        // The next round, twice as long.
        fight(IRQ_51, 12);
        assertEquals(12.0, backoff("51"));
        assertEquals(List.of(), lines);
    }

    @Test
    void fallsToZeroWhenTheFightEndsDuringItsBackoff() throws IOException {
        fight(IRQ_51, 6);
        fight(IRQ_52, 3);
        metrics.heard(new WatchEvent.FightOver(ETH0, IRQ_51, Optional.empty()));
        assertEquals(0.0, backoff("51"), "a change planned everything again");
        assertEquals(3.0, backoff("52"), "the other fight goes on");
    }

    /** A new round of the fight over {@code irq}, which leaves it alone for {@code seconds} from now. */
    private void fight(Target irq, long seconds) {
        Duration alone = Duration.ofSeconds(seconds);
        metrics.heard(new WatchEvent.FightRound(
                ETH0,
                irq,
                "0",
                1,
                3,
                Duration.ofSeconds(6),
                alone,
                clock.instant().plus(alone),
                Duration.ofSeconds(60),
                List.of()));
    }

    /** The gauge's one sample for IRQ {@code irq} of eth0. */
    private double backoff(String irq) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
        String text = out.toString(StandardCharsets.UTF_8);
        Matcher sample = Pattern.compile("numaspread_fight_backoff_seconds\\{irq=\"" + irq + "\",nic=\"eth0\"} (\\S+)")
                .matcher(text);
        List<Double> values = new ArrayList<>();
        while (sample.find()) {
            values.add(Double.parseDouble(sample.group(1)));
        }
        assertEquals(1, values.size(), text);
        return values.get(0);
    }

    /** A clock that moves only when told. */
    private static final class MovableClock extends Clock {
        private volatile Instant now;

        MovableClock(Instant start) {
            now = start;
        }

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("one zone is enough here");
        }
    }
}
