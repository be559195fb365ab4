// SPDX-License-Identifier: Apache-2.0
package io.numaspread.watch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.kernel.InterfaceName;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.StandInNicTest;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.testing.UpperDeviceFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code watch --nic bond0} over a two-port i40e card on mana's node 0, bond0 having only eth0 at the start: eth1
 * joining the bond is held and planned with eth0 (a CPU for every queue of both), and leaving it is restored to
 * what it held before it joined, its state file removed, eth0 planned alone again. A watch of eth0 itself does
 * not follow the bond.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WatcherBondMembersTest extends StandInNicTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final InterfaceName BOND0 = new InterfaceName("bond0");

    private final List<WatchEvent> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void bondOfEth0() {
        SysfsFixture.write(MachineShape.mana(), sys);
        NicFixture.secondI40ePort(sys, proc);
        UpperDeviceFixture.write(sys, "bond0", "bond", 10, 10, "eth0");
    }

    @Test
    void aMemberThatJoinsIsPlannedWithTheOthersAndOneThatLeavesIsRestored() throws Exception {
        List<String> eth1Before = affinities(60, 61, 62, 63);
        Watcher watcher = followingBond0();
        List<String> alone = affinities(50, 51, 52, 53);
        assertEquals(Set.of("0", "1", "2", "3"), new TreeSet<>(alone), "eth0 alone on node 0's 4 CPUs");
        assertEquals(eth1Before, affinities(60, 61, 62, 63), "eth1 is no member yet");
        Thread running = WatchHarness.running(watcher);
        Path eth1State = state.resolveSibling("eth1.json");

        UpperDeviceFixture.addLower(sys, "bond0", "eth1");
        await(
                "both ports planned together, eth1's state file written",
                () -> Files.exists(eth1State) && new TreeSet<>(affinities(50, 51, 52, 53, 60, 61, 62, 63)).size() == 8);
        assertTrue(heard().stream()
                .anyMatch(
                        e -> e instanceof WatchEvent.Joined j && j.nic().value().equals("eth1")));

        Files.delete(sys.resolve("class/net/bond0").toRealPath().resolve("lower_eth1"));
        await(
                "eth1 restored and let go, eth0 alone again",
                () -> !Files.exists(eth1State)
                        && affinities(60, 61, 62, 63).equals(eth1Before)
                        && new TreeSet<>(affinities(50, 51, 52, 53)).equals(new TreeSet<>(alone)));
        Thread.sleep(400); // drift checks: eth1, no longer watched, is left as restored
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));

        assertEquals(eth1Before, affinities(60, 61, 62, 63));
        assertFalse(Files.exists(eth1State));
        assertEquals(
                List.of(),
                heard().stream().filter(e -> e instanceof WatchEvent.Failed).toList());
        List<WatchEvent> left =
                heard().stream().filter(e -> e instanceof WatchEvent.Left).toList();
        assertEquals(1, left.size(), heard().toString());
        // Not at the check that finds it gone from the bond: a bond closes the member just after, and the close
        // drops what was written in between (the 7.3 guest).
        assertTrue(((WatchEvent.Left) left.get(0)).restore() instanceof WatchEvent.WaitsToRestore, left.toString());
    }

    /**
     * A bond closes the member it releases, and a closed igb or i40e port frees its vectors' handlers: the vectors
     * stay in its {@code msi_irqs}, with their numbers, but leave {@code /proc/interrupts} until it opens again, and
     * the kernel keeps what their {@code smp_affinity_list} held (Linux 7.3 takes a write to them and keeps the old
     * value). Watch keeps eth1's state file while it is closed and puts its values back once checks find it open.
     */
    @Test
    void aMemberTheBondClosesAsItLetsItGoGetsItsValuesBackOnceItOpens() throws Exception {
        List<String> eth1Before = affinities(60, 61, 62, 63);
        Watcher watcher = followingBond0();
        Thread running = WatchHarness.running(watcher);
        Path eth1State = state.resolveSibling("eth1.json");
        UpperDeviceFixture.addLower(sys, "bond0", "eth1");
        await(
                "both ports planned together",
                () -> Files.exists(eth1State) && new TreeSet<>(affinities(50, 51, 52, 53, 60, 61, 62, 63)).size() == 8);
        List<String> watched = affinities(60, 61, 62, 63);

        String open = Files.readString(paths.interrupts());
        Files.writeString(
                paths.interrupts(),
                open.lines()
                        .filter(line -> !line.contains("eth1") && !line.contains("3b:00.1"))
                        .reduce("", (a, b) -> a + b + "\n"));
        Files.delete(sys.resolve("class/net/bond0").toRealPath().resolve("lower_eth1"));
        await(
                "eth1 let go, closed",
                () -> heard().stream()
                        .anyMatch(e -> e instanceof WatchEvent.Left left
                                && left.restore() instanceof WatchEvent.WaitsToRestore));
        Thread.sleep(400); // drift checks while eth1 is closed
        assertEquals(watched, affinities(60, 61, 62, 63), "nothing written to a closed NIC's vectors");
        assertTrue(Files.exists(eth1State), "its originals kept");

        Files.writeString(paths.interrupts(), open); // eth1 opens again outside the bond
        await("eth1's values back once it is open", () -> !Files.exists(eth1State));
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));

        assertEquals(eth1Before, affinities(60, 61, 62, 63));
        assertEquals(
                List.of(new WatchEvent.Restored(new InterfaceName("eth1"), 4, 4, eth1State)),
                heard().stream()
                        .filter(e -> e instanceof WatchEvent.Restored r
                                && r.nic().value().equals("eth1"))
                        .toList());
    }

    @Test
    void aWatchOfTheNicItselfDoesNotFollowTheBond() throws Exception {
        List<String> eth1Before = affinities(60, 61, 62, 63);
        Watcher watcher = watcher();
        watcher.start();
        assertFalse(watcher.post(new KernelEvent("rtnetlink", "bond0 RTM_NEWLINK", Optional.of("bond0"))));
        Thread running = WatchHarness.running(watcher);
        UpperDeviceFixture.addLower(sys, "bond0", "eth1");
        Thread.sleep(500); // several drift checks
        watcher.stop(Duration.ofSeconds(20));
        running.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(eth1Before, affinities(60, 61, 62, 63));
        assertFalse(Files.exists(state.resolveSibling("eth1.json")));
    }

    @Test
    void theBondsOwnLinkMessageConcernsItsMembers() throws IOException {
        Watcher watcher = watcher();
        watcher.follow(UpperMembers.of(List.of(BOND0), paths).orElseThrow());
        assertTrue(watcher.post(new KernelEvent("rtnetlink", "bond0 RTM_NEWLINK", Optional.of("bond0"))));
        assertFalse(watcher.post(new KernelEvent("rtnetlink", "eth9 RTM_NEWLINK", Optional.of("eth9"))));
    }

    private List<String> affinities(int... irqs) throws IOException {
        List<String> cpus = new ArrayList<>();
        for (int irq : irqs) {
            cpus.add(affinity(irq));
        }
        return cpus;
    }

    private void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within 20 s; eth0 " + affinities(50, 51, 52, 53) + ", eth1 "
                        + affinities(60, 61, 62, 63) + "; "
                        + heard().stream()
                                .filter(e -> !(e instanceof WatchEvent.Checked))
                                .toList());
            }
            Thread.sleep(20);
        }
    }

    /** What the watcher has said so far: a copy, since its thread goes on adding. */
    private List<WatchEvent> heard() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    /** {@link #watcher}, following bond0's members, started. */
    private Watcher followingBond0() throws IOException {
        Watcher watcher = watcher();
        watcher.follow(UpperMembers.of(List.of(BOND0), paths).orElseThrow());
        watcher.start();
        return watcher;
    }

    /** {@code watch --per-cpu} of eth0, the only NIC bond0 has at the start, checking every 100 ms. */
    private Watcher watcher() {
        return WatchHarness.perCpu(List.of(ETH0), paths, state.getParent(), events);
    }
}
