// SPDX-License-Identifier: Apache-2.0
package io.numaspread.pin;

/** A pin asked for CPUs this process may not use; the message names them and the allowed set. */
public final class CpusNotAllowedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public CpusNotAllowedException(String message) {
        super(message);
    }
}
