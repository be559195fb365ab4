// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** Reads the kernel's small text files under /sys and /proc, and parses what they hold, naming the file on error. */
public final class KernelText {
    private KernelText() {
    }

    /** The file's text without surrounding whitespace, or empty when the file does not exist. */
    public static Optional<String> readOptional(Path file) {
        try {
            return Optional.of(Files.readString(file).strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw NumaspreadException.badInput("cannot read " + file + ": " + Errno.describe(e));
        }
    }

    /** Parses a kernel CPU list ("0-3,8"), naming {@code file} when it is malformed. */
    public static CpuSet parseCpuList(Path file, String text) {
        try {
            return CpuSet.parse(text);
        } catch (IllegalArgumentException e) {
            throw NumaspreadException.badInput(file + ": " + e.getMessage());
        }
    }
}
