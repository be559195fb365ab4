// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.KernelPaths;
import java.nio.file.Path;

/**
 * A failure whose remedy is restoring a state file: a roll back that could not put everything back, or a stale
 * state file. It carries the state file and the trees as values, so that a command line can name the command that
 * restores them; the message names the file.
 */
public final class RestoreNeeded extends NumaspreadException {
    private static final long serialVersionUID = 1L;

    private final String problem;
    private final transient Path stateFile;
    private final transient KernelPaths paths;
    private final String then;

    /**
     * @param problem what happened, a sentence without its end ("ROLLBACK FAILED for IRQ 52 (EIO)")
     * @param then what follows the restore, with its leading space (" first, then apply again"), or nothing
     */
    RestoreNeeded(Kind kind, String problem, Path stateFile, KernelPaths paths, String then) {
        super(kind, problem + ": restore " + stateFile + then);
        this.problem = problem;
        this.stateFile = stateFile;
        this.paths = paths;
        this.then = then;
    }

    /** This failure with more said after the restore ("; threaded is 0 again"). */
    RestoreNeeded followedBy(String more) {
        RestoreNeeded longer = new RestoreNeeded(kind(), problem, stateFile, paths, then + more);
        longer.initCause(this);
        return longer;
    }

    /** What happened, without the remedy. */
    public String problem() {
        return problem;
    }

    /** The state file to restore. */
    public Path stateFile() {
        return stateFile;
    }

    /** The trees the state file's values belong to. */
    public KernelPaths paths() {
        return paths;
    }

    /** What follows the restore, with its leading space, or nothing. */
    public String then() {
        return then;
    }
}
