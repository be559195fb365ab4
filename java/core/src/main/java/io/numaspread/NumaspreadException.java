// SPDX-License-Identifier: Apache-2.0
package io.numaspread;

/**
 * Every failure numaspread reports: its message names the culprit (file, flag, interface, IRQ or CPU), and its
 * {@link Kind} says what it means to the caller, so that a CLI maps kinds to exit codes in one place.
 */
public class NumaspreadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What the failure means to the caller. */
    public enum Kind {
        /** A flag, file, interface, value or state file is wrong. Nothing was changed. */
        BAD_INPUT,
        /** Refused for safety (no privilege, irqbalance running). Nothing was changed. */
        REFUSED,
        /** A change failed part way and every change already made was put back (or could not be: see message). */
        ROLLED_BACK,
        /** A restore could not put every value back; the state file is kept for another try. */
        INCOMPLETE,
        /** A native backend cannot be used on this JVM or machine. */
        UNAVAILABLE,
        /** A call into libc or libnuma failed with an errno. */
        CALL_FAILED
    }

    private final Kind kind;

    public NumaspreadException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public NumaspreadException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** A failure of the caller's input; nothing was changed. */
    public static NumaspreadException badInput(String message) {
        return new NumaspreadException(Kind.BAD_INPUT, message);
    }

    /** A failure of the caller's input, with the I/O or parse failure that showed it; nothing was changed. */
    public static NumaspreadException badInput(String message, Throwable cause) {
        return new NumaspreadException(Kind.BAD_INPUT, message, cause);
    }

    public final Kind kind() {
        return kind;
    }
}
