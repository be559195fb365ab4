// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.irq.NicPlacement;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSource;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNapiSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code apply --irq-suspend} in words, over the stand-in i40e eth0 and a stand-in for the kernel's per-NAPI
 * settings (NAPIs 8193-8196 on queues 0-3): what it prints, the per-loop line, the refusals and a {@code napi-set}
 * failing part way. The netlink side is checked on this host's eth0 and in the 7.3 igb guest.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class IrqSuspendCliTest extends StandInCliTest {
    private final StandInNapiSettings netlink = new StandInNapiSettings();
    private final Map<Integer, NapiSettings> kernel = netlink.kernel();

    private NapiMap map;

    @BeforeEach
    void napis() {
        List<NapiInstance> instances = new ArrayList<>();
        for (int queue = 0; queue < 4; queue++) {
            instances.add(new NapiInstance(
                    8193 + queue, OptionalInt.of(queue), OptionalInt.of(50 + queue), OptionalInt.empty()));
            kernel.put(8193 + queue, new NapiSettings(0, 0, 0));
        }
        kernel.put(8194, new NapiSettings(2, 200_000, 0));
        map = new NapiMap(new InterfaceName("eth0"), instances, NapiSource.NETLINK, "test");
    }

    /** The CLI whose {@code apply} reaches {@link #kernel} for NAPI settings. */
    private CliRun run(String... args) {
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == ApplyCommand.class
                        ? type.cast(new ApplyCommand(
                                UnaryOperator.identity(),
                                (iface, paths) -> new NicPlacement.NapiSettingsAccess(() -> map, netlink)))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true), factory);
        return new CliRun(exitCode, out.toString(), err.toString());
    }

    @Test
    void applySaysEachNapisValuesBeforeAndAfterAndWhatEachLoopMustSet() {
        CliRun apply = run(withState("apply", "--nic", "eth0", "--irq-suspend"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertTrue(
                apply.out()
                        .contains("NAPI 8194  defer-hard-irqs 2, gro-flush-timeout 200 us, irq-suspend-timeout 0 ns"
                                + " -> defer-hard-irqs 100, gro-flush-timeout 20 us, irq-suspend-timeout 20 ms  set"),
                apply.out());
        assertTrue(
                apply.out()
                        .contains("note: IRQ suspension also needs each event loop's epoll instance to set"
                                + " prefer_busy_poll=1, busy_poll_usecs=0, busy_poll_budget=64 (ioctl EPIOCSPARAMS"),
                apply.out());
        for (int napiId = 8193; napiId <= 8196; napiId++) {
            assertEquals(IrqSuspension.recipe().napi(), kernel.get(napiId));
        }
        assertTrue(apply.out().contains("Undo with: numaspread restore"), apply.out());
    }

    @Test
    void aDryRunSaysWhatWouldChangeAndChangesNothing() {
        CliRun dry = run(withState("apply", "--nic", "eth0", "--irq-suspend", "--dry-run"));
        assertEquals(0, dry.exitCode(), dry.err());
        assertTrue(dry.out().contains("irq-suspend-timeout 20 ms  would change"), dry.out());
        assertEquals(0, netlink.sets());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aNapiSetFailingMidwayExitsFourNamingTheNapiAndErrnoWithNothingChanged() {
        Map<Integer, NapiSettings> kernelBefore = Map.copyOf(kernel);
        netlink.failSet(2, Errno.EBUSY);
        CliRun apply = run(withState("apply", "--nic", "eth0", "--irq-suspend"));
        assertEquals(Failures.ROLLED_BACK, apply.exitCode(), apply.err());
        RestoreCommandTest.assertOneCleanLine(apply);
        assertEquals(
                "numaspread: --irq-suspend: NAPI 8194: netlink netdev napi-set 8194 failed: EBUSY (errno 16); the"
                        + " NAPIs already set were put back; nothing was changed\n",
                apply.err());
        assertEquals(kernelBefore, kernel);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aNicWhoseQueuesHaveNoNapiIdIsRefusedNamingItAndTheOption() {
        map = new NapiMap(new InterfaceName("eth0"), List.of(), NapiSource.NETLINK, "napi-get gives 0 NAPIs");
        CliRun apply = run(withState("apply", "--nic", "eth0", "--irq-suspend"));
        assertEquals(Failures.REFUSED, apply.exitCode(), apply.err());
        assertEquals(
                "numaspread: --irq-suspend: no queue of eth0 has a NAPI ID: netdev netlink napi-get lists no NAPI of it"
                        + " (the kernel lists an interface's NAPIs only while it is up, and only for drivers that poll"
                        + " with NAPI) (napi-get gives 0 NAPIs); nothing was changed\n",
                apply.err());
        assertEquals(0, netlink.sets());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void onStandInTreesTheLiveKernelsNapisAreRefused() {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--irq-suspend"));
        assertEquals(Failures.BAD_INPUT, apply.exitCode(), apply.err());
        RestoreCommandTest.assertOneCleanLine(apply);
        assertTrue(apply.err().contains("--irq-suspend sets the live kernel's NAPI settings"), apply.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /** A busy-polled queue has no IRQ to suspend: the two ways to poll are refused together, before any change. */
    @Test
    void withBusyPollCoresItIsRefusedAsTheOtherWayToPoll() {
        CliRun apply = run(withState("apply", "--nic", "eth0", "--irq-suspend", "--poll-queues", "1"));
        assertEquals(Failures.BAD_INPUT, apply.exitCode(), apply.err());
        RestoreCommandTest.assertOneCleanLine(apply);
        assertTrue(apply.err().contains("--irq-suspend and --poll-queues are two ways to poll a queue"), apply.err());
        assertEquals(0, netlink.sets());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void watchRefusesItAndSaysApplyIsWhereItBelongs() {
        CliRun watch = CliRun.of(args("watch", "--nic", "eth0", "--irq-suspend"));
        assertEquals(Failures.BAD_INPUT, watch.exitCode(), watch.err());
        RestoreCommandTest.assertOneCleanLine(watch);
        assertTrue(watch.err().contains("--irq-suspend is apply's, not watch's"), watch.err());
    }
}
