// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import io.numaspread.NumaspreadException;
import io.numaspread.cli.picture.MachinePicture;
import io.numaspread.cli.picture.ProcessThreads;
import io.numaspread.cli.picture.SvgFile;
import io.numaspread.cli.picture.SvgPicture;
import io.numaspread.cli.picture.ThreadNameGlob;
import io.numaspread.cli.picture.ThreadPlacement;
import io.numaspread.nic.Nic;
import io.numaspread.plan.Assignment;
import io.numaspread.plan.Mode;
import io.numaspread.plan.PlanRequest;
import io.numaspread.plan.Purpose;
import io.numaspread.plan.SpreadPlan;
import io.numaspread.topology.Topology;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import picocli.CommandLine.Option;

/** {@code --svg FILE} and what else goes into the picture: the flags {@code plan} and {@code irqs} share. */
final class PictureOptions {
    /** Netty's default loop names (4.1 and 4.2) and numaspread's own, as {@code comm} shows them (15 bytes). */
    static final String DEFAULT_THREAD_NAMES = "*EventLoop*|multiThreadIo*|numaspread-*";

    @Option(
            names = "--svg",
            paramLabel = "FILE",
            description = "Also draw the machine (packages, nodes, cores, CPUs) with the queues on their planned"
                    + " CPUs into FILE, an SVG image; written whole or not at all.")
    Path svg;

    @Option(
            names = "--threads",
            paramLabel = "PID",
            description = "With --svg: also draw where the threads of"
                    + " process PID whose names match --thread-names run now.")
    Integer threadsOf;

    @Option(
            names = "--thread-names",
            paramLabel = "GLOB[|GLOB...]",
            defaultValue = DEFAULT_THREAD_NAMES,
            description = "Which threads --threads draws, matched against their 15-byte comm (default: "
                    + DEFAULT_THREAD_NAMES + ").")
    String threadNames;

    /**
     * Checks the flags before any work is done: the picture's file can be written, --threads comes with --svg.
     *
     * @return the file to draw into, or empty without {@code --svg}
     */
    Optional<SvgFile> target() {
        if (svg == null) {
            if (threadsOf != null) {
                throw NumaspreadException.badInput("--threads draws into the picture: give --svg FILE too");
            }
            return Optional.empty();
        }
        ThreadNameGlob.parse(threadNames);
        return Optional.of(SvgFile.checked(svg));
    }

    /** Draws the plan (and, for {@code irqs}, the vectors) into the {@code --svg} file, if one was given. */
    void draw(
            String title,
            Topology topology,
            SpreadPlan plan,
            String originLabel,
            List<MachinePicture.Vector> vectors,
            Path procRoot) {
        Optional<SvgFile> file = target();
        if (file.isEmpty()) {
            return;
        }
        List<ThreadPlacement> threads = List.of();
        Optional<String> threadSource = Optional.empty();
        if (threadsOf != null) {
            threads = ProcessThreads.read(procRoot, threadsOf, ThreadNameGlob.parse(threadNames));
            threadSource = Optional.of("PID " + threadsOf + " named " + threadNames);
        }
        String who = plan.request().purpose() == Purpose.IRQS ? "the IRQs" : "the threads";
        MachinePicture picture = new MachinePicture(
                title(title, plan),
                topology,
                plan.candidates(),
                who,
                plan.request().origins(),
                originLabel,
                queues(plan),
                vectors,
                threads,
                threadSource);
        file.get().write(SvgPicture.render(picture));
    }

    /** "SUBJECT: 4 queues near node 1, policy kernel, sibling groups". */
    private static String title(String subject, SpreadPlan plan) {
        PlanRequest request = plan.request();
        String origins = request.origins().isEmpty()
                ? "no origin node"
                : "near node" + (request.origins().size() > 1 ? "s " : " ")
                        + request.origins().stream().map(String::valueOf).collect(Collectors.joining(","));
        return subject + ": " + plan.size() + " queue" + (plan.size() == 1 ? "" : "s") + " " + origins + ", policy "
                + request.policy().id() + ", " + (request.mode() == Mode.CPU ? "one CPU each" : "sibling groups");
    }

    static List<MachinePicture.Queue> queues(SpreadPlan plan) {
        List<MachinePicture.Queue> queues = new ArrayList<>();
        int origins = Math.max(1, plan.request().origins().size());
        for (int origin = 0; origin < origins; origin++) {
            for (Assignment a : plan.forOrigin(origin)) {
                queues.add(new MachinePicture.Queue(origin, a.index(), a.cpus(), a.cpu()));
            }
        }
        return queues;
    }

    /** The NIC's vectors as the picture shows them, each queue vector with its queue's plan index. */
    static List<MachinePicture.Vector> vectors(Nic nic, NicReport report) {
        return report.rows().stream()
                .map(row -> new MachinePicture.Vector(
                        row.vector().irq(),
                        row.vector().name(),
                        row.vector().isQueue()
                                ? Optional.of(nic.planIndex(row.vector().queue()))
                                : Optional.<Integer>empty(),
                        row.state().affinity(),
                        row.state().effective(),
                        row.state().counts(),
                        row.planned()))
                .toList();
    }
}
