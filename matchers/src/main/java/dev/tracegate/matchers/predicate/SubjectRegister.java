package dev.tracegate.matchers.predicate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The data subjects' consents and erasure requests that every session of one runtime reads: an erasure or a consent
 * recorded in any conversation counts in all of them from then on (GDPR P1 and P4 across conversations).
 *
 * <p>Concurrency: any thread may call any method. Reads ({@link #state()}) are one acquire load of an immutable
 * snapshot, without locks or allocation; a change (a consent or an erasure, rare) copies the snapshot and publishes the
 * copy with a release store, writers serialised by this object's monitor (copy-on-write); a repeated consent or erasure that
 * changes nothing takes no lock.
 *
 * <p>Bounded: subjects and consents are kept as {@link TextHash} hashes (erased subjects also as their text, so that a
 * text mentioning one is found), at most {@link #capacity()} of each. A full consent register drops its oldest consent
 * (read as withdrawn, the safe side: the subject is asked again); a full erasure register refuses a new erasure with a
 * {@link Full} error rather than forget an old one, and the caller's failure policy decides about the event.
 *
 * <p>Durable when given a {@link Journal}: every change (and only a change: a repeated erasure or consent writes nothing)
 * is handed to it on the thread that records it, under the monitor, before the change is published, so the journal's
 * order is the register's order.
 */
public final class SubjectRegister {
    /** Default bound on the erased subjects and on the consents of one register. */
    public static final int DEFAULT_CAPACITY = 65_536;

    /** One immutable state of the register. */
    static final class State {
        /** Erased subjects: hashes and texts. */
        final ValueSet erased;
        /** The erased subjects' texts, for finding them inside longer texts. */
        final MentionIndex mentions;
        /** Granted consents as {@link TextHash#pair}(subject, purpose). */
        final ValueSet consents;
        /** Withdrawn consents (the subject's last word was a withdrawal), as {@link TextHash#pair}(subject, purpose). */
        final ValueSet withdrawn;

        State(ValueSet erased, MentionIndex mentions, ValueSet consents, ValueSet withdrawn) {
            this.erased = erased;
            this.mentions = mentions;
            this.consents = consents;
            this.withdrawn = withdrawn;
        }
    }

    /** A new erasure found the erasure register full. */
    public static final class Full extends IllegalStateException {
        Full(int capacity) {
            super("the register of erased data subjects is full (" + capacity + " subjects), so this erasure could not be recorded"
                    + " and disclosures of this subject are not blocked: raise register-capacity in the gdpr: section of your library");
        }
    }

    /**
     * Where a register keeps its changes beyond the JVM (the agent's {@code register.path} file): called under the
     * register's monitor, one call per change, on the thread that records it.
     */
    public interface Journal {
        /** {@code subject} was erased. */
        void erased(String subject);

        /** {@code subject} granted ({@code granted}) or withdrew consent for {@code purpose}. */
        void consented(String subject, String purpose, boolean granted);
    }

    private static final Journal NONE = new Journal() {
        @Override public void erased(String subject) {
        }

        @Override public void consented(String subject, String purpose, boolean granted) {
        }
    };

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(SubjectRegister.class, "state", State.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    /** Guarded by this object's monitor. */
    private Journal journal = NONE;
    @SuppressWarnings("unused") // read and written through STATE
    private State state;

    /** An empty register holding at most {@code capacity} erased subjects and {@code capacity} consents. */
    public SubjectRegister(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("register capacity must be at least 1, was " + capacity);
        this.capacity = capacity;
        ValueSet empty = ValueSet.empty(capacity);
        STATE.setRelease(this, new State(empty, MentionIndex.EMPTY, empty, empty));
    }

    /** The current snapshot (an acquire load: the snapshot's contents are those its writer published). */
    State state() { return (State) STATE.getAcquire(this); }

    /**
     * From now on hands every change to {@code journal} (null: none) before publishing it. When the journal throws, the
     * change still counts in this JVM (an erasure blocks, a withdrawal refuses: the subject said so) and the exception
     * reaches the caller, whose failure policy decides about the event.
     */
    public synchronized void journal(Journal journal) {
        this.journal = journal == null ? NONE : journal;
    }

    /** The bound on erased subjects and on consents. */
    public int capacity() { return capacity; }

    /** Number of erased subjects recorded. */
    public int erasures() { return state().erased.size(); }

    /** Number of consents standing (granted and not withdrawn). */
    public int consents() { return state().consents.size(); }

    /** True when {@code subject} (as {@link TextHash} normalises it) has been erased. */
    public boolean erased(CharSequence subject) { return state().erased.contains(subject); }

    /** True when {@code subject} has consented to {@code purpose} (trimmed, lower case) and not withdrawn since. */
    public boolean consented(CharSequence subject, CharSequence purpose) {
        return state().consents.contains(TextHash.pair(subject, purpose));
    }

    /**
     * True when {@code subject}'s last word about {@code purpose} was a withdrawal (granted or not before): it outweighs
     * a consent given for a whole session without a subject.
     */
    public boolean withdrew(CharSequence subject, CharSequence purpose) {
        return state().withdrawn.contains(TextHash.pair(subject, purpose));
    }

    /**
     * Records an erasure request of {@code subject}; blank subjects are ignored.
     *
     * @throws Full when {@link #capacity()} subjects are already erased (nothing is recorded)
     */
    public void erase(String subject) {
        if (subject == null || subject.isBlank()) return;
        if (state().erased.contains(subject)) return;   // erased already (a repeated request): no lock
        synchronized (this) {
            State s = state();
            if (s.erased.contains(subject)) return;
            if (s.erased.size() >= capacity) throw new Full(capacity);
            ValueSet erased = s.erased.withText(subject);
            State next = new State(erased, new MentionIndex(Arrays.asList(erased.texts())), s.consents, s.withdrawn);
            try {
                journal.erased(subject);
            } finally {
                STATE.setRelease(this, next);
            }
        }
    }

    /**
     * Records that {@code subject} grants ({@code granted}) or withdraws consent for {@code purpose}: the last one counts.
     * A withdrawal is kept (bounded like the consents, oldest dropped first) even without an earlier grant, so that it
     * outweighs a session's subject-less consent.
     */
    public void consent(String subject, String purpose, boolean granted) {
        if (subject == null || subject.isBlank() || purpose == null) return;
        long h = TextHash.pair(subject, purpose);
        State now = state();
        if (granted ? now.consents.contains(h) : now.withdrawn.contains(h)) return;   // standing already: no lock
        synchronized (this) {
            State s = state();
            ValueSet consents = granted ? s.consents.withHashes(new long[] {h}, 1) : s.consents.without(h);
            ValueSet withdrawn = granted ? s.withdrawn.without(h) : s.withdrawn.withHashes(new long[] {h}, 1);
            if (consents == s.consents && withdrawn == s.withdrawn) return;
            State next = new State(s.erased, s.mentions, consents, withdrawn);
            try {
                journal.consented(subject, purpose, granted);
            } finally {
                STATE.setRelease(this, next);
            }
        }
    }

    /** One change as {@link #restore} takes it: an erasure ({@code purpose} null) or a consent granted or withdrawn. */
    public record Change(String subject, String purpose, boolean erasure, boolean granted) {
        /** An erasure of {@code subject}. */
        public static Change erasure(String subject) { return new Change(subject, null, true, false); }

        /** {@code subject} grants ({@code granted}) or withdraws consent for {@code purpose}. */
        public static Change consent(String subject, String purpose, boolean granted) { return new Change(subject, purpose, false, granted); }
    }

    /**
     * Records {@code changes} in their order, as {@link #erase} and {@link #consent} would one by one (the same erased
     * subjects, the same last word per subject and purpose, the same oldest consents dropped when full), but builds the
     * register once: a restart's file can hold tens of thousands of changes, and copying the register per change would
     * take minutes. The journal is not called (the changes come from it). Call it before the register is shared.
     *
     * @throws Full when the changes erase more than {@link #capacity()} subjects (nothing is recorded)
     */
    public synchronized void restore(List<Change> changes) {
        State s = state();
        // erased subjects in first-erased order, and consents and withdrawals in the order a copy-on-write set keeps them
        LinkedHashMap<Long, String> erased = new LinkedHashMap<>();
        for (int i = 0; i < s.erased.textCount(); i++) erased.put(TextHash.of(s.erased.text(i)), s.erased.text(i));
        LinkedHashSet<Long> consents = new LinkedHashSet<>();
        for (long h : s.consents.hashes()) consents.add(h);
        LinkedHashSet<Long> withdrawn = new LinkedHashSet<>();
        for (long h : s.withdrawn.hashes()) withdrawn.add(h);
        for (Change c : changes) {
            String subject = c.subject();
            if (subject == null || subject.isBlank()) continue;
            if (c.erasure()) {
                long h = TextHash.of(subject);
                if (h != TextHash.EMPTY && erased.containsKey(h)) continue;
                if (erased.size() >= capacity) throw new Full(capacity);   // checked before the empty hash, as erase does
                if (h != TextHash.EMPTY) erased.put(h, subject.trim());
            } else if (c.purpose() != null) {
                long h = TextHash.pair(subject, c.purpose());
                if (h == TextHash.EMPTY) continue;
                LinkedHashSet<Long> to = c.granted() ? consents : withdrawn;
                LinkedHashSet<Long> from = c.granted() ? withdrawn : consents;
                if (to.contains(h)) continue;
                from.remove(h);
                to.add(h);
                if (to.size() > capacity) to.remove(to.iterator().next());   // the oldest goes, as ValueSet drops it
            }
        }
        String[] texts = erased.values().toArray(new String[0]);
        ValueSet erasedSet = ValueSet.restore(erased.keySet().stream().mapToLong(Long::longValue).toArray(), texts, capacity);
        STATE.setRelease(this, new State(erasedSet, texts.length == 0 ? MentionIndex.EMPTY : new MentionIndex(Arrays.asList(texts)),
                ValueSet.restore(consents.stream().mapToLong(Long::longValue).toArray(), new String[0], capacity),
                ValueSet.restore(withdrawn.stream().mapToLong(Long::longValue).toArray(), new String[0], capacity)));
    }

    @Override public String toString() {
        State s = state();
        return "SubjectRegister(" + s.erased.size() + " erased, " + s.consents.size() + " consents)";
    }
}
