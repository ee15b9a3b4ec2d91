package dev.tracegate.contracts.fuzz;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Character- and line-level edits of a valid YAML text: the cheap half of a coverage-free fuzzer. */
final class Mutation {
    static final String[] PIECES = {":", ": ", "- ", "-", "\n", "  ", "\t", "#", "\"", "'", "[", "]", "{", "}", ",", "|", ">",
        "&a", "*a", "!!str ", "~", "null", "true", "1e9", "-1", "99999999999999999999", "id: x", "guarantee: G !p",
        "assume: ", "strategy: redirect", "\u0000", "é", "G (", ")", "call(", "ctx(", "arg("};

    private Mutation() {}

    static String mutate(String base, int n, Random rnd) {
        StringBuilder s = new StringBuilder(base);
        for (int i = 0; i < n; i++) {
            int at = s.length() == 0 ? 0 : rnd.nextInt(s.length() + 1);
            switch (rnd.nextInt(6)) {
                case 0 -> { if (at < s.length()) s.delete(at, Math.min(s.length(), at + 1 + rnd.nextInt(6))); }
                case 1 -> s.insert(at, PIECES[rnd.nextInt(PIECES.length)]);
                case 2 -> {
                    int from = rnd.nextInt(s.length() + 1), to = Math.min(s.length(), from + rnd.nextInt(40));
                    s.insert(at, s.substring(from, to));
                }
                case 3 -> s.replace(0, s.length(), lines(s.toString(), rnd));
                case 4 -> { if (at < s.length()) s.setCharAt(at, (char) (s.charAt(at) ^ (1 << rnd.nextInt(7)))); }
                default -> { if (at < s.length()) s.insert(at, s.charAt(at) == ' ' ? "  " : " "); }
            }
        }
        return s.toString();
    }

    /** Deletes, duplicates, swaps or re-indents one line. */
    private static String lines(String text, Random rnd) {
        List<String> ls = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        if (ls.isEmpty()) return text;
        int i = rnd.nextInt(ls.size()), j = rnd.nextInt(ls.size());
        switch (rnd.nextInt(4)) {
            case 0 -> ls.remove(i);
            case 1 -> ls.add(j, ls.get(i));
            case 2 -> { String t = ls.get(i); ls.set(i, ls.get(j)); ls.set(j, t); }
            default -> ls.set(i, ls.get(i).startsWith("  ") ? ls.get(i).substring(2) : "  " + ls.get(i));
        }
        return String.join("\n", ls);
    }
}
