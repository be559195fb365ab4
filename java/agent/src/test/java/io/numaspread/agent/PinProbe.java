// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;

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
 *       and 90th percentile in microseconds (robust where other work shares the machine).
 *   <li>{@code burst N STARTERS}: N threads burst-0..N-1, started at once from STARTERS threads.
 *   <li>{@code gated PREFIX:N...}: prints "ready", waits for a line on stdin, then does what {@code sequential}
 *       does (the test changes the process between).
 *   <li>{@code attach PREFIX:N...}: starts the threads, prints "ready", waits for a line on stdin, then each
 *       thread prints its affinity again (prefixed "after").
 * </ul>
 */
public final class PinProbe {
    private PinProbe() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "sequential" -> sequential(names(List.of(args).subList(1, args.length)));
            case "named" -> sequential(List.of(args).subList(1, args.length).stream()
                    .map(name -> URLDecoder.decode(name, StandardCharsets.UTF_8)).toList());
            case "idle" -> idle(names(List.of(args).subList(1, args.length)));
            case "time" -> time(args[1], Integer.parseInt(args[2]));
            case "burst" -> burst(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "gated" -> {
                awaitGo();
                sequential(names(List.of(args).subList(1, args.length)));
            }
            case "attach" -> attach(List.of(args).subList(1, args.length));
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
            Thread thread = new Thread(() -> { }, name);
            thread.start();
            thread.join();
        }
    }

    private static void time(String prefix, int count) throws InterruptedException {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            Thread thread = new Thread(() -> { }, prefix + "-" + i);
            thread.start();
            thread.join();
            nanos[i] = System.nanoTime() - start;
        }
        java.util.Arrays.sort(nanos);
        System.out.printf("start+join median %.1f us, p90 %.1f us%n", nanos[count / 2] / 1e3, nanos[count * 9 / 10] / 1e3);
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
            Thread starter = new Thread(() -> {
                try {
                    go.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = first; i < count; i += starters) {
                    threads.get(i).start();
                }
            }, "starter-" + s);
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

    private static void attach(List<String> groups) throws Exception {
        CountDownLatch check = new CountDownLatch(1);
        List<String> names = names(groups);
        CountDownLatch started = new CountDownLatch(names.size());
        List<Thread> threads = new ArrayList<>();
        for (String name : names) {
            Thread thread = new Thread(() -> {
                report("");
                started.countDown();
                try {
                    check.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                report("after ");
            }, name);
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
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
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
            System.out.println(prefix + Thread.currentThread().getName() + " " + tid + " " + cpus);
        }
    }
}
