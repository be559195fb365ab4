// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NicFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The forked CLI under a Turkish and a German locale (scripts/test generates both): Turkish case rules turn
 * "irq" into "İRQ" and "IRQ" into "ırq", and glibc words errno in German, which Java's I/O exceptions then carry.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocaleCliTest extends StandInCliTest {
    private static final String TURKISH = "tr_TR.UTF-8";
    private static final String GERMAN = "de_DE.UTF-8";

    @BeforeAll
    static void localesExist() throws Exception {
        Process list =
                new ProcessBuilder("locale", "-a").redirectErrorStream(true).start();
        String locales = new String(list.getInputStream().readAllBytes());
        list.waitFor();
        for (String locale : List.of("tr_TR.utf8", "de_DE.utf8")) {
            assertTrue(
                    locales.lines().anyMatch(locale::equals),
                    "locale " + locale + " is not generated (scripts/test" + " generates it as root: localedef -i "
                            + locale.substring(0, 5) + " -f UTF-8); have: " + locales);
        }
    }

    private static CliRun in(String locale, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return in(Main.class, locale, jvmOptions, args);
    }

    /** As {@link #in(String, List, String...)}, with apply's write {@code fault} ({@link FaultyApply}). */
    private static CliRun faulty(String fault, String locale, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return in(FaultyApply.class, locale, jvmOptions, FaultyApply.args(fault, args));
    }

    private static CliRun in(Class<?> main, String locale, List<String> jvmOptions, String... args)
            throws IOException, InterruptedException {
        return ForkedCli.run(
                main, List.of(), jvmOptions, ForkedCli.classPath(), Map.of("LANG", locale, "LC_ALL", locale), args);
    }

    @ParameterizedTest
    @ValueSource(strings = {TURKISH, GERMAN})
    void applyAndRestoreRoundTripWithAsciiOutput(String locale) throws Exception {
        CliRun apply = in(locale, List.of(), withState("apply", "--nic", "eth0", "--siblings", "--xps"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertTrue(apply.out().contains("IRQ 50 (i40e-eth0-TxRx-0)  0-7 -> 0-1  changed"), apply.out());
        String recorded = Files.readString(state);
        assertTrue(recorded.contains("\"irq\"") && recorded.contains("\"xps\""), recorded);
        assertFalse(recorded.contains("ı") || recorded.contains("İ"), recorded);

        CliRun irqs = in(
                locale,
                List.of(),
                "irqs",
                "--nic",
                "eth0",
                "--json",
                "--sysfs-root",
                sys.toString(),
                "--proc-root",
                proc.toString());
        assertEquals(0, irqs.exitCode(), irqs.err());
        assertTrue(irqs.out().replace(" ", "").contains("\"role\":\"queue\""), irqs.out());
        CliRun plan = in(locale, List.of(), "plan", "--node", "0,1", "--count", "2", "--sysfs-root", sys.toString());
        assertEquals(0, plan.exitCode(), plan.err());
        assertTrue(
                (irqs.out() + plan.out() + apply.out()).chars().allMatch(c -> c < 0x80), "digits and names are ASCII");

        CliRun restore = in(locale, List.of(), withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /** A state file written under another locale is read under Turkish rules too. */
    @Test
    void aStateFileFromElsewhereIsReadUnderTurkish() throws Exception {
        CliRun apply = in("C.UTF-8", List.of(), withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        CliRun restore = in(TURKISH, List.of(), withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /**
     * A managed IRQ's EIO, made by the real kernel ({@link FaultyApply} sends the write to {@code /proc/self/mem}
     * at an unmapped offset), is reported as managed under German: the errno is captured by the native backend.
     */
    @Test
    void aManagedIrqsEioIsManagedUnderGerman() throws Exception {
        CliRun apply = faulty("eio:2", GERMAN, List.of(), withState("apply", "--nic", "eth0", "--siblings"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertTrue(
                apply.out()
                        .contains("IRQ 51 (i40e-eth0-TxRx-1)  0-7 -> 2-3  managed (managed by the kernel: EIO"
                                + " (Input/output error))"),
                apply.out());
        assertEquals(
                List.of("0-1", "0-7", "0-1", "2-3"), List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        assertEquals(0, in(GERMAN, List.of(), withState("restore")).exitCode());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /**
     * The control: without a native backend, the same EIO reaches numaspread only as Java's German text, which
     * it does not parse; the apply is rolled back whole, as for any failure it cannot name.
     */
    @Test
    void withoutANativeBackendTheGermanTextIsNotParsedAndTheApplyRollsBack() throws Exception {
        CliRun apply =
                faulty("eio:2", GERMAN, List.of("-Dnumaspread.backend=sysfs"), withState("apply", "--nic", "eth0"));
        assertEquals(Failures.ROLLED_BACK, apply.exitCode(), apply.err());
        assertTrue(apply.err().contains("Eingabe-/Ausgabefehler") && apply.err().contains("rolled back"), apply.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }
}
