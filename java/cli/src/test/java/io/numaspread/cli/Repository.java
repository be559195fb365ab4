// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Files of this repository, for tests that check what ships beside the code (deploy/). */
final class Repository {
    private Repository() {}

    /** A path relative to the repository root; Maven runs the tests in java/cli. */
    static Path path(String relative) {
        Path root = Path.of(System.getProperty("basedir", System.getProperty("user.dir")), "../..")
                .normalize();
        Path path = root.resolve(relative);
        if (!Files.exists(path)) {
            throw new IllegalStateException(path + " does not exist");
        }
        return path;
    }
}
