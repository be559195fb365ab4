// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.ErrnoException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.netlink.NetdevNetlink;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each NAPI's own {@code threaded} through netdev netlink (Linux 6.17): {@code napi-get} reports it for every
 * NAPI, {@code napi-set} sets it for one. Unlike the device's sysfs {@code threaded}, it turns threads on for some
 * NAPIs and leaves the others as they are; the kernel keeps it in the NAPI's persistent config.
 */
public interface PerNapiThreaded {
    /** {@code threaded} 2: threaded and busy-polling (Linux 6.19), {@code NETDEV_NAPI_THREADED_BUSY_POLL}. */
    int BUSY_POLL = NetdevNetlink.NETDEV_NAPI_THREADED_BUSY_POLL;

    /** For callers that never switch NAPIs one by one: it reads none, and writing fails. */
    PerNapiThreaded NONE = new PerNapiThreaded() {
        @Override
        public Map<Integer, Integer> read(InterfaceName iface) {
            return Map.of();
        }

        @Override
        public void write(int napiId, int threaded) throws IOException {
            throw new IOException("no netdev netlink access was given for NAPI " + napiId);
        }

        @Override
        public long threadedMaximum() {
            throw new NumaspreadException(
                    NumaspreadException.Kind.REFUSED, "no netdev netlink access was given to read napi-set's policy");
        }
    };

    /**
     * Each NAPI of {@code iface} whose kernel reports its own {@code threaded}, by NAPI ID: 0 off, 1 on, 2 on and
     * busy-polling (Linux 6.18). Empty before Linux 6.17, or without netdev netlink.
     */
    Map<Integer, Integer> read(InterfaceName iface);

    /**
     * Sets NAPI {@code napiId}'s {@code threaded}.
     *
     * @throws IOException the call's failure; an {@link ErrnoException} carries the kernel's errno
     */
    void write(int napiId, int threaded) throws IOException;

    /**
     * The largest {@code threaded} the kernel's {@code napi-set} accepts: 2 (busy-poll) from Linux 6.19, 1 before.
     *
     * @throws NumaspreadException (refused) without netdev netlink {@code napi-set}; (call failed) when the policy
     *     cannot be read
     */
    long threadedMaximum();

    /** The running kernel's, through {@code backend}'s netlink. */
    static PerNapiThreaded live(KernelPaths paths, NativeBackend backend) {
        return new PerNapiThreaded() {
            @Override
            public Map<Integer, Integer> read(InterfaceName iface) {
                Map<Integer, Integer> threaded = new TreeMap<>();
                NapiDiscovery.discover(iface, paths, backend)
                        .instances()
                        .forEach(napi -> napi.threaded().ifPresent(value -> threaded.put(napi.id(), value)));
                return threaded;
            }

            @Override
            public void write(int napiId, int threaded) throws IOException {
                try {
                    NapiConfig.writeThreaded(paths, backend, napiId, threaded);
                } catch (NativeCallException e) {
                    throw new ErrnoException(
                            "netdev napi-set threaded " + threaded + " of NAPI",
                            Path.of(Integer.toString(napiId)),
                            e.errno());
                } catch (NumaspreadException e) {
                    throw new IOException(e.getMessage(), e);
                }
            }

            @Override
            public long threadedMaximum() {
                return NapiConfig.threadedMaximum(paths, backend);
            }
        };
    }
}
