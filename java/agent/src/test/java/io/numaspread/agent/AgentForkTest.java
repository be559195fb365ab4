// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.CpuSet;
import io.numaspread.cli.Main;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.SysfsTree;
import io.numaspread.nativeaccess.Backends;
import io.numaspread.nic.Nic;
import io.numaspread.nic.NicDiscovery;
import io.numaspread.nic.NicVector;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Planner;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.testing.CpusetCgroup;
import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import io.numaspread.topology.Topology;
import io.numaspread.topology.TopologyDiscovery;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Forks real JVMs (JDK 25 and JDK 17) with the agent and checks where their threads run from their first line. */
class AgentForkTest {
    /** This host's NIC: virtio, with queue vectors (the irq tests apply to it too). */
    private static final String LIVE_NIC = "eth0";

    static Stream<Path> jdks() {
        return Stream.of(ForkedJvm.JDK_25, ForkedJvm.JDK_17);
    }

    private static Topology topology() throws Exception {
        return TopologyDiscovery.discover(Backends.live().backend(), SysfsTree.live());
    }

    static SpreadPlan plan(int count, Mode mode) throws Exception {
        return Planner.plan(topology(), PlanRequest.threads(0, count).withMode(mode));
    }

    private static String unpinned() throws Exception {
        return topology().allowed().toString();
    }

    static Stream<Arguments> jdksAndModes() {
        return jdks().flatMap(jdk -> Stream.of(Arguments.of(jdk, Mode.CPU), Arguments.of(jdk, Mode.SIBLINGS)));
    }

    @ParameterizedTest
    @MethodSource("jdksAndModes")
    void everyMatchingThreadIsPinnedAtItsFirstLine(Path jdk, Mode mode) throws Exception {
        SpreadPlan plan = plan(2, mode);
        assertNotEquals(plan.get(0).cpus(), plan.get(1).cpus(), "two sets are needed to see the rotation");
        ForkedJvm.Result result = ForkedJvm.run(
                jdk,
                "threads=io-*,node=0,count=2,mode=" + (mode == Mode.CPU ? "cpu" : "siblings"),
                "sequential",
                "io:8",
                "other:4");
        assertEquals(0, result.exitCode(), result.describe());
        assertEquals(List.of(), result.stderr(), result.describe());
        for (int k = 0; k < 8; k++) {
            assertEquals(plan.get(k % 2).cpus().toString(), result.cpusOf("", "io-" + k), result.describe());
        }
        for (int k = 0; k < 4; k++) {
            assertEquals(unpinned(), result.cpusOf("", "other-" + k), result.describe());
        }
    }

    /**
     * The agent plans over CPUs the JVM may use at premain; then the JVM is moved into a cpuset cgroup of the
     * first planned CPU alone, as a container runtime may narrow it, so pinning to the second fails with EINVAL.
     * That failure is reported once, with its errno, and the JVM and its other pins carry on. It is the last
     * thing before the JVM exits, so the report must not be lost with the exit.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    @SuppressWarnings("try") // the cgroup holds the JVM, and is removed after it ends
    @NeedsRoot
    void aPinTheKernelRefusesIsReportedWithItsErrno(Path jdk) throws Exception {
        SpreadPlan plan = plan(2, Mode.CPU);
        CpuSet first = plan.get(0).cpus();
        CpuSet second = plan.get(1).cpus();
        ForkedJvm.Result result;
        try (ForkedJvm jvm = ForkedJvm.start(jdk, "threads=io-*,node=0,count=2,mode=cpu", "gated", "io:2")) {
            jvm.readUntil("ready");
            try (CpusetCgroup container =
                    CpusetCgroup.holding(ProcessHandle.of(jvm.pid()).orElseThrow(), first)) {
                jvm.sendLine();
                result = jvm.finish();
            }
        }
        assertEquals(0, result.exitCode(), result.describe());
        assertTrue(result.stdout().contains("done"), result.describe());
        for (String name : List.of("io-0", "io-1")) {
            assertEquals(first.toString(), result.cpusOf("", name), result.describe());
        }
        String tid = result.stdout().stream()
                .filter(line -> line.startsWith("io-1 "))
                .findFirst()
                .orElseThrow()
                .split(" ")[1];
        assertEquals(
                List.of(NumaspreadAgent.PREFIX + "cannot pin thread \"io-1\" (tid " + tid + ") to CPUs " + second
                        + ": Invalid argument (errno 22)"),
                result.stderr(),
                result.describe());
    }

    /** The threads' plan for this host's eth0, as the CLI makes it: near its node, one per queue. */
    private static SpreadPlan ethPlan(Mode mode) throws Exception {
        Nic nic = NicDiscovery.discover(new InterfaceName(LIVE_NIC), KernelPaths.LIVE);
        return Planner.plan(
                topology(), nic.planRequest(topology(), Purpose.THREADS).withMode(mode));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    @NeedsLiveNic
    void nicPlansNearTheNicWithOneAssignmentPerQueue(Path jdk) throws Exception {
        SpreadPlan plan = ethPlan(Mode.CPU);
        ForkedJvm.Result result =
                ForkedJvm.run(jdk, "threads=io-*,nic=" + LIVE_NIC + ",mode=cpu", "sequential", "io:4");
        assertEquals(List.of(), result.stderr(), result.describe());
        for (int k = 0; k < 4; k++) {
            assertEquals(plan.get(k % plan.size()).cpus().toString(), result.cpusOf("", "io-" + k), result.describe());
        }
    }

    /** As root on the live host: the agent applies eth0's IRQ plan as `numaspread apply` would; restored after. */
    @Test
    @NeedsRoot
    @NeedsLiveNic
    void irqsApplyWritesTheNicsQueueIrqsAndRestoreUndoesIt() throws Exception {
        Nic nic = NicDiscovery.discover(new InterfaceName(LIVE_NIC), KernelPaths.LIVE);
        Map<Integer, String> before = new TreeMap<>();
        for (NicVector vector : nic.queueVectors()) {
            before.put(
                    vector.irq(),
                    Files.readString(KernelPaths.LIVE.smpAffinityList(vector.irq()))
                            .strip());
        }
        SpreadPlan irqPlan = Planner.plan(
                topology(), nic.planRequest(topology(), Purpose.IRQS).withMode(Mode.CPU));
        try {
            ForkedJvm.Result result = ForkedJvm.run(
                    ForkedJvm.JDK_25,
                    "threads=io-*,nic=" + LIVE_NIC + ",mode=cpu,irqs=apply,strict=true",
                    "sequential",
                    "io:1");
            assertEquals(0, result.exitCode(), result.describe());
            assertTrue(
                    result.stderr().get(0).startsWith("numaspread agent: applied the IRQ plan of " + LIVE_NIC),
                    result.describe());
            for (NicVector vector : nic.queueVectors()) {
                assertEquals(
                        irqPlan.get(nic.planIndex(vector.queue())).cpus().toString(),
                        Files.readString(KernelPaths.LIVE.smpAffinityList(vector.irq()))
                                .strip(),
                        "IRQ " + vector.irq());
            }
        } finally {
            StringWriter err = new StringWriter();
            assertEquals(
                    0,
                    Main.run(
                            new String[] {"restore", "--nic", LIVE_NIC},
                            new PrintWriter(new StringWriter()),
                            new PrintWriter(err)),
                    err.toString());
        }
        for (Map.Entry<Integer, String> irq : before.entrySet()) {
            assertEquals(
                    irq.getValue(),
                    Files.readString(KernelPaths.LIVE.smpAffinityList(irq.getKey()))
                            .strip());
        }
    }

    /**
     * irqs=apply writes through the agent library's libc calls, so that a failure carries the errno the kernel
     * returned (a managed IRQ's EIO is reported as managed, not rolled back as unknown). Writing at offset 0 of
     * /proc/self/mem makes the real kernel return EIO; the probe's JVM runs in German, whose strerror text Java's
     * file API would have passed on.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theAgentsKernelFilesCarryTheKernelsErrno(Path jdk) throws Exception {
        ProcessBuilder probe = ForkedJvm.command(
                jdk,
                "threads=none-*,node=0,count=1",
                List.of(),
                KernelFilesProbe.class,
                "write",
                "/proc/self/mem",
                "0");
        probe.environment().put("LC_ALL", "de_DE.UTF-8");
        ForkedJvm.Result eio = ForkedJvm.run(probe);
        assertEquals(0, eio.exitCode(), eio.describe());
        assertEquals(List.of("ErrnoException errno 5"), eio.stdout(), eio.describe());
        Path file = Files.createTempFile("numaspread-agent", ".txt");
        try {
            ForkedJvm.Result written = ForkedJvm.run(ForkedJvm.command(
                    jdk,
                    "threads=none-*,node=0,count=1",
                    List.of(),
                    KernelFilesProbe.class,
                    "write",
                    file.toString(),
                    "0-1"));
            assertEquals(List.of("written"), written.stdout(), written.describe());
            assertEquals("0-1\n", Files.readString(file));
        } finally {
            Files.delete(file);
        }
    }

    /**
     * What a tree that another user prepared may hold in a kernel file's place is refused by the agent's kernel
     * files at once, and the file a symlink points at is left whole: a symlink (ELOOP, 40), a FIFO for writing
     * (ENXIO, 6: the open does not wait for a reader) and for reading (EINVAL, 22: no regular file), a file past
     * 1 MiB (while a file of exactly 1 MiB is read), in the one line every Java path gives it: the library reads one
     * byte past the bound (its own readers refuse more, EFBIG), and core's reader stops there. Before, the write
     * through the symlink truncated
     * and overwrote its target, and the FIFO's open waited forever.
     */
    @Test
    @Timeout(120)
    void theAgentsKernelFilesRefuseSymlinksFifosAndHugeFiles(@TempDir Path dir) throws Exception {
        Path target = Files.writeString(dir.resolve("owned-by-root"), "keep\n");
        Path link = Files.createSymbolicLink(dir.resolve("smp_affinity"), target);
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path exact = Files.writeString(dir.resolve("exact"), "x".repeat(1 << 20));
        Path huge = Files.writeString(dir.resolve("huge"), "x".repeat((1 << 20) + 1));
        ForkedJvm.Result result = ForkedJvm.runWithin(
                ForkedJvm.command(
                        ForkedJvm.JDK_25,
                        "threads=none-*,node=0,count=1",
                        List.of(),
                        KernelFilesProbe.class,
                        "write",
                        link.toString(),
                        "0-1",
                        "read",
                        link.toString(),
                        "write",
                        fifo.toString(),
                        "0-1",
                        "read",
                        fifo.toString(),
                        "read",
                        exact.toString(),
                        "read",
                        huge.toString()),
                60);
        assertEquals(
                List.of(
                        "ErrnoException errno 40",
                        "ErrnoException errno 40",
                        "ErrnoException errno 6",
                        "ErrnoException errno 22",
                        "read 1048576 characters",
                        "IOException larger than 1048576 bytes, more than any such file holds"),
                result.stdout(),
                result.describe());
        assertEquals("keep\n", Files.readString(target));
    }

    /**
     * count= is bounded where the options are parsed, by the planner's bound, before the library or the planner
     * allocates anything: a typo in a count stops the JVM at once, with one line naming count= and the bound, in 1
     * GiB of address space and a 32 MiB heap. Before, count=4194304 was planned (32 MiB of masks, twice) and
     * count=2147483647 asked the library for 16 GiB.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    @Timeout(120)
    void aCountBeyondThePlannersBoundStopsTheJvmAtOnce(Path jdk) throws Exception {
        for (String count : List.of("4194304", "2147483647")) {
            ProcessBuilder java = ForkedJvm.command(
                    jdk,
                    "threads=io-*,node=0,count=" + count + ",strict=true",
                    List.of(),
                    PinProbe.class,
                    "sequential",
                    "io:2");
            List<String> bounded = new ArrayList<>(List.of(
                    "sh",
                    "-c",
                    "ulimit -v 1048576 && exec \"$@\"",
                    "sh",
                    java.command().get(0),
                    "-Xmx32m",
                    "-XX:+UseSerialGC",
                    "-XX:CompressedClassSpaceSize=64m",
                    "-XX:ReservedCodeCacheSize=32m"));
            bounded.addAll(java.command().subList(1, java.command().size()));
            long start = System.nanoTime();
            ForkedJvm.Result result = ForkedJvm.runWithin(new ProcessBuilder(bounded), 60);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(1, result.exitCode(), result.describe());
            assertEquals(
                    List.of("numaspread agent: count=\"" + count
                            + "\" is not a whole number from 1 to 1048576, the most queues a plan may hold"),
                    result.stderr(),
                    result.describe());
            assertTrue(millis < 30_000, "count=" + count + " took " + millis + " ms");
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void fiveHundredThreadsStartedAtOnceAreAllPinnedInRotation(Path jdk) throws Exception {
        SpreadPlan plan = plan(2, Mode.CPU);
        ForkedJvm.Result result = ForkedJvm.run(jdk, "threads=burst-*,node=0,count=2,mode=cpu", "burst", "500", "4");
        assertEquals(0, result.exitCode(), result.describe());
        Map<String, Long> threadsPerCpuSet = IntStream.range(0, 500)
                .mapToObj(i -> result.cpusOf("", "burst-" + i))
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertEquals(
                Map.of(plan.get(0).cpus().toString(), 250L, plan.get(1).cpus().toString(), 250L), threadsPerCpuSet);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void globsMatchWholeNamesByCharacter(Path jdk) throws Exception {
        String pinned = plan(1, Mode.CPU).get(0).cpus().toString();
        List<String> matching = List.of("abcz", "az", "bxc", "b\u65e5c", "yq", "\u65e5n", "]n", "lit*", "x-y");
        List<String> other = List.of("abc", "bxxc", "aq", "5n", "litx", "Az", "x-yz");
        String names = Stream.concat(matching.stream(), other.stream())
                .map(name -> URLEncoder.encode(name, StandardCharsets.UTF_8))
                .collect(Collectors.joining(" "));
        ForkedJvm.Result result = ForkedJvm.run(
                jdk,
                "threads=a*z|b?c|[x-z]q|[!0-9]n|lit\\*|x[-]y,node=0,count=1,mode=cpu",
                ("named " + names).split(" "));
        assertEquals(0, result.exitCode(), result.describe());
        for (String name : matching) {
            assertEquals(pinned, result.cpusOf("", name), name + ": " + result.describe());
        }
        for (String name : other) {
            assertEquals(unpinned(), result.cpusOf("", name), name + ": " + result.describe());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void attachPinsThreadsThatAlreadyRun(Path jdk) throws Exception {
        SpreadPlan plan = plan(2, Mode.CPU);
        try (ForkedJvm jvm = ForkedJvm.start(jdk, null, "attach", "io:4", "other:2")) {
            jvm.readUntil("ready");
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int exit = Main.run(
                    new String[] {"attach", Long.toString(jvm.pid()), "threads=io-*,node=0,count=2,mode=cpu"},
                    new PrintWriter(out),
                    new PrintWriter(err));
            assertEquals(0, exit, out + " / " + err);
            jvm.sendLine();
            ForkedJvm.Result result = jvm.finish();
            assertEquals(0, result.exitCode(), result.describe());
            for (int k = 0; k < 4; k++) {
                assertEquals(unpinned(), result.cpusOf("", "io-" + k), "before attach: " + result.describe());
            }
            Map<String, Long> ioPerCpuSet = IntStream.range(0, 4)
                    .mapToObj(k -> result.cpusOf("after ", "io-" + k))
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertEquals(
                    Map.of(plan.get(0).cpus().toString(), 2L, plan.get(1).cpus().toString(), 2L),
                    ioPerCpuSet,
                    result.describe());
            assertEquals(unpinned(), result.cpusOf("after ", "other-0"), result.describe());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void attachWithBadOptionsFailsAndLeavesTheJvmRunning(Path jdk) throws Exception {
        try (ForkedJvm jvm = ForkedJvm.start(jdk, null, "attach", "io:2")) {
            jvm.readUntil("ready");
            StringWriter err = new StringWriter();
            int exit = Main.run(
                    new String[] {"attach", Long.toString(jvm.pid()), "threads=io-[,node=0,count=2"},
                    new PrintWriter(new StringWriter()),
                    new PrintWriter(err));
            assertEquals(2, exit, err.toString());
            assertTrue(
                    err.toString().startsWith("numaspread: the agent in JVM " + jvm.pid() + " refused the options"),
                    err.toString());
            jvm.sendLine();
            ForkedJvm.Result result = jvm.finish();
            assertEquals(0, result.exitCode(), result.describe());
            assertEquals(unpinned(), result.cpusOf("after ", "io-0"), result.describe());
            assertTrue(
                    result.stderr()
                            .contains("numaspread agent: bad glob \"io-[\" in threads=: it has a '[' without"
                                    + " its ']'"),
                    result.describe());
        }
    }

    /**
     * Thread names are printed raw in the JVM's thread dump, where attach finds TIDs. One thread's name here holds a
     * newline and a forged header line for a matching thread whose TID is a `sleep` process's PID; another
     * matching name holds a newline itself. Attach must pin the real matching threads, by their own TIDs, leave
     * the other process alone, and report each pin on one line.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    @Timeout(180)
    void attachPinsOnlyThreadsOfTheTargetJvmWhateverTheirNamesSay(Path jdk) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            String sleeperCpus = cpusAllowed(sleeper.pid());
            long pid = sleeper.pid();
            String forger = "evil\n\"io-forged\" #1 [" + pid + "] daemon prio=5 os_prio=0 cpu=0.10ms elapsed=0.01s"
                    + " tid=0x00007f3c2c1d8000 nid=" + pid + " runnable";
            List<String> names = List.of(forger, "io-0", "io-two\nlines");
            List<String> encoded = names.stream()
                    .map(name -> URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .toList();
            try (ForkedJvm jvm = ForkedJvm.start(
                    jdk,
                    null,
                    Stream.concat(Stream.of("attach-named"), encoded.stream()).toArray(String[]::new))) {
                jvm.readUntil("ready");
                StringWriter err = new StringWriter();
                int exit = Main.run(
                        new String[] {
                            "attach", Long.toString(jvm.pid()), "threads=io-*,node=0,count=1,mode=cpu,verbose=true"
                        },
                        new PrintWriter(new StringWriter()),
                        new PrintWriter(err));
                assertEquals(0, exit, err.toString());
                jvm.sendLine();
                ForkedJvm.Result result = jvm.finish();
                assertEquals(0, result.exitCode(), result.describe());
                String pinned = plan(1, Mode.CPU).get(0).cpus().toString();
                assertEquals(pinned, result.cpusOf("after ", encoded.get(1)), result.describe());
                assertEquals(pinned, result.cpusOf("after ", encoded.get(2)), result.describe());
                assertEquals(unpinned(), result.cpusOf("after ", encoded.get(0)), result.describe());
                assertEquals(sleeperCpus, cpusAllowed(pid), "the sleep process was pinned: " + result.describe());
                String tid = result.stdout().stream()
                        .filter(line -> line.startsWith(encoded.get(2) + " "))
                        .findFirst()
                        .orElseThrow()
                        .split(" ")[1];
                assertTrue(
                        result.stderr()
                                .contains(NumaspreadAgent.PREFIX + "pinned thread \"io-two\\nlines\" (tid " + tid
                                        + ") to CPUs " + pinned),
                        result.describe());
                assertTrue(
                        result.stderr().stream()
                                .noneMatch(line -> line.equals("lines\" (tid " + tid + ") to CPUs " + pinned)),
                        result.describe());
            }
        } finally {
            sleeper.destroyForcibly();
        }
    }

    /** Whatever TID reaches it, the library pins only threads of its own process. */
    @ParameterizedTest
    @MethodSource("jdks")
    @Timeout(120)
    void theLibraryRefusesToPinAThreadOfAnotherProcess(Path jdk) throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            String before = cpusAllowed(sleeper.pid());
            ForkedJvm.Result result = ForkedJvm.run(
                    jdk, "threads=io-*,node=0,count=1,mode=cpu", "pin-tid", Long.toString(sleeper.pid()), "io-0");
            assertEquals(0, result.exitCode(), result.describe());
            assertEquals(List.of("pinRunning -1", "done"), result.stdout(), result.describe());
            assertEquals(before, cpusAllowed(sleeper.pid()), result.describe());
        } finally {
            sleeper.destroyForcibly();
        }
    }

    private static String cpusAllowed(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).strip();
            }
        }
        throw new AssertionError("no Cpus_allowed_list for " + pid);
    }

    /** A report keeps a name to 256 bytes without cutting a three-byte character in half. */
    @ParameterizedTest
    @MethodSource("jdks")
    @Timeout(120)
    void reportsCutLongNamesOnlyBetweenCharacters(Path jdk) throws Exception {
        String name = "long-" + "\u65e5".repeat(300);
        ForkedJvm.Result result = ForkedJvm.run(
                jdk,
                "threads=long-*,node=0,count=1,mode=cpu,verbose=true",
                "named",
                URLEncoder.encode(name, StandardCharsets.UTF_8));
        assertEquals(0, result.exitCode(), result.describe());
        String kept = "long-" + "\u65e5".repeat((256 - 5) / 3);
        assertTrue(
                result.stderr().stream()
                        .anyMatch(line ->
                                line.startsWith(NumaspreadAgent.PREFIX + "pinned thread \"" + kept + "\" (tid ")),
                result.describe());
    }

    @Test
    void attachRefusesAProcessThatIsNoJvmWithoutHarmingIt() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            StringWriter err = new StringWriter();
            int exit = Main.run(
                    new String[] {"attach", Long.toString(sleeper.pid()), "threads=io-*,node=0,count=1"},
                    new PrintWriter(new StringWriter()),
                    new PrintWriter(err));
            assertEquals(2, exit, err.toString());
            assertTrue(err.toString().startsWith("numaspread: cannot attach to JVM " + sleeper.pid()), err.toString());
            assertTrue(sleeper.isAlive(), "attach must not signal a process that is no JVM");
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void badOptionsPrintOneLineAndTheJvmRunsWithoutPinning(Path jdk) throws Exception {
        Map<String, String> problems = Map.of(
                "threads=io-*,node=0,count=2,colour=red", "unknown option \"colour\"",
                "threads=io-[,node=0,count=2", "bad glob \"io-[\"",
                "threads=io-*,node=7,count=2", "node 7 does not exist",
                "threads=io-*,node=0", "node=0 needs count=K",
                "threads=io-*,nic=nosuch0", "no such interface nosuch0");
        for (Map.Entry<String, String> problem : problems.entrySet()) {
            ForkedJvm.Result result = ForkedJvm.run(jdk, problem.getKey(), "sequential", "io:2");
            assertEquals(0, result.exitCode(), result.describe());
            assertEquals(1, result.stderr().size(), result.describe());
            String line = result.stderr().get(0);
            assertTrue(
                    line.startsWith("numaspread agent: ")
                            && line.contains(problem.getValue())
                            && line.endsWith("; running without pinning"),
                    line);
            assertEquals(unpinned(), result.cpusOf("", "io-1"), result.describe());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void strictBadOptionsStopTheJvm(Path jdk) throws Exception {
        ForkedJvm.Result result =
                ForkedJvm.run(jdk, "threads=io-*,node=0,count=2,colour=red,strict=true", "sequential", "io:2");
        assertEquals(1, result.exitCode(), result.describe());
        assertEquals(List.of(), result.stdout(), result.describe());
        assertEquals(
                List.of("numaspread agent: unknown option \"colour\"; the options are "
                        + "[threads, nic, node, count, mode, irqs, leases, strict, verbose]"),
                result.stderr(),
                result.describe());
    }

    @Test
    void agentPathNamesTheBuiltJar() throws Exception {
        StringWriter out = new StringWriter();
        assertEquals(
                0, Main.run(new String[] {"agent-path"}, new PrintWriter(out), new PrintWriter(new StringWriter())));
        assertEquals(
                ForkedJvm.AGENT_JAR.toRealPath(),
                Path.of(out.toString().strip()).toRealPath());
    }
}
