// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.ForwardingFiles;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --rps-off} on the four-queue i40e of the mana machine, whose receive queues 0 and 2 steer packets to
 * other CPUs (RPS on) and 1 and 3 do not: written with the plan, all or nothing, recorded and put back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RpsOffTest extends StandInNicTest {
    private static final PlacementOptions RPS_OFF = new PlacementOptions(false, true, false, true);
    private static final List<String> MASKS = List.of("0000000f", "00000000", "000000f0", "0");

    private Nic nic;
    private SpreadPlan plan;

    @BeforeEach
    void rpsOnTwoQueues() throws IOException {
        for (int queue = 0; queue < MASKS.size(); queue++) {
            Files.writeString(rps(queue), MASKS.get(queue) + "\n");
        }
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(new InterfaceName("eth0"), paths);
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS));
        before = NicFixture.snapshot(proc, sys);
    }

    private Path rps(int queue) {
        return paths.netDevice(new InterfaceName("eth0")).resolve("queues/rx-" + queue + "/rps_cpus");
    }

    private List<String> masks() throws IOException {
        List<String> masks = new ArrayList<>();
        for (int queue = 0; queue < MASKS.size(); queue++) {
            masks.add(Files.readString(rps(queue)).strip());
        }
        return masks;
    }

    private NicPlacement placement(KernelFiles files) {
        return new NicPlacement(paths, files, Optional.empty(), NicPlacement.StateLocation.file(state));
    }

    private NicPlacement.Outcome apply(KernelFiles files, PlacementOptions options) {
        return placement(files).apply(nic, Wanted.plan(plan), new NicPlacement.Options(options, false));
    }

    @Test
    void turnsRpsOffWithThePlanRecordsTheMasksThatWereSetAndRestorePutsThemBack() throws IOException {
        NicPlacement.Outcome outcome = apply(KernelFiles.DIRECT, RPS_OFF);

        assertEquals(List.of("0", "00000000", "0", "0"), masks(), "rx-0 and rx-2 written, the others left");
        assertTrue(outcome.changed(), "the IRQs were written too");
        StateFile.State recorded = StateFile.read(state).orElseThrow();
        assertEquals(
                Map.of(0, "0000000f", 2, "000000f0"),
                recorded.record(RpsRecord.class).before());
        assertTrue(
                Files.readString(state).contains("\"rps\": [\n    {\"queue\": 0, \"cpus\": \"0000000f\"},"),
                Files.readString(state));

        placement(KernelFiles.DIRECT).restore(state, Optional.of(nic.name()), NapiThreads.NONE);
        assertEquals(MASKS, masks());
        assertEquals(before, NicFixture.snapshot(proc, sys), "every IRQ, XPS and RPS file as it was");
        assertFalse(Files.exists(state));
    }

    @Test
    void aSecondApplyFindsRpsOffAndKeepsTheFirstRecord() throws IOException {
        apply(KernelFiles.DIRECT, RPS_OFF);
        String first = Files.readString(state);
        NicPlacement.Outcome again = apply(KernelFiles.DIRECT, RPS_OFF);
        assertFalse(again.changed());
        assertEquals(first, Files.readString(state), "nothing to record: RPS is off and the IRQs are placed");
    }

    @Test
    void withoutTheFlagRpsIsLeftAlone() throws IOException {
        apply(KernelFiles.DIRECT, new PlacementOptions(false, true, false));
        assertEquals(MASKS, masks());
        assertTrue(StateFile.read(state).orElseThrow().record(RpsRecord.class).isEmpty());
    }

    @Test
    void aFailedWriteOfTheSecondQueuePutsBackTheFirstAndEveryIrq() {
        KernelFiles failing = new ForwardingFiles() {
            @Override
            public void write(Path file, String value) throws IOException {
                if (file.equals(rps(2)) && value.equals("0")) {
                    throw new IOException("injected: " + file);
                }
                super.write(file, value);
            }
        };
        NumaspreadException failed = assertThrows(NumaspreadException.class, () -> apply(failing, RPS_OFF));

        assertEquals(NumaspreadException.Kind.ROLLED_BACK, failed.kind());
        assertTrue(failed.getMessage().contains(rps(2) + ": writing 0 to turn RPS off failed"), failed.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys), "rx-0's mask and every IRQ and XPS mask put back");
        assertFalse(Files.exists(state), "the run created the state file, and everything is back");
    }

    @Test
    void aMaskThatDoesNotReadBackAsEmptyIsAFailureRolledBack() {
        KernelFiles keeping = new ForwardingFiles() {
            @Override
            public void write(Path file, String value) throws IOException {
                if (!file.equals(rps(0)) || !value.equals("0")) {
                    super.write(file, value);
                }
            }
        };
        NumaspreadException failed = assertThrows(NumaspreadException.class, () -> apply(keeping, RPS_OFF));
        assertTrue(
                failed.getMessage().contains(rps(0) + ": wrote 0 to turn RPS off, and it reads back 0000000f"),
                failed.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void anUnreadableMaskIsRefusedBeforeAnyChange() throws IOException {
        Files.writeString(rps(1), "zz\n");
        before = NicFixture.snapshot(proc, sys);
        NumaspreadException refused = assertThrows(NumaspreadException.class, () -> apply(KernelFiles.DIRECT, RPS_OFF));
        assertEquals(NumaspreadException.Kind.BAD_INPUT, refused.kind());
        assertTrue(refused.getMessage().contains(rps(1) + " reads \"zz\", not a hex mask"), refused.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void restoreSkipsAQueueThatIsGoneAndPutsBackTheRest() throws IOException {
        apply(KernelFiles.DIRECT, RPS_OFF);
        Files.delete(rps(2));
        Files.delete(rps(2).getParent());
        placement(KernelFiles.DIRECT).restore(state, Optional.of(nic.name()), NapiThreads.NONE);
        assertEquals("0000000f", Files.readString(rps(0)).strip());
        assertFalse(Files.exists(state));
    }

    @Test
    void aRecordOfABadMaskIsRefusedNamingTheEntry() throws IOException {
        writeStateFile("{\"version\": 1, \"interface\": \"eth0\", \"saved\": [],"
                + " \"rps\": [{\"queue\": 0, \"cpus\": \"0x0f\"}]}\n");
        NumaspreadException refused = assertThrows(
                NumaspreadException.class,
                () -> placement(KernelFiles.DIRECT).restore(state, Optional.of(nic.name()), NapiThreads.NONE));
        assertTrue(
                refused.getMessage().contains("entry 1 of \"rps\": \"cpus\" \"0x0f\" is not a hex mask"),
                refused.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }
}
