// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;

/**
 * Renders a picture with a real SVG renderer, {@code rsvg-convert} (Debian's librsvg2-bin, which scripts/test
 * installs), and reads the PNG back.
 */
final class PngRendering {
    private PngRendering() {}

    static BufferedImage render(Path svg) throws IOException, InterruptedException {
        Path png = svg.resolveSibling(svg.getFileName() + ".png");
        Process process;
        try {
            process = new ProcessBuilder("rsvg-convert", "--format", "png", "--output", png.toString(), svg.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "rsvg-convert cannot be started (" + e.getMessage() + "): install Debian's"
                            + " librsvg2-bin, as scripts/test does",
                    e);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "rsvg-convert did not finish within 60 s");
        String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "rsvg-convert failed: " + said);
        BufferedImage image = ImageIO.read(png.toFile());
        assertTrue(image != null, "rsvg-convert wrote no readable PNG to " + png);
        return image;
    }

    /** The variance of the pixels' luminance: 0 for a blank image. */
    static double luminanceVariance(BufferedImage image) {
        double sum = 0;
        double squares = 0;
        long pixels = (long) image.getWidth() * image.getHeight();
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                double luminance = luminance(image.getRGB(x, y));
                sum += luminance;
                squares += luminance * luminance;
            }
        }
        double mean = sum / pixels;
        return squares / pixels - mean * mean;
    }

    /** The share of pixels that are not (nearly) white. */
    static double inkedShare(BufferedImage image) {
        long inked = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if (luminance(image.getRGB(x, y)) < 240) {
                    inked++;
                }
            }
        }
        return (double) inked / ((long) image.getWidth() * image.getHeight());
    }

    static double luminance(int argb) {
        int alpha = (argb >>> 24) & 0xff;
        double r = (argb >> 16) & 0xff;
        double g = (argb >> 8) & 0xff;
        double b = argb & 0xff;
        // A transparent pixel shows whatever is behind it: count it as white paper.
        double a = alpha / 255.0;
        return a * (0.2126 * r + 0.7152 * g + 0.0722 * b) + (1 - a) * 255;
    }
}
