package dev.tracegate.agent.hardening;

import java.util.Random;

/** Byte-level and token-level edits of a valid input: the cheap half of a coverage-free fuzzer. */
final class Mutation {
    private Mutation() {}

    /** Applies {@code n} random edits (delete, insert a piece, duplicate a slice, swap, flip a char). */
    static String mutate(String base, int n, Random rnd, String[] pieces) {
        StringBuilder s = new StringBuilder(base);
        for (int i = 0; i < n; i++) {
            int at = s.length() == 0 ? 0 : rnd.nextInt(s.length() + 1);
            switch (rnd.nextInt(5)) {
                case 0 -> { if (at < s.length()) s.delete(at, Math.min(s.length(), at + 1 + rnd.nextInt(4))); }
                case 1 -> s.insert(at, pieces[rnd.nextInt(pieces.length)]);
                case 2 -> {
                    int from = rnd.nextInt(s.length() + 1), to = Math.min(s.length(), from + rnd.nextInt(12));
                    s.insert(at, s.substring(from, to));
                }
                case 3 -> {
                    if (s.length() > 1) {
                        int j = rnd.nextInt(s.length()), k = rnd.nextInt(s.length());
                        char c = s.charAt(j);
                        s.setCharAt(j, s.charAt(k));
                        s.setCharAt(k, c);
                    }
                }
                default -> { if (at < s.length()) s.setCharAt(at, (char) (s.charAt(at) ^ (1 << rnd.nextInt(7)))); }
            }
        }
        return s.toString();
    }
}
