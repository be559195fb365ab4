// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where a process's threads run, from {@code /proc/PID/task/TID/}: {@code comm} (the name, cut to 15 bytes by the
 * kernel), {@code stat}'s {@code processor} (the CPU it last ran on) and {@code status}'s
 * {@code Cpus_allowed_list}. A thread that ends while it is read is left out.
 */
public final class ProcessThreads {
    /** {@code processor} is field 39 of {@code stat}; fields after the name count from 3 ({@code state}). */
    private static final int PROCESSOR_AFTER_NAME = 39 - 3;

    private ProcessThreads() {}

    /**
     * The threads of {@code pid} whose names match {@code names}, by thread id.
     *
     * @throws NumaspreadException (bad input) naming {@code --threads} when there is no such process, or its
     *     files cannot be read or parsed
     */
    public static List<ThreadPlacement> read(Path procRoot, int pid, ThreadNameGlob names) {
        Path tasks = procRoot.resolve(Integer.toString(pid)).resolve("task");
        if (pid <= 0 || !Files.isDirectory(tasks)) {
            throw NumaspreadException.badInput("--threads " + pid + ": no such process (" + tasks + " does not exist)");
        }
        List<ThreadPlacement> threads = new ArrayList<>();
        try (Stream<Path> entries = Files.list(tasks)) {
            for (Path task : entries.filter(p -> p.getFileName().toString().matches("[0-9]+"))
                    .toList()) {
                read(task).filter(t -> names.matches(t.name())).ifPresent(threads::add);
            }
        } catch (IOException e) {
            throw NumaspreadException.badInput("--threads " + pid + ": cannot list " + tasks + ": " + e, e);
        }
        threads.sort(Comparator.comparingInt(ThreadPlacement::tid));
        return threads;
    }

    private static Optional<ThreadPlacement> read(Path task) {
        int tid = Integer.parseInt(task.getFileName().toString());
        try {
            String comm = Files.readString(task.resolve("comm")).stripTrailing();
            String stat = Files.readString(task.resolve("stat"));
            String status = Files.readString(task.resolve("status"));
            return Optional.of(new ThreadPlacement(tid, comm, processor(task, stat), allowed(task, status)));
        } catch (NoSuchFileException ended) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("--threads: cannot read " + task + ": " + e, e);
        }
    }

    /** The name in {@code stat} is in parentheses and may hold spaces and parentheses: fields follow the last ')'. */
    private static int processor(Path task, String stat) {
        int close = stat.lastIndexOf(')');
        String[] fields =
                close < 0 ? new String[0] : stat.substring(close + 1).trim().split("\\s+");
        if (fields.length <= PROCESSOR_AFTER_NAME) {
            throw NumaspreadException.badInput("--threads: " + task.resolve("stat") + " has no processor field");
        }
        try {
            return Integer.parseInt(fields[PROCESSOR_AFTER_NAME]);
        } catch (NumberFormatException e) {
            throw NumaspreadException.badInput(
                    "--threads: " + task.resolve("stat") + " has a processor field that" + " is no number: "
                            + fields[PROCESSOR_AFTER_NAME],
                    e);
        }
    }

    private static CpuSet allowed(Path task, String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("Cpus_allowed_list:")) {
                String list = line.substring(line.indexOf(':') + 1).trim();
                try {
                    return CpuSet.parse(list);
                } catch (IllegalArgumentException e) {
                    throw NumaspreadException.badInput(
                            "--threads: " + task.resolve("status") + " has a bad Cpus_allowed_list: " + list, e);
                }
            }
        }
        throw NumaspreadException.badInput("--threads: " + task.resolve("status") + " has no Cpus_allowed_list");
    }
}
