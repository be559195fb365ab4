// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.lease.CpuLeases;
import io.numaspread.pin.AgentOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The agent's CPU leases, as a {@code PinnedEventLoopGroup} takes them ({@link CpuLeases}): the plan is made
 * around the CPUs other processes hold, and its CPUs are leased for as long as this JVM runs, so that two JVMs
 * with the agent (or one with the agent and one with a group) do not share a CPU while free ones remain. The same
 * system properties as the group's say where the registry is and turn it off.
 *
 * <p>The default registry ({@value CpuLeases#DEFAULT}) that cannot be used (a JVM that is not root cannot create
 * it) costs the leases, not the pinning: it is said once on stderr and the agent plans as if alone. A registry
 * named by {@code -Dnumaspread.leases.dir} that cannot be used is an error, as a bad option is.
 *
 * <p>A JVM that uses both the agent and a {@code PinnedEventLoopGroup} leases through two copies of the registry's
 * code (the agent's is shaded), which see each other's leases as this process's own; POSIX locks are per process,
 * so the group's closing its lock file on a CPU the agent also leases drops the agent's lock there. Such a JVM
 * should give the agent {@code leases=off}.
 */
final class AgentLeases implements AutoCloseable {
    /**
     * The leases, kept until the JVM exits, when the kernel drops their locks: a lease's file descriptor that
     * nothing referred to would be closed by the garbage collector, and its lock with it.
     */
    private static final List<CpuLeases.Lease> HELD = new ArrayList<>();

    private final CpuLeases.Session session;
    private final boolean named;

    private AgentLeases(CpuLeases.Session session, boolean named) {
        this.session = session;
        this.named = named;
    }

    /**
     * The registry's session for this install, holding its lock while the agent plans and leases (null with
     * leases off, or when the default registry cannot be used). Close it once the leases are taken.
     */
    static AgentLeases open(AgentOptions options) {
        if (!options.leases() || CpuLeases.offByProperty()) {
            return null;
        }
        Optional<Path> named = CpuLeases.propertyDirectory();
        try {
            return new AgentLeases(
                    CpuLeases.in(named.isPresent() ? named.get() : Path.of(CpuLeases.DEFAULT))
                            .session(),
                    named.isPresent());
        } catch (NumaspreadException e) {
            if (named.isPresent()) {
                throw e;
            }
            withoutLeases(e);
            return null;
        }
    }

    /** How many other processes hold each CPU they hold. */
    Map<Integer, Integer> heldByOthers() {
        return session.heldByOthers();
    }

    /**
     * Leases each assignment's CPUs ({@code cpulists}) for {@code agent:GLOBS#INDEX}, all or none: on failure,
     * what this call took is given back, and the threads are pinned without leases unless the registry was named.
     */
    void take(String[] globs, String[] cpulists) {
        String pin = "agent:" + String.join("|", globs) + "#";
        List<CpuLeases.Lease> taken = new ArrayList<>();
        try {
            for (int index = 0; index < cpulists.length; index++) {
                taken.add(session.take(CpuSet.parse(cpulists[index]), pin + index));
            }
        } catch (NumaspreadException e) {
            for (CpuLeases.Lease lease : taken) {
                lease.close();
            }
            if (named) {
                throw e;
            }
            withoutLeases(e);
            return;
        }
        synchronized (HELD) {
            HELD.addAll(taken);
        }
    }

    private static void withoutLeases(NumaspreadException e) {
        System.err.println(NumaspreadAgent.PREFIX + "pinning without CPU leases, as if alone on the host: "
                + e.getMessage() + " (leases=off says so quietly)");
    }

    /** Gives the registry's lock back; the leases taken stay until this JVM exits. */
    @Override
    public void close() {
        session.close();
    }
}
