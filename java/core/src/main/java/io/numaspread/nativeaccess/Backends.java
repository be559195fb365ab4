// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import io.numaspread.kernel.SysfsTree;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Chooses the backend, in this one place: FFM, then JNA, then sysfs, unless {@value #OVERRIDE_PROPERTY}
 * names one. The reason each skipped backend is unavailable is kept in the {@link Selection}.
 */
public final class Backends {
    public static final String OVERRIDE_PROPERTY = "numaspread.backend";

    private static volatile Selection live;

    private Backends() {}

    /** The backend for this JVM on the live machine, chosen once. */
    public static Selection live() throws BackendUnavailableException {
        Selection selection = live;
        if (selection == null) {
            synchronized (Backends.class) {
                selection = live;
                if (selection == null) {
                    selection = select(SysfsTree.live(), override());
                    live = selection;
                }
            }
        }
        return selection;
    }

    /** The {@value #OVERRIDE_PROPERTY} system property, if set. */
    public static Optional<BackendKind> override() {
        String value = System.getProperty(OVERRIDE_PROPERTY);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(BackendKind.fromId(value));
    }

    /**
     * Tries each backend in order of preference, or only {@code forced} when given.
     *
     * @throws BackendUnavailableException when the forced backend is unavailable
     */
    public static Selection select(SysfsTree sysfs, Optional<BackendKind> forced) throws BackendUnavailableException {
        Map<BackendKind, String> unavailable = new EnumMap<>(BackendKind.class);
        // No lambda here: the agent runs this before main, where each new lambda spins a class.
        List<BackendKind> order = forced.isPresent() ? List.of(forced.get()) : List.of(BackendKind.values());
        for (BackendKind kind : order) {
            try {
                return new Selection(load(kind, sysfs), unavailable);
            } catch (BackendUnavailableException e) {
                if (forced.isPresent()) {
                    throw e;
                }
                unavailable.put(kind, e.getMessage());
            }
        }
        throw new AssertionError("the sysfs backend is always available");
    }

    /** Loads one backend, or says why it is unavailable. */
    static NativeBackend load(BackendKind kind, SysfsTree sysfs) throws BackendUnavailableException {
        return switch (kind) {
            case FFM -> FfmBackend.load(sysfs.maskBits());
            case JNA -> {
                if (!jnaOnClassPath()) {
                    throw new BackendUnavailableException(
                            BackendKind.JNA, "JNA (com.sun.jna) is not on the class path");
                }
                yield JnaBackend.load(sysfs.maskBits());
            }
            case SYSFS -> new SysfsBackend(sysfs, Path.of("/proc"));
        };
    }

    private static boolean jnaOnClassPath() {
        try {
            Class.forName("com.sun.jna.Native", false, Backends.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The chosen backend and, for each backend tried before it, why it was unavailable. */
    public record Selection(NativeBackend backend, Map<BackendKind, String> unavailable) {
        public Selection {
            Map<BackendKind, String> ordered = new EnumMap<>(BackendKind.class);
            ordered.putAll(unavailable);
            unavailable = Collections.unmodifiableMap(ordered);
        }
    }
}
