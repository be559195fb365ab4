// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelText;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One file as the doctor read it: its text, or absent, or unreadable with the reason. A file that cannot be read
 * is a finding of its own (unknown), never a failure of the report.
 */
public record KernelFile(Path path, Optional<String> text, Optional<String> error) {
    public static KernelFile read(Path path) {
        try {
            return new KernelFile(path, Optional.of(KernelText.read(path)), Optional.empty());
        } catch (NoSuchFileException e) {
            return new KernelFile(path, Optional.empty(), Optional.empty());
        } catch (IOException e) {
            return new KernelFile(path, Optional.empty(), Optional.of(Errno.describe(e)));
        }
    }

    static KernelFile of(Path path, String text) {
        return new KernelFile(path, Optional.of(text), Optional.empty());
    }

    static KernelFile missing(Path path) {
        return new KernelFile(path, Optional.empty(), Optional.empty());
    }

    static KernelFile unreadable(Path path, String error) {
        return new KernelFile(path, Optional.empty(), Optional.of(error));
    }

    boolean exists() {
        return text.isPresent() || error.isPresent();
    }
}
