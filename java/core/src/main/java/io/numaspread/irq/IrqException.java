package io.numaspread.irq;

/** A NIC/IRQ operation that could not be done; the message names the interface, IRQ, file or value. */
public final class IrqException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What the failure means to the caller; the CLI turns it into its exit code. */
    public enum Kind {
        /** A flag, file, interface or state file is wrong. Nothing was changed. */
        BAD_INPUT,
        /** Refused for safety (no privilege, irqbalance running). Nothing was changed. */
        REFUSED,
        /** A change failed part way and every change already made was put back (or could not be: see message). */
        ROLLED_BACK,
        /** A restore could not put every value back; the state file is kept for another try. */
        INCOMPLETE
    }

    private final Kind kind;

    public IrqException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public IrqException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public static IrqException badInput(String message) {
        return new IrqException(Kind.BAD_INPUT, message);
    }

    public Kind kind() {
        return kind;
    }
}
