package dev.tracegate.contracts.library;

/** The edit distance the loader's, the configuration's and the analysis' "did you mean" hints use. */
public final class Spelling {
    private Spelling() {}

    /**
     * Edit distance between two short names: insertions, deletions, substitutions, and two adjacent letters swapped
     * (cuont for count), each one edit (optimal string alignment distance, a restricted Damerau-Levenshtein: a
     * substring is edited at most once). A swap is the commonest typing slip, and as two substitutions it would put
     * a five-letter name at distance 2, past the hints' threshold.
     */
    public static int distance(String a, String b) {
        int[] prev2 = new int[b.length() + 1];
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int d = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d = Math.min(d, prev2[j - 2] + 1);
                }
                cur[j] = d;
            }
            int[] t = prev2;
            prev2 = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
