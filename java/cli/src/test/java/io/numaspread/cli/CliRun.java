// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process run of the CLI: its exit code and what it printed. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exitCode = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(exitCode, out.toString(), err.toString());
    }
}
