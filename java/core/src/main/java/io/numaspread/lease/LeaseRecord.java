// SPDX-License-Identifier: Apache-2.0
package io.numaspread.lease;

import io.numaspread.kernel.ProcessFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.StringTokenizer;

/**
 * What a CPU's lock file says of its holder: the process (its PID and its start time, so that a PID the kernel
 * has given to another process since is not taken for the holder), its command, and what it pins there.
 *
 * @param pid the holder's PID
 * @param startTime the holder's start time, field 22 of {@code /proc/PID/stat} (clock ticks after boot)
 * @param command the holder's main class, or its executable when the main class is unknown
 * @param pins what the holder runs on the CPU, one entry per user ({@code netty:numaspread-loop-0})
 */
public record LeaseRecord(long pid, long startTime, String command, List<String> pins) {
    public LeaseRecord {
        Objects.requireNonNull(command);
        pins = List.copyOf(pins);
    }

    /** The record's text: one {@code key=value} line each, a {@code pins=} line per pin, newlines made spaces. */
    public byte[] encode() {
        StringBuilder text = new StringBuilder();
        text.append("pid=").append(pid).append('\n');
        text.append("start=").append(startTime).append('\n');
        text.append("command=").append(oneLine(command)).append('\n');
        for (String pin : pins) {
            text.append("pins=").append(oneLine(pin)).append('\n');
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String oneLine(String value) {
        return value.replace('\n', ' ').replace('\r', ' ');
    }

    /** The record {@code bytes} hold; empty for anything else (a file being written, a truncated one). */
    public static Optional<LeaseRecord> decode(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.endsWith("\n")) {
            return Optional.empty();
        }
        Long pid = null;
        Long start = null;
        String command = null;
        List<String> pins = new ArrayList<>();
        for (String line : text.split("\n")) {
            int equals = line.indexOf('=');
            if (equals < 0) {
                return Optional.empty();
            }
            String value = line.substring(equals + 1);
            try {
                switch (line.substring(0, equals)) {
                    case "pid" -> pid = Long.parseLong(value);
                    case "start" -> start = Long.parseLong(value);
                    case "command" -> command = value;
                    case "pins" -> pins.add(value);
                    default -> {
                        // A key of a newer numaspread: what this one knows is still read.
                    }
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        if (pid == null || start == null || command == null) {
            return Optional.empty();
        }
        return Optional.of(new LeaseRecord(pid, start, command, pins));
    }

    /**
     * The start time of process {@code pid} in {@code procRoot}: field 22 of its {@code stat}, counted after the
     * command in parentheses, which may itself hold spaces and parentheses; empty when the process is gone.
     */
    public static OptionalLong startTime(Path procRoot, long pid) {
        String stat = ProcessFiles.read(procRoot, Math.toIntExact(pid), "stat");
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return OptionalLong.empty();
        }
        // A tokenizer, not split("\\s+"): the agent reads its own start time before main, where a regular
        // expression's classes would load at a cold JVM's pace. The first field after ')' is field 3 (the state).
        StringTokenizer fields = new StringTokenizer(stat.substring(close + 1));
        for (int field = 3; field < 22 && fields.hasMoreTokens(); field++) {
            fields.nextToken();
        }
        if (!fields.hasMoreTokens()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(fields.nextToken()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Whether the process this record names still runs: its PID lives with the start time recorded. */
    public boolean alive(Path procRoot) {
        OptionalLong now = startTime(procRoot, pid);
        return now.isPresent() && now.getAsLong() == startTime;
    }
}
