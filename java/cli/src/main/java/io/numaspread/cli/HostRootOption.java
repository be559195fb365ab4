// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --host-root}: where the host's configuration is, for the other managers of a NIC's IRQs. */
final class HostRootOption {
    @Option(
            names = "--host-root",
            paramLabel = "DIR",
            description = "Where the host's /etc, /run and /usr are, for udev's .link files and database (a"
                    + " container that mounts the host's / at /host: --host-root /host); default /.")
    Path hostRoot = Path.of("/");
}
