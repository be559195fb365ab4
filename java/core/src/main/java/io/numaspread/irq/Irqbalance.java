// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.ProcessFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A running irqbalance moves IRQs every few seconds and would undo an apply. Every irqbalance is found by its
 * {@code /proc/PID/comm}. The only IRQs one leaves alone are those its command line bans ({@code --banirq=N},
 * {@code --banirq N}, {@code -i N}, {@code -iN}). The CPUs its environment bans ({@code IRQBALANCE_BANNED_CPUS},
 * which wins, or {@code IRQBALANCE_BANNED_CPULIST}, in {@code /proc/PID/environ}) protect no IRQ: irqbalance
 * leaves banned CPUs out of its CPU tree ({@code cputree.c}) and places every IRQ it balances on the others, so an
 * IRQ planned on banned CPUs is moved away at its next rebalance. They are read to say exactly that.
 */
public final class Irqbalance {
    /**
     * The inode of the initial PID namespace, {@code PROC_PID_INIT_INO} in the kernel's
     * {@code include/linux/proc_ns.h}: fixed since Linux 3.8, so {@code /proc/self/ns/pid} names it exactly when
     * this process shares the host's PID namespace.
     */
    static final long INITIAL_PID_NAMESPACE_INODE = 0xEFFFFFFCL;

    /** A running irqbalance, the IRQs its command line bans and the CPUs its environment bans. */
    public record Process(int pid, List<Integer> bannedIrqs, CpuSet bannedCpus) {
        public Process {
            bannedIrqs = List.copyOf(bannedIrqs);
        }
    }

    private Irqbalance() {}

    /** Every irqbalance in {@code procRoot}, by pid. */
    public static List<Process> find(Path procRoot) {
        List<Process> found = new ArrayList<>();
        try {
            for (int pid : ProcessFiles.pids(procRoot)) {
                if ("irqbalance".equals(ProcessFiles.read(procRoot, pid, "comm"))) {
                    found.add(new Process(
                            pid,
                            bannedIrqs(ProcessFiles.read(procRoot, pid, "cmdline")),
                            bannedCpus(ProcessFiles.read(procRoot, pid, "environ"))));
                }
            }
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot list " + procRoot + ": " + Errno.describe(e), e);
        }
        return found;
    }

    /**
     * @param planned each IRQ about to be written, with its planned CPUs
     * @throws IrqbalanceConflict when an irqbalance runs that would move one of them
     */
    public static void refuseIfRunning(Path procRoot, Map<Integer, CpuSet> planned) {
        for (Process running : find(procRoot)) {
            List<Integer> unbanned = new ArrayList<>();
            CpuSet.Builder plannedOnBanned = CpuSet.builder();
            new TreeMap<>(planned).forEach((irq, cpus) -> {
                if (!running.bannedIrqs().contains(irq)) {
                    unbanned.add(irq);
                    cpus.intersect(running.bannedCpus()).forEachCpu(plannedOnBanned::add);
                }
            });
            if (unbanned.isEmpty()) {
                continue;
            }
            throw new IrqbalanceConflict(running.pid(), unbanned, plannedOnBanned.build());
        }
    }

    /**
     * Why no irqbalance may be visible though one runs: this process is in a PID namespace of its own (a
     * container without {@code --pid=host}), where the host's processes do not appear in {@code /proc}. Empty
     * when {@code procRoot}'s {@code self/ns/pid} names the host's PID namespace, or is absent (a copied tree).
     */
    public static Optional<String> blindSpot(Path procRoot) {
        Path link = procRoot.resolve("self/ns/pid");
        String target;
        try {
            target = Files.readSymbolicLink(link).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
        if (target.equals("pid:[" + INITIAL_PID_NAMESPACE_INODE + "]")) {
            return Optional.empty();
        }
        return Optional.of("this process is not in the host's PID namespace (" + link + " is " + target
                + ", not pid:[" + INITIAL_PID_NAMESPACE_INODE + "]), so an irqbalance on the host cannot be seen"
                + " and was not checked for: run the container with --pid=host, or make sure irqbalance is stopped"
                + " or bans these IRQs");
    }

    /**
     * The IRQs of {@code --banirq=N}, {@code --banirq N}, {@code -i N} and {@code -iN} (also after other flags,
     * {@code -fi38}) in a NUL-separated command line, read as irqbalance's {@code getopt_long} reads it.
     */
    static List<Integer> bannedIrqs(String cmdline) {
        List<Integer> banned = new ArrayList<>();
        String[] args = cmdline.split("\0");
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            if (arg.equals("--")) {
                break;
            } else if (arg.startsWith("--")) {
                int equals = arg.indexOf('=');
                String name = equals < 0 ? arg.substring(2) : arg.substring(2, equals);
                // getopt_long takes any unambiguous prefix: "bani" is the shortest that only banirq starts with.
                if (name.length() >= 4 && "banirq".startsWith(name)) {
                    value = equals >= 0 ? arg.substring(equals + 1) : (i + 1 < args.length ? args[++i] : null);
                }
            } else if (arg.startsWith("-")) {
                int option = shortOptionTakingValue(arg);
                if (option > 0) {
                    String attached = arg.substring(option + 1);
                    String optionValue = attached.isEmpty() ? (i + 1 < args.length ? args[++i] : null) : attached;
                    value = arg.charAt(option) == 'i' ? optionValue : null;
                }
            }
            if (value != null
                    && !value.isEmpty()
                    && value.length() < 10
                    && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                banned.add(Integer.parseInt(value));
            }
        }
        return banned;
    }

    /** irqbalance's short options without a value ("odfjV" of its "odfjVi:p:s:c:l:m:t:e:"); the others take one. */
    private static int shortOptionTakingValue(String arg) {
        for (int k = 1; k < arg.length(); k++) {
            if ("odfjV".indexOf(arg.charAt(k)) < 0) {
                return k;
            }
        }
        return -1;
    }

    /**
     * The CPUs of a non-empty {@code IRQBALANCE_BANNED_CPUS} (a hex mask), else of {@code IRQBALANCE_BANNED_CPULIST},
     * in a NUL-separated environment, in irqbalance's order ({@code setup_banned_cpus}); none when neither is set
     * (irqbalance then bans the isolated and nohz_full CPUs, which no IRQ plan uses) or the value is malformed.
     */
    static CpuSet bannedCpus(String environ) {
        String list = null;
        String mask = null;
        for (String variable : environ.split("\0")) {
            if (variable.startsWith("IRQBALANCE_BANNED_CPULIST=")) {
                list = variable.substring("IRQBALANCE_BANNED_CPULIST=".length()).strip();
            } else if (variable.startsWith("IRQBALANCE_BANNED_CPUS=")) {
                mask = variable.substring("IRQBALANCE_BANNED_CPUS=".length()).strip();
            }
        }
        try {
            if (mask != null && !mask.isEmpty()) {
                return CpuSet.parseHexMask(mask);
            }
            return list != null ? CpuSet.parse(list) : CpuSet.EMPTY;
        } catch (IllegalArgumentException e) {
            return CpuSet.EMPTY;
        }
    }
}
