// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Whether this process may make io_uring rings, as the kernel's {@code io_uring_allowed()} decides from the
 * sysctls of Linux 6.6: {@code kernel.io_uring_disabled} 0 lets every process, 2 none, and 1 only those with
 * {@code CAP_SYS_ADMIN} or in group {@code kernel.io_uring_group} (-1: no group). Pure but for {@link #read}.
 */
public final class IoUringSysctl {
    static final int CAP_SYS_ADMIN = 21;

    private IoUringSysctl() {}

    /**
     * Why this process may not make rings, judged from {@code kernel}'s proc tree ({@code sys/kernel/io_uring_*}
     * and {@code self/status}), or empty when it may. A kernel without the sysctl (before 6.6, or without
     * {@code CONFIG_IO_URING}) is judged by its release elsewhere; here a missing file means no restriction.
     */
    public static Optional<String> refusal(KernelPaths kernel) {
        Path sysctl = kernel.procRoot().resolve("sys/kernel");
        Optional<String> disabled = read(sysctl.resolve("io_uring_disabled"));
        if (disabled.isEmpty()) {
            return Optional.empty();
        }
        return judge(
                disabled.get(),
                read(sysctl.resolve("io_uring_group")).orElse("-1"),
                read(kernel.procRoot().resolve("self/status")).orElse(""),
                sysctl);
    }

    /**
     * The judgement of {@link #refusal} from the files' texts.
     *
     * @param status this process's {@code /proc/self/status}, for {@code CapEff:}, {@code Gid:} and {@code Groups:}
     * @param where the directory the sysctls were read from, to name them
     */
    public static Optional<String> judge(String disabled, String group, String status, Path where) {
        String name = where.resolve("io_uring_disabled").toString();
        switch (disabled) {
            case "0":
                return Optional.empty();
            case "2":
                return Optional.of(name + " is 2: io_uring is disabled for every process");
            case "1":
                break;
            default:
                return Optional.of(name + " is \"" + disabled + "\", which is none of 0, 1 and 2");
        }
        if (capability(status, CAP_SYS_ADMIN)) {
            return Optional.empty();
        }
        if (group.equals("-1")) {
            return Optional.of(name + " is 1 and io_uring_group is -1: only processes with CAP_SYS_ADMIN may make"
                    + " rings, and this one has none");
        }
        if (groups(status).anyMatch(group::equals)) {
            return Optional.empty();
        }
        return Optional.of(name + " is 1: only processes with CAP_SYS_ADMIN or in group " + group
                + " (io_uring_group) may make rings, and this one is neither");
    }

    private static boolean capability(String status, int bit) {
        return field(status, "CapEff:")
                .map(mask -> {
                    try {
                        return (Long.parseUnsignedLong(mask, 16) >>> bit & 1) == 1;
                    } catch (NumberFormatException e) {
                        return false;
                    }
                })
                .orElse(false);
    }

    /** The groups the kernel's {@code in_group_p} checks: the file-system group ({@code Gid:}'s fourth) and more. */
    private static Stream<String> groups(String status) {
        String[] gids = field(status, "Gid:").orElse("").split("\\s+");
        String fsgid = gids.length >= 4 ? gids[3] : "";
        String[] supplementary = field(status, "Groups:").orElse("").split("\\s+");
        return Stream.concat(Stream.of(fsgid), Arrays.stream(supplementary)).filter(gid -> !gid.isEmpty());
    }

    private static Optional<String> field(String status, String name) {
        return status.lines()
                .filter(line -> line.startsWith(name))
                .map(line -> line.substring(name.length()).strip())
                .findFirst();
    }

    private static Optional<String> read(Path file) {
        try {
            return Optional.of(KernelText.read(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new NumaspreadException(NumaspreadException.Kind.UNAVAILABLE, "cannot read " + file + ": " + e, e);
        }
    }
}
