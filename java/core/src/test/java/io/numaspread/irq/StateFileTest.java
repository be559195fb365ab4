// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaspread.NumaspreadException;
import io.numaspread.kernel.InterfaceName;
import io.numaspread.kernel.SchedPolicy;
import io.numaspread.kernel.ThreadScheduling;
import io.numaspread.nic.NapiSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class StateFileTest {
    @TempDir
    Path dir;

    private static final StateFile.State STATE = new StateFile.State(
            new InterfaceName("eth0"),
            List.of(
                    new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "0-1"),
                    new StateFile.Saved(Target.irq(39, "name \"quoted\" \\ odd"), "0,2-3"),
                    new StateFile.Saved(Target.xps(new InterfaceName("eth0"), 0), "00000000,00000003")));

    @Test
    void roundTripsExactlyThroughAnAtomicReplace() throws IOException {
        Path file = dir.resolve("sub/eth0.json");
        StateFile.write(file, STATE);
        StateFile.write(file, STATE);
        assertEquals(Optional.of(STATE), StateFile.read(file));
        try (var entries = Files.list(file.getParent())) {
            assertEquals(List.of(file), entries.toList(), "no temporary file is left behind");
        }
    }

    /**
     * A newer build sharing the directory adds records as new top-level keys (version 1): this build reads the
     * file, keeps those records as they are through every rewrite, keeps the file for them when it removes its
     * own, and names them to {@code restore}, which cannot put them back.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aNewerBuildsRecordsSurviveEveryRewrite() throws IOException {
        Path file = dir.resolve("eth0.json");
        String rfs = "[{\"queue\": 0, \"value\": \"00000003\", \"flags\": [true, null, -1]}]";
        Files.writeString(
                file,
                "{\"version\": 1, \"interface\": \"eth0\", \"rfs\": " + rfs
                        + ", \"saved\": [], \"zz\": {\"note\": \"a \\\"quoted\\\" \\u00e9\"}}");
        Object before = MiniJson.parse(Files.readString(file));
        StateFile.State read = StateFile.read(file).orElseThrow();
        assertEquals(List.of("rfs", "zz"), StateFile.foreignRecords(file));

        StateFile.write(file, read.mergedWith(STATE.saved()));
        Map<?, ?> rewritten = (Map<?, ?>) MiniJson.parse(Files.readString(file));
        assertEquals(((Map<?, ?>) before).get("rfs"), rewritten.get("rfs"));
        assertEquals(((Map<?, ?>) before).get("zz"), rewritten.get("zz"));
        assertEquals(STATE.saved(), StateFile.read(file).orElseThrow().saved());

        StateFile.delete(file);
        assertEquals(
                new StateFile.State(new InterfaceName("eth0"), List.of()),
                StateFile.read(file).orElseThrow());
        assertEquals(List.of("rfs", "zz"), StateFile.foreignRecords(file));
        assertEquals(((Map<?, ?>) before).get("rfs"), ((Map<?, ?>) MiniJson.parse(Files.readString(file))).get("rfs"));
        assertEquals(List.of(), StateFile.foreignRecords(dir.resolve("absent.json")));
    }

    @Test
    void mergingKeepsTheFirstValueOfEachFile() {
        StateFile.State merged = STATE.mergedWith(List.of(
                new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "1"),
                new StateFile.Saved(Target.irq(40, "virtio2-input.1"), "0")));
        assertEquals(
                "0-1",
                merged.find(Target.irq(38, "virtio2-input.0")).orElseThrow().value());
        assertEquals(
                "0",
                merged.find(Target.irq(40, "virtio2-input.1")).orElseThrow().value());
        assertEquals(4, merged.saved().size());
    }

    @Test
    void aFileThatIsNoStateFileIsNamed() throws IOException {
        Path file = dir.resolve("eth0.json");
        for (String content : List.of(
                "",
                "{",
                "{\"version\": 2, \"interface\": \"eth0\", \"saved\": []}",
                "{\"version\": 1, \"interface\": \"../x\", \"saved\": []}",
                "[1, 2]")) {
            Files.writeString(file, content);
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> StateFile.read(file), content);
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
        assertEquals(Optional.empty(), StateFile.read(dir.resolve("absent.json")));
    }

    @Test
    void napiThreadsAndThreadedRoundTripAndAnOldFileReadsWithoutThem() throws IOException {
        InterfaceName eth0 = new InterfaceName("eth0");
        StateFile.State withThreads = STATE.mergedWith(
                        List.of(new StateFile.Saved(Target.napiThread(eth0, 8193), "0-3")))
                .recording(ThreadedRecord.of(0));
        Path file = dir.resolve("eth0.json");
        StateFile.write(file, withThreads);
        assertEquals(Optional.of(withThreads), StateFile.read(file));
        assertTrue(Files.readString(file).contains("\"threaded\": 0")
                && Files.readString(file)
                        .contains("{\"kind\": \"napi\", \"number\": 8193, \"name\": \"napi/eth0-8193\""));
        assertEquals(
                OptionalInt.of(0),
                withThreads
                        .recording(ThreadedRecord.of(1))
                        .record(ThreadedRecord.class)
                        .before(),
                "the first value wins");

        Files.writeString(
                file,
                "{\"version\": 1, \"interface\": \"eth0\", \"saved\": [{\"kind\": \"irq\", \"number\": 38,"
                        + " \"name\": \"virtio2-input.0\", \"value\": \"0-1\"}]}");
        assertEquals(
                OptionalInt.empty(),
                StateFile.read(file).orElseThrow().record(ThreadedRecord.class).before());
    }

    @Test
    void napiEntriesAndThreadedAreReadStrictly() throws IOException {
        Path file = dir.resolve("eth0.json");
        String head = "{\"version\": 1, \"interface\": \"eth0\", ";
        String napi = "\"saved\": [{\"kind\": \"napi\", \"number\": %s, \"name\": \"%s\", \"value\": \"%s\"}]}";
        Map<String, String> wrong = Map.of(
                head + "\"threaded\": 2, \"saved\": []}", "\"threaded\" is 2",
                head + "\"threaded\": \"0\", \"saved\": []}", "\"threaded\" is not an integer",
                head + napi.formatted("8193", "napi/eth1-8193", "0-3"), "not the thread \"napi/eth0-8193\"",
                head + napi.formatted("8193", "napi/eth0-8194", "0-3"), "names \"napi/eth0-8194\"",
                head + napi.formatted("0", "napi/eth0-0", "0-3"), "they start at 1",
                head + napi.formatted("8193", "napi/eth0-8193", "ff"), "is not a cpulist");
        for (Map.Entry<String, String> entry : wrong.entrySet()) {
            Files.writeString(file, entry.getKey());
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> StateFile.read(file), entry.getKey());
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
            assertTrue(e.getMessage().contains(entry.getValue()), e.getMessage());
        }
    }

    @Test
    void eachNapisOwnThreadedRoundTripsAndTheFirstValueOfANapiWins() throws IOException {
        StateFile.State napis = STATE.recording(NapiThreadedRecord.of(Map.of(8195, 0, 8193, 2)));
        Path file = dir.resolve("eth0.json");
        StateFile.write(file, napis);
        assertEquals(Optional.of(napis), StateFile.read(file));
        assertTrue(
                Files.readString(file)
                        .contains("\"napi_threaded\": [\n    {\"napi\": 8193, \"threaded\": 2},\n"
                                + "    {\"napi\": 8195, \"threaded\": 0}\n  ]"),
                Files.readString(file));

        StateFile.State later = napis.recording(NapiThreadedRecord.of(Map.of(8193, 1, 8196, 1)));
        assertEquals(
                Map.of(8193, 2, 8195, 0, 8196, 1),
                later.record(NapiThreadedRecord.class).before(),
                "an earlier record stays");
        assertEquals(
                Map.of(8193, 2),
                later.record(NapiThreadedRecord.class)
                        .without(List.of(8195, 8196))
                        .before());
        assertEquals(
                later.record(NapiThreadedRecord.class).before(),
                later.recording(ThreadedRecord.of(0))
                        .with(ThreadedRecord.NONE)
                        .record(NapiThreadedRecord.class)
                        .before(),
                "putting the device's threaded back keeps the NAPIs' records");
    }

    @Test
    void napiThreadedEntriesAreReadStrictly() throws IOException {
        Path file = dir.resolve("eth0.json");
        String head = "{\"version\": 1, \"interface\": \"eth0\", \"saved\": [], \"napi_threaded\": ";
        Map<String, String> wrong = Map.of(
                head + "[{\"napi\": 8193, \"threaded\": 3}]}",
                "\"threaded\" is 3, none of 0, 1 and 2",
                head + "[{\"napi\": 0, \"threaded\": 0}]}",
                "\"napi\" 0 is no NAPI ID",
                head + "[{\"napi\": 8193}]}",
                "\"threaded\" is missing",
                head + "[{\"napi\": 8193, \"threaded\": 0}, {\"napi\": 8193, \"threaded\": 1}]}",
                "NAPI 8193 is recorded twice",
                head + "{\"8193\": 0}}",
                "\"napi_threaded\" is not an array");
        for (Map.Entry<String, String> entry : wrong.entrySet()) {
            Files.writeString(file, entry.getKey());
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> StateFile.read(file), entry.getKey());
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
            assertTrue(e.getMessage().contains(entry.getValue()), e.getMessage());
        }
    }

    @Test
    void eachBusyPollThreadsClassRoundTripsAndTheFirstValueOfANapiWins() throws IOException {
        ThreadScheduling batch = new ThreadScheduling(SchedPolicy.BATCH, 0);
        ThreadScheduling rr = new ThreadScheduling(SchedPolicy.RR, 5);
        StateFile.State classes =
                STATE.recording(NapiThreadSchedRecord.of(Map.of(8195, rr, 8193, ThreadScheduling.OTHER)));
        Path file = dir.resolve("eth0.json");
        StateFile.write(file, classes);
        assertEquals(Optional.of(classes), StateFile.read(file));
        assertTrue(
                Files.readString(file)
                        .contains(
                                "\"napi_thread_sched\": [\n    {\"napi\": 8193, \"policy\": \"other\", \"priority\": 0},\n"
                                        + "    {\"napi\": 8195, \"policy\": \"rr\", \"priority\": 5}\n  ]"),
                Files.readString(file));
        StateFile.State later = classes.recording(NapiThreadSchedRecord.of(Map.of(8193, batch, 8196, batch)));
        assertEquals(
                Map.of(8193, ThreadScheduling.OTHER, 8195, rr, 8196, batch),
                later.record(NapiThreadSchedRecord.class).before(),
                "an earlier record stays");
        assertEquals(
                Map.of(8195, rr),
                later.record(NapiThreadSchedRecord.class)
                        .without(List.of(8193, 8196))
                        .before());
        assertTrue(
                new StateFile.State(new InterfaceName("eth0"), List.of())
                        .with(NapiThreadSchedRecord.of(Map.of(8193, batch)).without(List.of(8193)))
                        .isEmpty(),
                "a state with nothing left to put back");
    }

    @Test
    void busyPollThreadClassEntriesAreReadStrictly() throws IOException {
        Path file = dir.resolve("eth0.json");
        String head = "{\"version\": 1, \"interface\": \"eth0\", \"saved\": [], \"napi_thread_sched\": ";
        Map<String, String> wrong = Map.of(
                head + "[{\"napi\": 8193, \"policy\": \"deadline\", \"priority\": 0}]}",
                "\"policy\" is \"deadline\", none of other, fifo, rr, batch and idle",
                head + "[{\"napi\": 8193, \"policy\": \"fifo\", \"priority\": 0}]}",
                "priority 0 is outside 1-99",
                head + "[{\"napi\": 8193, \"policy\": \"other\", \"priority\": 3}]}",
                "priority 3 with OTHER, which takes 0 only",
                head + "[{\"napi\": 0, \"policy\": \"other\", \"priority\": 0}]}",
                "\"napi\" 0 is no NAPI ID",
                head + "[{\"napi\": 8193, \"policy\": \"other\"}]}",
                "\"priority\" is missing",
                head + "[{\"napi\": 8193, \"policy\": \"other\", \"priority\": 0},"
                        + " {\"napi\": 8193, \"policy\": \"other\", \"priority\": 0}]}",
                "NAPI 8193 is recorded twice");
        for (Map.Entry<String, String> entry : wrong.entrySet()) {
            Files.writeString(file, entry.getKey());
            NumaspreadException e = assertThrows(NumaspreadException.class, () -> StateFile.read(file), entry.getKey());
            assertEquals(NumaspreadException.Kind.BAD_INPUT, e.kind());
            assertTrue(e.getMessage().contains(entry.getValue()), e.getMessage());
        }
    }

    /**
     * A file of every record the build before the records were split by kind wrote, as it wrote it: it reads as
     * it did, and is written back to the byte.
     */
    @Test
    void aFileOfEveryKindAsTheBuildBeforeWroteItReadsAndIsWrittenBackToTheByte() {
        String previous = "{\n"
                + "  \"version\": 1,\n"
                + "  \"interface\": \"eth0\",\n"
                + "  \"threaded\": 0,\n"
                + "  \"napi_threaded\": [\n"
                + "    {\"napi\": 8193, \"threaded\": 0},\n"
                + "    {\"napi\": 8194, \"threaded\": 2}\n"
                + "  ],\n"
                + "  \"napi_settings\": [\n"
                + "    {\"napi\": 8193, \"defer_hard_irqs\": 2, \"gro_flush_timeout\": 200000,"
                + " \"irq_suspend_timeout\": 7}\n"
                + "  ],\n"
                + "  \"napi_thread_sched\": [\n"
                + "    {\"napi\": 8193, \"policy\": \"other\", \"priority\": 0},\n"
                + "    {\"napi\": 8194, \"policy\": \"rr\", \"priority\": 5}\n"
                + "  ],\n"
                + "  \"saved\": [\n"
                + "    {\"kind\": \"irq\", \"number\": 38, \"name\": \"virtio2-input.0\", \"value\": \"0-1\"},\n"
                + "    {\"kind\": \"napi\", \"number\": 8193, \"name\": \"napi/eth0-8193\", \"value\": \"0-3\"}\n"
                + "  ]\n"
                + "}\n";
        InterfaceName eth0 = new InterfaceName("eth0");
        StateFile.State state = StateFileFormat.decode(previous);
        assertEquals(
                List.of(
                        new StateFile.Saved(Target.irq(38, "virtio2-input.0"), "0-1"),
                        new StateFile.Saved(Target.napiThread(eth0, 8193), "0-3")),
                state.saved());
        assertEquals(OptionalInt.of(0), state.record(ThreadedRecord.class).before());
        assertEquals(
                Map.of(8193, 0, 8194, 2), state.record(NapiThreadedRecord.class).before());
        assertEquals(
                Map.of(8193, new NapiSettings(2, 200_000, 7)),
                state.record(NapiSettingsRecord.class).before());
        assertEquals(
                Map.of(8193, ThreadScheduling.OTHER, 8194, new ThreadScheduling(SchedPolicy.RR, 5)),
                state.record(NapiThreadSchedRecord.class).before());
        assertEquals(previous, StateFileFormat.encode(state));
    }
}
