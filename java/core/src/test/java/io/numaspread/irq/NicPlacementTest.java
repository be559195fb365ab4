// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.Mode;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The apply sequence the CLI and the agent share, on a four-queue i40e NIC of the mana machine. */
class NicPlacementTest extends StandInNicTest {
    private static final PlacementOptions PLAIN = new PlacementOptions(false, false, false);
    private static final PlacementOptions WITH_XPS = new PlacementOptions(false, true, false);
    private static final PlacementOptions FORCED = new PlacementOptions(true, false, false);

    private Nic nic;
    private SpreadPlan plan;

    @BeforeEach
    void nic() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        nic = NicDiscovery.discover(new InterfaceName("eth0"), paths);
        // Sibling groups, so that the values written differ from any single CPU the fixture starts with.
        plan = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withMode(Mode.SIBLINGS));
    }

    private NicPlacement.Outcome apply(PlacementOptions placement, boolean dryRun, NicPlacement.StateLocation state) {
        return apply(plan, placement, dryRun, state);
    }

    private NicPlacement.Outcome apply(
            SpreadPlan plan, PlacementOptions placement, boolean dryRun, NicPlacement.StateLocation state) {
        return new NicPlacement(paths, KernelFiles.DIRECT, Optional.empty(), state)
                .apply(nic, Wanted.plan(plan), new NicPlacement.Options(placement, dryRun));
    }

    @Test
    void writesTheNicsPlanRecordsTheStateAndSaysHowToUndo() throws IOException {
        NicPlacement.Outcome outcome = apply(WITH_XPS, false, NicPlacement.StateLocation.file(state));
        assertEquals(
                List.of("0-1", "2-3", "0-1", "2-3"), List.of(affinity(50), affinity(51), affinity(52), affinity(53)));
        for (NicVector vector : nic.queueVectors()) {
            assertEquals(plan.get(nic.planIndex(vector.queue())).cpus().toString(), affinity(vector.irq()));
        }
        assertEquals("0c", Files.readString(paths.xpsCpus(nic.name(), 1)).strip());
        assertEquals("0-7", affinity(49), "the misc vector is no queue's");
        assertTrue(outcome.changed());
        assertEquals(Map.of(AffinityTransaction.Status.CHANGED, 8), outcome.counts());
        assertEquals(state, outcome.stateFile());
        assertFalse(outcome.defaultStateFile());
        assertEquals(paths, outcome.paths(), "the stand-in roots, which the command that undoes it must repeat");
        assertEquals(nic.name(), StateFile.read(state).orElseThrow().iface());

        NicPlacement.Outcome again = apply(WITH_XPS, false, NicPlacement.StateLocation.file(state));
        assertFalse(again.changed());
        assertEquals(Map.of(AffinityTransaction.Status.UNCHANGED, 8), again.counts());
    }

    @Test
    void aRunningIrqbalanceIsRefusedBeforeAnyChangeUnlessForcedOrADryRun() throws IOException {
        NicFixture.process(proc, 700, "irqbalance", "/usr/sbin/irqbalance", "--foreground");
        before = NicFixture.snapshot(proc, sys);
        NumaspreadException refused = assertThrows(
                NumaspreadException.class, () -> apply(PLAIN, false, NicPlacement.StateLocation.file(state)));
        assertEquals(NumaspreadException.Kind.REFUSED, refused.kind());
        assertTrue(refused.getMessage().startsWith("irqbalance is running (pid 700)"), refused.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));

        NicPlacement.Outcome dry = apply(PLAIN, true, NicPlacement.StateLocation.file(state));
        assertEquals(Map.of(AffinityTransaction.Status.WOULD_CHANGE, 4), dry.counts());
        assertFalse(dry.changed());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));

        NicPlacement.Outcome forced = apply(FORCED, false, NicPlacement.StateLocation.file(state));
        assertEquals(Map.of(AffinityTransaction.Status.CHANGED, 4), forced.counts());
        assertEquals("2-3", affinity(51));
    }

    @Test
    void withoutAStateFileItUsesTheInterfacesWhichRestoreFindsByName() {
        NicPlacement.Outcome dry = apply(PLAIN, true, NicPlacement.StateLocation.DEFAULT);
        assertEquals(StateFile.defaultPath(paths, nic.name()), dry.stateFile());
        assertTrue(dry.defaultStateFile());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertEquals(Path.of("/run/numaspread/eth0.json"), StateFile.defaultPath(KernelPaths.LIVE, nic.name()));
    }

    @Test
    void aStandInTreesDefaultStateFollowsItsRootsNeverTheLiveOne() throws IOException {
        NicPlacement.Outcome applied = apply(PlacementOptions.DEFAULTS, false, NicPlacement.StateLocation.DEFAULT);
        assertTrue(applied.changed());
        // The defaults are apply's and watch's (PlacementOptions.DEFAULTS), which the agent's irqs=apply uses: XPS too.
        assertEquals("0c", Files.readString(paths.xpsCpus(nic.name(), 1)).strip());
        assertEquals(proc.resolve("numaspread/eth0.json"), applied.stateFile());
        assertTrue(Files.isRegularFile(proc.resolve("numaspread/eth0.json")));
        assertTrue(applied.defaultStateFile());
        assertEquals(paths, applied.paths());
    }

    @Test
    void aPlanThatIsNotOnePerQueueIsRefusedBeforeAnyChange() {
        Topology mana = SysfsFixture.topology(MachineShape.mana(), sys);
        SpreadPlan two = Planner.plan(mana, nic.planRequest(mana, Purpose.IRQS).withCount(2));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> apply(two, PLAIN, false, NicPlacement.StateLocation.file(state)));
        assertEquals("the plan has 2 assignments for 4 queues of eth0", e.getMessage());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }
}
