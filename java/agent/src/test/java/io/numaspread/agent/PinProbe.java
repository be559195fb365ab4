// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.function.IntFunction;

/**
 * The program the agent tests fork. Each thread's first action is to print its own name, TID and
 * {@code Cpus_allowed_list}, so the output shows where the thread was before it ran a line of its own code.
 *
 * <ul>
 *   <li>{@code sequential PREFIX:N...}: starts PREFIX-0..N-1 one after another (each has reported before the
 *       next starts), so the k-th match is the thread numbered k.
 *   <li>{@code named NAME...}: the same with the given names, URL-encoded.
 *   <li>{@code idle PREFIX:N...}: starts and joins the threads one after another; they do nothing and print
 *       nothing (for timing thread start-up with and without the agent: scripts/bench-agent).
 *   <li>{@code time PREFIX N}: the same for PREFIX-0..N-1, timing each start and join, and prints the median
 *       and 90th percentile in microseconds (robust where other work shares the machine), and the CPU time the
 *       whole process spent per thread (all its threads, from /proc/self/stat; less disturbed by other work than
 *       wall time).
 *   <li>{@code time-self PREFIX N}: the same, but each thread pins itself as its first action, to CPU k mod 2,
 *       through numaspread's own backend (FFM on JDK 23 and later, JNA before): the floor that a thread pinned
 *       by the agent is compared with. Needs the core jar (and on JDK 17 JNA) on the class path.
 *   <li>{@code burst N STARTERS}: N threads burst-0..N-1, started at once from STARTERS threads.
 *   <li>{@code gated PREFIX:N...}: prints "ready", waits for a line on stdin, then does what {@code sequential}
 *       does (the test changes the process between).
 *   <li>{@code attach PREFIX:N...}: starts the threads, prints "ready", waits for a line on stdin, then each
 *       thread prints its affinity again (prefixed "after").
 *   <li>{@code attach-named NAME...}: the same with the given names, URL-encoded, which the threads print
 *       URL-encoded too (a name may hold a newline).
 *   <li>{@code pin-tid TID NAME}: asks the agent's library, loaded by {@code -javaagent}, to pin the running
 *       thread TID by NAME, as an attach does, and prints "pinRunning" and what it returned.
 * </ul>
 */
public final class PinProbe {
    /** Whether the threads print their names URL-encoded. */
    private static boolean encodeNames;

    private PinProbe() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "sequential" -> sequential(names(List.of(args).subList(1, args.length)));
            case "named" ->
                sequential(List.of(args).subList(1, args.length).stream()
                        .map(name -> URLDecoder.decode(name, StandardCharsets.UTF_8))
                        .toList());
            case "idle" -> idle(names(List.of(args).subList(1, args.length)));
            case "time" -> time(args[1], Integer.parseInt(args[2]), null);
            case "time-self" -> time(args[1], Integer.parseInt(args[2]), SelfPinning.pins());
            case "burst" -> burst(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "gated" -> {
                awaitGo();
                sequential(names(List.of(args).subList(1, args.length)));
            }
            case "pin-tid" ->
                System.out.println("pinRunning "
                        + NativeAgent.pinRunning(new int[] {Integer.parseInt(args[1])}, new String[] {args[2]}));
            case "attach" -> attach(names(List.of(args).subList(1, args.length)));
            case "attach-named" -> {
                encodeNames = true;
                attach(List.of(args).subList(1, args.length).stream()
                        .map(name -> URLDecoder.decode(name, StandardCharsets.UTF_8))
                        .toList());
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.println("done");
    }

    private static void sequential(List<String> names) throws InterruptedException {
        for (String name : names) {
            Thread thread = new Thread(() -> report(""), name);
            thread.start();
            thread.join();
        }
    }

    private static void idle(List<String> names) throws InterruptedException {
        for (String name : names) {
            Thread thread = new Thread(() -> {}, name);
            thread.start();
            thread.join();
        }
    }

    private static void time(String prefix, int count, IntFunction<Runnable> firstAction) throws InterruptedException {
        long[] nanos = new long[count];
        long cpuBefore = processCpuTicks();
        for (int i = 0; i < count; i++) {
            Runnable action = firstAction == null ? () -> {} : firstAction.apply(i);
            long start = System.nanoTime();
            Thread thread = new Thread(action, prefix + "-" + i);
            thread.start();
            thread.join();
            nanos[i] = System.nanoTime() - start;
        }
        long cpuTicks = processCpuTicks() - cpuBefore;
        java.util.Arrays.sort(nanos);
        System.out.printf(
                "start+join median %.1f us, p90 %.1f us, process CPU %.2f us per thread%n",
                nanos[count / 2] / 1e3, nanos[count * 9 / 10] / 1e3, cpuTicks * 1e6 / CLOCK_TICKS / count);
    }

    /** USER_HZ, in which /proc reports CPU time: 100 on every Linux architecture the agent is built for. */
    private static final double CLOCK_TICKS = 100;

    /** utime + stime of this process, all threads, in clock ticks. */
    private static long processCpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[14 - 3]) + Long.parseLong(fields[15 - 3]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Thread k pins itself to CPU k mod 2 (of those it may use) with one call, as the agent would pin it. */
    private static final class SelfPinning {
        static IntFunction<Runnable> pins() throws Exception {
            io.numaspread.nativeaccess.NativeBackend backend =
                    io.numaspread.nativeaccess.Backends.live().backend();
            int[] allowed = backend.affinity(0).toArray();
            io.numaspread.CpuSet[] sets = {
                io.numaspread.CpuSet.of(allowed[0]), io.numaspread.CpuSet.of(allowed[allowed.length > 1 ? 1 : 0])
            };
            System.err.println("self-pinning through the " + backend.kind() + " backend");
            return k -> () -> backend.setAffinity(0, sets[k % 2]);
        }
    }

    private static void burst(int count, int starters) throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            threads.add(new Thread(() -> report(""), "burst-" + i));
        }
        CyclicBarrier go = new CyclicBarrier(starters);
        List<Thread> starterThreads = new ArrayList<>();
        for (int s = 0; s < starters; s++) {
            int first = s;
            Thread starter = new Thread(
                    () -> {
                        try {
                            go.await();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        for (int i = first; i < count; i += starters) {
                            threads.get(i).start();
                        }
                    },
                    "starter-" + s);
            starterThreads.add(starter);
            starter.start();
        }
        for (Thread starter : starterThreads) {
            starter.join();
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void attach(List<String> names) throws Exception {
        CountDownLatch check = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(names.size());
        List<Thread> threads = new ArrayList<>();
        for (String name : names) {
            Thread thread = new Thread(
                    () -> {
                        report("");
                        started.countDown();
                        try {
                            check.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        report("after ");
                    },
                    name);
            threads.add(thread);
            thread.start();
        }
        started.await();
        awaitGo();
        check.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static void awaitGo() throws IOException {
        System.out.println("ready " + ProcessHandle.current().pid());
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }

    private static List<String> names(List<String> groups) {
        List<String> names = new ArrayList<>();
        for (String group : groups) {
            int colon = group.lastIndexOf(':');
            int count = Integer.parseInt(group.substring(colon + 1));
            for (int i = 0; i < count; i++) {
                names.add(group.substring(0, colon) + "-" + i);
            }
        }
        return names;
    }

    /** Prints "[prefix]NAME TID CPUS" with this thread's own Cpus_allowed_list from /proc/thread-self/status. */
    private static void report(String prefix) {
        String cpus = null;
        String tid = null;
        try {
            // Bytes as Latin-1: the Name: line holds the kernel's 15-byte cut of the thread name, which may end
            // inside a UTF-8 character; the two lines read here are ASCII.
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    cpus = line.substring(line.indexOf(':') + 1).strip();
                } else if (line.startsWith("Pid:")) {
                    tid = line.substring(line.indexOf(':') + 1).strip();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        synchronized (System.out) {
            String name = Thread.currentThread().getName();
            System.out.println(prefix + (encodeNames ? URLEncoder.encode(name, StandardCharsets.UTF_8) : name) + " "
                    + tid + " " + cpus);
        }
    }
}
