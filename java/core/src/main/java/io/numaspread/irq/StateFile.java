// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.TrustedDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.stream.Stream;

/**
 * The write-ahead record of what an apply changed: the text every touched kernel file held before the first
 * apply. It is written (to a temporary file, synced, then renamed over) before any change, so that a crash or a
 * kill at any point leaves either the old record or the new one, never a torn one.
 *
 * <p>This class keeps the file: where it is, the checks of its directory and of the file itself, reading, writing
 * and removing it, and the {@code "saved"} entries and {@link StateRecord}s it holds ({@link State}). Its JSON is
 * {@link StateFileFormat}'s, and its lock, which keeps two applies or restores of one file apart,
 * {@link StateFileLocks}'.
 */
public final class StateFile {
    /**
     * The size limit. An entry takes about a hundred bytes, an XPS mask of 8192 CPUs about 2.3 KB; a NIC has at
     * most a few hundred queues.
     */
    static final int MAX_BYTES = 16 << 20;

    /**
     * What one kernel file held before numaspread first changed it, as read. The value is checked when the record
     * is made: a cpulist or hex mask exactly as the kernel prints them, nothing else; anything else is an
     * {@link IllegalArgumentException} naming the value.
     */
    public record Saved(Target target, String value) {
        public Saved {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(value, "value");
            target.parse(value);
        }

        /** The CPUs the value names. */
        public CpuSet cpus() {
            return target.parse(value);
        }
    }

    /**
     * The record for one interface: the affinity values it holds ({@code saved}), and each other kind of change's
     * record ({@link StateRecord}), at most one a kind, none of them empty.
     */
    public record State(InterfaceName iface, List<Saved> saved, List<StateRecord<?>> records) {
        public State {
            saved = List.copyOf(saved);
            Set<StateRecord.Kind<?>> kinds = new HashSet<>();
            for (StateRecord<?> record : records) {
                if (!kinds.add(record.kind())) {
                    throw new IllegalArgumentException(
                            "two records of \"" + record.kind().key() + "\"");
                }
            }
            records = records.stream()
                    .filter(record -> !record.isEmpty())
                    .sorted(Comparator.comparingInt(record -> StateRecord.KINDS.indexOf(record.kind())))
                    .toList();
        }

        public State(InterfaceName iface, List<Saved> saved) {
            this(iface, saved, List.of());
        }

        /** Its record of {@code type}'s kind, or that kind's empty record when it holds none. */
        public <R extends StateRecord<R>> R record(Class<R> type) {
            return records.stream()
                    .filter(type::isInstance)
                    .map(type::cast)
                    .findFirst()
                    .orElseGet(() -> type.cast(StateRecord.Kind.of(type).empty));
        }

        /**
         * This state recording {@code added} too, keeping any earlier value it holds for the same thing: the first
         * value read wins.
         */
        public <R extends StateRecord<R>> State recording(R added) {
            return with(record(added.kind().type).mergedWith(added));
        }

        /** This state with {@code record} in place of its record of that kind (none when it is empty). */
        public <R extends StateRecord<R>> State with(R record) {
            List<StateRecord<?>> others = new ArrayList<>(records);
            others.removeIf(record.kind().type::isInstance);
            others.add(record);
            return new State(iface, saved, others);
        }

        /** Whether it records nothing left to put back. */
        public boolean isEmpty() {
            return saved.isEmpty() && records.isEmpty();
        }

        public Optional<Saved> find(Target target) {
            return saved.stream().filter(s -> sameFile(s.target(), target)).findFirst();
        }

        /** This state plus {@code additions} for the files it does not yet hold: the first value read wins. */
        public State mergedWith(List<Saved> additions) {
            List<Saved> merged = new ArrayList<>(saved);
            for (Saved addition : additions) {
                if (find(addition.target()).isEmpty()) {
                    merged.add(addition);
                }
            }
            return new State(iface, merged, records);
        }

        private static boolean sameFile(Target a, Target b) {
            return a.kind() == b.kind() && a.number() == b.number();
        }
    }

    private StateFile() {}

    /**
     * The default state file of an interface: {@code /run/numaspread/IFACE.json} on the live kernel, and
     * {@code PROC_ROOT/numaspread/IFACE.json} for a stand-in tree, so that an apply to a copy never records
     * (and a restore never reads) the live machine's state.
     */
    public static Path defaultPath(KernelPaths paths, InterfaceName iface) {
        return in(defaultDirectory(paths), iface);
    }

    /** {@code iface}'s state file in {@code directory}: {@code IFACE.json}. */
    public static Path in(Path directory, InterfaceName iface) {
        return directory.resolve(iface.value() + ".json");
    }

    /** Where the interfaces' default state files are ({@link #defaultPath}). */
    public static Path defaultDirectory(KernelPaths paths) {
        return paths.isLive() ? Path.of("/run/numaspread") : paths.procRoot().resolve("numaspread");
    }

    /**
     * The interfaces that have a state file {@code IFACE.json} in {@code directory}, by name; none when it does
     * not exist. Only the names are read here: each file is read, with its checks, when it is restored.
     *
     * @throws NumaspreadException (refused) for a directory others can change; (bad input) when it cannot be listed
     */
    public static List<InterfaceName> interfacesIn(Path directory) {
        Path any = directory.resolve("any.json");
        try {
            Optional<TrustedDirectory> found = directory(any, false);
            if (found.isEmpty()) {
                return List.of();
            }
            found.get().close();
            try (Stream<Path> entries = Files.list(directory)) {
                return entries.map(entry -> entry.getFileName().toString())
                        .filter(name -> name.endsWith(".json") && !name.startsWith("."))
                        .map(name -> name.substring(0, name.length() - ".json".length()))
                        .filter(InterfaceName::isValid)
                        .sorted()
                        .map(InterfaceName::new)
                        .toList();
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw failure("cannot list the state directory " + directory, e);
        }
    }

    /**
     * Refuses a path that names no file ({@code /}, {@code ""}, {@code .}, {@code ..}), before anything is created
     * beside it.
     *
     * @throws NumaspreadException (bad input) naming the path
     */
    public static void checkPath(Path file) {
        Path name = file.getFileName();
        if (name == null
                || name.toString().isEmpty()
                || name.toString().equals(".")
                || name.toString().equals("..")) {
            throw NumaspreadException.badInput("state file path \"" + file + "\" names no file: give a file such as"
                    + " /run/numaspread/eth0.json");
        }
    }

    /**
     * The state file's directory, opened by descriptor with every directory on its path checked, so that what it
     * holds is root's (or this user's) alone ({@link TrustedDirectory}): numaspread runs as root, and what a
     * directory others can change holds (a planted link, FIFO, device, state or lock file) would steer what it
     * reads, creates and writes back to the kernel, or lock it out. A sticky state directory such as /tmp is refused
     * too, because others can still create the names numaspread uses there first; a sticky directory above it is
     * not. Everything after is opened relative to the directory's descriptor, so no check can be raced. Empty
     * when the directory does not exist and {@code create} is false; created 0700 when it is true.
     *
     * @throws NumaspreadException (bad input) for a path that names no file; (refused) for a directory on the path
     *     that another user owns or others can write, or that is a link
     */
    static Optional<TrustedDirectory> directory(Path file, boolean create) throws IOException {
        checkPath(file);
        Path dir = file.toAbsolutePath().getParent();
        try {
            return create ? Optional.of(TrustedDirectory.create(dir)) : TrustedDirectory.open(dir);
        } catch (TrustedDirectory.Untrusted e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "state file " + file + ": " + e.getMessage() + ", so files planted there could steer what"
                            + " numaspread writes as root; choose a directory that only root (or you) can change,"
                            + " such as the default /run/numaspread; nothing was changed",
                    e);
        }
    }

    static String name(Path file) {
        return file.getFileName().toString();
    }

    /** Refuses a state file that is a link, a directory, a FIFO or a device, without opening it. */
    static void checkRegular(TrustedDirectory dir, Path file) throws IOException {
        Optional<BasicFileAttributes> attributes = dir.attributes(name(file));
        if (attributes.isPresent() && !attributes.get().isRegularFile()) {
            throw NumaspreadException.badInput("state file " + file + " is " + describe(attributes.get())
                    + ", not a regular file; nothing was changed");
        }
    }

    /** Refused (exit 3) for want of privilege, as a write to the kernel would be; otherwise bad input. */
    private static NumaspreadException failure(String what, IOException e) {
        Errno errno = Errno.of(e);
        NumaspreadException.Kind kind = errno == Errno.EACCES || errno == Errno.EPERM
                ? NumaspreadException.Kind.REFUSED
                : NumaspreadException.Kind.BAD_INPUT;
        return new NumaspreadException(kind, what + ": " + Errno.describe(e) + "; nothing was changed", e);
    }

    static String describe(BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link (never followed: it could point root's writes anywhere)";
        }
        return attributes.isDirectory() ? "a directory" : "a FIFO, socket or device";
    }

    /**
     * @throws NumaspreadException (bad input) if the file is unreadable, too large, not a regular file or not a
     *     state file, naming it; (refused) without the privilege to read it or for a directory others can change
     */
    public static Optional<State> read(Path file) {
        String text;
        try {
            Optional<TrustedDirectory> found = directory(file, false);
            if (found.isEmpty()) {
                return Optional.empty();
            }
            try (TrustedDirectory dir = found.get()) {
                checkRegular(dir, file);
                text = new String(dir.read(name(file), MAX_BYTES), StandardCharsets.UTF_8);
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw failure("cannot read state file " + file, e);
        }
        try {
            return Optional.of(StateFileFormat.decode(text));
        } catch (IllegalArgumentException | NumaspreadException e) {
            throw NumaspreadException.badInput(
                    "state file " + file + " is not a numaspread state file: " + e.getMessage());
        }
    }

    /**
     * Replaces {@code file} atomically, as {@link TrustedDirectory#replace} does: a reader (or a crash) sees the
     * old content or the new, never a mix, and nothing is written through a name that exists. The file is 0600,
     * its directory, when this creates it, 0700.
     *
     * @throws StateFileUnusable (refused) if it cannot be written, naming the file and errno; nothing was changed
     */
    public static void write(Path file, State state) {
        try (TrustedDirectory dir = directory(file, true).orElseThrow()) {
            checkRegular(dir, file);
            dir.replace(
                    name(file),
                    StateFileFormat.encode(state, StateFileFormat.foreign(parsed(dir, file)))
                            .getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new StateFileUnusable(
                    NumaspreadException.Kind.REFUSED,
                    "cannot write state file " + file + ": " + Errno.describe(e) + "; nothing was changed",
                    file,
                    e);
        }
    }

    /** A held lock; closing it never fails. */
    public interface Lock extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Holds {@code file}'s lock until the returned lock is closed, as {@link #lock} does, for as long as a watch
     * keeps the NIC: every other process's apply, restore or watch of it is refused, naming this process's PID,
     * while this process's own ({@link #lock} of a held file, on whichever thread) go through, so that watch's
     * re-applies and its restore do not refuse themselves.
     *
     * @throws NumaspreadException (refused) when another process holds it, this one holds it already, or it
     *     cannot be created
     */
    public static Lock hold(Path file) {
        return StateFileLocks.hold(file);
    }

    /**
     * Holds {@code .NAME.lock} beside the state file, so that two applies or restores of one state file do not
     * interleave. The lock file stays (empty); the lock goes with the process, also when it is killed. It is
     * opened without following a link, never truncated, and is 0600 in a directory only root (or this user) can
     * change: whoever could open it could hold a lock on it and so refuse every apply and restore. While this
     * process {@link #hold}s it, the lock is already this process's, and nothing is done.
     *
     * @throws NumaspreadException (refused) when another process holds it (naming its PID), or it cannot be
     *     created
     */
    public static Lock lock(Path file) {
        return StateFileLocks.lock(file);
    }

    /**
     * Removes this build's records: the file, unless it holds records of a newer build, which are then all it
     * keeps.
     */
    public static void delete(Path file) {
        try {
            Optional<TrustedDirectory> found = directory(file, false);
            if (found.isPresent()) {
                try (TrustedDirectory dir = found.get()) {
                    Optional<Map<?, ?>> root = parsed(dir, file);
                    SortedMap<String, Object> foreign = StateFileFormat.foreign(root);
                    if (!foreign.isEmpty() && root.get().get("interface") instanceof String iface) {
                        State none = new State(new InterfaceName(iface), List.of());
                        dir.replace(
                                name(file),
                                StateFileFormat.encode(none, foreign).getBytes(StandardCharsets.UTF_8));
                    } else {
                        dir.delete(name(file));
                    }
                }
            }
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot remove state file " + file + ": " + Errno.describe(e));
        }
    }

    /**
     * The keys of the records in {@code file} that this build does not know, written by a newer one: {@code
     * restore} cannot put them back, so it refuses rather than remove the file without them.
     *
     * @throws NumaspreadException as {@link #read} does
     */
    public static List<String> foreignRecords(Path file) {
        try {
            Optional<TrustedDirectory> found = directory(file, false);
            if (found.isEmpty()) {
                return List.of();
            }
            try (TrustedDirectory dir = found.get()) {
                return List.copyOf(StateFileFormat.foreign(parsed(dir, file)).keySet());
            }
        } catch (IOException e) {
            throw failure("cannot read state file " + file, e);
        }
    }

    /** The file's JSON object, or empty when there is none or it is no JSON object (it is replaced, not kept). */
    private static Optional<Map<?, ?>> parsed(TrustedDirectory dir, Path file) throws IOException {
        Optional<BasicFileAttributes> attributes = dir.attributes(name(file));
        if (attributes.isEmpty() || !attributes.get().isRegularFile()) {
            return Optional.empty();
        }
        try {
            return MiniJson.parse(new String(dir.read(name(file), MAX_BYTES), StandardCharsets.UTF_8))
                            instanceof Map<?, ?> root
                    ? Optional.of(root)
                    : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
