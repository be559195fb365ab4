// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.CpuSet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Writes a NIC the way the kernel shows it: {@code /sys/class/net/IFACE} linking into the PCI function's
 * directory (through a virtio device for virtio), the function's {@code msi_irqs/}, {@code numa_node} and
 * {@code local_cpulist}, and under the proc root {@code interrupts} and {@code irq/N/}. The machine itself
 * comes from {@link SysfsFixture}.
 */
public final class NicFixture {
    /** How {@code /proc/interrupts} prints the chip and trigger columns, which differs between kernels. */
    public enum ChipStyle {
        /** x86 since 6.2: {@code PCI-MSIX-0000:00:03.0   1-edge}. */
        PER_DEVICE_MSIX,
        /** x86 before: {@code PCI-MSI 67633153-edge}. */
        PCI_MSI,
        /** arm64 GICv3 ITS: {@code ITS-MSI 524288 Edge}. */
        ITS_MSI,
        /** 2.6/3.x kernels: {@code PCI-MSI-edge}. */
        OLD
    }

    private final Path sysfs;
    private final Path proc;
    private String iface = "eth0";
    private String pci = "0000:00:03.0";
    private String virtioDevice;
    private String driver = "virtio_net";
    private int numaNode = -1;
    private String localCpus = "0-1";
    private String affinity = "0-1";
    private int txQueues = 1;
    private String xps = "00000003";
    private ChipStyle chipStyle = ChipStyle.PER_DEVICE_MSIX;
    private CpuSet online = CpuSet.range(0, 1);
    private final Map<Integer, String> vectors = new LinkedHashMap<>();
    private final Map<Integer, String> otherIrqs = new TreeMap<>(Map.of(1, "i8042"));
    /** The /proc/interrupts lines of NICs written before this one, by IRQ: {@link #besides}. */
    private final Map<Integer, String> neighbours = new TreeMap<>();

    private String padding = "";

    private NicFixture(Path sysfs, Path proc) {
        this.sysfs = sysfs;
        this.proc = proc;
    }

    /** A NIC of {@code machine}, which is written under {@code sysfs} now; the NIC is written by {@link #write()}. */
    public static NicFixture at(Path sysfs, Path proc, MachineShape machine) {
        SysfsFixture.write(machine, sysfs);
        NicFixture fixture = new NicFixture(sysfs, proc);
        fixture.online = machine.online();
        return fixture;
    }

    /** This host's eth0: virtio2 on PCI 0000:00:03.0, a config vector and one queue pair. */
    public static NicFixture virtio(Path sysfs, Path proc, MachineShape machine) {
        return at(sysfs, proc, machine)
                .virtioDevice("virtio2")
                .vector(37, "virtio2-config")
                .vector(38, "virtio2-input.0")
                .vector(39, "virtio2-output.0");
    }

    /**
     * A four-queue i40e eth0 on the mana machine's node 0, with a misc vector (49), queue vectors 50-53, and four
     * transmit queues; every vector starts on 0-7 and every xps_cpus on ff. Written.
     */
    public static NicFixture i40eOnMana(Path sysfs, Path proc) {
        return firstI40ePort(at(sysfs, proc, MachineShape.mana())).write();
    }

    /**
     * eth1, the second port of {@link #i40eOnMana}'s card, written beside it in the same trees: PCI function
     * 0000:3b:00.1 on node 0, a misc vector (59), queue vectors 60-63 and four transmit queues, all on 0-7 and ff.
     */
    public static NicFixture secondI40ePort(Path sysfs, Path proc) {
        NicFixture fixture = new NicFixture(sysfs, proc);
        fixture.online = MachineShape.mana().online();
        return fixture.besides(firstI40ePort(new NicFixture(sysfs, proc)))
                .iface("eth1")
                .pci("0000:3b:00.1")
                .driver("i40e")
                .numaNode(0)
                .localCpus("0-3")
                .affinity("0-7")
                .txQueues(4, "ff")
                .vector(59, "i40e-0000:3b:00.1:misc")
                .vector(60, "i40e-eth1-TxRx-0")
                .vector(61, "i40e-eth1-TxRx-1")
                .vector(62, "i40e-eth1-TxRx-2")
                .vector(63, "i40e-eth1-TxRx-3")
                .write();
    }

    /** {@link #i40eOnMana}'s eth0, not yet written. */
    private static NicFixture firstI40ePort(NicFixture fixture) {
        return fixture.iface("eth0")
                .pci("0000:3b:00.0")
                .driver("i40e")
                .numaNode(0)
                .localCpus("0-3")
                .affinity("0-7")
                .txQueues(4, "ff")
                .vector(49, "i40e-0000:3b:00.0:misc")
                .vector(50, "i40e-eth0-TxRx-0")
                .vector(51, "i40e-eth0-TxRx-1")
                .vector(52, "i40e-eth0-TxRx-2")
                .vector(53, "i40e-eth0-TxRx-3");
    }

    public NicFixture iface(String name) {
        this.iface = name;
        return this;
    }

    public NicFixture pci(String address) {
        this.pci = address;
        return this;
    }

    /** The net device hangs off a virtio device, which hangs off the PCI function. */
    public NicFixture virtioDevice(String name) {
        this.virtioDevice = name;
        return this;
    }

    public NicFixture driver(String name) {
        this.driver = name;
        return this;
    }

    public NicFixture numaNode(int node) {
        this.numaNode = node;
        return this;
    }

    /** The PCI function's {@code local_cpulist}; null for none. */
    public NicFixture localCpus(String cpulist) {
        this.localCpus = cpulist;
        return this;
    }

    /** Every vector's {@code smp_affinity_list} before the test. */
    public NicFixture affinity(String cpulist) {
        this.affinity = cpulist;
        return this;
    }

    public NicFixture txQueues(int count, String xpsMask) {
        this.txQueues = count;
        this.xps = xpsMask;
        return this;
    }

    public NicFixture chipStyle(ChipStyle style) {
        this.chipStyle = style;
        return this;
    }

    public NicFixture vector(int irq, String name) {
        vectors.put(irq, name);
        return this;
    }

    /**
     * An IRQ of another device in {@code /proc/interrupts}. Its name is written one byte per character, so
     * "\u00ff" is the byte 0xff, which no UTF-8 decoder accepts.
     */
    public NicFixture otherIrq(int irq, String name) {
        otherIrqs.put(irq, name);
        return this;
    }

    /**
     * A second NIC of the same trees: {@code /proc/interrupts} keeps listing {@code written}'s vectors (the file is
     * written whole), whose {@code irq/N/} files stay as they are.
     */
    public NicFixture besides(NicFixture written) {
        int hwirq = 0;
        for (Map.Entry<Integer, String> vector : written.vectors.entrySet()) {
            neighbours.put(vector.getKey(), written.chip(hwirq++) + "      " + vector.getValue());
        }
        neighbours.putAll(written.neighbours);
        return this;
    }

    /**
     * Text after the final newline of every file this NIC writes (numa_node, local_cpulist, xps_cpus,
     * interrupts, irq/N/*): "\0" pads them as some kernels pad sysfs files.
     */
    public NicFixture padding(String text) {
        this.padding = text;
        return this;
    }

    /** Writes the NIC, plus unrelated IRQs (IRQ 1, {@code i8042}, and {@link #otherIrq}s) that nothing may touch. */
    public NicFixture write() {
        Path function = sysfs.resolve("devices/pci0000:00/" + pci);
        Path deviceDir = virtioDevice == null ? function : function.resolve(virtioDevice);
        Path netDir = deviceDir.resolve("net/" + iface);
        mkdirs(netDir);
        link(netDir.resolve("device"), deviceDir);
        link(sysfs.resolve("class/net/" + iface), netDir);
        Path driverDir = sysfs.resolve("bus/drivers/" + driver);
        mkdirs(driverDir);
        link(deviceDir.resolve("driver"), driverDir);
        kernelFile(function.resolve("numa_node"), Integer.toString(numaNode));
        if (localCpus != null) {
            kernelFile(function.resolve("local_cpulist"), localCpus);
        }
        for (int irq : vectors.keySet()) {
            file(function.resolve("msi_irqs/" + irq), "msix");
        }
        for (int q = 0; q < txQueues; q++) {
            kernelFile(netDir.resolve("queues/tx-" + q + "/xps_cpus"), xps);
            mkdirs(netDir.resolve("queues/rx-" + q));
        }
        Map<Integer, String> lines = new TreeMap<>(vectors);
        otherIrqs.keySet().forEach(irq -> lines.put(irq, null));
        neighbours.keySet().forEach(irq -> lines.put(irq, ""));
        StringBuilder interrupts = new StringBuilder("     ");
        online.forEachCpu(cpu -> interrupts.append(String.format(Locale.ROOT, "      CPU%d", cpu)));
        interrupts.append('\n');
        int hwirq = 0;
        for (Map.Entry<Integer, String> line : lines.entrySet()) {
            int irq = line.getKey();
            interrupts.append(String.format(Locale.ROOT, "%4d:", irq));
            online.forEachCpu(cpu -> interrupts.append(String.format(Locale.ROOT, " %10d", 100 * irq + cpu)));
            if (neighbours.containsKey(irq)) {
                interrupts.append("   ").append(neighbours.get(irq)).append('\n');
                continue;
            }
            interrupts.append(
                    line.getValue() == null
                            ? "   IO-APIC   " + irq + "-edge      " + otherIrqs.get(irq)
                            : "   " + chip(hwirq++) + "      " + line.getValue());
            interrupts.append('\n');
            kernelFile(proc.resolve("irq/" + irq + "/smp_affinity_list"), affinity);
            kernelFile(proc.resolve("irq/" + irq + "/effective_affinity_list"), Integer.toString(online.first()));
        }
        interrupts.append(" NMI:").append(" 0".repeat(online.size())).append("   Non-maskable interrupts\n");
        interrupts.append(" ERR:          0");
        kernelFile(proc.resolve("interrupts"), interrupts.toString());
        return this;
    }

    /** {@code content}, a newline and the padding, one byte per character. */
    private void kernelFile(Path file, String content) {
        mkdirs(file.getParent());
        try {
            Files.write(file, (content + "\n" + padding).getBytes(StandardCharsets.ISO_8859_1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String chip(int hwirq) {
        return switch (chipStyle) {
            case PER_DEVICE_MSIX -> "PCI-MSIX-" + pci + "   " + hwirq + "-edge";
            case PCI_MSI -> "PCI-MSI " + (67633152 + hwirq) + "-edge";
            case ITS_MSI -> "ITS-MSI " + (524288 + hwirq) + " Edge";
            case OLD -> "PCI-MSI-edge";
        };
    }

    /** Writes {@code /proc/net/route} with a default route through {@code iface}. */
    public static void defaultRoute(Path proc, String iface) {
        file(
                proc.resolve("net/route"),
                "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
                        + iface + "\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
                        + iface + "\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n");
    }

    /** Adds a process with {@code comm} and NUL-separated {@code cmdline} to the proc tree. */
    public static void process(Path proc, int pid, String comm, String... cmdline) {
        file(proc.resolve(pid + "/comm"), comm);
        file(proc.resolve(pid + "/cmdline"), String.join("\0", cmdline) + "\0");
    }

    /**
     * Adds a task as {@code /proc/PID} shows it: {@code comm}, {@code stat} (with PF_KTHREAD in its flags for a
     * kernel thread) and {@code status} with {@code Cpus_allowed_list}.
     */
    public static void task(Path proc, int pid, String comm, boolean kernelThread, String cpusAllowed) {
        file(proc.resolve(pid + "/comm"), comm);
        file(
                proc.resolve(pid + "/stat"),
                pid + " (" + comm + ") S 2 0 0 0 -1 " + (kernelThread ? "2129984" : "4194560")
                        + " 0 0 0 0 0 0 0 0 20 0 1 0 73 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0");
        threadAffinity(proc, pid, cpusAllowed);
    }

    /** Sets the {@code Cpus_allowed_list} that {@code /proc/PID/status} shows, as the kernel would after a pin. */
    public static void threadAffinity(Path proc, int pid, String cpusAllowed) {
        file(
                proc.resolve(pid + "/status"),
                "Name:\t" + pid + "\nState:\tS (sleeping)\nPid:\t" + pid + "\nCpus_allowed:\tff\nCpus_allowed_list:\t"
                        + cpusAllowed + "\nvoluntary_ctxt_switches:\t4\n");
    }

    /** Every regular file under the roots with its content: to check that nothing changed. */
    public static Map<Path, String> snapshot(Path... roots) {
        Map<Path, String> files = new TreeMap<>();
        for (Path root : roots) {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path file : walk.filter(Files::isRegularFile).toList()) {
                    files.put(file, Files.readString(file, StandardCharsets.ISO_8859_1));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** The vectors' IRQ numbers, in order. */
    public List<Integer> irqs() {
        return new ArrayList<>(vectors.keySet());
    }

    public static void file(Path file, String content) {
        mkdirs(file.getParent());
        try {
            Files.writeString(file, content.endsWith("\n") ? content : content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void mkdirs(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void link(Path link, Path target) {
        try {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, link.getParent().relativize(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
