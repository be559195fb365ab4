// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Writing the CPUs of IRQs ({@link IrqAffinity}), XPS queues ({@link XpsMasks}) and NAPI threads ({@link
 * NapiThreadAffinity}), in that order: the values each file held are the state file's {@code "saved"} entries.
 * IRQs the kernel manages (EIO, or EPERM while others succeed) are reported and left alone.
 */
final class AffinityChange implements Change {
    /** A setting to write, with the text its file held. */
    private record Pending(Setting setting, String before) {}

    private final ChangeContext kernel;
    private final List<Setting> settings;
    /** The settings that can only be planned once an earlier change of the apply is made (the NAPI threads'). */
    private final Supplier<List<Setting>> later;

    private boolean planned;
    private boolean read;
    private List<AffinityTransaction.Result> settled = List.of();
    private List<Pending> pending = List.of();
    private final List<Pending> applied = new ArrayList<>();
    private final Map<Pending, Errno> managed = new LinkedHashMap<>();

    /** @param later settings planned when it is first read, under the state file's lock */
    AffinityChange(ChangeContext kernel, List<Setting> settings, Supplier<List<Setting>> later) {
        this.kernel = kernel;
        this.settings = new ArrayList<>(settings);
        this.later = later;
    }

    AffinityChange(ChangeContext kernel, List<Setting> settings) {
        this(kernel, settings, List::of);
    }

    @Override
    public void read() {
        if (!planned) {
            planned = true;
            List<Setting> more = later.get();
            more.forEach(setting -> probe(setting.target()));
            settings.addAll(more);
        }
        List<AffinityTransaction.Result> unchanged = new ArrayList<>();
        List<Pending> changing = new ArrayList<>();
        for (Setting setting : settings) {
            Optional<String> before = readCurrent(setting.target());
            if (before.isEmpty()) {
                unchanged.add(new AffinityTransaction.Result(
                        setting.target(),
                        setting.cpus(),
                        "",
                        AffinityTransaction.Status.UNAVAILABLE,
                        where(setting.target()) + " cannot be read (ENOENT): the device has one transmit queue"));
            } else if (parse(setting.target(), before.get()).equals(setting.cpus())) {
                unchanged.add(new AffinityTransaction.Result(
                        setting.target(), setting.cpus(), before.get(), AffinityTransaction.Status.UNCHANGED, ""));
            } else {
                changing.add(new Pending(setting, before.get()));
            }
        }
        settled = unchanged;
        pending = changing;
        read = true;
    }

    @Override
    public boolean changesAnything() {
        return !pending.isEmpty();
    }

    /** What is to be written once read; before that, every planned setting. */
    @Override
    public void probe() {
        if (read) {
            pending.forEach(change -> probe(change.setting().target()));
        } else {
            settings.forEach(setting -> probe(setting.target()));
        }
    }

    /**
     * Refuses to add to a state file that was recorded before the IRQs were renumbered (a reboot or driver reload):
     * merged by number, it would name IRQs that are gone, or hold another IRQ's value for a number. The recorded
     * names tell: an IRQ of this plan recorded under another number, or a number recorded under another name.
     */
    @Override
    public void check(StateFile.State existing, Path stateFile) {
        String stale = ": the file is stale, from before a reboot or driver reload renumbered the IRQs";
        String then = " first (it puts back what still exists and reports the IRQs that are gone), then apply again;"
                + " nothing was changed";
        for (StateFile.Saved saved : existing.saved()) {
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
                    throw new RestoreNeeded(
                            NumaspreadException.Kind.BAD_INPUT,
                            "state file " + stateFile + " records IRQ " + recorded.number() + " as \"" + recorded.name()
                                    + "\" but it is now \"" + now.name() + "\"" + stale,
                            stateFile,
                            kernel.paths(),
                            then);
                }
                if (now.name().equals(recorded.name()) && now.number() != recorded.number()) {
                    throw new RestoreNeeded(
                            NumaspreadException.Kind.BAD_INPUT,
                            "state file " + stateFile + " records \"" + recorded.name() + "\" as IRQ "
                                    + recorded.number() + " but it is now IRQ " + now.number() + stale,
                            stateFile,
                            kernel.paths(),
                            then);
                }
            }
        }
    }

    @Override
    public StateFile.State record(StateFile.State state) {
        return state.mergedWith(pending.stream()
                .map(p -> new StateFile.Saved(p.setting().target(), p.before()))
                .toList());
    }

    @Override
    public void apply() {
        for (Pending change : ofKind(Target.Kind.IRQ)) {
            writeAndVerify(change).ifPresent(failure -> {
                Errno errno = Errno.of(failure);
                if (errno != Errno.EIO && errno != Errno.EPERM && errno != Errno.EACCES) {
                    throw failed(change, Errno.describe(failure));
                }
                managed.put(change, errno);
            });
        }
        // EIO says "managed"; EPERM/EACCES says so only when other IRQs took their writes.
        if (applied.isEmpty() && !managed.isEmpty() && !managed.containsValue(Errno.EIO)) {
            Map.Entry<Pending, Errno> first = managed.entrySet().iterator().next();
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "the kernel refused every IRQ write ("
                            + first.getKey().setting().target().label() + ": "
                            + first.getValue().name() + " ("
                            + first.getValue().text() + ")): changing IRQ affinity needs root with write access to "
                            + kernel.paths().procRoot() + "/irq (if these IRQs are all managed by the kernel, there is"
                            + " nothing to change); nothing was changed");
        }
        for (Target.Kind kind : List.of(Target.Kind.XPS, Target.Kind.NAPI_THREAD)) {
            for (Pending change : ofKind(kind)) {
                writeAndVerify(change).ifPresent(failure -> {
                    throw failed(change, Errno.describe(failure));
                });
            }
        }
    }

    /**
     * Writes and reads back one setting, adding it to {@code applied} on success. An I/O failure of the write is
     * returned for the caller to judge; a read-back that differs fails the change.
     */
    private Optional<IOException> writeAndVerify(Pending change) {
        Target target = change.setting().target();
        String value = target.format(change.setting().cpus(), kernel.maskBits());
        try {
            kernel.writer(target).write(target, value);
        } catch (IOException e) {
            return Optional.of(e);
        }
        applied.add(change);
        String back;
        try {
            back = kernel.writer(target).read(target);
        } catch (IOException e) {
            throw failed(change, "reading it back failed: " + Errno.describe(e));
        }
        CpuSet actual;
        try {
            actual = target.parse(back);
        } catch (IllegalArgumentException e) {
            throw failed(
                    change,
                    "it reads back as \"" + KernelText.escape(back) + "\": " + KernelText.escape(e.getMessage()));
        }
        if (!actual.equals(change.setting().cpus())) {
            throw failed(change, "it reads back as \"" + KernelText.escape(back) + "\"");
        }
        return Optional.empty();
    }

    private Failed failed(Pending change, String why) {
        Target target = change.setting().target();
        String value = target.format(change.setting().cpus(), kernel.maskBits());
        return new Failed(target.label() + ": writing \"" + value + "\" to " + where(target) + " failed: " + why);
    }

    /** Counts the values of its own kinds put back: threaded NAPI, turned off again, is no such value. */
    @Override
    public NumaspreadException rolledBack(Failed failed, int undone) {
        return new NumaspreadException(
                NumaspreadException.Kind.ROLLED_BACK,
                failed.getMessage() + "; rolled back: " + applied.size() + " change" + (applied.size() == 1 ? "" : "s")
                        + " put back, nothing else was touched");
    }

    @Override
    public List<String> undo() {
        List<String> stuck = new ArrayList<>();
        for (int i = applied.size() - 1; i >= 0; i--) {
            Pending change = applied.get(i);
            Target target = change.setting().target();
            try {
                kernel.writer(target).write(target, change.before());
                if (!target.parse(kernel.writer(target).read(target)).equals(target.parse(change.before()))) {
                    stuck.add(target.label() + " (reads back differently)");
                }
            } catch (IOException | IllegalArgumentException e) {
                stuck.add(target.label() + " (" + (e instanceof IOException io ? Errno.describe(io) : e.getMessage())
                        + ")");
            }
        }
        return stuck;
    }

    /**
     * Its entries stay: each holds what its file held before this apply, which is what the file holds again, and an
     * earlier apply's entry for the same file is not this one's to remove.
     */
    @Override
    public StateFile.State forget(StateFile.State state) {
        return state;
    }

    @Override
    public int undone() {
        return applied.size();
    }

    /** In the settings' order. */
    @Override
    public List<AffinityTransaction.Result> results(boolean dryRun) {
        List<AffinityTransaction.Result> results = new ArrayList<>(settled);
        if (dryRun) {
            pending.forEach(p -> results.add(result(p, AffinityTransaction.Status.WOULD_CHANGE, "")));
        }
        applied.forEach(a -> results.add(result(a, AffinityTransaction.Status.CHANGED, "")));
        managed.forEach((change, errno) -> results.add(result(
                change,
                AffinityTransaction.Status.MANAGED,
                "managed by the kernel: " + errno.name() + " (" + errno.text() + ")")));
        List<Target> order = settings.stream().map(Setting::target).toList();
        return results.stream()
                .sorted(Comparator.comparingInt(r -> order.indexOf(r.target())))
                .toList();
    }

    private static AffinityTransaction.Result result(Pending change, AffinityTransaction.Status status, String detail) {
        return new AffinityTransaction.Result(
                change.setting().target(), change.setting().cpus(), change.before(), status, detail);
    }

    private List<Pending> ofKind(Target.Kind kind) {
        return pending.stream().filter(c -> c.setting().target().kind() == kind).toList();
    }

    /** Empty when the device has no such value (an XPS file of a single-queue device). */
    private Optional<String> readCurrent(Target target) {
        return readCurrent(kernel, target);
    }

    private static Optional<String> readCurrent(ChangeContext kernel, Target target) {
        try {
            return Optional.of(kernel.writer(target).read(target));
        } catch (IOException e) {
            if (kernel.writer(target).lacks(target, e)) {
                return Optional.empty();
            }
            throw NumaspreadException.badInput(
                    "cannot read " + kernel.writer(target).where(target) + ": " + Errno.describe(e));
        }
    }

    private String where(Target target) {
        return kernel.writer(target).where(target);
    }

    private void probe(Target target) {
        kernel.writer(target).probe(target);
    }

    private CpuSet parse(Target target, String text) {
        return parse(kernel, target, text);
    }

    private static CpuSet parse(ChangeContext kernel, Target target, String text) {
        try {
            return target.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(
                    kernel.writer(target).where(target) + ": " + KernelText.escape(e.getMessage()));
        }
    }

    /**
     * Puts back what {@code saved} records, each value read back. The values are checked before the first write:
     * CPUs this machine cannot have refuse the whole restore; an IRQ or transmit queue that no longer exists is
     * reported as {@link AffinityTransaction.Status#GONE}, with nothing to put back.
     *
     * @param source what {@code saved} comes from, for the refusal of values this machine cannot hold
     */
    static PutBack restoring(List<StateFile.Saved> saved, ChangeContext kernel, InterfaceName iface, String source) {
        return new PutBack() {
            @Override
            public void probe() {
                saved.stream()
                        .filter(s -> kernel.writer(s.target()).exists(s.target()))
                        .forEach(s -> kernel.writer(s.target()).probe(s.target()));
            }

            @Override
            public List<String> putBack(List<AffinityTransaction.Result> results) {
                return AffinityChange.putBack(saved, kernel, iface, source, results);
            }

            @Override
            public boolean needsNapiThreads() {
                return true;
            }
        };
    }

    /** One recorded value and what its file holds now. */
    private record Restoring(StateFile.Saved saved, CpuSet recorded, String current) {}

    private static List<String> putBack(
            List<StateFile.Saved> saved,
            ChangeContext kernel,
            InterfaceName iface,
            String source,
            List<AffinityTransaction.Result> all) {
        List<AffinityTransaction.Result> results = new ArrayList<>();
        IrqsNow irqs = IrqsNow.read(kernel.paths(), iface);
        List<Restoring> toWrite = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        for (StateFile.Saved entry : saved) {
            Target target = entry.target();
            CpuSet recorded = entry.cpus();
            if (!recorded.isEmpty() && recorded.last() >= kernel.maskBits()) {
                invalid.add(target.label() + ": the recorded CPUs " + recorded + " are beyond the " + kernel.maskBits()
                        + " CPUs of " + kernel.paths().cpuPossible());
                continue;
            }
            Optional<String> gone = kernel.writer(target).goneReason(target, irqs);
            if (gone.isPresent()) {
                results.add(new AffinityTransaction.Result(
                        target, recorded, "", AffinityTransaction.Status.GONE, gone.get()));
                continue;
            }
            Optional<String> current = readCurrent(kernel, target);
            if (current.isEmpty()) {
                results.add(new AffinityTransaction.Result(
                        target,
                        recorded,
                        "",
                        AffinityTransaction.Status.GONE,
                        kernel.writer(target).where(target)
                                + " cannot be read (ENOENT): the device has one transmit queue now"));
            } else if (parse(kernel, target, current.get()).equals(recorded)) {
                results.add(new AffinityTransaction.Result(
                        target, recorded, current.get(), AffinityTransaction.Status.UNCHANGED, ""));
            } else {
                toWrite.add(new Restoring(entry, recorded, current.get()));
            }
        }
        if (!invalid.isEmpty()) {
            throw NumaspreadException.badInput(source + " cannot be restored on this machine: "
                    + String.join("; ", invalid) + "; nothing was written");
        }
        // Another apply may have added entries while this one waited for the lock.
        toWrite.forEach(r -> kernel.writer(r.saved().target()).probe(r.saved().target()));

        List<String> failures = new ArrayList<>();
        for (Restoring restoring : toWrite) {
            Target target = restoring.saved().target();
            String value = target.format(restoring.recorded(), kernel.maskBits());
            try {
                kernel.writer(target).write(target, value);
                String back = kernel.writer(target).read(target);
                if (!readsAs(target, back, restoring.recorded())) {
                    failures.add(target.label() + ": wrote \"" + value + "\" but it reads back \"" + back + "\""
                            + (irqs.idle(target)
                                    ? " (" + iface + " is closed, and its vectors without a handler did not take"
                                            + " it: put it back once " + iface + " is up)"
                                    : ""));
                    continue;
                }
                results.add(new AffinityTransaction.Result(
                        target, restoring.recorded(), restoring.current(), AffinityTransaction.Status.RESTORED, ""));
            } catch (IOException e) {
                failures.add(target.label() + ": writing \"" + value + "\" to "
                        + kernel.writer(target).where(target) + " failed: " + Errno.describe(e));
            }
        }
        List<Target> order = saved.stream().map(StateFile.Saved::target).toList();
        results.stream()
                .sorted(Comparator.comparingInt(r -> order.indexOf(r.target())))
                .forEach(all::add);
        return failures;
    }

    private static boolean readsAs(Target target, String text, CpuSet expected) {
        try {
            return target.parse(text).equals(expected);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
