// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelText;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** Turns every exception into one line on stderr and an exit code, never a stack trace. */
final class Failures implements CommandLine.IExecutionExceptionHandler {
    static final int INTERNAL = 1;
    static final int BAD_INPUT = 2;
    static final int REFUSED = 3;
    static final int ROLLED_BACK = 4;

    @Override
    public int handleExecutionException(Exception failure, CommandLine commandLine, ParseResult parseResult) {
        PrintWriter err = commandLine.getErr();
        int exitCode = exitCodeOf(failure);
        String message = CommandLines.words(failure);
        // Messages quote files and arguments; whatever they hold, the line stays one printable line.
        err.println("numaspread: "
                + KernelText.escape(exitCode == INTERNAL ? "internal error: " + failure + hint() : message));
        if (System.getenv("NUMASPREAD_DEBUG") != null) {
            failure.printStackTrace(err);
        }
        err.flush();
        return exitCode;
    }

    /** A JVM resource ran out: a bug (some input was not bounded), reported as one line. */
    static int exhausted(VirtualMachineError failure, PrintWriter err) {
        err.println("numaspread: internal error: the JVM ran out of "
                + (failure instanceof StackOverflowError ? "stack" : "memory") + hint());
        if (System.getenv("NUMASPREAD_DEBUG") != null) {
            failure.printStackTrace(err);
        }
        err.flush();
        return INTERNAL;
    }

    static int badUsage(CommandLine.ParameterException failure, String[] args) {
        PrintWriter err = failure.getCommandLine().getErr();
        err.println("numaspread: " + KernelText.escape(failure.getMessage()));
        err.println("Try '" + failure.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return BAD_INPUT;
    }

    private static int exitCodeOf(Exception failure) {
        if (failure instanceof NumaspreadException known) {
            return switch (known.kind()) {
                case BAD_INPUT, UNAVAILABLE, CALL_FAILED -> BAD_INPUT;
                case REFUSED -> REFUSED;
                case ROLLED_BACK, INCOMPLETE -> ROLLED_BACK;
            };
        }
        return INTERNAL;
    }

    private static String hint() {
        return " (NUMASPREAD_DEBUG=1 shows the stack trace)";
    }
}
