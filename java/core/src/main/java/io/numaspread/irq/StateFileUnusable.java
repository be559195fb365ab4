// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import java.nio.file.Path;

/**
 * A state file that cannot be used: another interface owns it, or it cannot be written. Nothing was changed. The
 * way out is another file, which each caller names in its own terms (the CLI's {@code --state FILE}, a builder's
 * state-file setting), so the message states only the problem.
 */
public final class StateFileUnusable extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    private final transient Path stateFile;

    StateFileUnusable(Kind kind, String problem, Path stateFile, Throwable cause) {
        super(kind, problem, cause);
        this.stateFile = stateFile;
    }

    /** The file that cannot be used. */
    public Path stateFile() {
        return stateFile;
    }
}
