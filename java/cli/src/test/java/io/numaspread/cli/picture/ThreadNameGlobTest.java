// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --thread-names}: the agent's glob syntax, matched against whole names. */
@Timeout(10)
class ThreadNameGlobTest {
    @Test
    void globsMatchWholeNames() {
        ThreadNameGlob glob = ThreadNameGlob.parse("epoll*|io-?|w[0-9]|x[!0-9]|lit\\*|a.b|c[^-]");
        assertTrue(glob.matches("epollEventLoopG"));
        assertFalse(glob.matches("my-epollEventLoopG"));
        assertTrue(glob.matches("io-7"));
        assertFalse(glob.matches("io-17"));
        assertTrue(glob.matches("w5"));
        assertFalse(glob.matches("wx"));
        assertTrue(glob.matches("xa"));
        assertFalse(glob.matches("x5"));
        assertTrue(glob.matches("lit*"));
        assertFalse(glob.matches("lit-"));
        assertTrue(glob.matches("a.b"));
        assertFalse(glob.matches("axb"), "a dot is a dot");
        assertTrue(glob.matches("c+"));
        assertFalse(glob.matches("c-"));
    }

    @Test
    void malformedGlobsNameTheFlag() {
        assertEquals(
                "--thread-names a||b: an empty glob (two | in a row?)",
                assertThrows(NumaspreadException.class, () -> ThreadNameGlob.parse("a||b"))
                        .getMessage());
        assertEquals(
                "--thread-names x\\: a \\ at the end of x\\",
                assertThrows(NumaspreadException.class, () -> ThreadNameGlob.parse("x\\"))
                        .getMessage());
        assertEquals(
                NumaspreadException.Kind.BAD_INPUT,
                assertThrows(NumaspreadException.class, () -> ThreadNameGlob.parse("[a"))
                        .kind());
    }
}
