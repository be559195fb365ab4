// SPDX-License-Identifier: Apache-2.0
package io.numaspread.examples;

import static io.numaspread.examples.ExampleArgs.positive;
import static io.numaspread.examples.ExampleArgs.value;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Drives {@link EchoServer}: opens {@code --connections} TCP connections, {@code --concurrency} at a time (a
 * burst), and on each does {@code --rounds} request/response rounds of {@code --size} bytes, then closes it.
 * Prints one summary line: connections, rounds, failures and the round-trip percentiles; exits 1 when any
 * connection failed. {@code --timeout} bounds each connect and each read (default 30 s).
 *
 * <pre>
 * java -cp numaspread-examples.jar io.numaspread.examples.EchoClient --server 10.0.0.2:7007 \
 *      --connections 64 --concurrency 16 --rounds 100
 * </pre>
 */
public final class EchoClient {
    private EchoClient() {}

    public static void main(String[] args) throws Exception {
        Options options = ExampleArgs.parseOrExit(
                "echo-client",
                "EchoClient --server HOST:PORT [--connections N]"
                        + " [--concurrency C] [--rounds M] [--size BYTES] [--timeout SECONDS]",
                Options::parse,
                args);
        ExecutorService pool = Executors.newFixedThreadPool(options.concurrency);
        List<Future<long[]>> results = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < options.connections; i++) {
            results.add(pool.submit(() -> connection(options)));
        }
        long[] all = new long[options.connections * options.rounds];
        int done = 0;
        int failed = 0;
        for (Future<long[]> result : results) {
            try {
                long[] times = result.get();
                System.arraycopy(times, 0, all, done * options.rounds, times.length);
                done++;
            } catch (java.util.concurrent.ExecutionException e) {
                failed++;
                System.err.println("echo-client: " + e.getCause());
            }
        }
        pool.shutdown();
        double seconds = (System.nanoTime() - started) / 1e9;
        long[] times = Arrays.copyOf(all, done * options.rounds);
        Arrays.sort(times);
        System.out.printf(
                "connections %d failed %d rounds %d seconds %.2f p50-us %d p99-us %d%n",
                done, failed, times.length, seconds, percentile(times, 0.50), percentile(times, 0.99));
        System.exit(failed == 0 ? 0 : 1);
    }

    /** One connection: its round-trip times in microseconds. */
    private static long[] connection(Options options) throws IOException {
        byte[] request = new byte[options.size];
        byte[] response = new byte[options.size];
        long[] times = new long[options.rounds];
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(options.timeoutMillis());
            socket.connect(options.server, options.timeoutMillis());
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            for (int round = 0; round < options.rounds; round++) {
                Arrays.fill(request, (byte) round);
                long start = System.nanoTime();
                out.write(request);
                in.readFully(response);
                times[round] = (System.nanoTime() - start) / 1000;
                if (!Arrays.equals(request, response)) {
                    throw new IOException("round " + round + " came back changed from " + options.server);
                }
            }
        }
        return times;
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private record Options(
            InetSocketAddress server, int connections, int concurrency, int rounds, int size, int timeoutSeconds) {
        int timeoutMillis() {
            return timeoutSeconds * 1000;
        }

        static Options parse(String[] args) {
            InetSocketAddress server = null;
            int connections = 64;
            int concurrency = 16;
            int rounds = 10;
            int size = 64;
            int timeoutSeconds = 30;
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                switch (flag) {
                    case "--server" -> server = address(value(args, ++i, flag));
                    case "--connections" -> connections = positive(flag, value(args, ++i, flag));
                    case "--concurrency" -> concurrency = positive(flag, value(args, ++i, flag));
                    case "--rounds" -> rounds = positive(flag, value(args, ++i, flag));
                    case "--size" -> size = positive(flag, value(args, ++i, flag));
                    case "--timeout" -> timeoutSeconds = positive(flag, value(args, ++i, flag));
                    default -> throw new IllegalArgumentException("unknown argument '" + flag + "'");
                }
            }
            if (server == null) {
                throw new IllegalArgumentException("--server HOST:PORT is required");
            }
            return new Options(server, connections, concurrency, rounds, size, timeoutSeconds);
        }

        private static InetSocketAddress address(String text) {
            int colon = text.lastIndexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("--server must be HOST:PORT, not '" + text + "'");
            }
            return new InetSocketAddress(
                    text.substring(0, colon), positive("--server port", text.substring(colon + 1)));
        }
    }
}
