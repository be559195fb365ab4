// SPDX-License-Identifier: Apache-2.0
package io.numaspread.netlink;

/**
 * A netlink datagram whose length fields do not fit it: a message or attribute that claims more bytes than are
 * left, or fewer than its own header. The message names the byte offset and the length claimed. An
 * {@link IllegalArgumentException}, as every parse failure of the codec's callers is, so that one catch handles
 * a malformed answer whichever layer found it.
 */
public final class MalformedNetlinkException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    MalformedNetlinkException(String message) {
        super(message);
    }
}
