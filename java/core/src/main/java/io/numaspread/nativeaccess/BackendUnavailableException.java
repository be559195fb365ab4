// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.NumaspreadException;

/** A backend cannot be used on this JVM or machine; the message says why. */
public final class BackendUnavailableException extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    private final BackendKind backend;

    public BackendUnavailableException(BackendKind kind, String reason) {
        super(Kind.UNAVAILABLE, kind.id() + " backend unavailable, because " + reason);
        this.backend = kind;
    }

    public BackendUnavailableException(BackendKind kind, String reason, Throwable cause) {
        super(Kind.UNAVAILABLE, kind.id() + " backend unavailable, because " + reason, cause);
        this.backend = kind;
    }

    public BackendKind backend() {
        return backend;
    }
}
