package dev.tracegate.matchers.pii;

/**
 * Where personal data of one category sits in a text, as {@code [start, end)} char offsets, so the
 * agent can redact it.
 */
public record CategorySpan(int start, int end, DataCategory category) {
    public CategorySpan {
        if (start < 0 || end < start) throw new IllegalArgumentException("bad span [" + start + ", " + end + ")");
    }

    /** The covered text of {@code s}. */
    public String in(CharSequence s) { return s.subSequence(start, end).toString(); }
}
