// SPDX-License-Identifier: Apache-2.0
package io.numaspread.nativeaccess;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.numaspread.CpuSet;
import io.numaspread.NumaspreadException;
import io.numaspread.kernel.Errno;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.netlink.NetlinkSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;

/**
 * What every {@link NativeBackend} must do, checked on the live host against what /sys and /proc say.
 *
 * <p>A backend that cannot load on this JVM (FFM on JDK 17) yields one test instead: that it is unavailable
 * for the stated reason. Nothing is skipped.
 */
abstract class NativeBackendContract {
    /**
     * rtnetlink's {@code RTNLGRP_IPV4_MROUTE_R} (group 30, so bit 29): the kernel refuses it to a thread without
     * CAP_NET_ADMIN with EPERM (rtnetlink_bind).
     */
    private static final int RTNLGRP_IPV4_MROUTE_R_BIT = 1 << 29;

    private static final short GENL_ID_CTRL = 0x10;
    /** NLM_F_REQUEST | NLM_F_ACK, and NLM_F_REQUEST | NLM_F_DUMP. */
    private static final short GENERIC_ACK = 0x5;

    private static final short GENERIC_DUMP = 0x301;
    private static final int CONCURRENT_FAILURES = 50_000;

    abstract BackendKind kind();

    /** Loads the backend for the live machine, as {@link Backends} does. */
    abstract NativeBackend load() throws BackendUnavailableException;

    /** Why the backend must be unavailable on this JVM; empty when it must load. */
    Optional<String> expectedUnavailability() {
        return Optional.empty();
    }

    /**
     * Whether the backend calls libc and libnuma, and so pins threads and reports failures with errno;
     * otherwise it reads files and cannot pin.
     */
    boolean callsNative() {
        return true;
    }

    @TestFactory
    Stream<DynamicTest> contract() throws BackendUnavailableException {
        Optional<String> reason = expectedUnavailability();
        if (reason.isPresent()) {
            return Stream.of(dynamicTest("unavailable, because " + reason.get(), () -> {
                BackendUnavailableException e = assertThrows(BackendUnavailableException.class, this::load);
                assertEquals(kind(), e.backend());
                assertEquals(NumaspreadException.Kind.UNAVAILABLE, e.kind());
                assertEquals(kind().id() + " backend unavailable, because " + reason.get(), e.getMessage());
            }));
        }
        NativeBackend backend = load();
        assertEquals(kind(), backend.kind());
        List<DynamicTest> checks = new ArrayList<>(List.of(
                check("its NUMA calls are usable on this host, which has libnuma", () -> numaUsable(backend)),
                check("maxNode, nodeCpus and distance agree with /sys", () -> numaAgreesWithSysfs(backend)),
                check("nodeCpus of a node that does not exist fails naming it", () -> missingNodeFails(backend)),
                check(
                        "affinity(0) is /proc/thread-self/status Cpus_allowed_list",
                        () -> affinityIsAllowedList(backend)),
                check("currentCpu is one of the allowed CPUs", () -> currentCpuIsAllowed(backend)),
                check("currentTid is the /proc/thread-self link", () -> currentTidIsThreadSelf(backend)),
                check("affinity of a dead thread fails naming it", () -> deadThreadFails(backend)),
                check(
                        "scheduling(tid) is the policy and rt_priority of /proc/TID/stat",
                        () -> schedulingIsProcStat(backend))));
        if (callsNative()) {
            checks.add(check("setAffinity pins a thread, as the kernel and other threads see", () -> pins(backend)));
            checks.add(check("setAffinity beyond cpu/possible names the CPU", () -> beyondPossibleNamesCpu(backend)));
            checks.add(check("setAffinity to no CPUs fails with EINVAL", () -> emptySetFails(backend)));
            checks.add(check("each thread sees its own errno", () -> errnoIsPerThread(backend)));
            checks.add(check(
                    "setScheduling sets SCHED_BATCH on a thread and puts it back, as the kernel sees",
                    () -> setsScheduling(backend)));
            checks.add(check(
                    "setScheduling and scheduling of a dead thread fail with ESRCH naming it",
                    () -> schedulingOfDeadThreadFails(backend)));
            checks.add(check(
                    "SCHED_FIFO without CAP_SYS_NICE fails with EPERM and changes nothing",
                    () -> realTimeNeedsSysNice(backend)));
            checks.add(check(
                    "a uevent netlink socket receives the kernel's uevent for lo", () -> receivesUevent(backend)));
            checks.add(check(
                    "an rtnetlink socket times out quietly and a closed one returns nothing",
                    () -> rtnetlinkTimesOut(backend)));
            checks.add(check(
                    "a generic netlink request is answered and acknowledged, a dump ends at NLMSG_DONE",
                    () -> genericNetlinkAnswers(backend)));
            checks.add(check(
                    "a generic netlink request the kernel refuses fails with the kernel's errno",
                    () -> genericNetlinkRefusal(backend)));
            checks.add(check(
                    "a netlink bind the kernel refuses fails with bind's errno and closes the socket",
                    () -> refusedBind(backend)));
            checks.add(check(
                    "io_uring_register on a descriptor that is no ring fails with EOPNOTSUPP naming it",
                    () -> ioUringRegisterOnNoRing(backend)));
        } else {
            checks.add(check("setAffinity is unsupported", () -> setAffinityUnsupported(backend)));
            checks.add(check(
                    "io_uring_register is unsupported",
                    () -> assertThrows(
                            UnsupportedOperationException.class,
                            () -> backend.registerIoUringNapi(
                                    0, new IoUringNapi(10, false, IoUringNapi.Tracking.DYNAMIC)))));
            checks.add(check(
                    "setScheduling is unsupported",
                    () -> assertThrows(
                            UnsupportedOperationException.class,
                            () -> backend.setScheduling(0, ThreadScheduling.OTHER))));
            checks.add(check(
                    "netlink is unsupported",
                    () -> assertThrows(
                            UnsupportedOperationException.class,
                            () -> NetlinkSocket.open(
                                    backend,
                                    NetlinkSocket.NETLINK_KOBJECT_UEVENT,
                                    NetlinkSocket.UEVENT_KERNEL_GROUP))));
        }
        return checks.stream();
    }

    /**
     * Asks the kernel for a real uevent (writing "change" to lo's uevent file, which needs root and changes
     * nothing) and finds it among what the socket receives within 10 s.
     */
    private static void receivesUevent(NativeBackend backend) throws Exception {
        try (NetlinkSocket socket =
                NetlinkSocket.open(backend, NetlinkSocket.NETLINK_KOBJECT_UEVENT, NetlinkSocket.UEVENT_KERNEL_GROUP)) {
            java.nio.file.Files.writeString(java.nio.file.Path.of("/sys/class/net/lo/uevent"), "change");
            byte[] buffer = new byte[64 * 1024];
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            String found = "";
            while (System.nanoTime() < deadline && !found.startsWith("change@/devices/virtual/net/lo")) {
                int length = socket.receive(buffer, 1000);
                found = new String(buffer, 0, length, java.nio.charset.StandardCharsets.UTF_8);
            }
            assertTrue(found.startsWith("change@/devices/virtual/net/lo\0ACTION=change\0"), found);
            assertTrue(found.contains("\0INTERFACE=lo\0"), found);
        }
    }

    private static void rtnetlinkTimesOut(NativeBackend backend) {
        NetlinkSocket socket = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_ROUTE, NetlinkSocket.RTMGRP_LINK);
        byte[] buffer = new byte[64 * 1024];
        long start = System.nanoTime();
        int length = socket.receive(buffer, 200);
        long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(length > 0 || millis >= 150, "returned nothing after " + millis + " ms");
        socket.close();
        socket.close();
        assertEquals(0, socket.receive(buffer, 200));
    }

    /**
     * The control family answers {@code CTRL_CMD_GETFAMILY} for itself ("nlctrl", always id 0x10) with one
     * message, and a dump of every family with several, each carrying the request's sequence number.
     */
    private static void genericNetlinkAnswers(NativeBackend backend) {
        try (NetlinkSocket socket = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_GENERIC, 0)) {
            List<byte[]> one = socket.request(getFamily(GENERIC_ACK, 41, "nlctrl"), "getfamily nlctrl", 5000);
            assertEquals(1, one.size());
            ByteBuffer reply = ByteBuffer.wrap(one.get(0)).order(ByteOrder.nativeOrder());
            assertEquals(GENL_ID_CTRL, reply.getShort(4), "the reply comes from the control family");
            assertEquals(41, reply.getInt(8), "the reply carries the request's sequence number");
            assertTrue(familyNames(one).contains("nlctrl"), familyNames(one).toString());
            assertEquals(GENL_ID_CTRL, familyId(one.get(0)));
            List<byte[]> all = socket.request(getFamily(GENERIC_DUMP, 42, null), "getfamily dump", 5000);
            List<String> names = familyNames(all);
            assertTrue(all.size() >= 2 && names.contains("nlctrl"), names.toString());
            assertEquals(names.size(), new HashSet<>(names).size(), "each family once: " + names);
            for (byte[] message : all) {
                assertEquals(
                        42,
                        ByteBuffer.wrap(message).order(ByteOrder.nativeOrder()).getInt(8));
            }
        }
    }

    private static void genericNetlinkRefusal(NativeBackend backend) {
        try (NetlinkSocket socket = NetlinkSocket.open(backend, NetlinkSocket.NETLINK_GENERIC, 0)) {
            NativeCallException e = assertThrows(
                    NativeCallException.class,
                    () -> socket.request(
                            getFamily(GENERIC_ACK, 43, "numaspread-none"), "getfamily numaspread-none", 5000));
            assertEquals(Errno.ENOENT.number(), e.errno());
            assertEquals("netlink getfamily numaspread-none", e.function());
            assertEquals(NumaspreadException.Kind.CALL_FAILED, e.kind());
            // The socket stays usable after a refusal: the next request is answered.
            assertEquals(
                    1,
                    socket.request(getFamily(GENERIC_ACK, 44, "nlctrl"), "getfamily nlctrl", 5000)
                            .size());
        }
    }

    /**
     * A jar the JVM holds open is a file the kernel's io_uring_register refuses as no ring (EOPNOTSUPP), each call
     * with its own errno and the descriptor named; the real rings are Netty's, in the netty module's tests.
     */
    private static void ioUringRegisterOnNoRing(NativeBackend backend) throws Exception {
        int fd;
        try (Stream<java.nio.file.Path> fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            fd = fds.filter(link -> {
                        try {
                            return java.nio.file.Files.readSymbolicLink(link)
                                    .toString()
                                    .endsWith(".jar");
                        } catch (java.io.IOException e) {
                            return false;
                        }
                    })
                    .mapToInt(link -> Integer.parseInt(link.getFileName().toString()))
                    .findFirst()
                    .orElseThrow();
        }
        List<Executable> calls = List.of(
                () -> backend.registerIoUringNapi(fd, new IoUringNapi(10, true, IoUringNapi.Tracking.STATIC)),
                () -> backend.updateIoUringNapiId(fd, 8193, true),
                () -> backend.updateIoUringNapiId(fd, 8193, false),
                () -> backend.unregisterIoUringNapi(fd));
        for (Executable call : calls) {
            NativeCallException e = assertThrows(NativeCallException.class, call);
            assertEquals("io_uring_register", e.function(), e.getMessage());
            assertEquals(Errno.EOPNOTSUPP.number(), e.errno(), e.getMessage());
            assertTrue(e.getMessage().endsWith(" on ring fd " + fd), e.getMessage());
        }
    }

    /**
     * On a thread without CAP_NET_ADMIN (dropped from that thread only), the kernel refuses to bind an rtnetlink
     * socket to the IPv4 multicast routing reports. The failure must be bind's own, with the kernel's EPERM, and the socket closed: after
     * 200 refusals the process holds no more descriptors than before (a few spare for the JVM's own).
     */
    private static void refusedBind(NativeBackend backend) throws Exception {
        LiveHost.onFreshThread(() -> {
            ThreadCapabilities.dropNetAdminFromThisThread();
            assertFalse(ThreadCapabilities.hasNetAdmin(), "CAP_NET_ADMIN is still effective on this thread");
            int before = LiveHost.openDescriptors();
            for (int attempt = 0; attempt < 200; attempt++) {
                NativeCallException e = assertThrows(
                        NativeCallException.class,
                        () -> NetlinkSocket.open(backend, NetlinkSocket.NETLINK_ROUTE, RTNLGRP_IPV4_MROUTE_R_BIT));
                assertEquals("bind", e.function(), e.getMessage());
                assertEquals(Errno.EPERM.number(), e.errno(), e.getMessage());
                assertEquals(0, e.getSuppressed().length, "close succeeded, so nothing is suppressed");
            }
            int after = LiveHost.openDescriptors();
            assertTrue(after - before < 10, "descriptors before " + before + ", after 200 refused binds " + after);
            return null;
        });
    }

    /** {@code CTRL_CMD_GETFAMILY} (3), with {@code CTRL_ATTR_FAMILY_NAME} (2) unless {@code name} is null. */
    private static byte[] getFamily(short flags, int sequence, String name) {
        byte[] text = name == null ? new byte[0] : (name + "\0").getBytes(StandardCharsets.UTF_8);
        int attribute = name == null ? 0 : (4 + text.length + 3) & ~3;
        ByteBuffer request = ByteBuffer.allocate(16 + 4 + attribute).order(ByteOrder.nativeOrder());
        request.putInt(16 + 4 + attribute)
                .putShort(GENL_ID_CTRL)
                .putShort(flags)
                .putInt(sequence)
                .putInt(0);
        request.put((byte) 3).put((byte) 1).putShort((short) 0);
        if (name != null) {
            request.putShort((short) (4 + text.length)).putShort((short) 2).put(text);
        }
        return request.array();
    }

    /** Each message's {@code CTRL_ATTR_FAMILY_NAME}. */
    private static List<String> familyNames(List<byte[]> messages) {
        List<String> names = new ArrayList<>();
        for (byte[] message : messages) {
            controlAttribute(message, 2)
                    .ifPresent(value -> names.add(new String(value, 0, value.length - 1, StandardCharsets.UTF_8)));
        }
        return names;
    }

    /** A message's {@code CTRL_ATTR_FAMILY_ID} (u16). */
    private static int familyId(byte[] message) {
        byte[] value = controlAttribute(message, 1).orElseThrow();
        return Short.toUnsignedInt(
                ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).getShort());
    }

    private static Optional<byte[]> controlAttribute(byte[] message, int type) {
        ByteBuffer buffer = ByteBuffer.wrap(message).order(ByteOrder.nativeOrder());
        int offset = 20;
        while (offset + 4 <= message.length) {
            int length = Short.toUnsignedInt(buffer.getShort(offset));
            assertTrue(length >= 4 && offset + length <= message.length, "attribute at byte " + offset);
            if ((buffer.getShort(offset + 2) & 0x3fff) == type) {
                return Optional.of(Arrays.copyOfRange(message, offset + 4, offset + length));
            }
            offset += (length + 3) & ~3;
        }
        return Optional.empty();
    }

    private static DynamicTest check(String name, Executable check) {
        return dynamicTest(name, check);
    }

    private static void numaUsable(NativeBackend backend) {
        assertEquals(Optional.empty(), backend.numaUnavailableCause());
    }

    private static void numaAgreesWithSysfs(NativeBackend backend) {
        CpuSet nodes = LiveHost.onlineNodes();
        assertEquals(nodes.last(), backend.maxNode());
        for (int node : nodes.toArray()) {
            assertEquals(LiveHost.nodeCpus(node), backend.nodeCpus(node), "CPUs of node " + node);
            List<Integer> distances = new ArrayList<>();
            for (int to : nodes.toArray()) {
                distances.add(backend.distance(node, to));
            }
            assertEquals(LiveHost.distances(node), distances, "distances from node " + node);
        }
    }

    private void missingNodeFails(NativeBackend backend) {
        int missing = LiveHost.onlineNodes().last() + 1;
        if (callsNative()) {
            NativeCallException e = assertThrows(NativeCallException.class, () -> backend.nodeCpus(missing));
            assertAll(
                    () -> assertEquals("numa_node_to_cpus", e.function()),
                    () -> assertEquals(Errno.ERANGE.number(), e.errno()),
                    () -> assertTrue(e.getMessage().endsWith("node " + missing), e.getMessage()));
        } else {
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> backend.nodeCpus(missing));
            assertTrue(e.getMessage().contains("node" + missing + "/cpulist"), e.getMessage());
        }
    }

    private static void affinityIsAllowedList(NativeBackend backend) {
        assertEquals(LiveHost.threadSelfAllowedCpus(), backend.affinity(0));
    }

    private static void currentCpuIsAllowed(NativeBackend backend) {
        CpuSet allowed = backend.affinity(0);
        int cpu = backend.currentCpu();
        assertTrue(allowed.contains(cpu), "CPU " + cpu + " is not in the allowed " + allowed);
    }

    private static void currentTidIsThreadSelf(NativeBackend backend) throws Exception {
        assertEquals(LiveHost.threadSelfTid(), backend.currentTid());
        LiveHost.onFreshThread(() -> {
            assertEquals(LiveHost.threadSelfTid(), backend.currentTid(), "on a fresh thread");
            return null;
        });
    }

    private void deadThreadFails(NativeBackend backend) throws Exception {
        int dead = LiveHost.deadTid();
        if (callsNative()) {
            NativeCallException e = assertThrows(NativeCallException.class, () -> backend.affinity(dead));
            assertAll(
                    () -> assertEquals("sched_getaffinity", e.function()),
                    () -> assertEquals(Errno.ESRCH.number(), e.errno()),
                    () -> assertEquals("No such process", e.strerror()),
                    () -> assertTrue(e.getMessage().contains("thread " + dead), e.getMessage()));
        } else {
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> backend.affinity(dead));
            assertTrue(e.getMessage().contains("/proc/" + dead + "/status"), e.getMessage());
        }
    }

    /** The policy (field 41) and rt_priority (field 40) of {@code /proc/self/task/TID/stat}, as the kernel gives them. */
    private static ThreadScheduling procStatScheduling(int tid) throws Exception {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/task/" + tid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new ThreadScheduling(
                SchedPolicy.ofNumber(Integer.parseInt(fields[41 - 3])).orElseThrow(), Integer.parseInt(fields[40 - 3]));
    }

    private static void schedulingIsProcStat(NativeBackend backend) throws Exception {
        int tid = LiveHost.threadSelfTid();
        assertEquals(procStatScheduling(tid), backend.scheduling(tid));
        assertEquals(procStatScheduling(tid), backend.scheduling(0), "0 is the calling thread");
    }

    /**
     * A fresh thread (so that no other test's thread is touched) is set to SCHED_BATCH by its tid, which needs no
     * privilege, read back by the backend and from /proc, then set back as it was (SCHED_OTHER for a JVM thread).
     */
    private static void setsScheduling(NativeBackend backend) throws Exception {
        ThreadScheduling batch = new ThreadScheduling(SchedPolicy.BATCH, 0);
        LiveHost.onFreshThread(() -> {
            int tid = backend.currentTid();
            ThreadScheduling before = backend.scheduling(tid);
            backend.setScheduling(tid, batch);
            assertEquals(batch, backend.scheduling(tid));
            assertEquals(batch, procStatScheduling(tid), "/proc/TID/stat");
            backend.setScheduling(tid, before);
            assertEquals(before, backend.scheduling(tid));
            assertEquals(before, procStatScheduling(tid), "/proc/TID/stat after putting it back");
            return null;
        });
    }

    private static void schedulingOfDeadThreadFails(NativeBackend backend) throws Exception {
        int dead = LiveHost.deadTid();
        NativeCallException set =
                assertThrows(NativeCallException.class, () -> backend.setScheduling(dead, ThreadScheduling.OTHER));
        NativeCallException get = assertThrows(NativeCallException.class, () -> backend.scheduling(dead));
        assertAll(
                () -> assertEquals("sched_setscheduler", set.function()),
                () -> assertEquals(Errno.ESRCH.number(), set.errno()),
                () -> assertTrue(set.getMessage().contains("thread " + dead), set.getMessage()),
                () -> assertEquals("sched_getscheduler", get.function()),
                () -> assertEquals(Errno.ESRCH.number(), get.errno()));
    }

    /**
     * A fresh thread drops CAP_SYS_NICE (capabilities are per thread) and asks for SCHED_FIFO 99, above any
     * RLIMIT_RTPRIO a host grants: the kernel refuses with EPERM and the thread stays as it was.
     */
    private static void realTimeNeedsSysNice(NativeBackend backend) throws Exception {
        LiveHost.onFreshThread(() -> {
            ThreadCapabilities.dropSysNiceFromThisThread();
            int tid = backend.currentTid();
            ThreadScheduling before = backend.scheduling(tid);
            NativeCallException e = assertThrows(
                    NativeCallException.class,
                    () -> backend.setScheduling(
                            tid, new ThreadScheduling(SchedPolicy.FIFO, SchedPolicy.MAX_RT_PRIORITY)));
            assertEquals("sched_setscheduler", e.function());
            assertEquals(Errno.EPERM.number(), e.errno());
            assertEquals(before, procStatScheduling(tid));
            return null;
        });
    }

    /**
     * A fresh thread pins itself to one CPU and checks what it sees; while it waits, this thread checks it
     * by tid; then it restores its affinity.
     */
    private static void pins(NativeBackend backend) throws Exception {
        CountDownLatch pinned = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        int[] pinnedTid = new int[1];
        int target = backend.affinity(0).last();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<CpuSet> restored = executor.submit(() -> {
                CpuSet before = backend.affinity(0);
                backend.setAffinity(0, CpuSet.of(target));
                assertEquals(CpuSet.of(target), backend.affinity(0));
                assertEquals(CpuSet.of(target), LiveHost.threadSelfAllowedCpus());
                assertEquals(target, backend.currentCpu(), "sched_setaffinity moves the caller before it returns");
                pinnedTid[0] = backend.currentTid();
                pinned.countDown();
                checked.await();
                backend.setAffinity(0, before);
                assertEquals(before, LiveHost.threadSelfAllowedCpus());
                return backend.affinity(0);
            });
            awaitOrFailure(pinned, restored);
            assertEquals(CpuSet.of(target), backend.affinity(pinnedTid[0]), "affinity by tid");
            assertEquals(CpuSet.of(target), LiveHost.allowedCpus(pinnedTid[0]), "/proc/<tid>/status");
            checked.countDown();
            assertEquals(backend.affinity(0), restored.get());
        } finally {
            checked.countDown();
            executor.shutdownNow();
        }
    }

    /**
     * Waits for {@code latch}, or rethrows the failure of {@code task} (an assertion before its countDown),
     * so that a failed assertion in the executor is reported instead of leaving this thread waiting.
     */
    private static void awaitOrFailure(CountDownLatch latch, Future<?> task) throws Exception {
        while (!latch.await(50, TimeUnit.MILLISECONDS)) {
            if (task.isDone()) {
                task.get();
                throw new AssertionError("the task ended without counting the latch down");
            }
        }
    }

    private static void beyondPossibleNamesCpu(NativeBackend backend) throws Exception {
        int beyond = LiveHost.possibleCpus().last() + 1;
        LiveHost.onFreshThread(() -> {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> backend.setAffinity(0, CpuSet.of(0, beyond)));
            assertTrue(e.getMessage().contains("CPU " + beyond), e.getMessage());
            return null;
        });
    }

    private static void emptySetFails(NativeBackend backend) throws Exception {
        LiveHost.onFreshThread(() -> {
            NativeCallException e = assertThrows(NativeCallException.class, () -> backend.setAffinity(0, CpuSet.EMPTY));
            assertAll(
                    () -> assertEquals("sched_setaffinity", e.function()),
                    () -> assertEquals(Errno.EINVAL.number(), e.errno()),
                    () -> assertEquals("Invalid argument", e.strerror()));
            return null;
        });
    }

    /**
     * Two threads fail side by side with different errnos, many times over; each must see its own, so errno
     * is neither shared nor read after another call could overwrite it.
     */
    private static void errnoIsPerThread(NativeBackend backend) throws Exception {
        int dead = LiveHost.deadTid();
        CyclicBarrier together = new CyclicBarrier(2);
        ExecutorService executor = Executors.newFixedThreadPool(2);
        try {
            Future<List<Integer>> einval = executor.submit(() ->
                    errnos(together, () -> catchErrno(() -> backend.setAffinity(0, CpuSet.EMPTY))));
            Future<List<Integer>> esrch =
                    executor.submit(() -> errnos(together, () -> catchErrno(() -> backend.affinity(dead))));
            assertEquals(
                    List.of(Errno.EINVAL.number()),
                    einval.get().stream().distinct().toList());
            assertEquals(
                    List.of(Errno.ESRCH.number()),
                    esrch.get().stream().distinct().toList());
        } finally {
            executor.shutdownNow();
        }
    }

    private static List<Integer> errnos(CyclicBarrier together, Supplier<Integer> failure) throws Exception {
        List<Integer> seen = new ArrayList<>(CONCURRENT_FAILURES);
        together.await();
        for (int i = 0; i < CONCURRENT_FAILURES; i++) {
            seen.add(failure.get());
        }
        return seen;
    }

    private static int catchErrno(Runnable call) {
        try {
            call.run();
        } catch (NativeCallException e) {
            return e.errno();
        }
        throw new AssertionError("the call did not fail");
    }

    private static void setAffinityUnsupported(NativeBackend backend) {
        CpuSet allowed = backend.affinity(0);
        UnsupportedOperationException e =
                assertThrows(UnsupportedOperationException.class, () -> backend.setAffinity(0, allowed));
        assertTrue(e.getMessage().contains("cannot change affinity"), e.getMessage());
        assertEquals(allowed, LiveHost.threadSelfAllowedCpus());
    }
}
