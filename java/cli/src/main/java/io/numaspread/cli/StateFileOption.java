// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --state FILE}: where apply records the values it replaces, and restore finds them. */
final class StateFileOption {
    @Option(
            names = "--state",
            paramLabel = "FILE",
            description = "The state file (default /run/numaspread/IFACE.json,"
                    + " or PROC_ROOT/numaspread/IFACE.json with --proc-root).")
    Path stateFile;

    /** The file given, or empty for the interface's default. */
    Optional<Path> given() {
        return Optional.ofNullable(stateFile);
    }
}
