// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.BackendUnavailableException;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.testing.NeedsLiveNic;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * NAPI discovery of the live NIC eth0, through each backend, checked against the kernel's other views of it:
 * its rx queues in sysfs, its queue IRQs in /proc/interrupts, its threaded NAPI setting and the NAPI threads'
 * names in /proc. On Linux 6.8 and newer netdev netlink must answer; before, the fallback must say why.
 */
@NeedsLiveNic
class NapiDiscoveryLiveTest {
    private static final InterfaceName ETH0 = new InterfaceName("eth0");
    private static final KernelPaths LIVE = KernelPaths.LIVE;

    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void netlinkDiscoveryAgreesWithTheKernelsOtherViews(BackendKind kind) throws Exception {
        Optional<NativeBackend> backend = load(kind);
        if (backend.isEmpty()) {
            return; // FFM on a JDK before 23: load() asserted that it says so
        }
        NapiMap map = NapiDiscovery.discover(ETH0, LIVE, backend.get());
        if (!kernelAtLeast(6, 8)) {
            assertEquals(NapiSource.INTERRUPTS, map.source(), map.detail());
            assertTrue(map.detail().contains("Linux 6.8+"), map.detail());
            return;
        }
        assertNotEquals(NapiSource.INTERRUPTS, map.source(), map.detail());
        List<Integer> rxQueues = NicDiscovery.numbersIn(LIVE.netDevice(ETH0).resolve("queues"), "rx-");
        Set<Integer> ids = new HashSet<>();
        map.instances().forEach(instance -> assertTrue(ids.add(instance.id()), "NAPI ID " + instance.id() + " twice"));
        Set<Integer> queuesOfNapis = map.instances().stream()
                .filter(instance -> instance.queue().isPresent())
                .map(instance -> instance.queue().getAsInt())
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(rxQueues), queuesOfNapis, "every rx queue in sysfs has its NAPI: " + map);
        assertEquals(rxQueues.size(), queuesOfNapis.size());

        Nic nic = NicDiscovery.discover(ETH0, LIVE);
        Map<Integer, Integer> queueOfIrq =
                nic.queueVectors().stream().collect(Collectors.toMap(NicVector::irq, NicVector::queue, (a, b) -> a));
        for (NapiInstance instance : map.instances()) {
            if (instance.irq().isPresent()) {
                int irq = instance.irq().getAsInt();
                assertTrue(
                        queueOfIrq.containsKey(irq),
                        "NAPI " + instance.id() + "'s IRQ " + irq
                                + " is one of eth0's queue vectors in /proc/interrupts " + queueOfIrq);
                instance.queue()
                        .ifPresent(queue -> assertEquals(
                                queue,
                                queueOfIrq.get(irq),
                                "/proc/interrupts names IRQ " + irq + " for the queue NAPI " + instance.id()
                                        + " polls"));
            }
        }

        boolean threaded = !KernelText.readRequired(LIVE.netDevice(ETH0).resolve("threaded"))
                .equals("0");
        for (NapiInstance instance : map.instances()) {
            assertEquals(
                    threaded,
                    instance.threadPid().isPresent(),
                    "thread PID of " + instance + " with " + "threaded NAPI " + (threaded ? "on" : "off"));
            if (threaded) {
                int pid = instance.threadPid().getAsInt();
                assertEquals(
                        "napi/eth0-" + instance.id(),
                        KernelText.readRequired(Path.of("/proc", Integer.toString(pid), "comm")),
                        "the kernel thread of NAPI " + instance.id());
            }
        }
    }

    /**
     * napi-get reads eth0's NAPI settings; writing back exactly what was read (the host's NIC must not change)
     * succeeds and reads back the same. Before Linux 6.13 both are refused, naming the kernel needed and found.
     */
    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void napiSettingsReadBackWhatIsWritten(BackendKind kind) throws Exception {
        Optional<NativeBackend> backend = load(kind);
        if (backend.isEmpty()) {
            return;
        }
        NapiMap map = NapiDiscovery.discover(ETH0, LIVE, backend.get());
        if (!kernelAtLeast(6, 13)) {
            int napiId = map.instances().isEmpty() ? 1 : map.instances().get(0).id();
            NumaspreadException e =
                    assertThrows(NumaspreadException.class, () -> NapiConfig.read(LIVE, backend.get(), napiId));
            assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
            assertTrue(
                    e.getMessage().contains("needs Linux 6.13 or newer")
                            && e.getMessage()
                                    .contains(
                                            "kernel " + KernelText.readRequired(Path.of("/proc/sys/kernel/osrelease"))),
                    e.getMessage());
            NumaspreadException write = assertThrows(
                    NumaspreadException.class,
                    () -> NapiConfig.write(LIVE, backend.get(), napiId, new NapiSettings(0, 0, 0)));
            assertEquals(NumaspreadException.Kind.REFUSED, write.kind());
            return;
        }
        for (NapiInstance instance : map.instances()) {
            NapiSettings before = NapiConfig.read(LIVE, backend.get(), instance.id());
            NapiConfig.write(LIVE, backend.get(), instance.id(), before);
            assertEquals(before, NapiConfig.read(LIVE, backend.get(), instance.id()));
        }
        NativeCallException missing =
                assertThrows(NativeCallException.class, () -> NapiConfig.read(LIVE, backend.get(), Integer.MAX_VALUE));
        assertEquals(2, missing.errno(), "ENOENT: " + missing.getMessage());
        assertEquals("netlink netdev napi-get " + Integer.MAX_VALUE, missing.function());
    }

    /**
     * From Linux 6.17, napi-get reports each NAPI's own threaded, one value per NAPI of eth0, on exactly when it has
     * a thread; napi-set of the value read (the host's NIC must not change) succeeds and reads back the same.
     * Before, there is none: {@code apply --napi-threads} falls back to the device's sysfs threaded.
     */
    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void eachNapisOwnThreadedIsReportedAndWrittenBackUnchanged(BackendKind kind) throws Exception {
        Optional<NativeBackend> backend = load(kind);
        if (backend.isEmpty()) {
            return;
        }
        PerNapiThreaded perNapi = PerNapiThreaded.live(LIVE, backend.get());
        Map<Integer, Integer> threaded = perNapi.read(ETH0);
        if (!kernelAtLeast(6, 17)) {
            assertEquals(Map.of(), threaded, "no per-NAPI threaded before Linux 6.17");
            return;
        }
        NapiMap map = NapiDiscovery.discover(ETH0, LIVE, backend.get());
        assertEquals(
                map.instances().stream().map(NapiInstance::id).collect(Collectors.toSet()),
                threaded.keySet(),
                "one value per NAPI of eth0: " + map);
        for (NapiInstance instance : map.instances()) {
            int value = threaded.get(instance.id());
            assertEquals(value != 0, instance.threadPid().isPresent(), "NAPI " + instance.id() + " threaded " + value);
            perNapi.write(instance.id(), value);
        }
        assertEquals(threaded, perNapi.read(ETH0));
    }

    @Test
    void theSysfsBackendRefusesNapiSettings() throws Exception {
        NumaspreadException e = assertThrows(
                NumaspreadException.class,
                () -> NapiConfig.write(LIVE, load(BackendKind.SYSFS).orElseThrow(), 1, new NapiSettings(0, 0, 0)));
        assertEquals(NumaspreadException.Kind.REFUSED, e.kind());
        assertEquals(
                "napi-set needs netdev netlink (Linux 6.13 or newer) through the ffm or jna backend; the sysfs "
                        + "backend has no netlink",
                e.getMessage());
    }

    /**
     * qstats-get's receive and transmit packets, summed over eth0's queues, lie between the device's own
     * counters in sysfs read just before and just after (Linux 6.10+; before, no counters).
     */
    @ParameterizedTest
    @EnumSource(
            value = BackendKind.class,
            names = {"FFM", "JNA"})
    void queueCountersAddUpToTheDevicesCounters(BackendKind kind) throws Exception {
        Optional<NativeBackend> backend = load(kind);
        if (backend.isEmpty()) {
            return;
        }
        Path statistics = LIVE.netDevice(ETH0).resolve("statistics");
        long rxBefore = Long.parseLong(KernelText.readRequired(statistics.resolve("rx_packets")));
        long txBefore = Long.parseLong(KernelText.readRequired(statistics.resolve("tx_packets")));
        Optional<List<QueueCounters>> counters = QueueStats.read(ETH0, LIVE, backend.get());
        long rxAfter = Long.parseLong(KernelText.readRequired(statistics.resolve("rx_packets")));
        long txAfter = Long.parseLong(KernelText.readRequired(statistics.resolve("tx_packets")));
        if (!kernelAtLeast(6, 10)) {
            assertEquals(Optional.empty(), counters);
            return;
        }
        List<QueueCounters> queues = counters.orElseThrow();
        long rx = queues.stream()
                .filter(QueueCounters::receive)
                .mapToLong(q -> q.packets().orElseThrow())
                .sum();
        long tx = queues.stream()
                .filter(q -> !q.receive())
                .mapToLong(q -> q.packets().orElseThrow())
                .sum();
        assertTrue(rxBefore <= rx && rx <= rxAfter, rxBefore + " <= " + rx + " <= " + rxAfter + ": " + queues);
        assertTrue(txBefore <= tx && tx <= txAfter, txBefore + " <= " + tx + " <= " + txAfter + ": " + queues);
        assertEquals(
                NicDiscovery.numbersIn(LIVE.netDevice(ETH0).resolve("queues"), "rx-")
                        .size(),
                queues.stream().filter(QueueCounters::receive).count());
    }

    @Test
    void ffmAndJnaFindTheSameMap() throws Exception {
        Optional<NativeBackend> ffm = load(BackendKind.FFM);
        if (ffm.isEmpty()) {
            return;
        }
        NapiMap viaFfm = NapiDiscovery.discover(ETH0, LIVE, ffm.get());
        NapiMap viaJna =
                NapiDiscovery.discover(ETH0, LIVE, load(BackendKind.JNA).orElseThrow());
        assertEquals(viaFfm, viaJna);
    }

    @Test
    void theSysfsBackendFallsBackToInterrupts() throws Exception {
        NapiMap map = NapiDiscovery.discover(ETH0, LIVE, load(BackendKind.SYSFS).orElseThrow());
        assertEquals(NapiSource.INTERRUPTS, map.source());
        assertTrue(map.detail().startsWith("the sysfs backend has no netlink"), map.detail());
    }

    /** The backend, or empty for FFM on a JDK before 23 after checking that it says why. */
    private static Optional<NativeBackend> load(BackendKind kind) throws BackendUnavailableException {
        if (kind == BackendKind.FFM && Runtime.version().feature() < 23) {
            BackendUnavailableException e = assertThrows(
                    BackendUnavailableException.class, () -> Backends.select(SysfsTree.live(), Optional.of(kind)));
            assertTrue(e.getMessage().contains("JDK 23"), e.getMessage());
            return Optional.empty();
        }
        return Optional.of(Backends.select(SysfsTree.live(), Optional.of(kind)).backend());
    }

    /** From /proc/sys/kernel/osrelease ("6.18.44-fc-v857", "6.1.0-28-amd64"). */
    static boolean kernelAtLeast(int major, int minor) {
        String release = KernelText.readRequired(Path.of("/proc/sys/kernel/osrelease"));
        int[] version = IntStream.range(0, 2)
                .map(i -> Integer.parseInt(release.split("[.-]")[i]))
                .toArray();
        return version[0] > major || (version[0] == major && version[1] >= minor);
    }
}
