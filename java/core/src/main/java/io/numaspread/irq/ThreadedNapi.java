// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelFiles;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Threaded NAPI: {@code /sys/class/net/IFACE/threaded}, 0 or 1. The kernel starts the {@code napi/IFACE-ID} threads
 * as it takes a 1, and stops them at a 0.
 */
final class ThreadedNapi {
    private final KernelPaths paths;
    private final KernelFiles files;

    ThreadedNapi(KernelPaths paths, KernelFiles files) {
        this.paths = paths;
        this.files = files;
    }

    Path file(InterfaceName iface) {
        return paths.netDevice(iface).resolve("threaded");
    }

    /** {@code threaded} as 0 or 1. */
    int read(Path threadedFile) {
        String text;
        try {
            text = files.read(threadedFile);
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + threadedFile + ": " + Errno.describe(e));
        }
        return switch (text) {
            case "0" -> 0;
            case "1" -> 1;
            default ->
                throw NumaspreadException.badInput(
                        threadedFile + " holds \"" + KernelText.escape(text) + "\", neither 0 nor 1");
        };
    }

    void probe(Path threadedFile) {
        try {
            files.probeWritable(threadedFile);
        } catch (IOException e) {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED,
                    "cannot write " + threadedFile + ": "
                            + Errno.describe(e)
                            + ": turning threaded NAPI on needs CAP_NET_ADMIN and root's write access to"
                            + " /sys/class/net; nothing was changed");
        }
    }

    /** Writes 1 and reads it back; why it failed, or empty when it is on. */
    Optional<String> switchOn(Path threadedFile) {
        String failure;
        try {
            files.write(threadedFile, "1");
            String back = files.read(threadedFile);
            if (back.equals("1")) {
                return Optional.empty();
            }
            failure = "it reads back as \"" + KernelText.escape(back) + "\"";
        } catch (IOException e) {
            failure = Errno.describe(e);
        }
        return Optional.of("writing \"1\" to " + threadedFile + " failed: " + failure
                + (failure.contains("EOPNOTSUPP") || failure.contains("Operation not supported")
                        ? " (the driver does not support threaded NAPI)"
                        : ""));
    }

    /** Writes 0 and reads it back; whether it reads back as 0. */
    boolean switchOff(Path threadedFile) throws IOException {
        files.write(threadedFile, "0");
        return files.read(threadedFile).equals("0");
    }

    /** Puts {@code threaded} back as recorded; a failure, or empty when it is back or the device is gone. */
    Optional<String> restore(InterfaceName iface, int before) {
        Path file = file(iface);
        if (!Files.exists(file)) {
            return Optional.empty(); // the device is gone, and its threads with it
        }
        try {
            if (read(file) != before) {
                files.write(file, Integer.toString(before));
                if (read(file) != before) {
                    return Optional.of(file + ": wrote \"" + before + "\" but it reads back otherwise");
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(file + ": writing \"" + before + "\" failed: " + Errno.describe(e));
        }
    }
}
