package dev.tracegate.matchers.pii;

/** Receives the spans the extractor finds; the grounding passes one that only keeps a bit mask. */
public interface SpanSink {
    /** Called once per span found. */
    void add(int start, int end, DataCategory category);

    /** A reusable sink that ORs categories into a mask (not thread-safe: one per thread). */
    final class Mask implements SpanSink {
        private long mask;
        /** The extractor's word-start and mark positions for this sink's thread (grown to the longest text). */
        int[] starts, digitStarts, marks;
        char[] chars;

        @Override public void add(int start, int end, DataCategory category) { mask |= category.bit(); }

        public long mask() { return mask; }

        public void clear() { mask = 0; }
    }
}
