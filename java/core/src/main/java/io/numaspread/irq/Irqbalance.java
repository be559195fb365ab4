// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A running irqbalance moves IRQs every few seconds and would undo an apply. It is found by its
 * {@code /proc/PID/comm}; IRQs it was told to leave alone ({@code --banirq=N}) are safe.
 */
public final class Irqbalance {
    /** A running irqbalance and the IRQs its command line bans. */
    public record Process(int pid, List<Integer> bannedIrqs) {
        public Process {
            bannedIrqs = List.copyOf(bannedIrqs);
        }
    }

    private Irqbalance() {
    }

    public static Optional<Process> find(Path procRoot) {
        try (Stream<Path> entries = Files.list(procRoot)) {
            return entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> "irqbalance".equals(readQuietly(p.resolve("comm"))))
                    .findFirst()
                    .map(p -> new Process(Integer.parseInt(p.getFileName().toString()),
                            bannedIrqs(readQuietly(p.resolve("cmdline")))));
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot list " + procRoot + ": " + Errno.describe(e));
        }
    }

    /**
     * @throws NumaspreadException (refused) naming the fix, when irqbalance runs and does not ban every one of {@code irqs}
     */
    public static void refuseIfRunning(Path procRoot, Collection<Integer> irqs) {
        Optional<Process> running = find(procRoot);
        if (running.isEmpty() || running.get().bannedIrqs().containsAll(irqs)) {
            return;
        }
        List<Integer> unbanned = new ArrayList<>(irqs);
        unbanned.removeAll(running.get().bannedIrqs());
        StringBuilder banirq = new StringBuilder();
        unbanned.forEach(irq -> banirq.append(" --banirq=").append(irq));
        throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "irqbalance is running (pid " + running.get().pid()
                + ") and would move IRQs " + unbanned + " again: stop it (systemctl stop irqbalance), or keep it"
                + " off these IRQs (IRQBALANCE_ARGS=\"" + banirq.toString().strip() + "\" in /etc/default/irqbalance,"
                + " or IRQBALANCE_BANNED_CPULIST for the planned CPUs), or pass --force");
    }

    /** The IRQs of {@code --banirq=N}, {@code --banirq N} and {@code -i N} in a NUL-separated command line. */
    static List<Integer> bannedIrqs(String cmdline) {
        List<Integer> banned = new ArrayList<>();
        String[] args = cmdline.split("\0");
        for (int i = 0; i < args.length; i++) {
            String value = null;
            if (args[i].startsWith("--banirq=")) {
                value = args[i].substring("--banirq=".length());
            } else if ((args[i].equals("--banirq") || args[i].equals("-i")) && i + 1 < args.length) {
                value = args[++i];
            }
            if (value != null && !value.isEmpty() && value.length() < 10 && value.chars().allMatch(Character::isDigit)) {
                banned.add(Integer.parseInt(value));
            }
        }
        return banned;
    }

    /** A process may exit while it is being looked at; its files then read as empty. */
    private static String readQuietly(Path file) {
        try {
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
