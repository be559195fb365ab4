// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.nic.IrqSuspension;
import io.numaspread.nic.NapiInstance;
import io.numaspread.nic.NapiMap;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import io.numaspread.nic.NapiSource;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNapiSettings;
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
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code apply --irq-suspend}'s core: the recipe's NAPI settings written to the planned queues' NAPIs with the
 * IRQs, all or nothing, each NAPI's own settings in the state file before the first {@code napi-set}, and {@code
 * restore} putting every value back. The netlink side is a map standing in for the kernel's per-NAPI settings: NAPIs
 * 8193-8196 serve queues 0-3 of the stand-in i40e eth0, 8197 serves none (transmit only).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NapiSettingsApplyTest extends StandInNicTest {
    private static final NapiSettings RECIPE = IrqSuspension.recipe().napi();
    private static final PlacementOptions PLAIN = new PlacementOptions(false, false, false);

    /** The kernel's per-NAPI settings, by NAPI ID; the state file is read before each napi-set. */
    private final StandInNapiSettings netlink = new StandInNapiSettings();

    private final Map<Integer, NapiSettings> kernel = netlink.kernel();
    private final List<String> stateAtEachSet = new ArrayList<>();

    private Nic nic;
    private SpreadPlan plan;
    private NapiMap map;
    private Map<Integer, NapiSettings> kernelBefore;

    @BeforeEach
    void nicAndNapis() {
        netlink.beforeEachSet(() -> stateAtEachSet.add(Files.exists(state) ? readState() : ""));
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(new InterfaceName("eth0"), paths);
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS));
        List<NapiInstance> instances = new ArrayList<>();
        for (int queue = 0; queue < 4; queue++) {
            instances.add(new NapiInstance(
                    8193 + queue, OptionalInt.of(queue), OptionalInt.of(50 + queue), OptionalInt.empty()));
            kernel.put(8193 + queue, new NapiSettings(0, 0, 0));
        }
        instances.add(new NapiInstance(8197, OptionalInt.empty(), OptionalInt.empty(), OptionalInt.empty()));
        kernel.put(8197, new NapiSettings(0, 0, 0));
        kernel.put(8194, new NapiSettings(2, 200_000, 0)); // set by another tool: restore must give it back
        map = new NapiMap(nic.name(), instances, NapiSource.NETLINK, "netdev netlink");
        kernelBefore = Map.copyOf(kernel);
    }

    private NicPlacement.Outcome apply(KernelFiles files, boolean dryRun) {
        return new NicPlacement(paths, files, Optional.empty(), NicPlacement.StateLocation.file(state))
                .apply(
                        nic,
                        Wanted.suspended(plan, RECIPE, new NicPlacement.NapiSettingsAccess(() -> map, netlink)),
                        new NicPlacement.Options(PLAIN, dryRun));
    }

    /** What the apply did to the NAPIs, which an apply with IRQ suspension always says. */
    private static NicPlacement.NapiSettingsOutcome napis(NicPlacement.Outcome outcome) {
        return outcome.napiSettings().orElseThrow(() -> new AssertionError("no NAPI settings in " + outcome));
    }

    private String readState() {
        try {
            return Files.readString(state);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void setsThePlannedNapisRecordedFirstWithTheIrqsAndRestorePutsEveryValueBack() throws IOException {
        NicPlacement.Outcome outcome = apply(KernelFiles.DIRECT, false);

        assertEquals(
                List.of(8193, 8194, 8195, 8196),
                List.copyOf(napis(outcome).before().keySet()));
        assertEquals(new NapiSettings(2, 200_000, 0), napis(outcome).before().get(8194));
        for (int napiId = 8193; napiId <= 8196; napiId++) {
            assertEquals(RECIPE, kernel.get(napiId), "NAPI " + napiId);
        }
        assertEquals(new NapiSettings(0, 0, 0), kernel.get(8197), "a NAPI of no queue is left alone");
        assertTrue(stateAtEachSet.get(0).contains("\"napi_settings\""), stateAtEachSet.get(0));
        assertEquals(Map.of(AffinityTransaction.Status.CHANGED, 4), outcome.counts());
        assertEquals("2-3", affinity(51));
        StateFile.State recorded = StateFile.read(state).orElseThrow();
        assertEquals(
                new NapiSettings(2, 200_000, 0),
                recorded.record(NapiSettingsRecord.class).before().get(8194));
        assertEquals(4, recorded.saved().size());

        new AffinityTransaction(paths, KernelFiles.DIRECT, 8, NapiThreads.NONE, netlink)
                .restore(state, Optional.of(nic.name()));
        assertEquals(kernelBefore, kernel);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aNapiSetFailingMidwayPutsBackTheNapisAlreadySetNamesTheNapiAndChangesNoIrq() {
        netlink.failSet(3, Errno.EINVAL);
        NapiFeatureFailure e = assertThrows(NapiFeatureFailure.class, () -> apply(KernelFiles.DIRECT, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertEquals(NapiFeatureFailure.Feature.IRQ_SUSPENSION, e.feature());
        assertTrue(
                e.getMessage().startsWith("NAPI 8195: netlink netdev napi-set 8195 failed: EINVAL" + " (errno 22)")
                        && e.getMessage().endsWith("the NAPIs already set were put back; nothing was changed"),
                e.getMessage());
        assertEquals(kernelBefore, kernel);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    /** A NAPI that cannot be put back keeps its entries in the state file, and restore gives it back later. */
    @Test
    void aPutBackThatFailsLeavesTheEntriesForRestore() {
        netlink.failSet(3, Errno.EINVAL); // NAPI 8195's napi-set
        netlink.failSet(4, Errno.EINVAL); // then putting NAPI 8193 back
        RestoreNeeded e = assertThrows(RestoreNeeded.class, () -> apply(KernelFiles.DIRECT, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertEquals(state, e.stateFile());
        assertTrue(e.problem().contains("NAPI 8195") && e.problem().contains("ROLLBACK FAILED"), e.problem());
        assertEquals(RECIPE, kernel.get(8193), "the put-back failed");
        assertEquals(kernelBefore.get(8194), kernel.get(8194), "put back");
        assertEquals(before, NicFixture.snapshot(proc, sys), "no IRQ was written");
        assertEquals(
                kernelBefore.get(8193),
                StateFile.read(state)
                        .orElseThrow()
                        .record(NapiSettingsRecord.class)
                        .before()
                        .get(8193));

        new AffinityTransaction(paths, KernelFiles.DIRECT, 8, NapiThreads.NONE, netlink)
                .restore(state, Optional.of(nic.name()));
        assertEquals(kernelBefore, kernel);
        assertFalse(Files.exists(state));
    }

    @Test
    void anIrqWriteFailingAfterTheNapisPutsEveryNapiAndIrqBack() {
        KernelFiles failing = new KernelFiles() {
            private int writes;

            @Override
            public String read(Path file) throws IOException {
                return KernelFiles.DIRECT.read(file);
            }

            @Override
            public void write(Path file, String value) throws IOException {
                if (++writes == 3) {
                    throw new ErrnoException("write", file, Errno.EINVAL.number());
                }
                KernelFiles.DIRECT.write(file, value);
            }

            @Override
            public void probeWritable(Path file) throws IOException {
                KernelFiles.DIRECT.probeWritable(file);
            }
        };
        NumaspreadException e = assertThrows(NumaspreadException.class, () -> apply(failing, false));
        assertEquals(NumaspreadException.Kind.ROLLED_BACK, e.kind());
        assertTrue(e.getMessage().endsWith("; every NAPI's settings were put back too"), e.getMessage());
        assertEquals(8, netlink.sets(), "four napi-sets before the IRQs, and four putting them back");
        assertEquals(kernelBefore, kernel);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void withoutCapNetAdminTheFirstNapiSetIsRefusedAndNothingChanges() {
        netlink.failSet(1, Errno.EPERM);
        NapiFeatureFailure e = assertThrows(NapiFeatureFailure.class, () -> apply(KernelFiles.DIRECT, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.IRQ_SUSPENSION, e.feature());
        assertTrue(
                e.getMessage().contains("NAPI 8193") && e.getMessage().contains("needs CAP_NET_ADMIN"), e.getMessage());
        assertEquals(kernelBefore, kernel);
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    @Test
    void aKernelWithoutNapiSettingsIsRefusedBeforeAnyChange() {
        NapiSettingsChange.Access old = new NapiSettingsChange.Access() {
            @Override
            public NapiSettings read(int napiId) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "reading NAPI settings needs Linux 6.13 or newer (netdev netlink napi-set); kernel 6.12.48's"
                                + " netdev family lacks napi-set");
            }

            @Override
            public void write(int napiId, NapiSettings settings) {
                throw new AssertionError("napi-set on NAPI " + napiId);
            }
        };
        for (boolean dryRun : List.of(true, false)) {
            NapiFeatureFailure e = assertThrows(
                    NapiFeatureFailure.class,
                    () -> new NicPlacement(
                                    paths, KernelFiles.DIRECT, Optional.empty(), NicPlacement.StateLocation.file(state))
                            .apply(
                                    nic,
                                    Wanted.suspended(plan, RECIPE, new NicPlacement.NapiSettingsAccess(() -> map, old)),
                                    new NicPlacement.Options(PLAIN, dryRun)));
            assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
            assertEquals(NapiFeatureFailure.Feature.IRQ_SUSPENSION, e.feature());
            assertTrue(
                    e.getMessage().startsWith("NAPI 8193: ")
                            && e.getMessage().contains("Linux 6.13")
                            && e.getMessage().contains("kernel 6.12.48"),
                    e.getMessage());
            assertEquals(before, NicFixture.snapshot(proc, sys));
            assertFalse(Files.exists(state));
        }
    }

    @Test
    void aNicWhoseQueuesHaveNoNapiIdsIsRefusedNamingIt() {
        map = new NapiMap(nic.name(), List.of(), NapiSource.NETLINK, "netdev netlink");
        NapiFeatureFailure e = assertThrows(NapiFeatureFailure.class, () -> apply(KernelFiles.DIRECT, false));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(NapiFeatureFailure.Feature.IRQ_SUSPENSION, e.feature());
        assertTrue(e.getMessage().startsWith("no queue of eth0 has a NAPI ID"), e.getMessage());
        assertEquals(kernelBefore, kernel);
        assertEquals(0, netlink.sets());
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aDryRunReadsEachNapiAndChangesNothing() {
        NicPlacement.Outcome outcome = apply(KernelFiles.DIRECT, true);
        assertEquals(new NapiSettings(2, 200_000, 0), napis(outcome).before().get(8194));
        assertEquals(4, napis(outcome).before().size());
        assertEquals(Map.of(AffinityTransaction.Status.WOULD_CHANGE, 4), outcome.counts());
        assertEquals(0, netlink.sets());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }
}
