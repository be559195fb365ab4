// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import io.numaspread.CpuSet;
import io.numaspread.doctor.Finding.Area;
import io.numaspread.irq.Irqbalance;
import io.numaspread.irq.LinkIrqPolicy;
import io.numaspread.nativeaccess.BackendKind;
import io.numaspread.nativeaccess.Backends;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The backends, privileges, this process's CPUs and the other managers of IRQs, judged from what was read. Pure. */
public final class Machine {
    /** {@code <linux/capability.h>}. */
    static final int CAP_NET_ADMIN = 12;

    static final int CAP_SYS_NICE = 23;

    private Machine() {}

    /** One finding per backend: the chosen one, those skipped with the reason kept, those never tried. */
    public static List<Finding> backends(BackendKind chosen, Map<BackendKind, String> unavailable) {
        List<Finding> found = new ArrayList<>();
        for (BackendKind kind : BackendKind.values()) {
            String feature = "backend_" + kind.id();
            if (kind == chosen) {
                found.add(Finding.present(Area.BACKEND, feature, "chosen"));
            } else if (unavailable.containsKey(kind)) {
                found.add(Finding.without(Area.BACKEND, feature, unavailable.get(kind)));
            } else {
                found.add(new Finding(
                        Area.BACKEND,
                        feature,
                        Finding.State.UNKNOWN,
                        "not tried: " + chosen.id() + " was chosen before it (-D" + Backends.OVERRIDE_PROPERTY + "="
                                + kind.id() + " tries it)",
                        Optional.empty()));
            }
        }
        return found;
    }

    /**
     * Root, CAP_NET_ADMIN and CAP_SYS_NICE from this process's {@code status} ({@code Uid:} and {@code CapEff:}),
     * and whether {@code /proc/irq} can be written.
     *
     * @param irqWritable whether the IRQ file tried can be written, empty when there is none to try
     */
    public static List<Finding> privileges(KernelFile status, String irqFile, Optional<Boolean> irqWritable) {
        List<Finding> found = new ArrayList<>();
        Optional<String> uid = field(status, "Uid:");
        Optional<String> capEff = field(status, "CapEff:");
        if (uid.isPresent()) {
            String[] ids = uid.get().split("\\s+");
            String effective = ids.length > 1 ? ids[1] : ids[0];
            found.add(
                    effective.equals("0")
                            ? Finding.present(Area.PRIVILEGE, "root", "effective uid 0 (" + status.path() + ")")
                            : Finding.absent(
                                    Area.PRIVILEGE,
                                    "root",
                                    "effective uid " + effective + " (" + status.path() + ")",
                                    "root, for apply and restore (sudo)"));
        } else {
            found.add(
                    Finding.unknown(Area.PRIVILEGE, "root", unreadable(status, "Uid:"), "a readable " + status.path()));
        }
        found.add(capability(status, capEff, "cap_net_admin", CAP_NET_ADMIN, "CAP_NET_ADMIN, for napi-set"));
        found.add(capability(
                status,
                capEff,
                "cap_sys_nice",
                CAP_SYS_NICE,
                "CAP_SYS_NICE, to pin NAPI threads and other processes'" + " threads"));
        if (irqWritable.isEmpty()) {
            found.add(Finding.unknown(Area.PRIVILEGE, "proc_irq_writable", irqFile + " does not exist", "a /proc/irq"));
        } else if (irqWritable.get()) {
            found.add(Finding.present(Area.PRIVILEGE, "proc_irq_writable", irqFile + " is writable (access W_OK)"));
        } else {
            found.add(Finding.absent(
                    Area.PRIVILEGE,
                    "proc_irq_writable",
                    irqFile + " is not writable (access W_OK)",
                    "root and a /proc/irq mounted read-write (a container: --privileged or /proc/irq"
                            + " bind-mounted rw)"));
        }
        return found;
    }

    private static Finding capability(
            KernelFile status, Optional<String> capEff, String feature, int bit, String need) {
        if (capEff.isEmpty()) {
            return Finding.unknown(Area.PRIVILEGE, feature, unreadable(status, "CapEff:"), need);
        }
        long mask;
        try {
            mask = Long.parseUnsignedLong(capEff.get(), 16);
        } catch (NumberFormatException e) {
            return Finding.unknown(
                    Area.PRIVILEGE, feature, status.path() + " has CapEff: " + capEff.get() + ", not a hex mask", need);
        }
        String evidence = "bit " + bit + " of CapEff " + capEff.get() + " (" + status.path() + ")";
        return (mask >>> bit & 1) == 1
                ? Finding.present(Area.PRIVILEGE, feature, evidence)
                : Finding.absent(Area.PRIVILEGE, feature, evidence, need);
    }

    /** This process's CPUs, {@code Cpus_allowed_list} of its {@code status}: its cpuset and affinity. */
    public static Finding cpuset(KernelFile status) {
        return field(status, "Cpus_allowed_list:")
                .map(cpus -> Finding.present(
                        Area.PROCESS, "cpuset", "CPUs " + cpus + " (Cpus_allowed_list, " + status.path() + ")"))
                .orElseGet(() -> Finding.unknown(
                        Area.PROCESS,
                        "cpuset",
                        unreadable(status, "Cpus_allowed_list:"),
                        "a readable " + status.path()));
    }

    /** A NIC's node and that node's CPUs ({@code local_cpulist}): where its queues' IRQs and loops belong. */
    public record NicCpus(String nic, int node, CpuSet cpus) {}

    /**
     * The CPUs kept out of the scheduler's load balancing: those of isolated cpuset partitions ({@code
     * cpuset.cpus.isolated} of the cgroup v2 root, Linux 6.8+) and of {@code isolcpus=domain} ({@code
     * devices/system/cpu/isolated}). Such CPUs are in no scheduling domain, so a busy CPU's tick never kicks them
     * to run the idle load balancer, nor do they kick others: the function-call IPI that stays once placement and
     * steering have removed the rest. With a NIC, present when its node's CPUs are all isolated; what it needs is a
     * partition, since apply keeps queue IRQs off {@code isolcpus=} CPUs.
     */
    public static Finding isolation(Optional<NicCpus> nic, KernelFile partitions, KernelFile isolcpus) {
        String feature = "isolated_cpus";
        List<String> read = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        Optional<CpuSet> partitioned = cpulist(partitions, read, unread);
        Optional<CpuSet> bootIsolated = cpulist(isolcpus, read, unread);
        List<String> all = new ArrayList<>(read);
        all.addAll(unread);
        String evidence = String.join("; ", all);
        if (read.isEmpty()) {
            return Finding.unknown(
                    Area.KERNEL,
                    feature,
                    evidence,
                    "a readable cpuset.cpus.isolated (Linux 6.8+, cgroup v2 at /sys/fs/cgroup) or"
                            + " devices/system/cpu/isolated");
        }
        CpuSet isolated = partitioned.orElse(CpuSet.EMPTY).union(bootIsolated.orElse(CpuSet.EMPTY));
        if (nic.isEmpty() || nic.get().cpus().isEmpty()) {
            return isolated.isEmpty()
                    ? Finding.without(Area.KERNEL, feature, "no CPU is isolated from load balancing: " + evidence)
                    : Finding.present(
                            Area.KERNEL,
                            feature,
                            "CPUs " + isolated + " are isolated from load balancing: " + evidence);
        }
        NicCpus local = nic.get();
        String whose = "node " + local.node() + "'s CPUs " + local.cpus() + " (" + local.nic() + "'s)";
        // The planner keeps queue IRQs off isolcpus= CPUs, as the kernel keeps managed IRQs off them: a node
        // isolated that way takes none of its NIC's IRQs, where a partition keeps them.
        CpuSet withoutIrqs = local.cpus().intersect(bootIsolated.orElse(CpuSet.EMPTY));
        String irqs = withoutIrqs.isEmpty() ? "" : "; isolcpus= CPUs " + withoutIrqs + " get no queue IRQ from apply";
        CpuSet balanced = local.cpus().minus(isolated);
        if (balanced.isEmpty()) {
            return Finding.present(
                    Area.KERNEL, feature, whose + " are isolated from load balancing: " + evidence + irqs);
        }
        return Finding.absent(
                Area.KERNEL,
                feature,
                whose + ": " + (balanced.equals(local.cpus()) ? "none" : "CPUs " + balanced + " not")
                        + " isolated from load balancing, so the idle load balancer's kicks reach them: " + evidence
                        + irqs,
                "an isolated cpuset partition of CPUs " + local.cpus() + " (cpuset.cpus.partition isolated) for the"
                        + " server, with one queue per CPU of it");
    }

    /** The file's cpulist into {@code read}, or why there is none into {@code unread}. */
    private static Optional<CpuSet> cpulist(KernelFile file, List<String> read, List<String> unread) {
        if (file.text().isEmpty()) {
            unread.add(file.error()
                    .map(error -> "cannot read " + file.path() + ": " + error)
                    .orElse(file.path() + " does not exist"));
            return Optional.empty();
        }
        try {
            CpuSet cpus = CpuSet.parse(file.text().get());
            read.add(file.path() + " " + (cpus.isEmpty() ? "(empty)" : cpus));
            return Optional.of(cpus);
        } catch (IllegalArgumentException e) {
            unread.add(file.path() + " is no cpulist: " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * irqbalance: present when one runs (it moves IRQs), unknown when this process cannot see the host's
     * processes or cannot list them.
     */
    public static Finding irqbalance(
            List<Irqbalance.Process> running, Optional<String> blindSpot, Optional<String> error) {
        if (error.isPresent()) {
            return Finding.unknown(Area.MANAGER, "irqbalance", error.get(), "a readable /proc");
        }
        if (!running.isEmpty()) {
            StringBuilder evidence = new StringBuilder("running: ");
            for (Irqbalance.Process process : running) {
                evidence.append("pid ").append(process.pid()).append(" (comm irqbalance");
                if (!process.bannedIrqs().isEmpty()) {
                    evidence.append(", bans IRQs ").append(process.bannedIrqs());
                }
                if (!process.bannedCpus().isEmpty()) {
                    evidence.append(", bans CPUs ").append(process.bannedCpus());
                }
                evidence.append(") ");
            }
            return new Finding(
                    Area.MANAGER,
                    "irqbalance",
                    Finding.State.PRESENT,
                    evidence.toString().strip(),
                    Optional.of("stop it (systemctl stop irqbalance) or ban the NIC's IRQs (--banirq)"));
        }
        if (blindSpot.isPresent()) {
            return Finding.unknown(Area.MANAGER, "irqbalance", blindSpot.get(), "--pid=host");
        }
        return Finding.without(Area.MANAGER, "irqbalance", "no process with comm irqbalance");
    }

    /** systemd {@code .link} files whose {@code IRQAffinityPolicy=} places the NIC's IRQs (udev, on each add). */
    public static Finding linkPolicies(Optional<String> nic, List<LinkIrqPolicy> policies, Optional<String> error) {
        String feature = "link_irq_policy";
        if (nic.isEmpty()) {
            return Finding.unknown(
                    Area.MANAGER, feature, "which .link file applies is udev's decision per NIC", "--nic IFACE");
        }
        if (error.isPresent()) {
            return Finding.unknown(Area.MANAGER, feature, error.get(), "readable .link files and udev database");
        }
        if (policies.isEmpty()) {
            return Finding.without(Area.MANAGER, feature, "no .link file sets IRQAffinityPolicy= for " + nic.get());
        }
        List<String> each = policies.stream()
                .map(policy -> policy.file() + " IRQAffinityPolicy=" + policy.policy()
                        + (policy.fromUdevDatabase() ? " (udev's database)" : " (may match)"))
                .toList();
        return new Finding(
                Area.MANAGER,
                feature,
                Finding.State.PRESENT,
                String.join("; ", each),
                Optional.of("an empty IRQAffinityPolicy= in a drop-in, or numaspread watch"));
    }

    /** tuned's active profile ({@code /etc/tuned/active_profile}): its profiles may set IRQ affinity. */
    public static Finding tuned(KernelFile activeProfile) {
        if (activeProfile.error().isPresent()) {
            return Finding.unknown(
                    Area.MANAGER,
                    "tuned",
                    "cannot read " + activeProfile.path() + ": "
                            + activeProfile.error().get(),
                    "read access to it");
        }
        if (activeProfile.text().filter(text -> !text.isEmpty()).isEmpty()) {
            return Finding.without(
                    Area.MANAGER,
                    "tuned",
                    activeProfile.path() + (activeProfile.exists() ? " is empty" : " does not exist"));
        }
        return new Finding(
                Area.MANAGER,
                "tuned",
                Finding.State.PRESENT,
                "profile " + activeProfile.text().get() + " (" + activeProfile.path() + ")",
                Optional.of("a profile without an IRQ affinity of its own ([scheduler] isolated_cores, [irqbalance])"));
    }

    /**
     * CRI-O's IRQ handling: it bans a guaranteed pod's CPUs from irqbalance by rewriting irqbalance's
     * configuration and keeps the original ban in {@code /etc/sysconfig/orig_irq_banned_cpus}.
     */
    public static Finding crio(KernelFile restoreFile, KernelFile irqbalanceConfig) {
        if (restoreFile.error().isPresent()) {
            return Finding.unknown(
                    Area.MANAGER,
                    "crio_irqbalance",
                    "cannot read " + restoreFile.path() + ": "
                            + restoreFile.error().get(),
                    "read access to it");
        }
        if (!restoreFile.exists()) {
            return Finding.without(Area.MANAGER, "crio_irqbalance", restoreFile.path() + " does not exist");
        }
        String banned = irqbalanceConfig
                .text()
                .flatMap(Machine::bannedCpus)
                .map(value -> "; " + irqbalanceConfig.path() + " has IRQBALANCE_BANNED_CPUS=" + value)
                .orElse("");
        return new Finding(
                Area.MANAGER,
                "crio_irqbalance",
                Finding.State.PRESENT,
                restoreFile.path() + " exists (CRI-O's irqbalance_config_restore_file)" + banned,
                Optional.of("CRI-O's irq-load-balancing annotations kept off the NIC's planned CPUs"));
    }

    private static Optional<String> bannedCpus(String config) {
        for (String line : config.split("\n")) {
            String stripped = line.strip();
            if (stripped.startsWith("IRQBALANCE_BANNED_CPUS=")) {
                return Optional.of(stripped.substring("IRQBALANCE_BANNED_CPUS=".length()));
            }
        }
        return Optional.empty();
    }

    private static Optional<String> field(KernelFile status, String name) {
        if (status.text().isEmpty()) {
            return Optional.empty();
        }
        for (String line : status.text().get().split("\n")) {
            if (line.startsWith(name)) {
                return Optional.of(line.substring(name.length()).strip());
            }
        }
        return Optional.empty();
    }

    private static String unreadable(KernelFile status, String field) {
        return status.error()
                .map(error -> "cannot read " + status.path() + ": " + error)
                .orElse(
                        status.exists()
                                ? status.path() + " has no " + field + " line"
                                : status.path() + " does not exist");
    }
}
