// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A directory that root may keep its own files in, or read a tree from, opened once, by descriptor, after every
 * directory on its path was checked; its files are then opened relative to that descriptor, never by a path
 * looked up again.
 *
 * <p>The rule, as OpenSSH's {@code StrictModes} and sudo apply it to a path root trusts: every directory from
 * {@code /} down to this one is a directory, not a symbolic link; root or this process's user owns it; and
 * neither its group nor others can write it. A directory that others can write could have anything planted in
 * it, and a directory another user owns can be changed by them (made writable) at any time. One exception, for
 * the ancestors only: a sticky directory such as {@code /tmp}, where others can create names but cannot rename
 * or remove one that they do not own, so that the next directory down, which root or this user must own, stays
 * where it is. The directory itself gets no such exception: in it others could create, first, the very names
 * numaspread opens.
 *
 * <p>Why no check can be raced: each directory is checked before it is opened ({@code lstat}: a link, a FIFO or
 * another user's directory is refused unopened, so a planted FIFO cannot block the open), then opened relative to
 * its parent's descriptor without following a link ({@link SecureDirectoryStream}, which the JDK gives on Linux:
 * {@code openat(O_NOFOLLOW)}), and the descriptor must be the very directory checked (the same device and
 * inode, by {@code fstat}). Only root or this user can rename or replace what was checked, since every directory
 * above it is theirs and closed to others (or sticky, where others can move only their own). Files are then
 * created, opened ({@code O_NOFOLLOW}), renamed and removed relative to the last descriptor. What numaspread
 * creates gets its mode set explicitly after creation (0700 for a directory, 0600 for a file), whatever the
 * umask, and is created with no wider mode to begin with.
 */
public final class TrustedDirectory implements AutoCloseable {
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final int GROUP_OR_OTHERS_WRITE = 0022;
    private static final int STICKY = 01000;

    /** A path that root must not trust; the message names the directory or file and what is wrong with it. */
    public static final class Untrusted extends IOException {
        private static final long serialVersionUID = 1L;

        Untrusted(String message) {
            super(message);
        }
    }

    private final Path path;
    private final SecureDirectoryStream<Path> directory;

    private TrustedDirectory(Path path, SecureDirectoryStream<Path> directory) {
        this.path = path;
        this.directory = directory;
    }

    /**
     * The directory {@code dir}, every directory on its path checked (see the class comment); empty when it, or a
     * directory above it, does not exist.
     *
     * @throws Untrusted naming the first directory on the path that fails the rule, and how
     * @throws IOException when a directory cannot be read
     */
    public static Optional<TrustedDirectory> open(Path dir) throws IOException {
        return walk(dir, false);
    }

    /**
     * As {@link #open}, creating the missing directories, each 0700 whatever the umask.
     *
     * @throws Untrusted naming the first directory on the path that fails the rule, and how
     * @throws IOException when a directory cannot be created or read
     */
    public static TrustedDirectory create(Path dir) throws IOException {
        return walk(dir, true).orElseThrow();
    }

    private static Optional<TrustedDirectory> walk(Path dir, boolean create) throws IOException {
        Path absolute = dir.toAbsolutePath().normalize();
        Path at = absolute.getRoot();
        int self = selfUid();
        // No lambdas here (orElseThrow's supplier): the agent walks a directory before main, on a cold JVM.
        Optional<Map<String, Object>> rootFound = lstat(at);
        if (rootFound.isEmpty()) {
            throw new NoSuchFileException(absolute.toString());
        }
        Map<String, Object> root = rootFound.get();
        checkDirectory(at, root, self, absolute.getNameCount() > 0);
        SecureDirectoryStream<Path> current = secure(Files.newDirectoryStream(at), at);
        try {
            checkSame(current, at, root);
            for (int i = 0; i < absolute.getNameCount(); i++) {
                Path name = absolute.getName(i);
                Path next = at.resolve(name);
                boolean ancestor = i < absolute.getNameCount() - 1;
                Optional<Map<String, Object>> found = lstat(next);
                boolean created = false;
                if (found.isEmpty()) {
                    if (!create) {
                        current.close();
                        return Optional.empty();
                    }
                    created = makeDirectory(next);
                    found = lstat(next);
                    if (found.isEmpty()) {
                        throw new NoSuchFileException(next.toString(), null, "removed as soon as it was created");
                    }
                }
                if (!created) {
                    checkDirectory(next, found.get(), self, ancestor);
                }
                SecureDirectoryStream<Path> opened = current.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                current.close();
                current = opened;
                checkSame(current, next, found.get());
                if (created) {
                    // Set, not left to the umask, which could have taken the owner's own bits away.
                    current.getFileAttributeView(PosixFileAttributeView.class).setPermissions(DIRECTORY_MODE);
                }
                at = next;
            }
            return Optional.of(new TrustedDirectory(absolute, current));
        } catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
    }

    /** Refuses a descriptor that is not the directory {@code lstat} described (same device and inode). */
    private static void checkSame(SecureDirectoryStream<Path> opened, Path dir, Map<String, Object> checked)
            throws IOException {
        Object key = opened.getFileAttributeView(BasicFileAttributeView.class)
                .readAttributes()
                .fileKey();
        if (!key.equals(checked.get("fileKey"))) {
            throw new Untrusted(dir + " was replaced while it was checked");
        }
    }

    /** Creates {@code dir} no wider than 0700; false when someone else created it first. */
    private static boolean makeDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        }
    }

    /**
     * Refuses a directory that is a link or no directory, that another user owns, or that group or others can
     * write, unless it is an {@code ancestor} with the sticky bit.
     */
    private static void checkDirectory(Path dir, Map<String, Object> attributes, int self, boolean ancestor)
            throws Untrusted {
        if ((Boolean) attributes.get("isSymbolicLink")) {
            throw new Untrusted(dir + " is a symbolic link, which root does not follow here (it could point"
                    + " anywhere); give the path it points to");
        }
        if (!(Boolean) attributes.get("isDirectory")) {
            throw new Untrusted(dir + " is not a directory");
        }
        int uid = (Integer) attributes.get("uid");
        int mode = (Integer) attributes.get("mode") & 07777;
        if (uid != 0 && uid != self) {
            throw new Untrusted(dir + " belongs to uid " + uid + ", neither root nor this user (uid " + self
                    + "), who could change what it holds");
        }
        boolean sticky = (mode & STICKY) != 0;
        if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && !(ancestor && sticky)) {
            throw new Untrusted(dir + " can be written by others (mode " + String.format("%04o", mode)
                    + (sticky ? "; sticky, which does not stop them creating the names numaspread uses first" : "")
                    + ")");
        }
    }

    /** {@code lstat}: uid, mode, fileKey, isDirectory and isSymbolicLink; empty when nothing has the name. */
    private static Optional<Map<String, Object>> lstat(Path file) throws IOException {
        try {
            return Optional.of(Files.readAttributes(
                    file, "unix:uid,mode,fileKey,isDirectory,isSymbolicLink", LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, Path dir) throws IOException {
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return secure;
        }
        stream.close();
        throw new IOException("cannot open " + dir + " by descriptor on this platform");
    }

    /** The effective uid of this process: the owner of its {@code /proc/PID}. */
    private static int selfUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** The directory's path, absolute and normalized, as it was checked. */
    public Path path() {
        return path;
    }

    /** {@code NAME}'s attributes, not following a link; empty when nothing has the name. */
    public Optional<BasicFileAttributes> attributes(String name) throws IOException {
        try {
            return Optional.of(directory
                    .getFileAttributeView(Path.of(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * The names in the directory, sorted, listed through its descriptor ({@code .} relative to it), so that the
     * listing is of the directory that was checked.
     */
    public List<String> names() throws IOException {
        List<String> names = new ArrayList<>();
        try (SecureDirectoryStream<Path> listing =
                directory.newDirectoryStream(Path.of("."), LinkOption.NOFOLLOW_LINKS)) {
            for (Path entry : listing) {
                names.add(entry.getFileName().toString());
            }
        }
        Collections.sort(names);
        return names;
    }

    /**
     * {@code NAME}'s bytes, never more than {@code maxBytes}, opened without following a link.
     *
     * @throws NoSuchFileException when it does not exist
     * @throws IOException when it is not a regular file (refused unopened: a FIFO would block), cannot be read, or
     *     is larger (the message says so)
     */
    public byte[] read(String name, int maxBytes) throws IOException {
        Optional<BasicFileAttributes> found = attributes(name);
        if (found.isEmpty()) {
            throw new NoSuchFileException(path.resolve(name).toString());
        }
        if (!found.get().isRegularFile()) {
            throw new IOException("not a regular file (a link, directory, FIFO, socket or device)");
        }
        try (InputStream in = Channels.newInputStream(
                directory.newByteChannel(Path.of(name), Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
            return KernelText.readBytes(in, maxBytes);
        }
    }

    /**
     * Replaces {@code NAME} with {@code content} atomically, write-ahead: the content goes to a new file of a
     * random name (created, never opened if it exists, 0600), is synced, and is renamed over {@code NAME}; the
     * directory is synced after. A reader, or a crash, sees the old content or the new, never a mix. On failure
     * the new file is removed.
     */
    public void replace(String name, byte[] content) throws IOException {
        Path temporary = Path.of(
                "." + name + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            try (SeekableByteChannel channel =
                    createPrivate(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(content);
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                ((FileChannel) channel).force(true);
            }
            directory.move(temporary, directory, Path.of(name));
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temporary);
            throw e;
        }
        syncDirectory();
    }

    /**
     * {@code NAME} opened for writing (for a lock), created if missing, never through a link, and 0600 even if an
     * older numaspread or the umask left it wider: whoever can open a lock file can hold a lock on it.
     */
    public FileChannel openPrivate(String name) throws IOException {
        return (FileChannel) createPrivate(Path.of(name), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    private SeekableByteChannel createPrivate(Path name, OpenOption... options) throws IOException {
        Set<OpenOption> opening = new HashSet<>(Set.of(options));
        opening.add(LinkOption.NOFOLLOW_LINKS);
        FileAttribute<Set<PosixFilePermission>> mode = PosixFilePermissions.asFileAttribute(FILE_MODE);
        SeekableByteChannel channel = directory.newByteChannel(name, opening, mode);
        try {
            directory
                    .getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(FILE_MODE);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /** Removes {@code NAME}; false when it did not exist. */
    public boolean delete(String name) throws IOException {
        try {
            directory.deleteFile(Path.of(name));
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    private void deleteQuietly(Path name) {
        try {
            directory.deleteFile(name);
        } catch (IOException e) {
            // Only a stray temporary file is at stake; the error that matters is already being reported.
        }
    }

    /**
     * Makes the rename durable. The JDK opens no descriptor for a directory stream's own sync, so it is opened by
     * its path, which only root or this user can have changed (see the class comment); a filesystem that does not
     * allow it costs only durability.
     */
    private void syncDirectory() {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // The rename is already atomic; only its survival across a power loss is at stake.
        }
    }

    @Override
    public void close() throws IOException {
        directory.close();
    }
}
