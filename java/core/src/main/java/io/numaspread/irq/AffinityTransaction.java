// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import io.numaspread.nic.InterruptTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Applies and restores a NIC's settings all or nothing. Before the first change it records, in a write-ahead
 * state file, what every file it will touch held; it verifies each write by reading it back; when a write or a
 * verification fails it puts back every change it made. IRQs the kernel manages (EIO, or EPERM while others
 * succeed) are reported and left alone.
 */
public final class AffinityTransaction {
    /** What happened to one setting. */
    public enum Status {
        /** Written and verified. */
        CHANGED,
        /** Already held the planned CPUs. */
        UNCHANGED,
        /** Dry run: would be written. */
        WOULD_CHANGE,
        /** The kernel manages this IRQ's affinity and refused the write. */
        MANAGED,
        /** The kernel offers no such file on this device (XPS on a single-queue device). */
        UNAVAILABLE,
        /** Restore: put back as recorded. */
        RESTORED,
        /** Restore: the IRQ or transmit queue no longer exists (freed, renumbered, removed by ethtool -L). */
        GONE;

        /** How reports name it: "would change", "unchanged". */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /**
     * @param before the file's text before this run
     * @param detail why, for MANAGED and UNAVAILABLE
     */
    public record Result(Target target, CpuSet planned, String before, Status status, String detail) {
    }

    private record Applied(Setting setting, String before) {
    }

    private final KernelPaths paths;
    private final KernelFiles files;
    private final int maskBits;

    /**
     * @param maskBits the number of CPUs the machine can have (cpu/possible), which sizes hex masks
     */
    public AffinityTransaction(KernelPaths paths, KernelFiles files, int maskBits) {
        this.paths = paths;
        this.files = files;
        this.maskBits = maskBits;
    }

    /**
     * @throws NumaspreadException REFUSED (no privilege; nothing changed), BAD_INPUT (unreadable file, stale state;
     *     nothing changed) or ROLLED_BACK (a write failed; every change was put back, or the message says which
     *     could not be)
     */
    @SuppressWarnings("try") // the lock is held, not used
    public List<Result> apply(InterfaceName iface, List<Setting> settings, Path stateFile, boolean dryRun) {
        StateFile.checkPath(stateFile);
        Reading now = read(settings);
        if (dryRun || now.pending().isEmpty()) {
            List<Result> results = new ArrayList<>(now.settled());
            now.pending().forEach(p -> results.add(new Result(p.setting().target(), p.setting().cpus(), p.before(),
                    Status.WOULD_CHANGE, "")));
            return inOrderOf(settings, results);
        }
        for (Applied change : now.pending()) {
            probe(change.setting().target());
        }
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            // Read again: until the lock was held, another numaspread could have changed them.
            Reading locked = read(settings);
            return inOrderOf(settings, applyHoldingLock(iface, settings, locked, stateFile));
        }
    }

    /** The settings' files as they are: those that already hold their CPUs (or cannot), and those to change. */
    private record Reading(List<Result> settled, List<Applied> pending) {
    }

    private Reading read(List<Setting> settings) {
        List<Result> settled = new ArrayList<>();
        List<Applied> pending = new ArrayList<>();
        for (Setting setting : settings) {
            Optional<String> before = readCurrent(setting.target());
            if (before.isEmpty()) {
                settled.add(new Result(setting.target(), setting.cpus(), "", Status.UNAVAILABLE,
                        setting.target().file(paths) + " cannot be read (ENOENT): the device has one transmit queue"));
            } else if (parse(setting.target(), before.get()).equals(setting.cpus())) {
                settled.add(new Result(setting.target(), setting.cpus(), before.get(), Status.UNCHANGED, ""));
            } else {
                pending.add(new Applied(setting, before.get()));
            }
        }
        return new Reading(settled, pending);
    }

    private List<Result> applyHoldingLock(InterfaceName iface, List<Setting> settings, Reading now, Path stateFile) {
        List<Result> results = new ArrayList<>(now.settled());
        List<Applied> pending = now.pending();
        if (pending.isEmpty()) {
            return results;
        }
        Optional<StateFile.State> existing = StateFile.read(stateFile);
        checkState(iface, existing, stateFile, settings);
        List<StateFile.Saved> additions = pending.stream()
                .map(p -> new StateFile.Saved(p.setting().target(), p.before())).toList();
        StateFile.write(stateFile, existing.map(s -> s.mergedWith(additions))
                .orElseGet(() -> new StateFile.State(iface, additions)));
        boolean createdState = existing.isEmpty();

        List<Applied> applied = new ArrayList<>();
        Map<Applied, Errno> refused = new LinkedHashMap<>();
        for (Applied change : ofKind(pending, Target.Kind.IRQ)) {
            writeAndVerify(change, applied, createdState, stateFile).ifPresent(failure -> {
                Errno errno = Errno.of(failure);
                if (errno != Errno.EIO && errno != Errno.EPERM && errno != Errno.EACCES) {
                    throw rollBack(applied, change, Errno.describe(failure), createdState, stateFile);
                }
                refused.put(change, errno);
            });
        }
        // EIO says "managed"; EPERM/EACCES says so only when other IRQs took their writes.
        if (applied.isEmpty() && !refused.isEmpty() && !refused.containsValue(Errno.EIO)) {
            if (createdState) {
                StateFile.delete(stateFile);
            }
            Map.Entry<Applied, Errno> first = refused.entrySet().iterator().next();
            throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "the kernel refused every IRQ write ("
                    + first.getKey().setting().target().label() + ": " + first.getValue().name() + " ("
                    + first.getValue().text() + ")): changing IRQ affinity needs root with write access to "
                    + paths.procRoot() + "/irq (if these IRQs are all managed by the kernel, there is nothing to"
                    + " change); nothing was changed");
        }
        for (Applied change : ofKind(pending, Target.Kind.XPS)) {
            writeAndVerify(change, applied, createdState, stateFile).ifPresent(failure -> {
                throw rollBack(applied, change, Errno.describe(failure), createdState, stateFile);
            });
        }
        applied.forEach(a -> results.add(new Result(a.setting().target(), a.setting().cpus(), a.before(),
                Status.CHANGED, "")));
        refused.forEach((change, errno) -> results.add(new Result(change.setting().target(), change.setting().cpus(),
                change.before(), Status.MANAGED, "managed by the kernel: " + errno.name() + " (" + errno.text() + ")")));
        return results;
    }

    /**
     * Puts back what {@code stateFile} recorded, and removes the file when every value is back. The whole file is
     * checked before the first write; an IRQ or transmit queue that no longer exists is reported as {@link
     * Status#GONE} and is no failure, since there is nothing left to put back.
     *
     * @throws NumaspreadException BAD_INPUT (no, wrong or malformed state file, or a value this machine cannot
     *     hold; nothing was written), REFUSED (no privilege; nothing was written) or INCOMPLETE (some values could
     *     not be put back; the state file is kept), naming each
     */
    @SuppressWarnings("try") // the lock is held, not used
    public List<Result> restore(Path stateFile, Optional<InterfaceName> expected) {
        // As apply does: without privilege, refuse before the lock file or any IRQ is touched.
        stateOf(stateFile, expected).saved().forEach(saved -> probe(saved.target()));
        try (StateFile.Lock lock = StateFile.lock(stateFile)) {
            return restoreHoldingLock(stateOf(stateFile, expected), stateFile);
        }
    }

    private static StateFile.State stateOf(Path stateFile, Optional<InterfaceName> expected) {
        StateFile.State state = StateFile.read(stateFile).orElseThrow(() -> NumaspreadException.badInput(
                "no state file " + stateFile + ": nothing to restore (apply writes it before changing anything)"));
        if (expected.isPresent() && !expected.get().equals(state.iface())) {
            throw NumaspreadException.badInput("state file " + stateFile + " is for " + state.iface() + ", not " + expected.get());
        }
        return state;
    }

    /** One recorded value and what its file holds now. */
    private record Restoring(StateFile.Saved saved, CpuSet recorded, String current) {
    }

    private List<Result> restoreHoldingLock(StateFile.State state, Path stateFile) {
        InterruptTable interrupts = InterruptTable.read(paths);
        List<Result> results = new ArrayList<>();
        List<Restoring> toWrite = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        for (StateFile.Saved saved : state.saved()) {
            Target target = saved.target();
            CpuSet recorded = saved.cpus();
            if (!recorded.isEmpty() && recorded.last() >= maskBits) {
                invalid.add(target.label() + ": the recorded CPUs " + recorded + " are beyond the " + maskBits
                        + " CPUs of " + paths.cpuPossible());
                continue;
            }
            Optional<String> gone = goneReason(target, interrupts);
            if (gone.isPresent()) {
                results.add(new Result(target, recorded, "", Status.GONE, gone.get()));
                continue;
            }
            Optional<String> current = readCurrent(target);
            if (current.isEmpty()) {
                results.add(new Result(target, recorded, "", Status.GONE, target.file(paths)
                        + " cannot be read (ENOENT): the device has one transmit queue now"));
            } else if (parse(target, current.get()).equals(recorded)) {
                results.add(new Result(target, recorded, current.get(), Status.UNCHANGED, ""));
            } else {
                toWrite.add(new Restoring(saved, recorded, current.get()));
            }
        }
        if (!invalid.isEmpty()) {
            throw NumaspreadException.badInput("state file " + stateFile + " cannot be restored on this machine: "
                    + String.join("; ", invalid) + "; nothing was written");
        }
        // Another apply may have added entries while this one waited for the lock.
        toWrite.forEach(r -> probe(r.saved().target()));

        List<String> failures = new ArrayList<>();
        for (Restoring restoring : toWrite) {
            Target target = restoring.saved().target();
            String value = target.format(restoring.recorded(), maskBits);
            try {
                files.write(target.file(paths), value);
                String back = files.read(target.file(paths));
                if (!readsAs(target, back, restoring.recorded())) {
                    failures.add(target.label() + ": wrote \"" + value + "\" but it reads back \"" + back + "\"");
                    continue;
                }
                results.add(new Result(target, restoring.recorded(), restoring.current(), Status.RESTORED, ""));
            } catch (IOException e) {
                failures.add(target.label() + ": writing \"" + value + "\" to " + target.file(paths)
                        + " failed: " + Errno.describe(e));
            }
        }
        if (!failures.isEmpty()) {
            throw new NumaspreadException(NumaspreadException.Kind.INCOMPLETE, "could not restore everything: "
                    + String.join("; ", failures) + "; the state file " + stateFile + " is kept");
        }
        StateFile.delete(stateFile);
        List<Target> order = state.saved().stream().map(StateFile.Saved::target).toList();
        return results.stream().sorted(Comparator.comparingInt(r -> order.indexOf(r.target()))).toList();
    }

    /**
     * Why the recorded IRQ or transmit queue no longer exists, or empty when it does. An IRQ whose number now
     * carries another name (or none) is gone: its number was freed and maybe given to another device, which is
     * left alone. When the recorded name now lives at another number, the driver was reloaded and renumbered its
     * IRQs; the message says so.
     */
    private Optional<String> goneReason(Target target, InterruptTable interrupts) {
        if (target.kind() == Target.Kind.XPS) {
            Path queue = target.file(paths).getParent();
            return Files.isDirectory(queue) ? Optional.empty()
                    : Optional.of(queue + " no longer exists (the transmit queues were reduced, or the device removed)");
        }
        String now = interrupts.name(target.number());
        if (now.equals(target.name())) {
            return Optional.empty();
        }
        String was = now.isEmpty() ? "IRQ " + target.number() + " no longer exists"
                : "IRQ " + target.number() + " is now \"" + now + "\", another IRQ, left alone";
        Optional<Integer> renumbered = interrupts.numberOf(target.name());
        return Optional.of(renumbered.map(irq -> was + "; \"" + target.name() + "\" is now IRQ " + irq + ": the driver"
                + " was reloaded and renumbered its IRQs, so the recorded value belonged to an IRQ that is gone")
                .orElse(was));
    }

    private static boolean readsAs(Target target, String text, CpuSet expected) {
        try {
            return target.parse(text).equals(expected);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static List<Applied> ofKind(List<Applied> changes, Target.Kind kind) {
        return changes.stream().filter(c -> c.setting().target().kind() == kind).toList();
    }

    private static List<Result> inOrderOf(List<Setting> settings, List<Result> results) {
        List<Target> order = settings.stream().map(Setting::target).toList();
        return results.stream().sorted(Comparator.comparingInt(r -> order.indexOf(r.target()))).toList();
    }

    /** Empty when an XPS file exists but the kernel reports ENOENT on reading it (single-queue device). */
    private Optional<String> readCurrent(Target target) {
        Path file = target.file(paths);
        try {
            return Optional.of(files.read(file));
        } catch (IOException e) {
            if (target.kind() == Target.Kind.XPS && Errno.of(e) == Errno.ENOENT
                    && Files.exists(file)) {
                return Optional.empty();
            }
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e));
        }
    }

    private CpuSet parse(Target target, String text) {
        try {
            return target.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(target.file(paths) + ": " + KernelText.escape(e.getMessage()));
        }
    }

    /** Refuses before any change when a file cannot be opened for writing for want of privilege. */
    private void probe(Target target) {
        Path file = target.file(paths);
        try {
            files.probeWritable(file);
        } catch (IOException e) {
            Errno errno = Errno.of(e);
            if (errno == Errno.EROFS) {
                throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "cannot write " + file + ": EROFS (" + errno.text()
                        + "): " + file.getParent() + " is mounted read-only, as in an unprivileged container; run"
                        + " on the host or in a privileged container (--privileged, or CAP_SYS_ADMIN with /proc/irq"
                        + " writable); nothing was changed");
            }
            if (errno == Errno.EACCES || errno == Errno.EPERM) {
                String needs = target.kind() == Target.Kind.IRQ
                        ? "IRQ affinity needs root: the files under /proc/irq are root's, mode 0644 (uid 0, or"
                                + " CAP_DAC_OVERRIDE, in the host's user namespace)"
                        : "XPS needs CAP_NET_ADMIN and root's write access to /sys/class/net";
                throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "cannot write " + file + ": " + errno.name() + " ("
                        + errno.text() + "): changing " + needs + "; nothing was changed");
            }
            // Anything else is the write's to report, and to roll back.
        }
    }

    /**
     * Refuses to add to a state file that another interface owns, or that was recorded before the IRQs were
     * renumbered (a reboot or driver reload): merged by number, it would name IRQs that are gone, or hold another
     * IRQ's value for a number. The recorded names tell: an IRQ of this plan recorded under another number, or a
     * number recorded under another name.
     */
    private void checkState(InterfaceName iface, Optional<StateFile.State> existing, Path stateFile,
            List<Setting> settings) {
        if (existing.isEmpty()) {
            return;
        }
        if (!existing.get().iface().equals(iface)) {
            throw NumaspreadException.badInput("state file " + stateFile + " is for " + existing.get().iface() + ", not "
                    + iface + ": choose another with --state FILE");
        }
        String whatToDo = ": the file is stale, from before a reboot or driver reload renumbered the IRQs. Run "
                + restoreCommand(paths, stateFile) + " first (it puts back what still exists and reports the IRQs that"
                + " are gone), then apply again; nothing was changed";
        for (StateFile.Saved saved : existing.get().saved()) {
            Target recorded = saved.target();
            if (recorded.kind() != Target.Kind.IRQ) {
                continue;
            }
            for (Setting setting : settings) {
                Target now = setting.target();
                if (now.kind() != Target.Kind.IRQ) {
                    continue;
                }
                if (now.number() == recorded.number() && !now.name().equals(recorded.name())) {
                    throw NumaspreadException.badInput("state file " + stateFile + " records IRQ " + recorded.number()
                            + " as \"" + recorded.name() + "\" but it is now \"" + now.name() + "\"" + whatToDo);
                }
                if (now.name().equals(recorded.name()) && now.number() != recorded.number()) {
                    throw NumaspreadException.badInput("state file " + stateFile + " records \"" + recorded.name()
                            + "\" as IRQ " + recorded.number() + " but it is now IRQ " + now.number() + whatToDo);
                }
            }
        }
    }

    /**
     * The command that restores {@code stateFile}, repeating the stand-in roots when they are not the live
     * kernel's, so that running it as printed never writes a copy's values to the live {@code /proc/irq}.
     */
    public static String restoreCommand(KernelPaths paths, Path stateFile) {
        return "numaspread restore --state " + shellWord(stateFile.toString()) + rootOptions(paths);
    }

    /** {@code " --sysfs-root S --proc-root P"}, or nothing for the live kernel. */
    public static String rootOptions(KernelPaths paths) {
        return paths.equals(KernelPaths.LIVE) ? "" : " --sysfs-root " + shellWord(paths.sysfsRoot().toString())
                + " --proc-root " + shellWord(paths.procRoot().toString());
    }

    /** {@code word} as one shell word: as it is when it is plain, else in single quotes. */
    public static String shellWord(String word) {
        return !word.isEmpty() && word.chars().allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || "_./:=@%+,-".indexOf(c) >= 0)
                ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * Writes and reads back one setting, adding it to {@code applied} on success. An I/O failure of the write is
     * returned for the caller to judge; a read-back that differs rolls everything back.
     */
    private Optional<IOException> writeAndVerify(Applied change, List<Applied> applied, boolean createdState,
            Path stateFile) {
        Target target = change.setting().target();
        Path file = target.file(paths);
        String value = target.format(change.setting().cpus(), maskBits);
        try {
            files.write(file, value);
        } catch (IOException e) {
            return Optional.of(e);
        }
        applied.add(change);
        String back;
        try {
            back = files.read(file);
        } catch (IOException e) {
            throw rollBack(applied, change, "reading it back failed: " + Errno.describe(e), createdState, stateFile);
        }
        CpuSet actual;
        try {
            actual = target.parse(back);
        } catch (IllegalArgumentException e) {
            throw rollBack(applied, change, "it reads back as \"" + KernelText.escape(back) + "\": "
                    + KernelText.escape(e.getMessage()), createdState,
                    stateFile);
        }
        if (!actual.equals(change.setting().cpus())) {
            throw rollBack(applied, change, "it reads back as \"" + KernelText.escape(back) + "\"", createdState,
                    stateFile);
        }
        return Optional.empty();
    }

    /**
     * Puts back every applied change, newest first. The state file goes when this run created it and everything
     * is back; otherwise it stays for {@code restore}.
     */
    private NumaspreadException rollBack(List<Applied> applied, Applied failed, String why, boolean createdState,
            Path stateFile) {
        List<String> stuck = undo(applied, createdState, stateFile);
        Target target = failed.setting().target();
        String value = target.format(failed.setting().cpus(), maskBits);
        int undone = applied.size() - stuck.size();
        String outcome = stuck.isEmpty()
                ? "rolled back: " + undone + " change" + (undone == 1 ? "" : "s") + " put back, nothing else was touched"
                : "ROLLBACK FAILED for " + String.join(", ", stuck) + ": run " + restoreCommand(paths, stateFile);
        return new NumaspreadException(NumaspreadException.Kind.ROLLED_BACK, target.label() + ": writing \"" + value + "\" to "
                + target.file(paths) + " failed: " + why + "; " + outcome);
    }

    /** Writes back what each applied change replaced; returns the labels of those that could not be. */
    private List<String> undo(List<Applied> applied, boolean createdState, Path stateFile) {
        List<String> stuck = new ArrayList<>();
        for (int i = applied.size() - 1; i >= 0; i--) {
            Applied change = applied.get(i);
            Path file = change.setting().target().file(paths);
            try {
                files.write(file, change.before());
                if (!change.setting().target().parse(files.read(file))
                        .equals(change.setting().target().parse(change.before()))) {
                    stuck.add(change.setting().target().label() + " (reads back differently)");
                }
            } catch (IOException | IllegalArgumentException e) {
                stuck.add(change.setting().target().label() + " (" + (e instanceof IOException io
                        ? Errno.describe(io) : e.getMessage()) + ")");
            }
        }
        if (stuck.isEmpty() && createdState) {
            StateFile.delete(stateFile);
        }
        return stuck;
    }
}
