// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.LockHolder;
import io.numaspread.kernel.TrustedDirectory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The host-wide registry of CPU leases: a directory ({@value #DEFAULT} by default) with one lock file per CPU,
 * {@code cpu-N.lock}, which its holder keeps locked for as long as it lives and in which it names itself
 * ({@link LeaseRecord}). The lock is the JDK's {@link FileChannel#tryLock}, on Linux a plain POSIX record lock
 * ({@code fcntl(F_SETLK)}, {@code POSIX} in {@code /proc/locks}, not an OFD lock), so the kernel drops it when
 * its process exits, however it exits: a crashed holder's CPU is free again, and the next taker overwrites its
 * record.
 *
 * <p>A POSIX lock belongs to the process, not to the descriptor: a second lock by the same JVM succeeds, and
 * closing any descriptor of the file drops the JVM's lock on it. So this JVM's own leases are kept in one table
 * here, each CPU's lock file opened once ({@code OwnSlot}), and this JVM never opens a lock file it holds again.
 * Two groups of one JVM on one CPU share its one lock file, each pin named in the record.
 *
 * <p>A CPU that another process holds is taken anyway when a plan puts a thread there (the plan did so because
 * no free CPU was left, {@link LeasedPlanner}): the taker locks the CPU's next free slot, {@code cpu-N.2.lock},
 * {@code cpu-N.3.lock}, so that the registry counts every process on the CPU. Planning and taking go under one
 * more lock, {@code registry.lock}, held for the length of a {@link Session}, so that two JVMs that start at once
 * do not both plan onto the same free CPU.
 *
 * <p>Reading the registry ({@link #held}) locks nothing: it asks the kernel who holds each file's lock ({@code
 * /proc/locks}) and reads the record, which counts only when it names that process with its start time. A file
 * whose lock nobody holds is stale and not listed.
 *
 * <p>The directory is created 0700 and its files 0600 ({@link TrustedDirectory}); one that another user owns, or
 * that group or others can write, is refused, because whoever can open a lock file can hold it.
 *
 * <p>The agent opens a session and takes its leases in {@code premain}, before the application's {@code main}, so
 * that path uses no lambda, method reference, regular expression or record's {@code equals}/{@code hashCode}:
 * each links classes at a cold JVM's pace (milliseconds).
 */
public final class CpuLeases {
    /** The registry's directory unless told otherwise. */
    public static final String DEFAULT = "/run/numaspread/cpus";
    /** The system property that, set to {@code off}, turns leases off wherever the code does not decide. */
    public static final String LEASES_PROPERTY = "numaspread.leases";
    /** The system property naming the registry's directory (default {@value #DEFAULT}). */
    public static final String DIRECTORY_PROPERTY = "numaspread.leases.dir";

    private static final Comparator<HeldCpu> BY_CPU_THEN_PID = new Comparator<>() {
        @Override
        public int compare(HeldCpu a, HeldCpu b) {
            int byCpu = Integer.compare(a.cpu(), b.cpu());
            return byCpu != 0 ? byCpu : Long.compare(a.pid(), b.pid());
        }
    };
    private static final String REGISTRY_LOCK = "registry.lock";
    /** Records are a few lines; a larger file is not one. */
    private static final int MAX_RECORD = 64 * 1024;
    /** Where records' holders are looked up: the live tree, as the registry is the live host's. */
    static final Path PROC = Path.of("/proc");
    /** How long a session waits for another process's to end. */
    static final long SESSION_WAIT_MILLIS = 10_000;

    /** Guards {@link #OWN} and every open of a lock file by this JVM. */
    private static final ReentrantLock LOCK = new ReentrantLock();
    /** This JVM's held lock files, by registry directory and CPU. */
    private static final Map<Key, OwnSlot> OWN = new HashMap<>();

    private final Path directory;

    private CpuLeases(Path directory) {
        this.directory = directory.toAbsolutePath().normalize();
    }

    /** Whether {@code -Dnumaspread.leases=off} turns leases off. */
    public static boolean offByProperty() {
        return "off".equalsIgnoreCase(System.getProperty(LEASES_PROPERTY, "on").trim());
    }

    /**
     * The registry's directory that {@code -Dnumaspread.leases.dir} names, if it does. A registry that is named
     * (there, or by the code) and cannot be used is an error; the default one that cannot be used costs only the
     * leases.
     */
    public static Optional<Path> propertyDirectory() {
        String property = System.getProperty(DIRECTORY_PROPERTY);
        return property == null ? Optional.empty() : Optional.of(Path.of(property));
    }

    /** The registry in {@code directory}, which is created when a lease is first taken. */
    public static CpuLeases in(Path directory) {
        return new CpuLeases(directory);
    }

    public Path directory() {
        return directory;
    }

    /**
     * Every CPU lease held now, this process's included, by CPU and then PID; none when the directory does not
     * exist.
     *
     * @throws NumaspreadException (refused) for a directory others can change, or one that cannot be read
     */
    public List<HeldCpu> held() {
        LOCK.lock();
        try {
            Optional<TrustedDirectory> found = TrustedDirectory.open(directory);
            if (found.isEmpty()) {
                return List.of();
            }
            try (TrustedDirectory dir = found.get()) {
                return held(dir);
            }
        } catch (IOException e) {
            throw failure(e);
        } finally {
            LOCK.unlock();
        }
    }

    private List<HeldCpu> held(TrustedDirectory dir) throws IOException {
        long self = ThisProcess.PID;
        List<HeldCpu> held = new ArrayList<>();
        LockHolder.Snapshot locks = null;
        for (String name : dir.names()) {
            int cpu = lockFileCpu(name);
            if (cpu < 0) {
                continue;
            }
            OwnSlot own = OWN.get(new Key(directory, cpu));
            if (own != null && own.name.equals(name)) {
                held.add(new HeldCpu(cpu, self, Optional.of(own.record())));
                continue;
            }
            Optional<BasicFileAttributes> attributes = dir.attributes(name);
            if (attributes.isEmpty() || !attributes.get().isRegularFile()) {
                continue;
            }
            if (locks == null) {
                locks = LockHolder.snapshot();
            }
            OptionalLong pid = locks.pid(dir.path().resolve(name));
            if (pid.isEmpty()) {
                continue;
            }
            held.add(new HeldCpu(cpu, pid.getAsLong(), record(dir, name, pid.getAsLong())));
        }
        held.sort(BY_CPU_THEN_PID);
        return List.copyOf(held);
    }

    /**
     * The CPU of a lock file's name, {@code cpu-N.lock} or {@code cpu-N.S.lock} (N and S decimal, at most 9
     * digits); -1 for any other name.
     */
    static int lockFileCpu(String name) {
        if (!name.startsWith("cpu-") || !name.endsWith(".lock")) {
            return -1;
        }
        String middle = name.substring("cpu-".length(), name.length() - ".lock".length());
        int dot = middle.indexOf('.');
        String cpu = dot < 0 ? middle : middle.substring(0, dot);
        if (!decimal(cpu) || (dot >= 0 && !decimal(middle.substring(dot + 1)))) {
            return -1;
        }
        return Integer.parseInt(cpu);
    }

    private static boolean decimal(String digits) {
        if (digits.isEmpty() || digits.length() > 9) {
            return false;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** The record in {@code name} when it names the lock's holder {@code pid}, alive since the time it says. */
    private static Optional<LeaseRecord> record(TrustedDirectory dir, String name, long pid) throws IOException {
        try {
            Optional<LeaseRecord> record = LeaseRecord.decode(dir.read(name, MAX_RECORD));
            return record.isPresent()
                            && record.get().pid() == pid
                            && record.get().alive(PROC)
                    ? record
                    : Optional.empty();
        } catch (IOException e) {
            // Gone, or not a record (too large): the lock is still held, by a process that named itself nowhere.
            return Optional.empty();
        }
    }

    /**
     * Opens a session: holds the registry's lock (waiting up to 10 s for another process's session to end) until it is
     * closed, so that what it reads stays true until it has taken its leases. Close it on the thread that opened
     * it, and open no other session (of any registry) on that thread before.
     *
     * @throws NumaspreadException (refused) for a directory others can change, or one that cannot be created
     * @throws IllegalStateException when this thread holds a session already
     */
    public Session session() {
        if (LOCK.isHeldByCurrentThread()) {
            // A second descriptor of registry.lock would drop this process's lock on it when closed.
            throw new IllegalStateException("this thread already holds a session of the CPU leases");
        }
        LOCK.lock();
        TrustedDirectory dir = null;
        FileChannel registry = null;
        try {
            dir = TrustedDirectory.create(directory);
            requireRegular(dir, REGISTRY_LOCK);
            registry = dir.openPrivate(REGISTRY_LOCK);
            lockWithin(registry, dir.path().resolve(REGISTRY_LOCK));
            return new Session(dir, registry);
        } catch (IOException | RuntimeException e) {
            closeQuietly(registry);
            closeQuietly(dir);
            LOCK.unlock();
            throw e instanceof IOException io ? failure(io) : (RuntimeException) e;
        }
    }

    /**
     * Locks {@code registry}, waiting at most {@link #SESSION_WAIT_MILLIS} for another process's session: a
     * session lasts as long as a group's planning, and one that lasts longer is a process stuck in it, which
     * must not stop every other JVM's start.
     */
    private static void lockWithin(FileChannel registry, Path file) throws IOException {
        long deadline = System.nanoTime() + SESSION_WAIT_MILLIS * 1_000_000L;
        while (registry.tryLock() == null) {
            if (System.nanoTime() > deadline) {
                OptionalLong holder = LockHolder.pid(file);
                throw new IOException("another process ("
                        + (holder.isPresent() ? "pid " + holder.getAsLong() : "its PID unlisted") + ") has held "
                        + file + " for more than " + SESSION_WAIT_MILLIS + " ms");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + file, e);
            }
        }
    }

    /** Reading and taking leases, under the registry's lock. */
    public final class Session implements AutoCloseable {
        private final TrustedDirectory dir;
        private final FileChannel registry;
        private boolean closed;

        private Session(TrustedDirectory dir, FileChannel registry) {
            this.dir = dir;
            this.registry = registry;
        }

        /** Every lease held now, as {@link CpuLeases#held}. */
        public List<HeldCpu> held() {
            try {
                return CpuLeases.this.held(dir);
            } catch (IOException e) {
                throw failure(e);
            }
        }

        /** How many other processes hold each CPU that one holds. */
        public Map<Integer, Integer> heldByOthers() {
            long self = ThisProcess.PID;
            Map<Integer, Integer> counts = new TreeMap<>();
            for (HeldCpu cpu : held()) {
                if (cpu.pid() != self) {
                    Integer holders = counts.get(cpu.cpu());
                    counts.put(cpu.cpu(), holders == null ? 1 : holders + 1);
                }
            }
            return counts;
        }

        /**
         * Leases {@code cpus} for {@code pin} ({@code netty:numaspread-loop-0}) until the lease is closed or this
         * process exits: on each CPU, this process's lock file if it has one, else the first slot no other
         * process holds. All or none: on failure, what this call took is given back.
         *
         * @throws NumaspreadException (refused) naming the lock file that cannot be created, written or locked
         */
        public Lease take(CpuSet cpus, String pin) {
            List<Key> taken = new ArrayList<>();
            try {
                for (int cpu : cpus) {
                    Key key = new Key(directory, cpu);
                    OwnSlot slot = OWN.get(key);
                    if (slot == null) {
                        slot = OwnSlot.lockFirstFree(dir, cpu);
                        OWN.put(key, slot);
                    }
                    slot.pins.add(pin);
                    taken.add(key);
                    slot.write();
                }
            } catch (IOException e) {
                release(taken, pin);
                throw failure(e);
            } catch (RuntimeException e) {
                release(taken, pin);
                throw e;
            }
            return new Lease(cpus, pin, taken);
        }

        /** Gives the registry's lock back; the leases taken stay. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            closeQuietly(registry);
            closeQuietly(dir);
            LOCK.unlock();
        }
    }

    /** CPUs leased for one pin; closing it gives them back (this process's exit does too). */
    public static final class Lease implements AutoCloseable {
        private final CpuSet cpus;
        private final String pin;
        private final List<Key> keys;
        private boolean closed;

        private Lease(CpuSet cpus, String pin, List<Key> keys) {
            this.cpus = cpus;
            this.pin = pin;
            this.keys = List.copyOf(keys);
        }

        public CpuSet cpus() {
            return cpus;
        }

        public String pin() {
            return pin;
        }

        /** Gives the CPUs back: a CPU's lock goes when its last pin in this process does. Never fails. */
        @Override
        public void close() {
            LOCK.lock();
            try {
                if (!closed) {
                    closed = true;
                    release(keys, pin);
                }
            } finally {
                LOCK.unlock();
            }
        }

        @Override
        public String toString() {
            return "lease of CPUs " + cpus + " for " + pin;
        }
    }

    /** Takes {@code pin} off each CPU of {@code keys}; a CPU left with no pin is unlocked. Under {@link #LOCK}. */
    private static void release(List<Key> keys, String pin) {
        for (Key key : keys) {
            OwnSlot slot = OWN.get(key);
            if (slot == null) {
                continue;
            }
            slot.pins.remove(pin);
            if (slot.pins.isEmpty()) {
                OWN.remove(key);
                slot.unlock();
            } else {
                try {
                    slot.write();
                } catch (IOException e) {
                    // The lock still holds; only the record's list of pins is behind.
                }
            }
        }
    }

    static void requireRegular(TrustedDirectory dir, String name) throws IOException {
        Optional<BasicFileAttributes> attributes = dir.attributes(name);
        if (attributes.isPresent() && !attributes.get().isRegularFile()) {
            throw new IOException(dir.path().resolve(name) + " is not a regular file");
        }
    }

    private NumaspreadException failure(IOException e) {
        String why = e instanceof TrustedDirectory.Untrusted ? e.getMessage() : Errno.describe(e);
        return new NumaspreadException(
                NumaspreadException.Kind.REFUSED, "CPU leases in " + directory + ": " + why + "; no CPU was leased", e);
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (Exception e) {
                // A lock goes with its descriptor, and a descriptor with the process.
            }
        }
    }

    /** A registry's CPU. A class, not a record: a record's hashCode is linked at its first call (see above). */
    private static final class Key {
        private final Path directory;
        private final int cpu;

        Key(Path directory, int cpu) {
            this.directory = directory;
            this.cpu = cpu;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.cpu == cpu && key.directory.equals(directory);
        }

        @Override
        public int hashCode() {
            return 31 * directory.hashCode() + cpu;
        }
    }
}
