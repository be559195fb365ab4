package io.numaspread.topology;

/** The machine description is missing, unreadable or malformed; the message names the file. */
public final class TopologyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TopologyException(String message) {
        super(message);
    }

    public TopologyException(String message, Throwable cause) {
        super(message, cause);
    }
}
