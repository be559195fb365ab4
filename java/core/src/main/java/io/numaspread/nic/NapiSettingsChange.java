// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nic;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.KernelPaths;
import io.numaspread.nativeaccess.NativeBackend;
import io.numaspread.nativeaccess.NativeCallException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One set of NAPI settings written to several NAPI instances (a NIC's queues), all or nothing, and put back
 * later: every instance's settings are read before any is written, and when a write fails the instances already
 * written are put back before the failure is thrown. {@link #restore} puts them all back.
 */
public final class NapiSettingsChange {
    /** How the settings are read and written: {@link #live} through netdev netlink, or a fault-injecting one. */
    public interface Access {
        /**
         * For a kernel numaspread was given no netlink to (a stand-in tree): every read and write is refused, so
         * that a state file recording NAPI settings is refused rather than half restored.
         */
        Access NONE = new Access() {
            @Override
            public NapiSettings read(int napiId) {
                throw refusedNoAccess(napiId);
            }

            @Override
            public void write(int napiId, NapiSettings settings) {
                throw refusedNoAccess(napiId);
            }

            private NumaspreadException refusedNoAccess(int napiId) {
                return new NumaspreadException(
                        NumaspreadException.Kind.REFUSED,
                        "NAPI " + napiId + "'s settings need netdev netlink, which this restore was not given");
            }
        };

        NapiSettings read(int napiId);

        void write(int napiId, NapiSettings settings);

        /** {@link NapiConfig} on {@code paths}' kernel, through {@code backend}. */
        static Access live(KernelPaths paths, NativeBackend backend) {
            return new Access() {
                @Override
                public NapiSettings read(int napiId) {
                    return NapiConfig.read(paths, backend, napiId);
                }

                @Override
                public void write(int napiId, NapiSettings settings) {
                    NapiConfig.write(paths, backend, napiId, settings);
                }
            };
        }
    }

    private final Access access;
    private final Map<Integer, NapiSettings> before;

    private NapiSettingsChange(Access access, Map<Integer, NapiSettings> before) {
        this.access = access;
        this.before = Collections.unmodifiableMap(before);
    }

    /**
     * Writes {@code wanted} to each of {@code napiIds}, in order.
     *
     * @throws io.numaspread.NumaspreadException as {@link NapiConfig} does (refused before Linux 6.13; the call's
     *     errno when it fails), with every instance as it was; a put-back that failed too is attached as
     *     suppressed
     */
    public static NapiSettingsChange apply(Access access, List<Integer> napiIds, NapiSettings wanted) {
        Map<Integer, NapiSettings> before = new LinkedHashMap<>();
        for (int napiId : napiIds) {
            before.put(napiId, access.read(napiId));
        }
        List<Integer> written = new ArrayList<>();
        try {
            for (int napiId : napiIds) {
                access.write(napiId, wanted);
                written.add(napiId);
            }
        } catch (RuntimeException e) {
            for (int napiId : written) {
                try {
                    access.write(napiId, before.get(napiId));
                } catch (RuntimeException putBack) {
                    e.addSuppressed(putBack);
                }
            }
            throw e;
        }
        return new NapiSettingsChange(access, before);
    }

    /** Each instance's settings before {@link #apply}, in order. */
    public Map<Integer, NapiSettings> before() {
        return before;
    }

    /**
     * Puts every instance back as it was. An instance that is gone is skipped; the first other failure is thrown
     * after every instance was tried, the rest attached as suppressed.
     */
    public void restore() {
        RuntimeException failure = null;
        for (Map.Entry<Integer, NapiSettings> entry : before.entrySet()) {
            try {
                access.write(entry.getKey(), entry.getValue());
            } catch (NativeCallException e) {
                // ENOENT: the NAPI instance is gone (its queue was removed), and its settings with it.
                if (e.errno() != Errno.ENOENT.number()) {
                    failure = collect(failure, e);
                }
            } catch (RuntimeException e) {
                failure = collect(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Whether a read or write failed because the NAPI instance is gone (ENOENT: its queue or device removed). */
    public static boolean gone(RuntimeException e) {
        return e instanceof NativeCallException call && call.errno() == Errno.ENOENT.number();
    }

    /** Whether a write failed for want of privilege (EPERM, EACCES: napi-set needs CAP_NET_ADMIN). */
    public static boolean deniedPrivilege(RuntimeException e) {
        return e instanceof NativeCallException call
                && (call.errno() == Errno.EPERM.number() || call.errno() == Errno.EACCES.number());
    }

    private static RuntimeException collect(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
