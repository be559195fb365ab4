// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state file is read and written as root in directories numaspread does not own: links are never followed,
 * the temporary file is created new, FIFOs and devices are refused without being opened, sizes and nesting are
 * bounded, and a directory others can write is refused. Every failure is one message of numaspread's own.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class StateFileSafetyTest {
    private static final StateFile.State STATE = new StateFile.State(
            new InterfaceName("eth0"), List.of(new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "0-1")));

    @TempDir
    Path dir;

    @TempDir
    Path elsewhere;

    private Path victim() throws IOException {
        Path victim = elsewhere.resolve("shadow");
        Files.writeString(victim, "root:secret\n");
        return victim;
    }

    private static NumaspreadException failure(NumaspreadException.Kind kind, Runnable action) {
        NumaspreadException e = assertThrows(NumaspreadException.class, action::run);
        assertEquals(kind, e.kind(), e.getMessage());
        assertFalse(e.getMessage().contains("Exception") || e.getMessage().contains("java."), e.getMessage());
        return e;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aLinkPlantedAsTheStateFileIsNeitherReadNorFollowed() throws IOException {
        Path victim = victim();
        Path file = dir.resolve("eth0.json");
        Files.createSymbolicLink(file, victim);
        assertTrue(failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(file))
                .getMessage()
                .contains("is a symbolic link"));
        failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.write(file, STATE));
        failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.lock(file));
        assertEquals("root:secret\n", Files.readString(victim));
        assertEquals(List.of("eth0.json"), names(), "no lock or temporary file was created");
    }

    @Test
    void aLinkPlantedAsTheLockFileIsNotFollowed() throws IOException {
        Path victim = victim();
        Files.createSymbolicLink(dir.resolve(".eth0.json.lock"), victim);
        NumaspreadException e =
                failure(NumaspreadException.Kind.REFUSED, () -> StateFile.lock(dir.resolve("eth0.json")));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
        assertEquals("root:secret\n", Files.readString(victim));
    }

    @Test
    void linksAtTheOldFixedTemporaryNameAreNeverOpened() throws IOException {
        Path victim = victim();
        Files.createSymbolicLink(dir.resolve(".eth0.json.tmp"), victim);
        Path file = dir.resolve("eth0.json");
        StateFile.write(file, STATE);
        assertEquals(STATE, StateFile.read(file).orElseThrow());
        assertEquals("root:secret\n", Files.readString(victim));
        assertEquals(List.of(".eth0.json.tmp", "eth0.json"), names(), "the random temporary name was renamed away");
    }

    @Test
    void aFifoOrADeviceIsRefusedWithoutBlockingOrReadingForever() throws Exception {
        Path fifo = dir.resolve("eth0.json");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        assertTrue(failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(fifo))
                .getMessage()
                .contains("is a FIFO, socket or device, not a regular file"));
        failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.lock(fifo));

        Path lockFifo = dir.resolve(".eth1.json.lock");
        assertEquals(
                0, new ProcessBuilder("mkfifo", lockFifo.toString()).start().waitFor());
        failure(NumaspreadException.Kind.REFUSED, () -> StateFile.lock(dir.resolve("eth1.json")));

        assertTrue(failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(Path.of("/dev/zero")))
                .getMessage()
                .contains("/dev/zero is a FIFO, socket or device"));
    }

    @Test
    void aHugeFileIsRefusedAtTheLimitNotReadWhole() throws IOException {
        Path file = dir.resolve("eth0.json");
        try (RandomAccessFile sparse = new RandomAccessFile(file.toFile(), "rw")) {
            sparse.setLength(4L << 30);
        }
        NumaspreadException e = failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(file));
        assertTrue(e.getMessage().contains("larger than " + StateFile.MAX_BYTES + " bytes"), e.getMessage());
    }

    @Test
    void aDirectoryOthersCanWriteIsRefusedStickyOrNot() throws IOException {
        for (List<String> mode : List.of(List.of("rwxrwxrwx", "0777"), List.of("rwxrwxr-x", "0775"))) {
            Path shared = dir.resolve(mode.get(0));
            Files.createDirectory(shared);
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString(mode.get(0)));
            Path file = shared.resolve("eth0.json");
            NumaspreadException e = failure(NumaspreadException.Kind.REFUSED, () -> StateFile.lock(file));
            assertTrue(
                    e.getMessage().contains(shared + " can be written by others (mode " + mode.get(1) + ")"),
                    e.getMessage());
            failure(NumaspreadException.Kind.REFUSED, () -> StateFile.write(file, STATE));
            failure(NumaspreadException.Kind.REFUSED, () -> StateFile.read(file));
            try (Stream<Path> files = Files.list(shared)) {
                assertEquals(0, files.count(), "nothing was created in " + shared);
            }
        }
        // The sticky bit does not help: others can still create the names numaspread would open, first.
        Path tmp = Path.of("/tmp");
        assertTrue(Files.getPosixFilePermissions(tmp).containsAll(PosixFilePermissions.fromString("-------w-")));
        assertTrue(failure(
                        NumaspreadException.Kind.REFUSED,
                        () -> StateFile.read(tmp.resolve("numaspread-never-there.json")))
                .getMessage()
                .contains("/tmp can be written by others (mode 1777; sticky, which does not stop them"));
    }

    /**
     * Not only the state directory: a directory anywhere above it that others can write (not sticky), that another
     * user owns, or that is a link could have the whole path below it swapped, so it is refused, naming it, and
     * nothing is created below it.
     */
    @Test
    void everyDirectoryOnThePathIsCheckedNotOnlyTheLast() throws IOException {
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path theirs = Files.createDirectory(dir.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        Path real = Files.createDirectory(dir.resolve("real"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        List<List<Object>> cases = List.of(
                List.of(shared, shared + " can be written by others (mode 0777)"),
                List.of(theirs, theirs + " belongs to uid 65534, neither root nor this user (uid 0)"),
                List.of(link, link + " is a symbolic link"));
        for (List<Object> c : cases) {
            Path above = (Path) c.get(0);
            Path stateDir = Files.createDirectories(real.resolve("numaspread"));
            Path file = above.resolve("numaspread/eth0.json");
            if (!above.equals(link)) {
                Files.createDirectory(above.resolve("numaspread"));
            }
            for (Runnable action : List.<Runnable>of(
                    () -> StateFile.lock(file), () -> StateFile.write(file, STATE), () -> StateFile.read(file))) {
                NumaspreadException e = failure(NumaspreadException.Kind.REFUSED, action);
                assertTrue(e.getMessage().contains((String) c.get(1)), e.getMessage());
                assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            }
            try (Stream<Path> files = Files.list(above.resolve("numaspread"))) {
                assertEquals(0, files.count(), "nothing was created below " + above);
            }
            Files.delete(stateDir);
        }
    }

    /** A sticky directory above the state directory (/tmp, above every test's directory) is no way in: allowed. */
    @Test
    @SuppressWarnings("try") // the lock is held, not used
    void aStickyDirectoryAboveTheStateDirectoryIsAllowed() throws IOException {
        Path sticky = Files.createDirectory(dir.resolve("sticky"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Path file = sticky.resolve("numaspread/eth0.json");
        try (StateFile.Lock held = StateFile.lock(file)) {
            StateFile.write(file, STATE);
        }
        assertEquals(STATE, StateFile.read(file).orElseThrow());
    }

    /**
     * Whoever can open the lock file can hold a shared lock on it and so refuse every apply and restore (exit 3):
     * the directory numaspread creates is 0700, its files 0600, set explicitly rather than left to the umask; a lock
     * file an older numaspread left 0644 is made 0600 when it is next taken.
     */
    @Test
    @SuppressWarnings("try") // the lock is held, not used
    void whatItCreatesIsItsOwnersAlone() throws IOException {
        Path stateDir = dir.resolve("run/numaspread");
        Path file = stateDir.resolve("eth0.json");
        try (StateFile.Lock held = StateFile.lock(file)) {
            StateFile.write(file, STATE);
        }
        assertEquals("rwx------", mode(dir.resolve("run")));
        assertEquals("rwx------", mode(stateDir));
        assertEquals("rw-------", mode(file));
        Path lockFile = stateDir.resolve(".eth0.json.lock");
        assertEquals("rw-------", mode(lockFile));
        Files.setPosixFilePermissions(lockFile, PosixFilePermissions.fromString("rw-r--r--"));
        StateFile.lock(file).close();
        assertEquals("rw-------", mode(lockFile));
    }

    private static String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aDirectoryOfAnotherUserIsRefused() throws IOException {
        Path theirs = Files.createDirectory(dir.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        NumaspreadException e =
                failure(NumaspreadException.Kind.REFUSED, () -> StateFile.lock(theirs.resolve("eth0.json")));
        assertTrue(e.getMessage().contains("belongs to uid 65534, neither root nor this user"), e.getMessage());
        try (Stream<Path> files = Files.list(theirs)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void pathsThatNameNoFileAreRefusedWithoutAStrayLock() throws IOException {
        for (Path bad : List.of(Path.of("/"), Path.of(""), dir.resolve("."), dir.resolve(".."))) {
            NumaspreadException e = failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.lock(bad));
            assertTrue(e.getMessage().contains("names no file"), e.getMessage());
        }
        Path subdir = Files.createDirectory(dir.resolve("eth0.json"));
        assertTrue(failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.lock(subdir))
                .getMessage()
                .contains("is a directory, not a regular file"));
        failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(subdir));
        assertEquals(List.of("eth0.json"), names(), "no lock file beside it");
    }

    @Test
    void deepNestingIsAParseErrorNotAStackOverflow() throws IOException {
        Path file = dir.resolve("eth0.json");
        for (String deep : List.of(
                "[".repeat(200_000),
                "{\"a\":".repeat(100_000),
                "{\"version\": 1, \"interface\": \"eth0\", \"saved\": [" + "[".repeat(MiniJson.MAX_DEPTH) + "]}")) {
            Files.writeString(file, deep);
            NumaspreadException e = failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(file));
            assertTrue(e.getMessage().contains("nested deeper than " + MiniJson.MAX_DEPTH + " levels"), e.getMessage());
        }
    }

    @Test
    void wrongTypesAndFormsAreNamedInNumaspreadsOwnWords() throws IOException {
        Path file = dir.resolve("eth0.json");
        String head = "{\"version\": 1, \"interface\": \"eth0\", \"saved\": ";
        String irq = "{\"kind\": \"irq\", \"number\": 38, \"name\": \"q\", \"value\": \"0\"";
        List<List<String>> cases = List.of(
                List.of(head + "{}}", "\"saved\" is not an array"),
                List.of(head + "[[]]}", "entry 1 of \"saved\" is not an object"),
                List.of(head + "[1]}", "entry 1 of \"saved\" is not an object"),
                List.of(head + "null}", "\"saved\" is missing or null"),
                List.of("{\"version\": 1, \"interface\": 7, \"saved\": []}", "\"interface\" is not a string"),
                List.of(
                        head + "[{\"kind\": \"irq\", \"number\": \"38\", \"name\": \"q\", \"value\": \"0\"}]}",
                        "\"number\" is not an integer"),
                List.of(
                        head + "[{\"kind\": \"IRQ\", \"number\": 38, \"name\": \"q\", \"value\": \"0\"}]}",
                        "\"kind\" is none of \"irq\", \"xps\" and \"napi\""),
                List.of(
                        head + "[{\"kind\": \"irq\", \"number\": 99999999999, \"name\": \"q\", \"value\": \"0\"}]}",
                        "out of range"),
                List.of(
                        head
                                + "[{\"kind\": \"irq\", \"number\": 99999999999999999999, \"name\": \"q\", \"value\": \"0\"}]}",
                        "not a number or out of range"),
                List.of(head + "[" + irq + "}, " + irq + "}]}", "IRQ 38 (q) is recorded twice"),
                List.of(head + "[" + irq + ", \"value\": \"1\"}]}", "key \"value\" appears twice"),
                List.of(head + "[" + irq.replace("\"q\"", "\"\\x\"") + "}]}", "bad escape"),
                List.of(head + "[" + irq.replace("\"q\"", "\"\\uzzzz\"") + "}]}", "bad \\u escape"),
                List.of(head + "[" + irq.replace("\"0\"", "\"0-1,\"") + "}]}", "empty element"),
                List.of(head + "[" + irq.replace("\"0\"", "\"0\\n\"") + "}]}", "\"0\\n\" is not a cpulist"));
        for (List<String> c : cases) {
            Files.writeString(file, c.get(0));
            NumaspreadException e = failure(NumaspreadException.Kind.BAD_INPUT, () -> StateFile.read(file));
            assertTrue(e.getMessage().contains(c.get(1)), c.get(0) + " -> " + e.getMessage());
            assertTrue(e.getMessage().lines().count() == 1, e.getMessage());
        }
    }
}
