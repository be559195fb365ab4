package io.numaspread.cli;

/** A failure the user can act on: its message is printed as it is, and it ends with its exit code. */
final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final int BAD_INPUT = 2;
    static final int REFUSED = 3;
    static final int ROLLED_BACK = 4;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
