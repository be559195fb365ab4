// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

/** A problem with the agent's options or setup; its message is the one line the agent prints. */
final class AgentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AgentException(String message) {
        super(message);
    }
}
