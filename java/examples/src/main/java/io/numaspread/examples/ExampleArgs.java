// SPDX-License-Identifier: Apache-2.0
package io.numaspread.examples;

import java.util.function.Function;

/** The examples' argument parsing: flags with values, positive numbers, and one clear line on bad input. */
final class ExampleArgs {
    private ExampleArgs() {}

    /** {@code parser} applied to {@code args}; on bad input, the reason and {@code usage} on stderr, and exit 2. */
    static <T> T parseOrExit(String program, String usage, Function<String[], T> parser, String[] args) {
        try {
            return parser.apply(args);
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.err.println("usage: " + usage);
            System.exit(2);
            throw new AssertionError("exit returned", e);
        }
    }

    /** The value after {@code flag}, at {@code index}. */
    static String value(String[] args, int index, String flag) {
        if (index >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    static int positive(String flag, String text) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(flag + " must be a positive number, not '" + text + "'");
    }
}
