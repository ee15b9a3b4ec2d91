package dev.tracegate.matchers.event;

import dev.tracegate.matchers.pii.DataCategory;

/**
 * The data categories the extractor found in an event's text and result, or in a call's arguments, remembered in one
 * int: the mask of a full scan once known ({@link #KNOWN} set), and beside it what scans that stopped early found. One
 * int instead of two longs: each of an intercepted call's two events and its arguments are 8 B smaller for it (session
 * 23). Only the built-in categories are detected ({@link DataCategory#bit()}, at most {@value #WIDTH} of them), so a mask
 * with another bit is a caller's mistake. Racing updates may drop each other's bits: what was dropped is found again.
 */
final class CategoryMemo {
    /** Bits per mask: the built-in categories (DataCategory has 10; EventSizeTest checks they fit). */
    static final int WIDTH = 15;
    static final long MASK = (1L << WIDTH) - 1;
    /** Set once the full scan's mask is remembered (bits 0 to WIDTH - 1). */
    static final int KNOWN = 1 << 30;

    private CategoryMemo() {}

    /** The full scan's mask, or -1 before one was remembered. */
    static long known(int memo) { return (memo & KNOWN) == 0 ? -1 : memo & MASK; }

    /** What scans that stopped early found (bits WIDTH to 2 * WIDTH - 1). */
    static long found(int memo) { return (memo >>> WIDTH) & MASK; }

    /** {@code memo} with {@code mask} as the full scan's mask, unless one is remembered already (it stays). */
    static int withKnown(int memo, long mask) { return (memo & KNOWN) != 0 ? memo : memo | KNOWN | (int) bits(mask); }

    /** {@code memo} with {@code bits} added to what was found. */
    static int withFound(int memo, long bits) { return memo | (int) (bits(bits) << WIDTH); }

    private static long bits(long mask) {
        if ((mask & ~MASK) != 0) {
            throw new IllegalArgumentException("category mask " + Long.toBinaryString(mask) + " has bits beyond the " + WIDTH
                    + " built-in categories this memo keeps; pass DataCategory bits (DataCategory.bit())");
        }
        return mask;
    }
}
