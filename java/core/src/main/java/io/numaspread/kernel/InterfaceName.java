// SPDX-License-Identifier: Apache-2.0
package io.numaspread.kernel;

import io.numaspread.NumaspreadException;
import java.util.Locale;

/**
 * A network interface name, checked by the kernel's own rule ({@code dev_valid_name()}) before any path is
 * built from it, so that "../../x" can never reach the filesystem.
 */
public record InterfaceName(String value) {
    /** {@code IFNAMSIZ} less the terminating NUL. */
    private static final int MAX_LENGTH = 15;

    /**
     * @throws NumaspreadException (bad input) naming the interface and what is wrong with it
     */
    public InterfaceName {
        String why = invalidBecause(value);
        if (why != null) {
            throw NumaspreadException.badInput("invalid interface name \"" + value + "\": " + why);
        }
    }

    /** Whether {@code name} is a valid interface name, for names found rather than given (state files). */
    public static boolean isValid(String name) {
        return invalidBecause(name) == null;
    }

    private static String invalidBecause(String name) {
        if (name == null || name.isEmpty()) {
            return "it is empty";
        }
        if (name.equals(".") || name.equals("..")) {
            return "it is a directory reference";
        }
        if (name.length() > MAX_LENGTH) {
            return "it is longer than " + MAX_LENGTH + " characters";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == ':' || c == '\0' || Character.isWhitespace(c) || c < 0x20 || c > 0x7e) {
                return "it contains '" + (c < 0x20 || c > 0x7e ? String.format(Locale.ROOT, "\\u%04x", (int) c) : c)
                        + "'";
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return value;
    }
}
