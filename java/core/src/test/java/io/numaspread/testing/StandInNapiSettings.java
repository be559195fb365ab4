// SPDX-License-Identifier: Apache-2.0
package io.numaspread.testing;

import io.numaspread.kernel.Errno;
import io.numaspread.nativeaccess.NativeCallException;
import io.numaspread.nic.NapiSettings;
import io.numaspread.nic.NapiSettingsChange;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kernel's per-NAPI settings as netdev netlink's napi-get and napi-set answer them, held in a map: a NAPI the
 * map lacks is ENOENT, and chosen napi-set calls (counted from 1, put-backs included) fail with an errno, as the
 * kernel's do. For the tests of what writes NAPI settings all or nothing (apply --irq-suspend, its restore).
 */
public final class StandInNapiSettings implements NapiSettingsChange.Access {
    private final Map<Integer, NapiSettings> kernel = new TreeMap<>();
    private final Map<Integer, Errno> failingSets = new HashMap<>();
    private Runnable beforeEachSet = () -> {};
    private int sets;

    /** The settings by NAPI ID, which the test fills and reads. */
    public Map<Integer, NapiSettings> kernel() {
        return kernel;
    }

    /** Makes napi-set call number {@code call} (counted from 1) fail with {@code errno}. */
    public StandInNapiSettings failSet(int call, Errno errno) {
        failingSets.put(call, errno);
        return this;
    }

    /** Runs {@code hook} before each napi-set, failing ones included (to see the state file at that moment). */
    public StandInNapiSettings beforeEachSet(Runnable hook) {
        beforeEachSet = hook;
        return this;
    }

    /** How many napi-set calls were made, failed ones included. */
    public int sets() {
        return sets;
    }

    @Override
    public NapiSettings read(int napiId) {
        NapiSettings settings = kernel.get(napiId);
        if (settings == null) {
            throw new NativeCallException(
                    "netlink netdev napi-get " + napiId, Errno.ENOENT.number(), Errno.ENOENT.name(), "");
        }
        return settings;
    }

    @Override
    public void write(int napiId, NapiSettings settings) {
        beforeEachSet.run();
        Errno failure = failingSets.get(++sets);
        if (failure == null && !kernel.containsKey(napiId)) {
            failure = Errno.ENOENT;
        }
        if (failure != null) {
            throw new NativeCallException("netlink netdev napi-set " + napiId, failure.number(), failure.name(), "");
        }
        kernel.put(napiId, settings);
    }
}
