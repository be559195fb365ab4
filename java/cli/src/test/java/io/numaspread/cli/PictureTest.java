// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.numaspread.CpuSet;
import io.numaspread.testing.MachineShape;
import io.numaspread.testing.NicFixture;
import io.numaspread.testing.SysfsFixture;
import io.numaspread.topology.CpuInfo;
import io.numaspread.topology.Topology;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Element;

/**
 * {@code plan --svg} and {@code irqs --svg}: the picture's structure checked against the machine and the plan,
 * its readability from 2 to 512 CPUs, and a real renderer's PNG of it. The pictures stay in
 * {@code target/pictures} to look at.
 */
@Timeout(120)
class PictureTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path KEPT = Path.of("target/pictures");

    @TempDir
    Path sys;

    @TempDir
    Path proc;

    @TempDir
    Path out;

    static Stream<Arguments> plans() {
        return Stream.of(
                Arguments.of(PictureShapes.mana(), List.of("--node", "1", "--count", "4")),
                Arguments.of(PictureShapes.kunpeng(), List.of("--node", "2", "--count", "8", "--per-cpu")),
                Arguments.of(
                        PictureShapes.mana().withCpulessNode(2, new int[] {17, 28, 10}),
                        List.of("--node", "2", "--count", "4")),
                Arguments.of(PictureShapes.twoByFour(), List.of("--node", "5", "--count", "12")),
                Arguments.of(PictureShapes.twoByFour(), List.of("--node", "1,6", "--count", "6", "--exclude", "0")),
                Arguments.of(PictureShapes.cpus512(), List.of("--node", "2", "--count", "64")),
                Arguments.of(MachineShape.kunpeng920(), List.of("--node", "2", "--count", "100", "--per-cpu")));
    }

    @ParameterizedTest
    @MethodSource("plans")
    void planPictureHoldsEveryCpuNodeCoreAndQueueWhereTheyAre(MachineShape shape, List<String> planArgs)
            throws Exception {
        SysfsFixture.write(shape, sys);
        Topology topology = SysfsFixture.read(sys);
        Path svg = out.resolve(shape.name() + ".svg");
        CliRun json = cli("plan", "--sysfs-root", sys.toString(), planArgs, "--json");
        CliRun drawn = cli("plan", "--sysfs-root", sys.toString(), planArgs, "--svg", svg.toString());
        assertEquals(0, drawn.exitCode(), drawn.err());
        assertEquals("", drawn.err());
        SvgDocument picture = SvgDocument.parse(Files.readString(svg));
        String kept = shape.name() + "-" + String.join("", planArgs).replaceAll("[^0-9a-z,]", "");
        keep(svg, kept);
        Files.writeString(KEPT.resolve(kept + ".txt"), drawn.out());

        JsonNode plan = JSON.readTree(json.out());
        CpuSet.Builder candidates = CpuSet.builder();
        plan.get("candidates").forEach(cpu -> candidates.add(cpu.asInt()));
        assertMachine(picture, topology, candidates.build());
        int chips = 0;
        for (JsonNode assignment : plan.get("assignments")) {
            int queue = assignment.get("index").asInt();
            int slot = assignment.get("cpu").asInt();
            for (JsonNode cpu : assignment.get("cpus")) {
                assertQueueInside(picture, queue, cpu.asInt(), cpu.asInt() == slot);
                chips++;
            }
        }
        int drawnChips = picture.groups("queue").size();
        int folded = picture.groups("more").stream()
                .mapToInt(g -> Integer.parseInt(g.getAttribute("data-count")))
                .sum();
        assertEquals(chips, drawnChips + folded, "every queue on each of its CPUs, drawn or folded into +N");
        assertReadable(picture);
        assertRendered(svg, picture);
    }

    @Test
    void irqsPictureShowsWhereTheKernelDeliversEachVectorAndMarksWhatDiffersFromThePlan() throws Exception {
        NicFixture.i40eOnMana(sys, proc);
        Path svg = out.resolve("irqs.svg");
        CliRun run = CliRun.of(
                "irqs",
                "--siblings",
                "--sysfs-root",
                sys.toString(),
                "--proc-root",
                proc.toString(),
                "--nic",
                "eth0",
                "--svg",
                svg.toString());
        assertEquals(0, run.exitCode(), run.err());
        SvgDocument picture = SvgDocument.parse(Files.readString(svg));
        keep(svg, "irqs-i40e-mana");
        assertMachine(picture, SysfsFixture.read(sys), CpuSet.range(0, 7));
        // Every vector's effective_affinity_list is CPU 0; queues 0 and 2 are planned on 0-1, 1 and 3 on 2-3.
        Map<String, String> stateByIrq = new HashMap<>();
        for (Element irq : picture.groups("irq")) {
            assertEquals("0", irq.getAttribute("data-cpu"));
            assertTrue(SvgDocument.box(picture.cpu(0)).contains(SvgDocument.box(irq)), "IRQ chip inside CPU 0");
            stateByIrq.put(irq.getAttribute("data-irq"), irq.getAttribute("data-state"));
        }
        assertEquals(
                Map.of("49", "control", "50", "on-plan", "51", "off-plan", "52", "on-plan", "53", "off-plan"),
                stateByIrq);
        for (Element queue : picture.groups("queue")) {
            boolean offPlan = Set.of("1", "3").contains(queue.getAttribute("data-queue"));
            assertEquals(
                    offPlan ? "off-plan" : "on-plan",
                    queue.getAttribute("data-delivered"),
                    "queue " + queue.getAttribute("data-queue"));
        }
        // The fixture's /proc/interrupts gives IRQ n 100 * n + c interrupts on CPU c.
        for (Element count : picture.groups("count")) {
            int cpu = Integer.parseInt(count.getAttribute("data-cpu"));
            long expected = Stream.of(49, 50, 51, 52, 53)
                    .mapToLong(irq -> 100L * irq + cpu)
                    .sum();
            assertEquals(expected, Long.parseLong(count.getAttribute("data-interrupts")), "CPU " + cpu);
        }
        long offPlanLines = picture.groups("list-line").stream()
                .filter(g -> g.getAttribute("data-kind").equals("OFF PLAN"))
                .count();
        assertEquals(2, offPlanLines);
        assertReadable(picture);
        BufferedImage image = assertRendered(svg, picture);
        // The renderer paints the off-plan chip red: sample it right of its short label.
        Element red = picture.groups("irq").stream()
                .filter(g -> g.getAttribute("data-irq").equals("51"))
                .findFirst()
                .orElseThrow();
        SvgDocument.Box chip = SvgDocument.box(red);
        int argb = image.getRGB((int) (chip.x() + chip.width() - 4), (int) (chip.y() + chip.height() / 2));
        assertEquals(0xd73027, argb & 0xffffff, String.format("pixel %06x in the red chip", argb & 0xffffff));
    }

    @Test
    void liveIrqsPictureDrawsEachVectorOnTheCpuTheKernelNames() throws Exception {
        // This machine's eth0 (virtio), read-only: every vector's chip in the cells of its effective_affinity_list.
        Path svg = out.resolve("live.svg");
        CliRun run = CliRun.of("irqs", "--nic", "eth0", "--svg", svg.toString(), "--json");
        assertEquals(0, run.exitCode(), run.err());
        SvgDocument picture = SvgDocument.parse(Files.readString(svg));
        keep(svg, "irqs-live-eth0");
        JsonNode irqs = JSON.readTree(run.out()).get("irqs");
        int expectedChips = 0;
        for (JsonNode irq : irqs) {
            int number = irq.get("irq").asInt();
            CpuSet effective =
                    CpuSet.parse(Files.readString(Path.of("/proc/irq/" + number + "/effective_affinity_list"))
                            .strip());
            List<Element> chips = picture.groups("irq").stream()
                    .filter(g -> g.getAttribute("data-irq").equals(Integer.toString(number)))
                    .toList();
            String drawnOn = chips.stream().map(g -> g.getAttribute("data-cpu")).collect(Collectors.joining(","));
            assertEquals(effective, drawnOn.isEmpty() ? CpuSet.EMPTY : CpuSet.parse(drawnOn), "IRQ " + number);
            for (Element chip : chips) {
                Element cell = picture.cpu(Integer.parseInt(chip.getAttribute("data-cpu")));
                assertTrue(SvgDocument.box(cell).contains(SvgDocument.box(chip)), "IRQ " + number + " in its cell");
            }
            expectedChips += effective.size();
        }
        assertEquals(expectedChips, picture.groups("irq").size());
        assertReadable(picture);
        assertRendered(svg, picture);
    }

    @Test
    void threadsOfARealJvmAreDrawnOnTheCpuTheyLastRanOn() throws Exception {
        int count = 2;
        CountDownLatch release = new CountDownLatch(1);
        // Each probe counts down on its own thread, once it runs: the JVM gives a thread its name in the kernel
        // (comm) as the thread starts, so waiting for one probe left the other unnamed, now and then, when the
        // picture read /proc (seen once: one chip of two).
        CountDownLatch started = new CountDownLatch(count);
        List<Thread> probes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Thread probe = new Thread(
                    () -> {
                        started.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "picture-probe-" + i);
            probe.start();
            probes.add(probe);
        }
        try {
            started.await();
            long pid = ProcessHandle.current().pid();
            Path svg = out.resolve("threads.svg");
            CliRun run = CliRun.of(
                    "plan",
                    "--count",
                    "1",
                    "--svg",
                    svg.toString(),
                    "--threads",
                    Long.toString(pid),
                    "--thread-names",
                    "picture-probe-*");
            assertEquals(0, run.exitCode(), run.err());
            SvgDocument picture = SvgDocument.parse(Files.readString(svg));
            List<Element> threads = picture.groups("thread");
            assertEquals(count, threads.size(), "one chip per probe thread");
            for (Element thread : threads) {
                String tid = thread.getAttribute("data-tid");
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "task", tid, "stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                assertEquals(
                        fields[36],
                        thread.getAttribute("data-cpu"),
                        "thread " + tid + " is blocked: its" + " last CPU stays");
                assertTrue(SvgDocument.box(picture.cpu(Integer.parseInt(fields[36])))
                        .contains(SvgDocument.box(thread)));
            }
            assertReadable(picture);
        } finally {
            release.countDown();
            for (Thread probe : probes) {
                probe.join();
            }
        }
    }

    @Test
    void threadsAreReadFromTheProcTreeWhateverTheirNames() throws Exception {
        SysfsFixture.write(PictureShapes.mana(), sys);
        ProcTasks.write(proc, 4242, 4242, "java", 0, "0-7");
        ProcTasks.write(proc, 4242, 4250, "epollEventLoopG", 5, "4-5");
        ProcTasks.write(proc, 4242, 4251, "epollEventLoopG", 6, "6-7");
        ProcTasks.write(proc, 4242, 4260, "a (b) ) c", 3, "0-7");
        Path svg = out.resolve("threads.svg");
        CliRun run = CliRun.of(
                "plan",
                "--sysfs-root",
                sys.toString(),
                "--proc-root",
                proc.toString(),
                "--node",
                "1",
                "--count",
                "2",
                "--svg",
                svg.toString(),
                "--threads",
                "4242",
                "--thread-names",
                "epoll*|a (b*");
        assertEquals(0, run.exitCode(), run.err());
        SvgDocument picture = SvgDocument.parse(Files.readString(svg));
        Map<String, String> cpuByTid = picture.groups("thread").stream()
                .collect(Collectors.toMap(g -> g.getAttribute("data-tid"), g -> g.getAttribute("data-cpu")));
        assertEquals(Map.of("4250", "5", "4251", "6", "4260", "3"), cpuByTid);
        String lists = picture.groups("list-line").stream()
                .map(Element::getTextContent)
                .collect(Collectors.joining("\n"));
        assertTrue(lists.contains("tid 4250    epollEventLoopG on CPU 5    allowed 4-5"), lists);
        assertTrue(lists.contains("a (b) ) c"), lists);
    }

    @Test
    void svgChangesNothingThatThePlanPrints() {
        SysfsFixture.write(PictureShapes.kunpeng(), sys);
        CliRun plain = CliRun.of("plan", "--sysfs-root", sys.toString(), "--node", "2", "--count", "4");
        CliRun drawn = CliRun.of(
                "plan",
                "--sysfs-root",
                sys.toString(),
                "--node",
                "2",
                "--count",
                "4",
                "--svg",
                out.resolve("p.svg").toString());
        assertEquals(0, drawn.exitCode(), drawn.err());
        assertEquals(plain.out(), drawn.out());
    }

    @Test
    void anExistingPictureIsReplacedWholeAndNoTemporaryFileStays() throws Exception {
        SysfsFixture.write(PictureShapes.mana(), sys);
        Path svg = out.resolve("p.svg");
        Files.writeString(svg, "old");
        Files.setPosixFilePermissions(svg, PosixFilePermissions.fromString("rw-------"));
        CliRun run = CliRun.of(
                "plan", "--sysfs-root", sys.toString(), "--node", "0", "--count", "2", "--svg", svg.toString());
        assertEquals(0, run.exitCode(), run.err());
        SvgDocument.parse(Files.readString(svg));
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(List.of(svg), files.toList());
        }
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(svg)));
    }

    @Test
    void badSvgPathsAndThreadFlagsFailWithOneLineAndWriteNothing() throws Exception {
        SysfsFixture.write(PictureShapes.mana(), sys);
        String missing = out.resolve("no/such/dir/p.svg").toString();
        assertBadInput(
                "--svg " + missing + ": directory " + out.resolve("no/such/dir") + " does not exist", "--svg", missing);
        assertBadInput("--svg " + out + ": is a directory; give a file name", "--svg", out.toString());
        assertBadInput("--threads draws into the picture: give --svg FILE too", "--threads", "1");
        String svg = out.resolve("p.svg").toString();
        assertBadInput(
                "--threads 2147483647: no such process (" + proc.resolve("2147483647/task") + " does not exist)",
                "--proc-root",
                proc.toString(),
                "--svg",
                svg,
                "--threads",
                "2147483647");
        assertBadInput("--thread-names io-[0-9: [ without ] in io-[0-9", "--svg", svg, "--thread-names", "io-[0-9");
        try (Stream<Path> files = Files.list(out)) {
            assertEquals(List.of(), files.toList(), "nothing written");
        }
    }

    private void assertBadInput(String message, String... args) {
        List<String> all =
                new ArrayList<>(List.of("plan", "--sysfs-root", sys.toString(), "--node", "0", "--count", "2"));
        all.addAll(List.of(args));
        CliRun run = CliRun.of(all.toArray(String[]::new));
        assertEquals(2, run.exitCode(), run.err());
        assertEquals("numaspread: " + message + "\n", run.err());
    }

    @Test
    void nodesAreLaidOutByDistanceWhereIdsInterleave() throws Exception {
        // One package whose near pairs are 0-2 and 1-3, as when firmware numbers nodes across halves of a socket.
        MachineShape interleaved = PictureShapes.sockets("interleaved", 1, 4, 2, 2, new int[][] {
            {10, 20, 11, 20}, {20, 10, 20, 11}, {11, 20, 10, 20}, {20, 11, 20, 10}
        });
        SysfsFixture.write(interleaved, sys);
        Path svg = out.resolve("interleaved.svg");
        CliRun run = CliRun.of(
                "plan", "--sysfs-root", sys.toString(), "--node", "0", "--count", "2", "--svg", svg.toString());
        assertEquals(0, run.exitCode(), run.err());
        SvgDocument picture = SvgDocument.parse(Files.readString(svg));
        List<String> leftToRight = picture.groups("node").stream()
                .sorted(Comparator.comparingDouble(
                                (Element g) -> SvgDocument.box(g).y())
                        .thenComparingDouble(g -> SvgDocument.box(g).x()))
                .map(g -> g.getAttribute("data-node"))
                .toList();
        assertEquals(List.of("0", "2", "1", "3"), leftToRight);
    }

    // ---- checks shared by the pictures ----------------------------------------------------------------------

    /** One cell per online CPU, inside its core, node and package; one core box per sibling group. */
    private static void assertMachine(SvgDocument picture, Topology topology, CpuSet mayUse) {
        List<Element> cells = picture.groups("cpu");
        assertEquals(topology.online().size(), cells.size(), "one cell per online CPU");
        Set<Integer> seen = new TreeSet<>();
        for (Element cell : cells) {
            int id = Integer.parseInt(cell.getAttribute("data-cpu"));
            assertTrue(seen.add(id), "CPU " + id + " drawn twice");
            CpuInfo cpu = topology.cpu(id).orElseThrow();
            Element core = SvgDocument.enclosing(cell, "core");
            Element node = SvgDocument.enclosing(core, "node");
            Element pkg = SvgDocument.enclosing(node, "package");
            assertEquals(cpu.siblings().toString(), core.getAttribute("data-cpus"), "CPU " + id + "'s core");
            assertEquals(Integer.toString(cpu.node()), node.getAttribute("data-node"), "CPU " + id + "'s node");
            assertEquals(Integer.toString(cpu.packageId()), pkg.getAttribute("data-package"), "CPU " + id);
            SvgDocument.Box box = SvgDocument.box(cell);
            assertTrue(
                    SvgDocument.box(core).contains(box)
                            && SvgDocument.box(node).contains(SvgDocument.box(core))
                            && SvgDocument.box(pkg).contains(SvgDocument.box(node)),
                    "CPU " + id + " nested in its boxes");
            assertTrue(box.width() >= 40 && box.height() >= 20, "CPU " + id + "'s cell is " + box);
            assertEquals(Boolean.toString(mayUse.contains(id)), cell.getAttribute("data-may-use"), "CPU " + id);
        }
        long cores = topology.cpus().stream().map(CpuInfo::siblings).distinct().count();
        assertEquals(cores, picture.groups("core").size(), "one box per core");
        assertEquals(
                topology.nodes().size(),
                picture.groups("node").stream()
                        .map(g -> g.getAttribute("data-node"))
                        .distinct()
                        .count(),
                "every node drawn");
        Set<String> distances = picture.texts().stream()
                .filter(t -> t.getAttribute("class").equals("distance-value"))
                .map(Element::getTextContent)
                .collect(Collectors.toSet());
        Set<String> expected = topology.nodes().stream()
                .flatMap(n -> n.distances().stream())
                .map(String::valueOf)
                .collect(Collectors.toSet());
        assertEquals(expected, distances, "the distance matrix");
    }

    private static void assertQueueInside(SvgDocument picture, int queue, int cpu, boolean slot) {
        Element cell = picture.cpu(cpu);
        List<Element> chips = picture.groups("queue").stream()
                .filter(g -> g.getAttribute("data-queue").equals(Integer.toString(queue))
                        && g.getAttribute("data-cpu").equals(Integer.toString(cpu)))
                .toList();
        List<Element> folded = picture.groups("more").stream()
                .filter(g -> g.getAttribute("data-cpu").equals(Integer.toString(cpu)))
                .toList();
        assertTrue(chips.size() >= 1 || folded.size() == 1, "queue " + queue + " on CPU " + cpu);
        for (Element chip : chips) {
            assertTrue(SvgDocument.box(cell).contains(SvgDocument.box(chip)), "queue " + queue + " inside CPU " + cpu);
            assertEquals(cell, SvgDocument.enclosing(chip, "cpu"));
            if (slot) {
                assertTrue(
                        chips.stream().anyMatch(c -> c.getAttribute("data-slot").equals("true")));
            }
        }
    }

    /** Fonts of 9 px or more, no two texts on top of each other, and cell texts inside their cells. */
    private static void assertReadable(SvgDocument picture) {
        List<Element> texts = picture.texts();
        List<SvgDocument.Box> boxes = new ArrayList<>();
        SvgDocument.Box page = new SvgDocument.Box(0, 0, picture.width(), picture.height());
        for (Element text : texts) {
            assertTrue(
                    SvgDocument.fontSize(text) >= 9,
                    "font size " + SvgDocument.fontSize(text) + ": " + text.getTextContent());
            SvgDocument.Box box = SvgDocument.textBox(text);
            assertTrue(page.contains(box), "off the page: " + text.getTextContent());
            boxes.add(box);
        }
        for (Element cell : picture.groups("cpu")) {
            SvgDocument.Box box = SvgDocument.box(cell);
            var inside = cell.getElementsByTagName("text");
            for (int i = 0; i < inside.getLength(); i++) {
                Element text = (Element) inside.item(i);
                assertTrue(
                        box.contains(SvgDocument.textBox(text)),
                        "'" + text.getTextContent() + "' sticks out of CPU " + cell.getAttribute("data-cpu"));
            }
        }
        for (Element node : picture.groups("node")) {
            SvgDocument.Box box = SvgDocument.box(node);
            var inside = node.getElementsByTagName("text");
            for (int i = 0; i < inside.getLength(); i++) {
                Element text = (Element) inside.item(i);
                assertTrue(
                        box.contains(SvgDocument.textBox(text)),
                        "'" + text.getTextContent() + "' sticks out of node " + node.getAttribute("data-node"));
            }
        }
        // Sweep by top edge so that 512 CPUs' texts are compared with their neighbours only.
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < boxes.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble(i -> boxes.get(i).y()));
        for (int a = 0; a < order.size(); a++) {
            SvgDocument.Box first = boxes.get(order.get(a));
            for (int b = a + 1; b < order.size() && boxes.get(order.get(b)).y() < first.y() + first.height(); b++) {
                SvgDocument.Box second = boxes.get(order.get(b));
                assertFalse(
                        first.overlaps(second),
                        "'" + texts.get(order.get(a)).getTextContent() + "' overlaps '"
                                + texts.get(order.get(b)).getTextContent() + "'");
            }
        }
    }

    private static BufferedImage assertRendered(Path svg, SvgDocument picture) throws Exception {
        BufferedImage image = PngRendering.render(svg);
        assertEquals((int) picture.width(), image.getWidth(), "PNG width");
        assertEquals((int) picture.height(), image.getHeight(), "PNG height");
        assertTrue(
                PngRendering.luminanceVariance(image) > 500,
                "the PNG is (nearly) blank: variance " + PngRendering.luminanceVariance(image));
        double inked = PngRendering.inkedShare(image);
        assertTrue(inked > 0.05 && inked < 0.9, "share of inked pixels " + inked);
        return image;
    }

    private static CliRun cli(String command, String sysfsFlag, String sysfsRoot, List<String> args, String... more) {
        List<String> all = new ArrayList<>(List.of(command, sysfsFlag, sysfsRoot));
        all.addAll(args);
        all.addAll(List.of(more));
        return CliRun.of(all.toArray(String[]::new));
    }

    /** Keeps a copy in target/pictures for people to look at. */
    private static void keep(Path svg, String name) throws Exception {
        Files.createDirectories(KEPT);
        Files.copy(svg, KEPT.resolve(name + ".svg"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
