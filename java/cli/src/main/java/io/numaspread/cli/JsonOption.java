// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import picocli.CommandLine.Option;

/** {@code --json}: the commands that show something print it as one JSON object instead of text. */
final class JsonOption {
    @Option(names = "--json", description = "Print one JSON object.")
    boolean requested;
}
