// SPDX-License-Identifier: Apache-2.0
package io.numaspread.irq;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the state file and the kubelet's CPU state: the core library carries no JSON dependency
 * because it is loaded into other people's servers. Objects become maps, arrays lists, integers longs.
 */
public final class MiniJson {
    /**
     * How deep objects and arrays may nest. A state file nests three deep; the limit keeps the recursive descent
     * far from the thread's stack, so that a hostile file ends in a parse error, not a StackOverflowError.
     */
    static final int MAX_DEPTH = 16;

    private final String text;
    private int at;
    private int depth;

    private MiniJson(String text) {
        this.text = text;
    }

    /** @throws IllegalArgumentException saying where and why {@code text} is not the JSON this reads */
    public static Object parse(String text) {
        MiniJson parser = new MiniJson(text);
        Object value = parser.value();
        parser.skipSpace();
        if (parser.at != text.length()) {
            throw parser.error("trailing text");
        }
        return value;
    }

    /**
     * {@code value} as JSON: what {@link #parse} returns (maps, lists, strings, longs, booleans and null) written
     * back, so that records this build only carries come out as they went in.
     */
    static String write(Object value) {
        if (value instanceof Map<?, ?> map) {
            StringBuilder out = new StringBuilder("{");
            map.forEach((key, field) -> out.append(out.length() > 1 ? ", " : "")
                    .append(quote((String) key))
                    .append(": ")
                    .append(write(field)));
            return out.append('}').toString();
        }
        if (value instanceof List<?> list) {
            StringBuilder out = new StringBuilder("[");
            list.forEach(element -> out.append(out.length() > 1 ? ", " : "").append(write(element)));
            return out.append(']').toString();
        }
        return value instanceof String string ? quote(string) : String.valueOf(value);
    }

    static String quote(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) {
            throw error("unexpected end");
        }
        char c = text.charAt(at);
        if (c == '{' || c == '[') {
            if (++depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH + " levels");
            }
            Object nested = c == '{' ? object() : array();
            depth--;
            return nested;
        }
        if (c == '"') {
            return string();
        }
        if (c == '-' || isDigit(c)) {
            int start = at++;
            while (at < text.length() && isDigit(text.charAt(at))) {
                at++;
            }
            try {
                return Long.parseLong(text.substring(start, at));
            } catch (NumberFormatException e) {
                throw error("not a number or out of range");
            }
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (text.startsWith(word, at)) {
                at += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        throw error("unexpected '" + c + "'");
    }

    private Map<String, Object> object() {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (consume('}')) {
            return map;
        }
        do {
            skipSpace();
            if (!peek('"')) {
                throw error("expected a key");
            }
            String key = string();
            skipSpace();
            expect(':');
            if (map.containsKey(key)) {
                throw error("key \"" + key + "\" appears twice");
            }
            map.put(key, value());
            skipSpace();
        } while (consume(','));
        expect('}');
        return map;
    }

    private List<Object> array() {
        List<Object> list = new ArrayList<>();
        at++;
        skipSpace();
        if (consume(']')) {
            return list;
        }
        do {
            list.add(value());
            skipSpace();
        } while (consume(','));
        expect(']');
        return list;
    }

    private String string() {
        at++;
        StringBuilder out = new StringBuilder();
        while (at < text.length() && text.charAt(at) != '"') {
            char c = text.charAt(at++);
            if (c == '\\' && at < text.length()) {
                char escaped = text.charAt(at++);
                switch (escaped) {
                    case 'n' -> out.append('\n');
                    case 't' -> out.append('\t');
                    case 'r' -> out.append('\r');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case '"', '\\', '/' -> out.append(escaped);
                    case 'u' -> {
                        if (at + 4 > text.length()
                                || !text.substring(at, at + 4).chars().allMatch(MiniJson::isHexDigit)) {
                            throw error("bad \\u escape");
                        }
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> throw error("bad escape");
                }
            } else {
                out.append(c);
            }
        }
        expect('"');
        return out.toString();
    }

    private void skipSpace() {
        while (at < text.length() && " \t\n\r".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isHexDigit(int c) {
        return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private boolean consume(char c) {
        if (peek(c)) {
            at++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!consume(c)) {
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(String why) {
        return new IllegalArgumentException("malformed JSON at character " + at + ": " + why);
    }
}
