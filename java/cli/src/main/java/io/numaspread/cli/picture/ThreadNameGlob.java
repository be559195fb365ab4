// SPDX-License-Identifier: Apache-2.0
package io.numaspread.cli.picture;

import io.numaspread.NumaspreadException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Thread-name globs, as the agent's {@code threads=} takes them: {@code GLOB[|GLOB...]}, each matching the
 * whole name; {@code *} any run, {@code ?} one character, {@code [a-z]}, {@code [!0-9]} or {@code [^0-9]}, and
 * {@code \} before a character that is meant literally.
 */
public record ThreadNameGlob(String text, List<Pattern> patterns) {
    public ThreadNameGlob {
        patterns = List.copyOf(patterns);
    }

    /** @throws NumaspreadException (bad input) naming {@code --thread-names} and the glob */
    public static ThreadNameGlob parse(String text) {
        List<Pattern> patterns = new ArrayList<>();
        for (String glob : text.split("\\|", -1)) {
            if (glob.isEmpty()) {
                throw NumaspreadException.badInput("--thread-names " + text + ": an empty glob (two | in a row?)");
            }
            patterns.add(Pattern.compile(regex(text, glob), Pattern.DOTALL));
        }
        return new ThreadNameGlob(text, patterns);
    }

    public boolean matches(String name) {
        return patterns.stream().anyMatch(p -> p.matcher(name).matches());
    }

    private static String regex(String text, String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                case '\\' -> {
                    if (++i == glob.length()) {
                        throw NumaspreadException.badInput("--thread-names " + text + ": a \\ at the end of " + glob);
                    }
                    regex.append(Pattern.quote(Character.toString(glob.charAt(i))));
                }
                case '[' -> {
                    int close = glob.indexOf(']', i + 2);
                    if (close < 0) {
                        throw NumaspreadException.badInput("--thread-names " + text + ": [ without ] in " + glob);
                    }
                    String inside = glob.substring(i + 1, close);
                    boolean negated = inside.startsWith("!") || inside.startsWith("^");
                    regex.append('[').append(negated ? "^" : "");
                    for (char member : (negated ? inside.substring(1) : inside).toCharArray()) {
                        // In a Java character class a backslash makes any non-alphanumeric character literal.
                        regex.append(Character.isLetterOrDigit(member) || member == '-' ? "" : "\\")
                                .append(member);
                    }
                    regex.append(']');
                    i = close;
                }
                default -> regex.append(Pattern.quote(Character.toString(c)));
            }
        }
        return regex.toString();
    }
}
