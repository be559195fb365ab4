package io.numaspread.nativeaccess;

/** A backend cannot be used on this JVM or machine; the message says why. */
public final class BackendUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    private final BackendKind kind;

    public BackendUnavailableException(BackendKind kind, String reason) {
        super(kind.id() + " backend unavailable, because " + reason);
        this.kind = kind;
    }

    public BackendUnavailableException(BackendKind kind, String reason, Throwable cause) {
        super(kind.id() + " backend unavailable, because " + reason, cause);
        this.kind = kind;
    }

    public BackendKind kind() {
        return kind;
    }
}
