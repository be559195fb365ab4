// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NeedsRoot;
import io.numaspread.testing.NicFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code restore} on fake kernel trees (a four-queue i40e NIC on the mana machine): bad state files exit 2 with
 * nothing written and one line of numaspread's own, gone IRQs and queues exit 0, and a stand-in tree's apply and
 * restore never leave it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestoreCommandTest extends StandInCliTest {

    /** One line of numaspread's own: no stack trace, no exception class, no JDK message. */
    static void assertOneCleanLine(CliRun run) {
        String err = run.err();
        assertTrue(err.startsWith("numaspread: ") && err.lines().count() == 1, err);
        for (String leak : List.of("Exception", "Error:", "java.", "\tat ", "because \"", "cannot be cast")) {
            assertFalse(err.contains(leak), "leaks " + leak + ": " + err);
        }
    }

    private void writeState(String value51) throws Exception {
        writeStateFile("{\"version\": 1, \"interface\": \"eth0\", \"saved\": ["
                + "{\"kind\": \"irq\", \"number\": 50, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"3\"},"
                + " {\"kind\": \"irq\", \"number\": 51, \"name\": \"i40e-eth0-TxRx-1\", \"value\": " + value51 + "}]}");
    }

    @Test
    void everyBadValueExitsTwoBeforeTheFirstWrite() throws Exception {
        for (String bad : List.of(
                "\"0-99\"",
                "null",
                "\"\"",
                "\" \"",
                "\" 0 , 1 \"",
                "\"+3\"",
                "\"-1\"",
                "\"0-2147483647\"",
                "\"2147483648\"",
                "[]",
                "{}",
                "1")) {
            writeState(bad);
            CliRun restore = CliRun.of(withState("restore"));
            assertEquals(Failures.BAD_INPUT, restore.exitCode(), bad + ": " + restore.err());
            assertOneCleanLine(restore);
            assertTrue(restore.err().contains("IRQ 51 (i40e-eth0-TxRx-1)"), bad + ": " + restore.err());
            assertEquals("0-7", affinity(50), bad + ": the first entry was not written");
        }
        writeState("\"2\"");
        CliRun good = CliRun.of(withState("restore"));
        assertEquals(0, good.exitCode(), good.err());
        assertEquals(List.of("3", "2"), List.of(affinity(50), affinity(51)), "the same file, once valid, is written");
    }

    /**
     * A state file with a record of a newer numaspread (an apply of a newer build, then a downgrade): this one
     * cannot put it back, so restore names it and exits 2 before the first write, keeping the file for the build
     * that can.
     */
    @Test
    void aRecordOfANewerBuildIsNamedAndNothingIsRestoredWithoutIt() throws Exception {
        String file = "{\"version\": 1, \"interface\": \"eth0\", \"saved\": ["
                + "{\"kind\": \"irq\", \"number\": 50, \"name\": \"i40e-eth0-TxRx-0\", \"value\": \"3\"}],"
                + " \"rfs\": [{\"queue\": 0, \"value\": \"00000003\"}]}";
        writeStateFile(file);
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(Failures.BAD_INPUT, restore.exitCode(), restore.err());
        assertOneCleanLine(restore);
        assertTrue(restore.err().contains("holds records this numaspread does not know (\"rfs\")"), restore.err());
        assertEquals("0-7", affinity(50), "nothing was written");
        assertEquals(file, Files.readString(state), "the file is kept as it was");
    }

    @Test
    void goneQueuesAndIrqsAreNamedAndThePreStopRestoreSucceeds() throws Exception {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--xps"));
        assertEquals(0, apply.exitCode(), apply.err());
        // ethtool -L: two transmit queues and two vectors go.
        for (int q = 2; q < 4; q++) {
            Path queue = sys.resolve("class/net/eth0/queues/tx-" + q);
            Files.delete(queue.resolve("xps_cpus"));
            Files.delete(queue.toRealPath());
        }
        Path interrupts = proc.resolve("interrupts");
        Files.writeString(
                interrupts,
                Files.readString(interrupts)
                        .lines()
                        .filter(line -> !line.startsWith("  52:") && !line.startsWith("  53:"))
                        .reduce("", (a, b) -> a + b + "\n"));
        // Freed: a vector without a handler still in msi_irqs would be a closed NIC's, whose value waits.
        Path vectors = sys.resolve("class/net/eth0/device").toRealPath().resolve("msi_irqs");
        Files.delete(vectors.resolve("52"));
        Files.delete(vectors.resolve("53"));

        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertTrue(
                restore.out().contains("IRQ 52 (i40e-eth0-TxRx-2)  recorded 0-7  gone (IRQ 52 no longer exists)"),
                restore.out());
        assertEquals(
                4,
                restore.out().lines().filter(line -> line.contains("  gone (")).count(),
                restore.out());
        assertTrue(
                restore.out().contains("restored 4 values from " + state + "; 4 recorded IRQs or queues are gone"),
                restore.out());
        assertEquals(List.of("0-7", "0-7"), List.of(affinity(50), affinity(51)));
        assertFalse(Files.exists(state));
    }

    @Test
    void aHookRestoreWithNoStateFileSucceedsOnlyWhenAskedTo() throws Exception {
        CliRun strict = CliRun.of(withState("restore", "--nic", "eth0"));
        assertEquals(Failures.BAD_INPUT, strict.exitCode(), strict.err());
        assertTrue(strict.err().contains("no state file " + state), strict.err());
        CliRun hook = CliRun.of(withState("restore", "--nic", "eth0", "--if-present"));
        assertEquals(0, hook.exitCode(), hook.err());
        assertEquals(
                "no state file " + state + ": nothing to restore", hook.out().strip());
        // A file that is there is restored as without the flag, and a malformed one still exits 2.
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        CliRun restore = CliRun.of(withState("restore", "--nic", "eth0", "--if-present"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        writeStateFile("{");
        CliRun malformed = CliRun.of(withState("restore", "--if-present"));
        assertEquals(Failures.BAD_INPUT, malformed.exitCode(), malformed.err());
        assertOneCleanLine(malformed);
    }

    @Test
    void restoreWithoutWriteAccessIsRefusedUpFrontWithExitThree(@TempDir Path classes) throws Exception {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        for (Path dir : List.of(sys, proc, run, state.getParent())) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        // Opened to others by hand (numaspread makes them 0700 and 0600), to show that the kernel's files refuse.
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rw-r--r--"));
        Map<Path, String> applied = NicFixture.snapshot(proc, sys, run);
        List<String> nobody = List.of("runuser", "-u", "nobody", "--");
        String classPath = ForkedCli.classPathForEveryone(classes);
        CliRun refused = ForkedCli.run(nobody, classPath, Map.of(), withState("restore"));
        assertEquals(Failures.REFUSED, refused.exitCode(), refused.err());
        assertOneCleanLine(refused);
        assertTrue(
                refused.err().contains("EACCES (Permission denied)")
                        && refused.err().contains("needs root")
                        && refused.err().contains("nothing was changed"),
                refused.err());
        assertEquals(applied, NicFixture.snapshot(proc, sys, run), "nothing written, the state file kept");

        Files.setPosixFilePermissions(state.getParent(), PosixFilePermissions.fromString("rwx------"));
        CliRun unreadable = ForkedCli.run(nobody, classPath, Map.of(), withState("restore"));
        assertEquals(Failures.REFUSED, unreadable.exitCode(), unreadable.err());
        assertOneCleanLine(unreadable);
        assertTrue(unreadable.err().contains(state + ": EACCES (Permission denied)"), unreadable.err());
        assertEquals(applied, NicFixture.snapshot(proc, sys, run));
    }

    @Test
    void applyRpsOffSaysWhatItRecordedAndRestorePutsTheMasksBack() throws Exception {
        Path queues = sys.resolve("class/net/eth0/queues");
        Files.writeString(queues.resolve("rx-1/rps_cpus"), "000000f0\n");
        Files.writeString(queues.resolve("rx-3/rps_cpus"), "00000000\n");
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--rps-off"));
        assertEquals(0, apply.exitCode(), apply.err());
        assertTrue(
                apply.out()
                        .contains("note: RPS is off on every receive queue of eth0; the masks it had (rx-1 000000f0)"
                                + " are in " + state + ", which restore puts back"),
                apply.out());
        assertEquals("0", Files.readString(queues.resolve("rx-1/rps_cpus")).strip());

        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(0, restore.exitCode(), restore.err());
        assertTrue(restore.out().contains("rps_cpus put back: rx-1 to 000000f0"), restore.out());
        assertEquals(
                "000000f0", Files.readString(queues.resolve("rx-1/rps_cpus")).strip());
        assertEquals(
                "00000000", Files.readString(queues.resolve("rx-3/rps_cpus")).strip(), "never written");
    }

    @Test
    void applyRpsOffWithRpsAlreadyOffAndTheIrqsPlacedHasNothingToChange() throws Exception {
        Path queues = sys.resolve("class/net/eth0/queues");
        for (int queue = 0; queue < 4; queue++) {
            Files.writeString(queues.resolve("rx-" + queue + "/rps_cpus"), "00000000\n");
        }
        CliRun first = CliRun.of(withState("apply", "--nic", "eth0", "--rps-off"));
        assertEquals(0, first.exitCode(), first.err());
        CliRun again = CliRun.of(withState("apply", "--nic", "eth0", "--rps-off"));
        assertEquals(0, again.exitCode(), again.err());
        assertTrue(
                again.out().contains("note: RPS is off on every receive queue of eth0 (each rps_cpus reads 0)"),
                again.out());
        assertTrue(again.out().contains("nothing to change"), again.out());
        assertEquals(
                "00000000", Files.readString(queues.resolve("rx-0/rps_cpus")).strip(), "never written");
    }

    @Test
    void aMalformedInterruptsFileAtRestoreExitsTwoAsAtApply() throws Exception {
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0", "--siblings"));
        assertEquals(0, apply.exitCode(), apply.err());
        Files.writeString(proc.resolve("interrupts"), "           CPU0 CPUx\n");
        CliRun restore = CliRun.of(withState("restore"));
        assertEquals(Failures.BAD_INPUT, restore.exitCode(), restore.err());
        assertOneCleanLine(restore);
        assertTrue(restore.err().contains(proc.resolve("interrupts").toString()), restore.err());
        assertEquals("0-1", affinity(50));
        assertTrue(Files.exists(state));
    }

    @Test
    void stateOptionsThatNameNoFileExitTwoAndLeaveNoLockBehind() throws Exception {
        Path parent = Files.createDirectory(run.resolve("parent"));
        Path dir = Files.createDirectory(parent.resolve("dir"));
        for (String bad : List.of("/", "", dir.toString(), dir + "/.", dir + "/..")) {
            for (String command : List.of("apply", "restore")) {
                String[] more = command.equals("apply")
                        ? new String[] {"--nic", "eth0", "--state", bad}
                        : new String[] {"--state", bad};
                CliRun result = CliRun.of(args(command, more));
                assertEquals(
                        Failures.BAD_INPUT, result.exitCode(), command + " --state '" + bad + "': " + result.err());
                assertOneCleanLine(result);
            }
        }
        try (Stream<Path> files = Files.list(parent)) {
            assertEquals(List.of(dir), files.toList(), "no stray lock file in the parent");
        }
        try (Stream<Path> files = Files.list(run)) {
            assertEquals(List.of(parent), files.toList());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    @Test
    void aStandInTreesApplyKeepsItsStateAndItsUndoCommandInsideIt() throws Exception {
        CliRun apply = CliRun.of(args("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        Path ownState = proc.resolve("numaspread/eth0.json");
        assertTrue(Files.isRegularFile(ownState), "the default state follows --proc-root");
        String undo = "numaspread restore --nic eth0 --sysfs-root " + sys + " --proc-root " + proc;
        assertTrue(apply.out().contains("Undo with: " + undo), apply.out());

        String[] printed = undo.substring("numaspread ".length()).split(" ");
        CliRun restore = CliRun.of(printed);
        assertEquals(0, restore.exitCode(), restore.err());
        assertFalse(Files.exists(ownState));
        Map<Path, String> after = NicFixture.snapshot(proc, sys);
        after.keySet().removeIf(path -> path.startsWith(proc.resolve("numaspread")));
        assertEquals(before, after, "the undo command as printed restored the stand-in tree");
    }

    @Test
    void hostileStateFilesEndInOneLineInAForkedCli() throws Exception {
        Path fifo = run.resolve("fifo.json");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path deep = run.resolve("deep.json");
        Files.writeString(deep, "[".repeat(500_000));
        Path large = run.resolve("large.json");
        Files.writeString(
                large, "{\"version\": 1, \"interface\": \"eth0\", \"saved\": [" + " ".repeat(17 << 20) + "]}");
        for (String file : List.of(fifo.toString(), deep.toString(), large.toString(), "/dev/zero")) {
            CliRun restore =
                    ForkedCli.run(List.of(), ForkedCli.classPath(), Map.of(), args("restore", "--state", file));
            assertEquals(Failures.BAD_INPUT, restore.exitCode(), file + ": " + restore.err());
            assertOneCleanLine(restore);
            assertTrue(restore.err().contains(file), restore.err());
        }
        assertEquals(before, NicFixture.snapshot(proc, sys));
    }

    /**
     * The lock-out an unprivileged user could mount: whoever can open the lock file, read-only is enough, can hold
     * a shared {@code fcntl} lock on it, and every apply and restore of the NIC is then refused (exit 3; through
     * the unit's {@code RestartPreventExitStatus}, {@code watch} stays down too). Here user nobody tries it on a
     * state directory it can reach: numaspread made the directory 0700 and its files 0600, whatever the umask it
     * ran with (000 here), so nobody cannot open the lock file, and the restore goes ahead.
     */
    @Test
    @NeedsRoot
    void anotherUserCannotHoldTheLockThatApplyAndRestoreTake() throws Exception {
        String readable = ForkedCli.classPathForEveryone(run); // run is 0755 now: nobody can reach run/numaspread
        CliRun apply = ForkedCli.run(
                List.of("sh", "-c", "umask 000 && exec \"$@\"", "sh"),
                ForkedCli.classPath(),
                Map.of(),
                withState("apply", "--nic", "eth0"));
        assertEquals(0, apply.exitCode(), apply.err());
        Path lockFile = state.resolveSibling(".eth0.json.lock");
        List<String> modes = List.of(mode(state.getParent()), mode(state), mode(lockFile));

        Process holder = ForkedCli.start(
                SharedLockHolder.class,
                List.of("runuser", "-u", "nobody", "--"),
                List.of(),
                readable,
                Map.of(),
                lockFile.toString());
        try {
            String said = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            CliRun restore = CliRun.of(withState("restore"));
            assertEquals(0, restore.exitCode(), "user nobody: " + said + "; restore: " + restore.err());
            assertTrue(said.startsWith("cannot open: java.nio.file.AccessDeniedException: " + lockFile), said);
        } finally {
            holder.getOutputStream().close();
            holder.waitFor(20, TimeUnit.SECONDS);
            holder.destroyForcibly();
        }
        assertEquals(List.of("rwx------", "rw-------", "rw-------"), modes, "directory, state file, lock file");
        assertEquals(List.of("0-7", "0-7"), List.of(affinity(50), affinity(51)));
    }

    /**
     * A root {@code apply} over a stand-in tree: a link planted at a control file is never written through (here
     * at IRQ 50's {@code smp_affinity_list}, aimed at a file of root's that reads as a cpulist, so that before
     * {@code O_NOFOLLOW} it was read, then truncated and overwritten with the new value), and the error names the
     * path.
     */
    @Test
    void aLinkAtAControlFileIsNotWrittenThrough() throws Exception {
        Path victim = Files.writeString(run.resolve("roots-own"), "0-7\n");
        Path affinity = proc.resolve("irq/50/smp_affinity_list");
        Files.delete(affinity);
        Files.createSymbolicLink(affinity, victim);
        CliRun apply = CliRun.of(withState("apply", "--nic", "eth0"));
        assertTrue(apply.exitCode() != 0, apply.out() + apply.err());
        assertOneCleanLine(apply);
        assertTrue(apply.err().contains(affinity.toString()), apply.err());
        assertEquals("0-7\n", Files.readString(victim), "the file the link points to is unchanged");
        assertEquals(List.of("0-7", "0-7", "0-7"), List.of(affinity(51), affinity(52), affinity(53)));
    }

    /**
     * A stand-in tree that another user owns, or that others can write, could have such a link planted at any
     * moment: a writing command refuses it (exit 3), naming the directory and its owner or mode, before any change.
     */
    @Test
    void aStandInTreeOthersCanChangeIsRefusedBeforeAnyChange() throws Exception {
        Files.setAttribute(proc, "unix:uid", 65534);
        CliRun theirs = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(Failures.REFUSED, theirs.exitCode(), theirs.err());
        assertOneCleanLine(theirs);
        assertTrue(theirs.err().contains("--proc-root " + proc + ": " + proc + " belongs to uid 65534"), theirs.err());
        Files.setAttribute(proc, "unix:uid", 0);
        Files.setPosixFilePermissions(sys, PosixFilePermissions.fromString("rwxrwxr-x"));
        CliRun writable = CliRun.of(withState("apply", "--nic", "eth0"));
        assertEquals(Failures.REFUSED, writable.exitCode(), writable.err());
        assertOneCleanLine(writable);
        assertTrue(writable.err().contains(sys + " can be written by others (mode 0775)"), writable.err());
        assertEquals(before, NicFixture.snapshot(proc, sys));
        assertFalse(Files.exists(state));
    }

    private static String mode(Path file) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void hugeCpuNumbersAreRefusedAtOnce() {
        for (String cpus : List.of("0-2147483647", "2147483647", "99999999999999999999999", "0-4000000000:1/2")) {
            CliRun plan = CliRun.of(args("plan", "--cpus", cpus, "--count", "2"));
            assertEquals(Failures.BAD_INPUT, plan.exitCode(), cpus + ": " + plan.err());
            assertOneCleanLine(plan);
            assertTrue(
                    plan.err().contains("beyond the 65536 CPUs"),
                    "refused by its number, before any bit is set: " + plan.err());
        }
    }
}
