// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.LockHolder;
import io.numaspread.kernel.TrustedDirectory;
import io.numaspread.nic.NapiInstance;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The write-ahead record of what an apply changed: the text every touched kernel file held before the first
 * apply. It is written (to a temporary file, synced, then renamed over) before any change, so that a crash or a
 * kill at any point leaves either the old record or the new one, never a torn one.
 *
 * <p>Format (JSON): {@code {"version": 1, "interface": "eth0", "saved": [{"kind": "irq", "number": 38,
 * "name": "virtio2-input.0", "value": "0-1"}, {"kind": "xps", "number": 0, "name": "eth0", "value":
 * "00000003"}]}}. With {@code apply --napi-threads} it also holds each NAPI thread's previous affinity,
 * {@code {"kind": "napi", "number": 8193, "name": "napi/eth0-8193", "value": "0-3"}}, and, when the apply turned
 * threaded NAPI on, the interface's previous {@code "threaded": 0}; when it turned it on NAPI by NAPI through
 * netdev netlink {@code napi-set} (Linux 6.17), each such NAPI's previous value, {@code "napi_threaded": [{"napi":
 * 8193, "threaded": 0}]}: the kernel keeps those in the NAPI's persistent config, past numaspread's exit, so they
 * are recorded before the first is written. A {@code napi-set} of busy-poll settings (IRQ suspension: {@code apply
 * --irq-suspend}, or a Netty group's) records each NAPI's previous ones the same way, {@code "napi_settings":
 * [{"napi": 8193, "defer_hard_irqs": 0, "gro_flush_timeout": 0, "irq_suspend_timeout": 0}]}, in the same file as the
 * interface's other records, so that one {@code restore --nic} puts everything back. {@code apply --poll-sched}
 * records each busy-poll thread's scheduling class before it sets the first, {@code "napi_thread_sched": [{"napi":
 * 8193, "policy": "other", "priority": 0}]}. Files without them (older ones) read as before. Each of these
 * records is its kind's {@link StateRecord}, which encodes and decodes it; this class keeps the file, its checks,
 * its lock and the {@code "saved"} entries.
 */
public final class StateFile {
    private static final int VERSION = 1;

    /**
     * The top-level keys this build reads and writes. Any other is a record of a newer build sharing the directory
     * (version 1 grows by new top-level keys; a change an older build must not touch raises the version, which it
     * refuses): every rewrite keeps it as it is, removing the file keeps the file for it, and {@code restore}
     * refuses to run without it ({@link #foreignRecords}).
     */
    private static final Set<String> KNOWN_KEYS = Stream.concat(
                    Stream.of("version", "interface", "saved"),
                    StateRecord.KINDS.stream().map(StateRecord.Kind::key))
            .collect(Collectors.toUnmodifiableSet());

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

    static void checkNapiId(int napiId) {
        if (napiId < NapiInstance.MIN_NAPI_ID) {
            throw new IllegalArgumentException(
                    "NAPI " + napiId + " is no NAPI ID (they start at " + NapiInstance.MIN_NAPI_ID + ")");
        }
    }

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
    private static Optional<TrustedDirectory> directory(Path file, boolean create) throws IOException {
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

    private static String name(Path file) {
        return file.getFileName().toString();
    }

    /** Refuses a state file that is a link, a directory, a FIFO or a device, without opening it. */
    private static void checkRegular(TrustedDirectory dir, Path file) throws IOException {
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

    private static String describe(BasicFileAttributes attributes) {
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
            return Optional.of(decode(text));
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
            dir.replace(name(file), encode(state, foreign(parsed(dir, file))).getBytes(StandardCharsets.UTF_8));
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

    /** The lock files this process {@link #hold}s, by absolute path: its own uses of them go through. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

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
        checkPath(file);
        Path lockFile = lockFile(file);
        if (HELD.contains(lockFile)) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "this process already keeps " + file + " (it holds " + lockFile + "); nothing was changed");
        }
        Lock lock = lock(file);
        HELD.add(lockFile);
        return () -> {
            HELD.remove(lockFile);
            lock.close();
        };
    }

    private static String lockName(Path file) {
        return "." + file.getFileName() + ".lock";
    }

    private static Path lockFile(Path file) {
        return file.toAbsolutePath().resolveSibling(lockName(file));
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
        checkPath(file);
        String lockName = lockName(file);
        Path lockFile = lockFile(file);
        if (HELD.contains(lockFile)) {
            return () -> {};
        }
        FileChannel channel = null;
        try (TrustedDirectory dir = directory(file, true).orElseThrow()) {
            checkRegular(dir, file);
            Optional<BasicFileAttributes> attributes = dir.attributes(lockName);
            if (attributes.isPresent() && !attributes.get().isRegularFile()) {
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "lock file " + lockFile + " is " + describe(attributes.get())
                                + ", not a regular file; nothing was changed");
            }
            channel = dir.openPrivate(lockName);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "another numaspread apply, restore or watch of " + file + " is running (" + holder(lockFile)
                                + " holds " + lockFile + "); nothing was changed");
            }
            FileChannel held = channel;
            return () -> closeQuietly(held);
        } catch (IOException | OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "cannot lock " + lockFile + ": "
                            + (e instanceof IOException io ? Errno.describe(io) : "held by this process")
                            + "; nothing was changed",
                    e);
        }
    }

    /** Who holds {@code lockFile}, in words: "pid 4242". */
    private static String holder(Path lockFile) {
        OptionalLong pid = LockHolder.pid(lockFile);
        return pid.isPresent() ? "pid " + pid.getAsLong() : "a process whose PID /proc/locks does not list";
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // The lock goes with the process anyway.
            }
        }
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
                    SortedMap<String, Object> foreign = foreign(root);
                    if (!foreign.isEmpty() && root.get().get("interface") instanceof String iface) {
                        State none = new State(new InterfaceName(iface), List.of());
                        dir.replace(name(file), encode(none, foreign).getBytes(StandardCharsets.UTF_8));
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
                return List.copyOf(foreign(parsed(dir, file)).keySet());
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

    private static SortedMap<String, Object> foreign(Optional<Map<?, ?>> root) {
        SortedMap<String, Object> foreign = new TreeMap<>();
        root.ifPresent(fields -> fields.forEach((key, value) -> {
            if (!KNOWN_KEYS.contains(key)) {
                foreign.put((String) key, value);
            }
        }));
        return foreign;
    }

    static String encode(State state) {
        return encode(state, Map.of());
    }

    /** {@code state} and, after it, the {@code foreign} records a newer build wrote, as they were. */
    private static String encode(State state, Map<String, Object> foreign) {
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"version\": ")
                .append(VERSION)
                .append(",\n  \"interface\": ")
                .append(MiniJson.quote(state.iface().value()));
        state.records()
                .forEach(record -> json.append(",\n  ")
                        .append(MiniJson.quote(record.kind().key()))
                        .append(": ")
                        .append(record.encode()));
        json.append(",\n  \"saved\": [");
        for (int i = 0; i < state.saved().size(); i++) {
            Saved saved = state.saved().get(i);
            json.append(i == 0 ? "\n" : ",\n")
                    .append("    {\"kind\": ")
                    .append(MiniJson.quote(kindName(saved.target().kind())))
                    .append(", \"number\": ")
                    .append(saved.target().number())
                    .append(", \"name\": ")
                    .append(MiniJson.quote(saved.target().name()))
                    .append(", \"value\": ")
                    .append(MiniJson.quote(saved.value()))
                    .append('}');
        }
        json.append("\n  ]");
        foreign.forEach((key, value) ->
                json.append(",\n  ").append(MiniJson.quote(key)).append(": ").append(MiniJson.write(value)));
        return json.append("\n}\n").toString();
    }

    /**
     * The state in {@code text}, every field checked for its type and every value for its form, so that nothing
     * is written from a file that is wrong anywhere.
     *
     * @throws IllegalArgumentException naming the field or entry that is wrong
     */
    static State decode(String text) {
        Map<?, ?> root = as(Map.class, MiniJson.parse(text), "the file");
        Object version = root.get("version");
        if (!Long.valueOf(VERSION).equals(version)) {
            throw new IllegalArgumentException(
                    "\"version\" is " + MiniJson.quote(String.valueOf(version)) + ", expected " + VERSION);
        }
        InterfaceName iface = new InterfaceName(as(String.class, root.get("interface"), "\"interface\""));
        List<StateRecord<?>> records = new ArrayList<>();
        StateRecord.KINDS.forEach(kind -> kind.decode(root, iface).ifPresent(records::add));
        List<?> entries = as(List.class, root.get("saved"), "\"saved\"");
        List<Saved> saved = new ArrayList<>();
        Set<String> files = new HashSet<>();
        for (int i = 0; i < entries.size(); i++) {
            String entry = "entry " + (i + 1) + " of \"saved\"";
            Map<?, ?> fields = as(Map.class, entries.get(i), entry);
            Target.Kind kind = switch (as(String.class, fields.get("kind"), entry + ": \"kind\"")) {
                case "irq" -> Target.Kind.IRQ;
                case "xps" -> Target.Kind.XPS;
                case "napi" -> Target.Kind.NAPI_THREAD;
                default ->
                    throw new IllegalArgumentException(entry + ": \"kind\" is none of \"irq\", \"xps\" and \"napi\"");
            };
            long number = as(Long.class, fields.get("number"), entry + ": \"number\"");
            if (number < 0 || number > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(entry + ": \"number\" " + number + " is out of range");
            }
            String name = as(String.class, fields.get("name"), entry + ": \"name\"");
            if (kind == Target.Kind.XPS && !name.equals(iface.value())) {
                throw new IllegalArgumentException(
                        entry + ": an xps entry names " + MiniJson.quote(name) + " in the state of " + iface);
            }
            if (kind == Target.Kind.NAPI_THREAD
                    && (number < NapiInstance.MIN_NAPI_ID
                            || !name.equals(Target.napiThreadName(iface, (int) number)))) {
                throw new IllegalArgumentException(entry + ": a napi entry for NAPI " + number + " names "
                        + MiniJson.quote(name) + ", not the thread "
                        + (number < NapiInstance.MIN_NAPI_ID
                                ? "of a NAPI ID (they start at " + NapiInstance.MIN_NAPI_ID + ")"
                                : MiniJson.quote(Target.napiThreadName(iface, (int) number)))
                        + " of " + iface);
            }
            Target target = new Target(kind, (int) number, name);
            if (!files.add(kind + " " + number)) {
                throw new IllegalArgumentException(entry + ": " + target.label() + " is recorded twice");
            }
            String value = as(String.class, fields.get("value"), entry + " (" + target.label() + "): \"value\"");
            try {
                saved.add(new Saved(target, value));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(entry + " (" + target.label() + "): " + e.getMessage(), e);
            }
        }
        return new State(iface, saved, records);
    }

    /** How the file names a kind: "irq", "xps", "napi". */
    private static String kindName(Target.Kind kind) {
        return switch (kind) {
            case IRQ -> "irq";
            case XPS -> "xps";
            case NAPI_THREAD -> "napi";
        };
    }

    /** {@code value} as a {@code type}, or a message naming {@code what} and what JSON type it should be. */
    static <T> T as(Class<T> type, Object value, String what) {
        if (!type.isInstance(value)) {
            String expected = type == Map.class
                    ? "an object"
                    : type == List.class ? "an array" : type == String.class ? "a string" : "an integer";
            throw new IllegalArgumentException(what + " is " + (value == null ? "missing or null" : "not " + expected));
        }
        return type.cast(value);
    }
}
