package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The write-ahead record of what an apply changed: the text every touched kernel file held before the first
 * apply. It is written (to a temporary file, synced, then renamed over) before any change, so that a crash or a
 * kill at any point leaves either the old record or the new one, never a torn one.
 *
 * <p>Format (JSON): {@code {"version": 1, "interface": "eth0", "saved": [{"kind": "irq", "number": 38,
 * "name": "virtio2-input.0", "value": "0-1"}, {"kind": "xps", "number": 0, "name": "eth0", "value":
 * "00000003"}]}}
 */
public final class StateFile {
    private static final int VERSION = 1;

    /** What one kernel file held before numaspread first changed it, exactly as read. */
    public record Saved(Target target, String value) {
    }

    /** The record for one interface. */
    public record State(InterfaceName iface, List<Saved> saved) {
        public State {
            saved = List.copyOf(saved);
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
            return new State(iface, merged);
        }

        private static boolean sameFile(Target a, Target b) {
            return a.kind() == b.kind() && a.number() == b.number();
        }
    }

    private StateFile() {
    }

    /** The default state file of an interface: {@code /run/numaspread/IFACE.json}. */
    public static Path defaultPath(InterfaceName iface) {
        return Path.of("/run/numaspread", iface.value() + ".json");
    }

    /**
     * @throws NumaspreadException (bad input) if the file is unreadable or not a state file, naming it
     */
    public static Optional<State> read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read state file " + file + ": " + Errno.describe(e));
        }
        try {
            return Optional.of(decode(text));
        } catch (IllegalArgumentException | ClassCastException | NullPointerException | ArithmeticException
                | NumaspreadException e) {
            throw NumaspreadException.badInput("state file " + file + " is not a numaspread state file: " + e.getMessage());
        }
    }

    /**
     * Replaces {@code file} atomically: a reader (or a crash) sees the old content or the new, never a mix.
     *
     * @throws NumaspreadException (refused) if it cannot be written, naming the file and errno; nothing was changed
     */
    public static void write(Path file, State state) {
        Path dir = file.toAbsolutePath().getParent();
        Path temporary = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(dir);
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = ByteBuffer.wrap(encode(state).getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot rename " + temporary + " over " + file + " atomically", e);
            }
            syncDirectory(dir);
        } catch (IOException e) {
            throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "cannot write state file " + file + ": "
                    + Errno.describe(e) + "; nothing was changed (choose another with --state FILE)", e);
        }
    }

    /** A held lock; closing it never fails. */
    public interface Lock extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Holds {@code .NAME.lock} beside the state file, so that two applies or restores of one state file do not
     * interleave. The lock file stays (empty); the lock goes with the process, also when it is killed.
     *
     * @throws NumaspreadException (refused) when another process holds it, or it cannot be created
     */
    public static Lock lock(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        Path lockFile = dir.resolve("." + file.getFileName() + ".lock");
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "another numaspread apply or restore of " + file
                        + " is running (it holds " + lockFile + "); nothing was changed");
            }
            FileChannel held = channel;
            return () -> closeQuietly(held);
        } catch (IOException | OverlappingFileLockException e) {
            closeQuietly(channel);
            throw new NumaspreadException(NumaspreadException.Kind.REFUSED, "cannot lock " + lockFile + ": "
                    + (e instanceof IOException io ? Errno.describe(io) : "held by this process")
                    + "; nothing was changed", e);
        }
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

    public static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot remove state file " + file + ": " + Errno.describe(e));
        }
    }

    /** Makes the rename durable; some filesystems do not allow opening a directory, which costs only durability. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // The rename is already atomic; only its survival across a power loss is at stake.
        }
    }

    static String encode(State state) {
        StringBuilder json = new StringBuilder();
        json.append("{\n  \"version\": ").append(VERSION).append(",\n  \"interface\": ")
                .append(MiniJson.quote(state.iface().value())).append(",\n  \"saved\": [");
        for (int i = 0; i < state.saved().size(); i++) {
            Saved saved = state.saved().get(i);
            json.append(i == 0 ? "\n" : ",\n").append("    {\"kind\": ")
                    .append(MiniJson.quote(saved.target().kind().name().toLowerCase(java.util.Locale.ROOT)))
                    .append(", \"number\": ").append(saved.target().number())
                    .append(", \"name\": ").append(MiniJson.quote(saved.target().name()))
                    .append(", \"value\": ").append(MiniJson.quote(saved.value())).append('}');
        }
        return json.append("\n  ]\n}\n").toString();
    }

    @SuppressWarnings("unchecked")
    static State decode(String text) {
        Map<String, Object> root = (Map<String, Object>) MiniJson.parse(text);
        Object version = root.get("version");
        if (!Long.valueOf(VERSION).equals(version)) {
            throw new IllegalArgumentException("version " + version + ", expected " + VERSION);
        }
        InterfaceName iface = new InterfaceName((String) root.get("interface"));
        List<Saved> saved = new ArrayList<>();
        for (Object entry : (List<Object>) root.get("saved")) {
            Map<String, Object> fields = new LinkedHashMap<>((Map<String, Object>) entry);
            Target.Kind kind = Target.Kind.valueOf(((String) fields.get("kind")).toUpperCase(java.util.Locale.ROOT));
            int number = Math.toIntExact((Long) fields.get("number"));
            String name = (String) fields.get("name");
            if (kind == Target.Kind.XPS && !name.equals(iface.value())) {
                throw new IllegalArgumentException("an xps entry names " + name + " in the state of " + iface);
            }
            saved.add(new Saved(new Target(kind, number, name), (String) fields.get("value")));
        }
        return new State(iface, saved);
    }
}
