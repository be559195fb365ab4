// SPDX-License-Identifier: Apache-2.0
package io.numaspread.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.testing.NeedsLiveNic;
import io.numaspread.testing.NeedsRoot;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The echo server on Netty's io_uring transport, as a process of its own on this machine's eth0 (Linux 6.13 or
 * later): its loop's ring busy-polls eth0's NAPI instance statically, and it echoes.
 */
@NeedsLiveNic
@NeedsRoot
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EchoServerIoUringTest {
    @Test
    void ioUringLoopsBusyPollTheirQueueAndEcho() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process server = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        EchoServer.class.getName(),
                        "--nic",
                        "eth0",
                        "--transport",
                        "io_uring",
                        "--busy-poll",
                        "50",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        String.valueOf(port))
                .redirectErrorStream(true)
                .start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("listening on")) {
                lines.add(line);
            }
            assertTrue(line != null, "the server stopped before listening: " + lines);
            assertTrue(
                    lines.stream()
                            .anyMatch(Pattern.compile(
                                            "busy-poll loop 0 ring-fd \\d+ usecs 50 prefer false tracking STATIC"
                                                    + " napi-ids \\[\\d+]")
                                    .asMatchPredicate()),
                    lines.toString());
            try (Socket client = new Socket()) {
                client.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                client.setSoTimeout(5000);
                OutputStream toServer = client.getOutputStream();
                toServer.write("ping\n".getBytes(StandardCharsets.US_ASCII));
                toServer.flush();
                assertEquals(
                        "ping",
                        new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.US_ASCII))
                                .readLine());
            }
        } finally {
            server.destroy();
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "the server did not stop on SIGTERM");
        }
    }
}
