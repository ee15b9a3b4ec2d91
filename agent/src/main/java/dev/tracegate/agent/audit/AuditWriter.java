package dev.tracegate.agent.audit;

import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.config.OnFull;
import dev.tracegate.agent.config.PersonalData;
import dev.tracegate.agent.core.AgentLog;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes audit records to a hash-chained JSONL log from one background thread, so that the threads
 * that produce events only enqueue.
 *
 * <p>Threads: any number of producer threads may call {@link #append} and the getters at the same
 * time; one daemon thread named {@code tracegate-audit} owns the sink, the chain and the encoder;
 * {@link #close} may be called from any thread (the agent calls it from a shutdown hook). Every record
 * for which {@code append} returned {@link Admission#ACCEPTED} is written before {@code close}
 * returns, unless the sink fails, in which case it is counted in {@link #lost()} and the log says so.
 *
 * <p>A full queue makes the producer wait by default: it spins briefly, then wakes the writer (which may be napping
 * until its window ends) and parks until the writer, having taken a record, wakes it ({@link #awaitRoom});
 * with {@code audit.on-full: drop} it counts the record as dropped instead and the writer later writes
 * a {@code dropped} record with the count. A write error (unwritable file, disk full) makes the writer
 * unhealthy: it closes the file, retries with exponential backoff, and on success cuts off any partial
 * line, continues the chain from the last complete line and writes a {@code dropped} record saying how
 * many records were lost. While it is unhealthy, {@code append} returns {@link Admission#REFUSED} under
 * {@code fail: closed} (the caller refuses the event) and {@link Admission#DROPPED} under {@code fail:
 * open} (the caller lets the event pass; the record is counted as lost). Nothing is ever thrown into a
 * producer. There is no rotation: the file grows until an operator moves it away between runs.
 *
 * <p>The writer groups records: it writes a batch when its oldest record is about to be {@code audit.max-delay} old
 * (100 ms by default), when the batch is full, and on close; a producer wakes it only when it finds the queue full
 * under {@code block} ({@link #awaitRoom}), never on the fast path. A crash of the process (kill -9)
 * loses at most the records of that window, and while producers outrun the writer also what is still queued; what
 * was written is in the operating system's hands.
 */
public final class AuditWriter implements AutoCloseable {

    /** What became of a record handed to {@link #append}. */
    public enum Admission {
        /** Queued; it will be written. */
        ACCEPTED,
        /** Not queued, and the event may proceed: the queue was full in drop mode, or the log is failing under {@code fail: open}. */
        DROPPED,
        /** Not queued, and under {@code fail: closed} the event must be refused: the log is failing, closed, or the wait for room timed out. */
        REFUSED
    }

    /** The writer's settings; the defaults are those of the configuration. */
    public static final class Settings {
        final int queueSize;
        final OnFull onFull;
        final FailPolicy fail;
        final PersonalData personalData;
        final byte[] hmacKey;
        final long maxBlockNanos;
        final long retryInitialNanos;
        final long retryMaxNanos;
        final long maxDelayNanos;

        private Settings(int queueSize, OnFull onFull, FailPolicy fail, PersonalData personalData, byte[] hmacKey,
                         long maxBlockNanos, long retryInitialNanos, long retryMaxNanos, long maxDelayNanos) {
            if (queueSize < 2) throw new IllegalArgumentException("audit queue size must be at least 2, got " + queueSize);
            if (maxDelayNanos < MIN_NAP_NANOS || maxDelayNanos > MAX_DELAY_LIMIT_NANOS) {
                throw new IllegalArgumentException("audit max delay must be from 1 ms to 1 s, got " + maxDelayNanos + " ns");
            }
            this.queueSize = queueSize;
            this.onFull = Objects.requireNonNull(onFull);
            this.fail = Objects.requireNonNull(fail);
            this.personalData = Objects.requireNonNull(personalData);
            this.hmacKey = hmacKey == null ? null : hmacKey.clone();
            this.maxBlockNanos = maxBlockNanos;
            this.retryInitialNanos = retryInitialNanos;
            this.retryMaxNanos = Math.max(retryMaxNanos, retryInitialNanos);
            this.maxDelayNanos = maxDelayNanos;
        }

        /**
         * Queue of 65536, block when full, fail closed, personal data hashed, wait at most 5 s, retry from 10 ms up to 5 s,
         * a record handed to the file within 100 ms.
         */
        public static Settings defaults() {
            return new Settings(65536, OnFull.BLOCK, FailPolicy.CLOSED, PersonalData.HASHED, null,
                    TimeUnit.SECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.SECONDS.toNanos(5),
                    TimeUnit.MILLISECONDS.toNanos(100));
        }

        /** The settings the configuration gives ({@code audit.*} and {@code fail}). */
        public static Settings from(AgentConfig config) {
            return defaults().queueSize(config.auditQueueSize()).onFull(config.auditOnFull()).fail(config.fail())
                    .personalData(config.auditPersonalData()).hmacKey(config.auditHmacKey())
                    .maxBlock(config.auditMaxBlock().toNanos(), TimeUnit.NANOSECONDS)
                    .maxDelay(config.auditMaxDelay().toNanos(), TimeUnit.NANOSECONDS);
        }

        public Settings queueSize(int n) { return new Settings(n, onFull, fail, personalData, hmacKey, maxBlockNanos, retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        public Settings onFull(OnFull o) { return new Settings(queueSize, o, fail, personalData, hmacKey, maxBlockNanos, retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        public Settings fail(FailPolicy f) { return new Settings(queueSize, onFull, f, personalData, hmacKey, maxBlockNanos, retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        public Settings personalData(PersonalData p) { return new Settings(queueSize, onFull, fail, p, hmacKey, maxBlockNanos, retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        /** Hash personal data with HMAC-SHA256 under this key instead of a salt written in the log; null: salted. */
        public Settings hmacKey(byte[] key) { return new Settings(queueSize, onFull, fail, personalData, key, maxBlockNanos, retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        /** How long a producer waits for room in block mode before giving up (the record then counts as dropped). */
        public Settings maxBlock(long amount, TimeUnit unit) { return new Settings(queueSize, onFull, fail, personalData, hmacKey, unit.toNanos(amount), retryInitialNanos, retryMaxNanos, maxDelayNanos); }

        /** The first and the longest pause between attempts to reopen a failing log. */
        public Settings retry(long initial, long max, TimeUnit unit) { return new Settings(queueSize, onFull, fail, personalData, hmacKey, maxBlockNanos, unit.toNanos(initial), unit.toNanos(max), maxDelayNanos); }

        /**
         * The longest an accepted record stays in memory before the writer hands it to the operating system (from 1 ms
         * to 1 s): what a crash of the process (kill -9) can lose. Producers wake the writer only when the queue is full (block),
         * so it wakes at least this often.
         */
        public Settings maxDelay(long amount, TimeUnit unit) { return new Settings(queueSize, onFull, fail, personalData, hmacKey, maxBlockNanos, retryInitialNanos, retryMaxNanos, unit.toNanos(amount)); }
    }

    /**
     * The most bytes handed to the file in one write. When the writer is behind (the queue never empties) each
     * write is this big, and the kernel's cost per write (file times, size, journal, dirty-page accounting) counts:
     * 256 KiB rather than 64 KiB took about a tenth of the writer's CPU per tool call off (InterceptedCallCpuTime,
     * passed calls). At lower rates the batch goes out at its deadline ({@link Settings#maxDelay}), long before it is full.
     */
    private static final int BATCH_BYTES = 256 * 1024;
    private static final int DROP_NOTE_EVERY = 256;
    /** Empty polls the writer spins through after a record before it takes the queue for empty (the rest of a burst). */
    private static final int SPINS = 64;
    /**
     * The shortest nap, and the least time left to a record's deadline for which the writer naps rather than writes
     * at once: a timer this VM fires later than asked would otherwise make it miss the deadline.
     */
    private static final long MIN_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The writer's window is at most this many nanoseconds per slot of the queue: 131 ms for the default 65,536 (so
     * {@code maxDelay} decides), 2 ms for 1,024. A burst after a silence must not fill the queue before the writer wakes,
     * or a small queue would hold producers back (block) or drop their records (drop) for a whole window; a thread
     * calling a tool back to back makes a record about every microsecond on a small VM (two per call of about 1.5 us).
     */
    private static final long WINDOW_NANOS_PER_SLOT = 2_000;
    /** The longest {@link Settings#maxDelay}: the writer also checks for a moved file (about once a second) when it wakes. */
    private static final long MAX_DELAY_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final AuditSink sink;
    private final Settings settings;
    private final AuditQueue<AuditRecord> queue;   // a producer that dies mid-offer leaves no hole (see AuditQueue)
    private final boolean failClosed;
    private final boolean dropWhenFull;
    private final Thread thread;

    // producers -> writer
    private final AtomicInteger inFlight = new AtomicInteger();   // producers inside append()
    private volatile boolean closing;
    /** The time ({@link System#nanoTime}) by which every wait for room ends once the JVM shuts down; 0 before ({@link #shutdownBegins}). */
    private volatile long shutdownDeadline;
    private volatile boolean healthy;
    private volatile boolean terminated;
    private volatile String lastError;
    private volatile String flushedHead;
    private final LongAdder dropped = new LongAdder();
    /** {fail, reason} of {@link #closeUnsupervised}, written last by the writer thread; null for a supervised run. */
    private volatile String[] unsupervisedNote;
    private final LongAdder droppedToNote = new LongAdder();       // not yet reported in a dropped record
    /** Of the records dropped for room, those whose events were refused (block, a wait past max-block, fail: closed), not yet noted. */
    private final LongAdder droppedRefusedToNote = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder refusedToNote = new LongAdder();
    private final LongAdder lost = new LongAdder();
    private final LongAdder lostToNote = new LongAdder();
    private final LongAdder written = new LongAdder();
    /** Accepted records that will never be written (counted lost or refused): what the shutdown's held count leaves out. */
    private final LongAdder lostAccepted = new LongAdder();
    private final LongAdder ioErrors = new LongAdder();
    private final LongAdder internalErrors = new LongAdder();
    /**
     * The writer is stuck: producers found the queue full while it took no record for {@link #stallNanos} (a write that
     * does not return: a named pipe nobody reads, a hung NFS mount, a disk that does not answer). Set by a producer,
     * cleared by the writer when a write returns (or fails: the outage takes over).
     */
    private final AtomicBoolean stalled = new AtomicBoolean();
    private final LongAdder stalls = new LongAdder();
    /**
     * Producers parked waiting for room (block mode), one per slot, so that the writer wakes them as soon as it has taken
     * a record instead of each polling the queue on a timer; a producer that finds no free slot polls as before. Written
     * by producers (their own slot), read by the writer only while {@link #roomWaiting} is not zero.
     */
    private final AtomicReferenceArray<Thread> roomWaiters = new AtomicReferenceArray<>(ROOM_WAITER_SLOTS);
    /** Producers registered in {@link #roomWaiters}: the writer's one volatile read per record taken while none waits. */
    private final AtomicInteger roomWaiting = new AtomicInteger();
    /** Times a producer that found no room woke the writer (a test's view of the hand-off; not an MBean figure). */
    private final LongAdder writerWokenForRoom = new LongAdder();
    private static final int ROOM_WAITER_SLOTS = 64;
    /**
     * The longest a registered producer parks before it looks again by itself (the writer normally wakes it first): bounds a
     * wake-up lost in the race between its registration and the writer's read of {@link #roomWaiting}, and lets it see
     * its deadline, a stall or an outage.
     */
    private static final long ROOM_WAIT_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** No record taken for this long while the queue is full is a stall: {@code audit.max-block}, at least {@link #MIN_STALL_NANOS}. */
    private final long stallNanos;
    // the queue's taken count when a producer that found no room last saw it move, and since when it has not moved
    // (written under stallWatch, since first: read lock-free, taken first: a reader never pairs a count with an older time)
    private final Object stallWatch = new Object();
    private volatile long watchTaken = -1;
    private volatile long watchSince;
    private volatile long stalledAt;
    // the stall's lines (a slow disk, not a stuck one, flapped one ERROR and one INFO per slow write): the ERROR at most
    // once a minute, the INFO only after a stall whose ERROR was said; a stall not said at its start is said once a
    // minute has passed, if it lasts that long. Decided and said under stallLines, by producers and by the writer.
    private final Object stallLines = new Object();
    /** The stall now going on: {@link #LINE_UNDECIDED} (or none is going on), {@link #LINE_SAID}, {@link #LINE_UNSAID}. */
    private volatile int stallLine;
    private static final int LINE_UNDECIDED = 0;
    private static final int LINE_SAID = 1;
    private static final int LINE_UNSAID = 2;
    /** When the last stall ERROR was said (System.nanoTime), if {@link #stallEverSaid}. */
    private volatile long stallSaidAt;
    private boolean stallEverSaid;
    /** Stalls since the last ERROR that were not said at their start (under stallLines). */
    private long stallsUnsaid;
    /** The shortest time between two stall ERROR lines. */
    static final long STALL_LINE_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** {@link #STALL_LINE_NANOS}; a test shortens it to stand for a minute gone by. */
    volatile long stallLineNanos = STALL_LINE_NANOS;

    // owned by the writer thread (and by start() before the thread exists)
    private final AuditLines lines = new AuditLines();
    private OutputStream out;
    private WritableByteChannel channel;   // under out, written directly; null: write out
    private boolean headerWritten;
    /**
     * The header of this writer's first segment waits for its first record: the file already held a log when it was
     * opened, and a JVM that records nothing (jps under JAVA_TOOL_OPTIONS while the service is down) must not add a
     * segment of nothing to the service's log (trial31). Writer thread only, after start.
     */
    private boolean headerDue;
    /** When the sink was first opened: the {@code created} of a header written later ({@link #headerDue}). */
    private long openedMillis;
    /** The batch holds a header not yet written to the sink. */
    private boolean headerInBatch;
    private boolean everOpened;
    // lines encoded but not yet known to be in the file, each with what it stands for, so that a
    // failed write can tell exactly which events were lost and give a lost note's counts back
    // off-heap, so that a file channel takes it as it is (a heap array goes through a copy into a temporary
    // direct buffer on every write); written at absolute positions, position and limit only set to write it
    private ByteBuffer batch = ByteBuffer.allocateDirect(BATCH_BYTES);
    private byte[] heapBatch;           // for a sink that gives no channel (a wrapped or custom stream)
    private int batchLen;
    private int lineCount;
    private int[] lineEnds = new int[1024];
    private byte[] lineKind = new byte[1024];
    private long[][] noteCounts = new long[1024][];
    private boolean batchFailed;        // the batch holds lines whose write failed: reconcile on reopen
    /** The record being written: polled, but not yet a line of the batch nor counted as lost or failed (null: none). */
    private AuditRecord inHand;
    private long retryDelay;
    private long nextRetryAt;
    private long truncatedToNote;
    private boolean outageLogged;       // the current outage was reported on standard error
    private byte[] segmentSalt;         // the salt of this writer's headers (salted mode)
    private long nextMoveCheck;         // when followMove next asks the sink whether its file was moved away
    private String continuesFrom;       // the moved file's head, for the header of the file that continues it; null: none
    private String fileHead;            // the hash of the last complete line known to be in the file opened last; null: none
    private byte[] failedTail;          // after a failed write: the file's last complete line then (through the open file)
    private boolean truncationLoss;     // the lost records to note were lost to a truncation under the writer (copytruncate)

    /** Closing: how long an empty queue waits for a producer still counted inside append() (see run()). */
    private static final long IN_FLIGHT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * The shortest time without a record taken that makes a full queue a stall: longer than the writer's longest nap
     * ({@link #MAX_DELAY_LIMIT_NANOS}), as the shutdown's drain ({@link AuditDrain#MIN_STALL_MILLIS}).
     */
    static final long MIN_STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(AuditDrain.MIN_STALL_MILLIS);

    /** How often the writer asks whether its file was moved away (rotated). */
    private static final long MOVE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    // a line's kind: EVENT_REFUSED is the record of a tool call that did not run (fail: closed), lost as refused, not as lost
    private static final byte META = 0, EVENT = 1, NOTE = 2, EVENT_REFUSED = 3;
    // indexes into a note's counts
    private static final int QUEUE_FULL = 0, LOST = 1, REFUSED = 2, TRUNCATED = 3, QUEUE_FULL_REFUSED = 4;

    /**
     * The {@code dropped} reason of tool calls' records that found no room in time under {@code fail: closed}: the calls
     * were refused and did not run, unlike {@code queue-full}'s records, whose events went on.
     */
    public static final String QUEUE_FULL_REFUSED_REASON = "queue-full (calls refused)";
    /** The {@code dropped} reason of tool calls' records an outage kept out under {@code fail: closed}: the calls did not run. */
    public static final String IO_ERROR_REFUSED_REASON = "io-error (calls refused)";
    /** The {@code dropped} reason of records lost because the file was truncated under the writer (logrotate copytruncate). */
    public static final String TRUNCATED_REASON = "copytruncate";

    /** Name of the writer thread of the agent's audit log (what a thread dump or a profiler shows). */
    public static final String THREAD_NAME = "tracegate-audit";

    private AuditWriter(AuditSink sink, Settings settings, String threadName) {
        this.sink = sink;
        this.settings = settings;
        this.queue = new AuditQueue<>(settings.queueSize);
        this.failClosed = settings.fail == FailPolicy.CLOSED;
        this.dropWhenFull = settings.onFull == OnFull.DROP;
        this.retryDelay = settings.retryInitialNanos;
        this.stallNanos = Math.max(settings.maxBlockNanos, MIN_STALL_NANOS);
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
    }

    /**
     * Opens the sink on the calling thread (so that {@link #isHealthy()} already tells whether the log
     * can be written) and starts the writer thread. Never throws for an I/O problem: check
     * {@code isHealthy()} and {@link #lastError()}.
     */
    public static AuditWriter start(AuditSink sink, Settings settings) {
        return start(sink, settings, THREAD_NAME);
    }

    /** As {@link #start(AuditSink, Settings)}, the writer thread named {@code threadName} (a log other than the agent's own). */
    public static AuditWriter start(AuditSink sink, Settings settings, String threadName) {
        AuditWriter w = new AuditWriter(Objects.requireNonNull(sink, "sink"), Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(threadName, "threadName"));
        w.openSink(System.nanoTime());
        w.thread.start();
        return w;
    }

    /** {@link #start(AuditSink, Settings)} on a file. */
    public static AuditWriter start(Path path, Settings settings) {
        return start(new FileAuditSink(path), settings);
    }

    // ---------------------------------------------------------------- producers

    /**
     * Hands a record to the writer; never throws, never blocks longer than the configured maximum.
     * Stamps the record's time if it has none. After this call the record belongs to the writer.
     */
    public Admission append(AuditRecord record) {
        if (record.timeMillis() == 0) record.time(System.currentTimeMillis());
        inFlight.getAndIncrement();   // the writer ends only when no producer is inside append(): see run()
        try {
            if (closing || !healthy) return notWritable(record);
            if (queue.offer(record)) return Admission.ACCEPTED;   // counted by the queue itself (see accepted())
            return whenFull(record);
        } finally {
            inFlight.getAndDecrement();
        }
    }

    /**
     * The log cannot be written (an outage, or closed): under {@code fail: closed} a tool call's record is refused (the caller
     * refuses the call); every other record, and every record under {@code fail: open}, is lost while its event goes on.
     */
    private Admission notWritable(AuditRecord record) {
        if (failClosed && record.refusedCall(true)) {
            refused.increment();
            if (!closing) refusedToNote.increment();
            return Admission.REFUSED;
        }
        lost.increment();
        if (!closing) lostToNote.increment();
        return Admission.DROPPED;
    }

    private Admission whenFull(AuditRecord record) {
        // drop mode drops at once, but not at shutdown: the open sessions' ends wait for room as under block, all by one
        // deadline (shutdownBegins), so that a clean stop writes them (trial20 05: most of 2,000 ends were dropped)
        if (dropWhenFull && shutdownDeadline == 0) {
            Admission a = stalledNow() ? noRoom(record) : dropForRoom();
            long now = System.nanoTime();
            watchForStall(queue.taken(), now, now);
            return a;
        }
        if (stalledNow()) return noRoom(record);   // a stuck writer makes no room: the failure policy applies at once, no wait
        final long waitFrom = System.nanoTime();
        for (int spins = 0; spins < 64; spins++) {   // the writer may be taking records right now: a few hundred nanoseconds
            Thread.onSpinWait();
            if (queue.offer(record)) return Admission.ACCEPTED;
            if (terminated || !healthy) return notWritable(record);
        }
        return awaitRoom(record, waitFrom);
    }

    /**
     * The wait for room of {@code audit.on-full: block}. The writer may be napping until its window ends (producers do not
     * wake it on the hot path), so a producer that has to wait wakes it once, registers itself, and parks until the writer,
     * having taken a record, wakes it: a small queue then costs each wait two wake-ups, not the rest of the writer's nap
     * (trial22 09: with {@code audit.queue-size: 2} every call waited about 1 ms, the writer's shortest nap, while the
     * caller woke about ten times on a growing timer). A parked producer looks again by itself every
     * {@link #ROOM_WAIT_SLICE_NANOS}; one that finds every slot of {@link #roomWaiters} taken polls on a growing pause as
     * before. Slow path only: the fast path of {@link #append} is one {@code offer}.
     */
    private Admission awaitRoom(AuditRecord record, long waitFrom) {
        final Thread me = Thread.currentThread();
        final long taken = queue.taken();
        long deadline = waitFrom + settings.maxBlockNanos;
        long shutdown = shutdownDeadline;   // at shutdown every wait ends by one deadline
        if (shutdown != 0 && shutdown - deadline < 0) deadline = shutdown;
        int slot = register(me);
        long pause = 1_000;
        try {
            while (true) {
                LockSupport.unpark(thread);   // a napping writer would leave this producer waiting for the rest of its nap
                writerWokenForRoom.increment();
                long now = System.nanoTime();
                record.roomWait(now - waitFrom);   // before the offer: once accepted the record is the writer's
                if (queue.offer(record)) return Admission.ACCEPTED;
                if (terminated || !healthy) return notWritable(record);
                if (stalledNow()) return noRoom(record);   // another producer found the writer stuck while this one waited
                if (now - deadline > 0) {
                    watchForStall(taken, waitFrom, now);
                    return noRoom(record);
                }
                if (slot >= 0) {
                    LockSupport.parkNanos(Math.min(ROOM_WAIT_SLICE_NANOS, deadline - now));
                } else {
                    LockSupport.parkNanos(pause);
                    pause = Math.min(pause << 1, 1_000_000);
                }
            }
        } finally {
            if (slot >= 0) {
                roomWaiters.set(slot, null);
                roomWaiting.getAndDecrement();
            }
        }
    }

    /** Registers a producer about to wait for room; its slot, or -1 when every slot is taken (it then polls). */
    private int register(Thread me) {
        int start = (int) (me.getId() & (ROOM_WAITER_SLOTS - 1));
        for (int i = 0; i < ROOM_WAITER_SLOTS; i++) {
            int slot = (start + i) & (ROOM_WAITER_SLOTS - 1);
            if (roomWaiters.get(slot) == null && roomWaiters.compareAndSet(slot, null, me)) {
                roomWaiting.getAndIncrement();   // a full fence before this producer's next look at the queue
                return slot;
            }
        }
        return -1;
    }

    /** Writer thread: wakes the producers parked waiting for room (called while {@link #roomWaiting} is not zero). */
    private void wakeRoomWaiters() {
        for (int i = 0; i < ROOM_WAITER_SLOTS; i++) {
            Thread t = roomWaiters.get(i);
            if (t != null) LockSupport.unpark(t);
        }
    }

    /** Times a producer that found no room woke the writer. */
    long writerWokenForRoom() { return writerWokenForRoom.sum(); }

    /**
     * A record that found no room (a wait past max-block, or a stuck writer): under {@code fail: closed} a tool call's is
     * refused (counted in {@link #refused()}, noted with its own reason, so that the log does not read as if the call ran
     * unrecorded); any other record is dropped and its event goes on (trial20 01: user messages, answers and session ends
     * were noted as refused).
     */
    private Admission noRoom(AuditRecord record) {
        if (!failClosed || !record.refusedCall(true)) return dropForRoom();
        refused.increment();
        droppedRefusedToNote.increment();
        return Admission.REFUSED;
    }

    /**
     * A producer found no room: {@code taken} is the queue's taken count it saw at {@code from} (when its wait began). When the
     * writer has taken no record for {@link #stallNanos} while producers find the queue full, it is stuck in a write that
     * does not return, and from then on every producer meets the failure policy at once ({@link #noRoom}) instead of
     * waiting {@code audit.max-block} each, until the writer moves again. Not at shutdown, whose waits end by one deadline.
     */
    private void watchForStall(long taken, long from, long now) {
        long t = queue.taken();
        long since;
        if (t == watchTaken) {
            since = watchSince;
        } else {
            since = t == taken ? from : now;
            synchronized (stallWatch) {
                if (watchTaken != t) {
                    watchSince = since;   // before watchTaken: see the fields
                    watchTaken = t;
                } else {
                    since = watchSince;
                }
            }
        }
        if (now - since < stallNanos || stalled.get() || closing || shutdownDeadline != 0 || !healthy) return;
        if (!stalled.compareAndSet(false, true)) return;
        stalls.increment();
        stalledAt = since;
        synchronized (stallLines) {
            // a slow disk (writes that return, each after more than the stall time) stalls once per slow write: said at
            // most once a minute, the others counted (AuditStalls) and named by the next line
            // (each producer that set stalled decides once: said or unsaid; one whose stall the writer ended before it got
            // here counts it unsaid, so the stalls said and unsaid always add up to AuditStalls)
            if (stalled.get() && stallLine == LINE_UNDECIDED && (!stallEverSaid || now - stallSaidAt >= stallLineNanos)) {
                sayStall(now, since);
            } else {
                stallsUnsaid++;
                if (stalled.get() && stallLine == LINE_UNDECIDED) stallLine = LINE_UNSAID;
            }
        }
    }

    /**
     * Whether the writer is stuck now (a producer's question when it finds no room); a stall not said at its start
     * (another was said less than a minute before) is said here once that minute has passed, so a writer that stops
     * for good after a slow spell is never left unsaid behind a "takes records again" line. Not the hot path: only a
     * producer that found the queue full asks, and only a stall not said yet costs a clock read.
     */
    private boolean stalledNow() {
        if (!stalled.get()) return false;
        if (stallLine == LINE_UNSAID && System.nanoTime() - stallSaidAt >= stallLineNanos) {
            synchronized (stallLines) {
                long now = System.nanoTime();
                if (stalled.get() && stallLine == LINE_UNSAID && now - stallSaidAt >= stallLineNanos) {
                    stallsUnsaid--;   // this stall was counted as unsaid at its start: it is said now
                    sayStall(now, stalledAt);
                }
            }
        }
        return true;
    }

    /** The ERROR of a stall, with the stalls since the last one that were not said. Under stallLines. */
    private void sayStall(long now, long since) {
        long others = stallsUnsaid;
        String message = "the audit log " + sink.describe() + " has taken no record for " + seconds(now - since) + " while its queue is"
                + " full: the writer is stuck in a write that does not return (a named pipe whose reader stopped reading, a hung"
                + " NFS mount, a disk that does not answer). Until it moves again events do not wait for room: "
                + (failClosed ? "tool calls are refused (fail: closed), and results, messages and answers go on unrecorded"
                        : "events go on unrecorded (fail: open)")
                + ", counted in dropped records; AuditHealthy is false. Have the pipe read or fix the disk (audit.path)"
                + (others > 0 ? ". Since the last such line it stalled " + others + (others == 1 ? " more time" : " more times")
                        + " and moved again each time (a disk slower than the stall time rather than a stuck one): each stall"
                        + " counts in AuditStalls, said at most once a minute" : "");
        stallsUnsaid = 0;
        stallEverSaid = true;
        stallSaidAt = now;
        stallLine = LINE_SAID;
        lastError = message;
        AgentLog.error(message, null);
    }

    /**
     * After a write returned (or failed, which the outage then reports): a stall is over, said only when its start was
     * (so a slow disk gives one ERROR and one INFO a minute, not a pair per slow write). Writer thread.
     */
    private void stallEnds(boolean written) {
        if (!stalled.get()) return;   // only producers set it, only this thread clears it
        synchronized (stallLines) {
            if (written && stallLine == LINE_SAID) {
                AgentLog.info("the audit log " + sink.describe() + " takes records again after " + seconds(System.nanoTime() - stalledAt)
                        + " stuck; a dropped record counts the records that found no room meanwhile; another stall within a"
                        + " minute of the last ERROR is counted in AuditStalls and said with the next one");
            }
            stallLine = LINE_UNDECIDED;
            stalled.set(false);   // after the line: whoever sees the writer healthy again also finds it said
        }
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    /**
     * The JVM is shutting down: from now on every producer waits for room, under {@code audit.on-full: drop} too (the
     * shutdown is not the hot path, and the ends of the open sessions belong in the log), and every such wait ends by one
     * deadline, {@code audit.max-block} from now, instead of one {@code max-block} each, so a log that takes nothing (a
     * named pipe nobody reads) holds the exit once, not once per session. Then {@link AuditDrain} closes the writer.
     */
    public void shutdownBegins() {
        long d = System.nanoTime() + settings.maxBlockNanos;
        shutdownDeadline = d == 0 ? 1 : d;
    }

    private Admission dropForRoom() {
        dropped.increment();
        droppedToNote.increment();
        return Admission.DROPPED;
    }

    // ---------------------------------------------------------------- observers (any thread)

    /**
     * Whether the log is being written: false after an I/O error until a retry succeeds, while the writer is stuck in a
     * write ({@link #isStalled}), and after close.
     */
    public boolean isHealthy() { return healthy && !terminated && !stalled.get(); }

    /** Whether the log was closed (the JVM's shutdown, or {@link #close}): every later record is turned away. */
    public boolean isClosed() { return closing; }

    /**
     * The tool names of the records written so far, as the events gave them (at most 1,024 names), from the writer's cache
     * of tool names: what the agent saw of the application's tools (the shutdown's note on tools the contracts name that
     * never came, supervision.UnseenTools). Safe to read from any thread; complete once the writer has drained.
     */
    public java.util.Set<String> toolsWritten() { return lines.toolsSeen(); }

    /** Whether the writer is stuck in a write that does not return (see {@link #stalls()}); false again once it moves. */
    public boolean isStalled() { return stalled.get(); }

    /** Times the writer was found stuck: the queue full and no record taken for {@code audit.max-block} (at least 2 s). */
    public long stalls() { return stalls.sum(); }

    /** The last I/O or internal error, as a sentence saying what, where and how to fix; null if none. */
    public String lastError() { return lastError; }

    /** Records waiting in the queue. */
    public int queueDepth() { return queue.size(); }

    public int queueCapacity() { return settings.queueSize; }

    /** Records accepted into the queue: the queue's producer index, which counts every successful offer (no counter of our own per record). */
    public long accepted() { return queue.accepted(); }

    /** Event records written to the sink (handed to the operating system). */
    public long written() { return written.sum(); }

    /**
     * Records not written because the queue was full (drop mode, a wait for room past max-block, a stuck writer) whose events
     * went on; a tool call's record refused for want of room (fail: closed) counts in {@link #refused()} instead.
     */
    public long dropped() { return dropped.sum(); }

    /**
     * Records not written because the log could not be written whose events went on: under {@code fail: open} every one;
     * under {@code fail: closed} the results, messages, answers, consents, erasures and session ends of an outage, and
     * records accepted before a write failed whose events had gone on (tool calls that ran among them).
     */
    public long lost() { return lost.sum(); }

    /**
     * Records of tool calls that did not run, not in the log, under {@code fail: closed}: a call's record the log turned
     * away (an outage, the queue full past max-block, a stuck writer, a closed log), whose call the caller then refused,
     * and the record of a call refused anyway (a block) that an outage lost. Other records count in {@link #lost()} or
     * {@link #dropped()}.
     */
    public long refused() { return refused.sum(); }

    /** Accepted records that will never be written (in {@link #lost()} or {@link #refused()}): for the shutdown's held count. */
    long lostAccepted() { return lostAccepted.sum(); }

    /** I/O errors met (each failed open or write counts once). */
    public long ioErrors() { return ioErrors.sum(); }

    /** Records that could not be encoded (a bug: the message is in {@link #lastError()}). */
    public long internalErrors() { return internalErrors.sum(); }

    /**
     * The hex SHA-256 of the last line known to be handed to the operating system: keep it somewhere
     * else (a ticket, another log) to make a rewrite of the whole chain detectable.
     */
    public String head() { return flushedHead; }

    public String describe() { return sink.describe(); }

    // ---------------------------------------------------------------- shutdown

    /** Drains every accepted record, flushes and closes the log; waits at most 30 s for the disk. */
    @Override public void close() {
        close(30, TimeUnit.SECONDS);
    }

    /**
     * Closes the log of a run the agent will not supervise, ending it with an {@code unsupervised} record
     * that says why and which {@code fail} policy then applied, so that the log of such a run does not
     * read as a quiet supervised one.
     *
     * @param reason what kept the agent from starting (the paragraph it printed)
     * @return true if the writer finished within 30 s
     */
    public boolean closeUnsupervised(FailPolicy fail, String reason) {
        unsupervisedNote = new String[] {fail == FailPolicy.CLOSED ? "closed" : "open", reason == null ? "" : reason};
        return close(30, TimeUnit.SECONDS);
    }

    /**
     * Stops accepting records, writes all accepted ones, flushes and closes the sink.
     *
     * @return true if the writer finished within the timeout
     */
    public boolean close(long timeout, TimeUnit unit) {
        closing = true;
        LockSupport.unpark(thread);
        try {
            thread.join(Math.max(1, unit.toMillis(timeout)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !thread.isAlive();
    }

    // ---------------------------------------------------------------- writer thread

    /**
     * Drains the queue into the batch and writes the batch when its oldest record is about to be {@link Settings#maxDelay}
     * old (or when it is full, or when closing), then naps until the next such deadline. Producers do not wake the writer
     * while there is room (an unpark would cost each call a system call; one that finds the queue full under block does:
     * {@link #awaitRoom}), so a nap is as long as the deadline allows and no longer: with
     * nothing to write, {@code maxDelay}, since a record may arrive as it starts. At a paced rate the writer then wakes
     * and writes once per {@code maxDelay}, not once per call (each wake-up costs tens of microseconds of CPU on a small
     * VM). The window is {@code maxDelay}, or less for a small queue ({@link #WINDOW_NANOS_PER_SLOT}). A nap is also short
     * enough that the queue, filling at the rate the last nap saw, stays three-quarters empty, and at least 1 ms: under
     * a flood the writer works without napping, as it keeps finding records.
     *
     * <p>The deadline: {@code clearSince} is a time before which every accepted record has been handed to the sink. It is
     * read before a poll that found the queue empty (so every record offered earlier was polled by then) and taken
     * when the batch is empty after that poll. A record offered at time a is therefore in the file by a + maxDelay, plus
     * the time to encode what was queued ahead of it and whatever the scheduler of a busy machine adds to a nap.
     */
    private void run() {
        // a small queue gets a shorter window: see WINDOW_NANOS_PER_SLOT
        final long window = Math.max(MIN_NAP_NANOS, Math.min(settings.maxDelayNanos, settings.queueSize * WINDOW_NANOS_PER_SLOT));
        final double fillTarget = Math.max(1, settings.queueSize / 4);
        int empty = SPINS;          // empty polls since the last record
        long sinceNote = 0;
        long napStart = System.nanoTime();
        long taken = 0;             // records polled since napStart
        long clearSince = napStart;
        long idleInFlightSince = 0;   // closing: when the queue was first seen empty with a producer still inside append()
        try {
            while (true) {
              try {
                AuditRecord r = queue.poll();
                if (r != null) {
                    if (roomWaiting.get() != 0) wakeRoomWaiters();   // a slot is free: a producer waiting for room takes it
                    write(r);
                    empty = 0;
                    taken++;
                    if (++sinceNote >= DROP_NOTE_EVERY) { sinceNote = 0; noteDrops(); followMove(); }
                    continue;
                }
                if (closing) {
                    if (healthy) {
                        noteDrops();
                        if (batchLen > 0) flushBatch();
                    } else {
                        long now = System.nanoTime();
                        if (now - nextRetryAt >= 0) openSink(now);
                    }
                    // Dekker with append(): a producer that saw closing == false had raised inFlight
                    // before close() set closing, so inFlight == 0 here means no offer is still coming.
                    if (queue.isEmpty()) {
                        if (inFlight.get() == 0) break;
                        // A producer that never lowers inFlight (a StackOverflowError in append's finally) must not hold
                        // the exit for close()'s whole timeout: once the queue has stayed empty this long, finish.
                        long now = System.nanoTime();
                        if (idleInFlightSince == 0) idleInFlightSince = now;
                        else if (now - idleInFlightSince > IN_FLIGHT_GRACE_NANOS) break;
                    } else {
                        idleInFlightSince = 0;
                    }
                    Thread.onSpinWait();
                    continue;
                }
                if (empty < SPINS) {   // after records: the rest of a burst (the RETURN of a call microseconds after its CALL)
                    empty++;
                    Thread.onSpinWait();
                    continue;
                }
                long now = System.nanoTime();
                if (!queue.isEmpty()) {   // read after now (see clearSince above); a producer still storing counts too
                    empty = 0;
                    continue;
                }
                if (healthy) {
                    if (batchLen == 0) clearSince = now;
                    noteDrops();
                    followMove();
                    if (batchLen > 0 && now - (clearSince + window - MIN_NAP_NANOS) >= 0) flushBatch();
                } else if (now - nextRetryAt >= 0) {
                    openSink(now);
                }
                if (batchLen == 0) clearSince = now;   // all that was offered before now is in the file (or counted lost)
                long nap = !healthy ? Math.min(window, nextRetryAt - now)
                        : batchLen > 0 ? clearSince + window - now : window;
                // The queue must not fill before the next wake-up: at the rate seen since the last nap began, a quarter of
                // it (a queue found half full or more says the rate is not known, only high: the shortest nap).
                double perRecord = (now - napStart) / (double) Math.max(1, taken);
                double fill = taken >= 2 * fillTarget ? MIN_NAP_NANOS : perRecord * fillTarget;
                nap = (long) Math.max(MIN_NAP_NANOS, Math.min(nap, fill));
                if (closing) continue;   // close() unparked before this park, or will: either way drain now
                if (roomWaiting.get() != 0) wakeRoomWaiters();   // one that registered as this writer last took a record
                napStart = System.nanoTime();
                taken = 0;
                LockSupport.parkNanos(nap);
              } catch (OutOfMemoryError e) {
                  onOutOfMemory();   // the heap comes back (trial44 03): an outage, not the writer's end
                  empty = SPINS;
              }
            }
            finish();
        } catch (Throwable t) {
            lastError = "the audit writer thread stopped on an unexpected error (" + t + "); records after this point are not written."
                    + " Restart the service and report this as a bug.";
            healthy = false;   // after lastError: whoever sees the writer unhealthy also sees why
            internalErrors.increment();
            AgentLog.error(lastError, null);
        } finally {
            terminated = true;
            closeQuietly();
            countUnwritten();
        }
    }

    /**
     * After the writer stopped on an unexpected error: records still queued or encoded but not handed
     * to the sink will never be written, so they count as lost rather than vanish. Producers see
     * {@code terminated} and stop offering; wait (bounded) for those already inside {@code append}.
     */
    private void countUnwritten() {
        for (int i = 0; i < 1000 && inFlight.get() != 0; i++) LockSupport.parkNanos(1_000_000);
        if (inHand != null) countLost(inHand);   // polled, but neither in the batch nor counted when the error came
        inHand = null;
        for (AuditRecord r = queue.poll(); r != null; r = queue.poll()) countLost(r);
        for (int i = 0; i < lineCount; i++) {
            if (lineKind[i] == EVENT) lost.increment();
            else if (lineKind[i] == EVENT_REFUSED) refused.increment();
            if (isEvent(lineKind[i])) lostAccepted.increment();
        }
        lineCount = 0;
        batchLen = 0;
    }

    private void countLost(AuditRecord r) {
        lostAccepted.increment();
        if (failClosed && r.refusedCall(false)) refused.increment();
        else lost.increment();
    }

    /**
     * About once a second: when the sink's file was moved away (rotated, e.g. by {@code logrotate}), writes what is
     * encoded to it, then starts a new file at the path whose header names the moved file's head ({@code continues}).
     * A new file that cannot be opened is an outage like any other (retried under the failure policy).
     */
    private void followMove() {
        if (!healthy || closing) return;
        long now = System.nanoTime();
        if (now - nextMoveCheck < 0) return;
        nextMoveCheck = now + MOVE_CHECK_NANOS;
        if (!sink.moved()) {
            if (sink.truncated(true)) followTruncation();
            return;
        }
        if (batchLen > 0 && !flushBatch()) return;
        String head = lines.head();
        boolean deleted = sink.deletedWhileOpen();
        closeQuietly();
        continuesFrom = head;
        openSink(now);   // producers keep enqueueing meanwhile: only this thread reads the queue
        if (healthy && deleted) {
            // trial48 02: mv to another file system, or logrotate's compress without delaycompress, copies the file and then
            // deletes it; what the writer wrote after the copy went to the deleted file
            AgentLog.warn("the audit log " + sink.describe() + " was deleted while the agent wrote it, or moved to another file"
                    + " system or compressed, which copy it and then delete it: the records written to it after the copy are in"
                    + " no file, and audit verify of the copy and the new file reports the link broken. A new file there continues"
                    + " it (its header's continues field is the deleted file's head " + head + "). Rotate by renaming the log"
                    + " within its file system (mv audit.jsonl audit.jsonl.1; with logrotate, add delaycompress), then move or"
                    + " compress the renamed file");
        } else if (healthy) {
            AgentLog.info("the audit log " + sink.describe() + " was moved away; a new file there continues it (its header's"
                    + " continues field is the moved file's head " + head + ")");
        }
    }

    /**
     * The file was truncated under the writer (logrotate's {@code copytruncate}): rather than write on at its old offset
     * behind a hole of NUL bytes, which {@code audit verify} cannot read past, start a new segment at offset 0 whose
     * header continues the last line that reached the file. The lines of the batch not yet written chain from a line now
     * gone, so they are counted in a {@code dropped} record (reason {@code copytruncate}), as are the bytes of a hole cut.
     */
    private void followTruncation() {
        String head = flushedHead != null ? flushedHead : fileHead;
        if (batchLen > 0) batchFailed = true;   // reconcile gives its lines back: none is in the file at the path
        closeQuietly();
        continuesFrom = head;
        truncationLoss = true;
        AgentLog.warn("the audit log " + sink.describe() + " was truncated under the writer (logrotate copytruncate?), which"
                + " would go on at its old offset behind a hole of NUL bytes: a new segment starts at its beginning, whose header"
                + " continues the last line written (" + head + "); records written between the copy and the truncation are in"
                + " neither file, and those not yet written are counted in a dropped record (copytruncate). Rotate in logrotate's"
                + " create mode (drop copytruncate): the agent follows a moved file within about a second and loses nothing");
        openSink(System.nanoTime());
        truncationLoss = false;
    }

    private void finish() {
        if (!healthy) openSink(System.nanoTime()); // one last attempt
        if (healthy) {
            noteDrops();
            String[] u = unsupervisedNote;
            if (u != null) {
                headerFirst();
                lines.unsupervised(System.currentTimeMillis(), u[0], u[1]);
                appendLine(META, null);
            }
            if (batchLen > 0) flushBatch();
        }
        if (!healthy) unwrittenAtExit();
        healthy = false;   // closed: later appends are refused
    }

    /**
     * The log is closed while it still cannot be written (a disk that stayed full, a path never created): no
     * {@code dropped} record can say what it lacks, and the counters go with the JVM, so one ERROR line says it, by
     * reason (trial16 exit-during-audit-outage-silent: a normal exit said nothing, and verify then blamed a crash for
     * the cut last line).
     */
    private void unwrittenAtExit() {
        long held = 0;
        if (batchFailed) {
            for (int i = 0; i < lineCount; i++) {
                if (isEvent(lineKind[i])) held++;
                else if (lineKind[i] == NOTE) giveBack(NOTE, noteCounts[i]);   // an unwritten note's counts are unwritten records
            }
        }
        long lostNow = lostToNote.sum();
        long refusedNow = refusedToNote.sum();
        long full = droppedToNote.sum() + droppedRefusedToNote.sum();
        long total = held + lostNow + refusedNow + full;
        StringBuilder parts = new StringBuilder();
        if (lostNow > 0) parts.append(lostNow).append(failClosed
                ? " lost (events that went on unrecorded, fail: closed: records accepted before the outage, tool calls"
                        + " that ran among them, and the results, messages, answers and session ends of the outage; fail: closed refuses"
                        + " only tool calls)"
                : " lost (events that went on unrecorded, fail: open)");
        if (refusedNow > 0) parts.append(parts.length() > 0 ? ", " : "").append(refusedNow)
                .append(" refused (fail: closed: tool calls that did not run)");
        if (full > 0) parts.append(parts.length() > 0 ? ", " : "").append(full).append(" dropped for room in the queue");
        if (held > 0) parts.append(parts.length() > 0 ? ", " : "").append(held)
                .append(" accepted whose write failed (the file may hold the first of them, its last line cut)");
        boolean none = neverCreated();
        AgentLog.error("the audit log " + sink.describe() + " could still not be written at exit (the outage said above): "
                + (total == 0 ? (none ? "the file does not exist, so this run wrote nothing to it; no record of this run is missing"
                        : "no record of this run is missing from it since the outage began, but its last line may be cut off")
                        : none ? "the file does not exist, so " + total + (total == 1 ? " record" : " records")
                        + " of this run are in no file: " + parts
                        : total + (total == 1 ? " record" : " records") + " of this run are not in it, and no dropped record in it"
                        + " counts them: " + parts)
                + (none ? "" : ". audit verify reports a last line cut mid-write as 'last line truncated': here that is"
                        + " the outage, not a crash")
                + "."
                + " Free disk space or fix the path's permissions" + runsAs() + " before the next start", null);
    }

    /**
     * Whether the file this run writes is missing altogether (a directory that could never be made, or this process's
     * own sibling file that its first write could not make): nothing can be cut in it.
     */
    private boolean neverCreated() {
        try {
            return !sink.created();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Whether the log's file is on disk: false while a file made only by the first record waits for it (nothing recorded). */
    public boolean created() {
        try {
            return sink.created();
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** Who the path's permissions must let write (a container's {@code runAsUser} is often not who the image expects). */
    private static String runsAs() {
        String user = System.getProperty("user.name");
        return user == null || user.isEmpty() ? "" : " (the JVM runs as user " + user + ")";
    }

    private void write(AuditRecord r) {
        inHand = r;
        if (!healthy) {
            loseInHand();
            return;
        }
        headerFirst();
        if (r.table != null && lines.libraryNumber(r.table) == 0) {
            // format 3: the table the record's compact atoms and verdicts index, once per library and chain start
            lines.library(r.table);
            appendLine(META, null);
            if (!healthy) {
                loseInHand();
                return;
            }
        }
        try {
            lines.event(r);   // the chain advances only when a line is complete, so a failure leaves it intact
        } catch (RuntimeException | LinkageError | StackOverflowError e) {
            // an argument object of the host whose toString() fails must not stop the log
            internalErrors.increment();
            inHand = null;
            lastError = "could not encode the audit record " + r + ": " + e + "; the record is not written. Report this as a bug.";
            return;
        }
        appendLine(failClosed && r.refusedCall(false) ? EVENT_REFUSED : EVENT, null);   // into the batch, or given back as lost: either way no longer in hand
    }

    private static boolean isEvent(byte kind) {
        return kind == EVENT || kind == EVENT_REFUSED;
    }

    private void loseInHand() {
        lostAccepted.increment();   // the record in hand, or a line of a failed batch: accepted either way
        if (failClosed && inHand != null && inHand.refusedCall(false)) {
            refused.increment();
            refusedToNote.increment();
            inHand = null;
            return;
        }
        lost.increment();
        lostToNote.increment();
        inHand = null;
    }

    /**
     * Writes a {@code dropped} record for what was dropped for room, and another for what an outage lost that
     * no note counts yet. The second is usually written by the reopen that ends the outage ({@link #openSink}),
     * but a producer that saw the writer unhealthy counts its record whenever it gets there: after that reopen
     * took the counts, while its write was still going on, or just after it made the writer healthy. Such a
     * late count is written here, on the next idle turn, instead of staying in the counters for good. Only
     * while healthy: during an outage the counts wait for the reopen, whose note comes after the header
     * and the chain it restores.
     */
    private void noteDrops() {
        if (!healthy) return;
        long d = droppedToNote.sumThenReset();
        if (d > 0) {
            headerFirst();
            lines.dropped(System.currentTimeMillis(), d, "queue-full", 0);
            appendLine(NOTE, new long[] {d, 0, 0, 0, 0});
        }
        long r = droppedRefusedToNote.sumThenReset();
        if (r > 0) {
            headerFirst();
            lines.dropped(System.currentTimeMillis(), r, QUEUE_FULL_REFUSED_REASON, 0);
            appendLine(NOTE, new long[] {0, 0, 0, 0, r});
        }
        noteLosses();
    }

    /** Appends a {@code dropped} record for the records lost or refused to an outage and the bytes cut off, if any; returns the records it counts. */
    private long noteLosses() {
        long lostNow = lostToNote.sumThenReset();
        long refusedNow = refusedToNote.sumThenReset();
        long cut = truncatedToNote;
        truncatedToNote = 0;
        // records whose events went on, and tool calls that did not run, each with its reason (trial20 03)
        if (lostNow > 0 || (cut > 0 && refusedNow == 0)) {
            headerFirst();
            lines.dropped(System.currentTimeMillis(), lostNow,
                    truncationLoss ? TRUNCATED_REASON : lostNow == 0 ? "partial-line-removed" : "io-error", cut);
            appendLine(NOTE, new long[] {0, lostNow, 0, cut, 0});
            cut = 0;
        }
        if (refusedNow > 0) {
            headerFirst();
            lines.dropped(System.currentTimeMillis(), refusedNow, IO_ERROR_REFUSED_REASON, cut);
            appendLine(NOTE, new long[] {0, 0, refusedNow, cut, 0});
        }
        return lostNow + refusedNow;
    }

    /** Moves the encoded line into the batch, flushing first if it does not fit. */
    private void appendLine(byte kind, long[] counts) {
        int n = lines.length();
        if (batchLen + n + 1 > batch.capacity() && batchLen > 0 && !flushBatch()) {
            giveBack(kind, counts);
            return;
        }
        if (batchLen + n + 1 > batch.capacity()) {
            // a line longer than a batch (huge arguments in a clear log): a larger buffer, keeping what it holds
            ByteBuffer larger = ByteBuffer.allocateDirect(batchLen + n + 1);
            larger.put(0, batch, 0, batchLen);
            batch = larger;
        }
        if (lineCount == lineEnds.length) {
            lineEnds = Arrays.copyOf(lineEnds, lineCount * 2);
            lineKind = Arrays.copyOf(lineKind, lineCount * 2);
            noteCounts = Arrays.copyOf(noteCounts, lineCount * 2);
        }
        batch.put(batchLen, lines.buffer(), 0, n);
        batchLen += n;
        lineEnds[lineCount] = batchLen;
        lineKind[lineCount] = kind;
        noteCounts[lineCount] = counts;
        lineCount++;
        if (isEvent(kind)) inHand = null;   // counted with the batch's lines from here on
        batch.put(batchLen++, (byte) '\n');
    }

    /** A line that will never be written: its event is lost, its note's counts wait for the next note. */
    private void giveBack(byte kind, long[] counts) {
        if (kind == EVENT_REFUSED) {
            refused.increment();   // a refused call's record: its call did not run
            refusedToNote.increment();
            lostAccepted.increment();
            inHand = null;
        } else if (kind == EVENT) {
            loseInHand();   // the record in hand, or (reconcile) a line of a failed batch while none is
        } else if (kind == NOTE) {
            droppedToNote.add(counts[QUEUE_FULL]);
            lostToNote.add(counts[LOST]);
            refusedToNote.add(counts[REFUSED]);
            truncatedToNote += counts[TRUNCATED];
            droppedRefusedToNote.add(counts[QUEUE_FULL_REFUSED]);
        }
    }

    /**
     * Hands the batch to the sink; on failure the writer becomes unhealthy and the batch is kept for {@link #reconcile}.
     * False also when the file was found truncated under the writer first ({@link #followTruncation}): the batch's lines
     * are then counted, not written, and the writer goes on in a new segment.
     */
    private boolean flushBatch() {
        if (batchLen > 0 && sink.truncated(false)) {
            followTruncation();
            return false;
        }
        return writeBatch();
    }

    /** {@link #flushBatch} without the truncation check: a file just opened. */
    private boolean writeBatch() {
        try {
            WritableByteChannel ch = channel;
            if (ch != null) {
                ByteBuffer b = batch;
                b.limit(batchLen).position(0);
                try {
                    while (b.hasRemaining()) ch.write(b);
                } finally {
                    b.clear();   // the bytes stay: after a failure, reconcile compares them with the file
                }
            } else {
                if (heapBatch == null || heapBatch.length < batchLen) heapBatch = new byte[batch.capacity()];
                batch.get(0, heapBatch, 0, batchLen);
                out.write(heapBatch, 0, batchLen);
                out.flush();
            }
        } catch (IOException | RuntimeException | LinkageError | StackOverflowError e) {
            batchFailed = true;
            // what reached the file before the error (a disk that filled mid-batch): a file moved away during the outage
            // is continued from its real last line
            byte[] tail = sink.tail();
            if (tail != null) {
                failedTail = tail;
                fileHead = AuditLines.headOf(tail);
            }
            onIoError("cannot write the audit log " + sink.describe(), e);
            return false;
        }
        if (stalled.get()) stallEnds(true);
        if (headerInBatch) {
            headerInBatch = false;
            headerWritten = true;
            continuesFrom = null;
        }
        int events = 0;
        for (int i = 0; i < lineCount; i++) if (isEvent(lineKind[i])) events++;
        written.add(events);
        flushedHead = lines.head();
        fileHead = flushedHead;
        batchLen = 0;
        lineCount = 0;
        return true;
    }

    /** Opens (or reopens) the sink, reconciles a failed batch with what reached the file, and writes the header. */
    private void openSink(long now) {
        // an outage's reopen: the file it wrote may have been moved away meanwhile (to free the disk): continue it
        String movedHead = everOpened && continuesFrom == null && !healthy && sink.moved() ? fileHead : null;
        AuditSink.Opened o;
        try {
            o = sink.open();
        } catch (IOException | RuntimeException | LinkageError | StackOverflowError e) {
            onIoError("cannot open the audit log " + sink.describe(), e);
            return;
        }
        out = o.out;
        channel = o.channel;
        truncatedToNote += o.truncatedBytes;
        boolean movedAway = movedHead != null && o.lastLine == null;
        if (movedAway) continuesFrom = movedHead;
        if (batchFailed) reconcile(movedAway ? failedTail : o.lastLine);
        failedTail = null;
        lines.chainFrom(o.lastLine);
        if (o.lastLine != null) fileHead = lines.head();
        boolean header = !headerWritten || o.lastLine == null || continuesFrom != null;
        boolean first = !everOpened;
        everOpened = true;
        if (first) openedMillis = System.currentTimeMillis();
        // the first opening of a file that holds a log already, or of one the sink makes only at its first write (this
        // process's own sibling of a path another holds, trial44 05), with nothing to note: the header comes with the
        // first record, so a JVM that records nothing adds nothing to disk
        headerDue = header && first && (o.lastLine != null || o.deferred) && continuesFrom == null && lineCount == 0 && truncatedToNote == 0
                && lostToNote.sum() == 0 && refusedToNote.sum() == 0 && droppedToNote.sum() == 0 && droppedRefusedToNote.sum() == 0;
        if (header && !headerDue) writeHeader(System.currentTimeMillis());
        long missing = noteLosses();
        if (writeBatch()) {
            if (movedAway) {
                AgentLog.info("the audit log " + sink.describe() + " was moved away during the outage; a new file there continues it"
                        + " (its header's continues field is the moved file's head " + movedHead + ")");
            }
            if (header) {
                headerWritten = true;
                continuesFrom = null;
            }
            retryDelay = settings.retryInitialNanos;
            healthy = true;   // release: producers may enqueue again
            if (outageLogged) {
                outageLogged = false;
                AgentLog.info("the audit log " + sink.describe() + " is written again"
                        + (missing > 0 ? "; a dropped record counts the " + missing + " records it lacks" : ""));
            }
        }
    }

    /** Before the first record of a writer whose header waits ({@link #headerDue}): the header. */
    private void headerFirst() {
        if (!headerDue) return;
        headerDue = false;
        writeHeader(openedMillis);   // when this run opened the log, as the header written then would say
    }

    private void writeHeader(long createdMillis) {
        byte[] salt = null;
        byte[] key = null;
        if (settings.personalData == PersonalData.HASHED) {
            if (settings.hmacKey != null) {
                key = settings.hmacKey;
            } else {
                // one salt per writer: a file that continues a moved one digests equal values alike, so a replay of both agrees
                if (segmentSalt == null) {
                    segmentSalt = new byte[16];
                    new SecureRandom().nextBytes(segmentSalt);
                }
                salt = segmentSalt;
            }
        }
        lines.header(createdMillis, salt, key, continuesFrom);
        appendLine(META, null);
        headerInBatch = true;
    }

    /** After a failed write: lines of the batch up to the file's last line reached it; the rest are given back. */
    private void reconcile(byte[] fileLast) {
        int reached = 0;
        if (fileLast != null) {
            for (int i = lineCount - 1; i >= 0; i--) {
                int start = i == 0 ? 0 : lineEnds[i - 1] + 1;
                if (lineEnds[i] - start == fileLast.length
                        && batch.slice(start, fileLast.length).equals(ByteBuffer.wrap(fileLast))) {
                    reached = i + 1;
                    break;
                }
            }
        }
        for (int i = 0; i < lineCount; i++) {
            if (i < reached) {
                if (isEvent(lineKind[i])) written.increment();
            } else {
                giveBack(lineKind[i], noteCounts[i]);
            }
        }
        batchLen = 0;
        lineCount = 0;
        batchFailed = false;
        headerInBatch = false;   // a header of the batch that did not reach the file: the reopen writes one
    }

    private void onIoError(String what, Throwable e) {
        ioErrors.increment();
        stallEnds(false);   // a stuck write that ends in an error is an outage: its ERROR line follows
        String fix = failClosed
                ? "events are refused (fail: closed) until the log can be written again"
                : "events pass unaudited (fail: open) and are counted as lost until the log can be written again";
        lastError = what + ": " + e + ". Free disk space or fix the path's permissions (audit.path" + (runsAs().isEmpty() ? ")" : ";" + runsAs().substring(1, runsAs().length() - 1) + ")") + "; " + fix
                + "; retrying in " + TimeUnit.NANOSECONDS.toMillis(retryDelay) + " ms.";
        healthy = false;   // after lastError (volatile): whoever sees the writer unhealthy also sees why
        closeQuietly();
        nextRetryAt = System.nanoTime() + retryDelay;
        retryDelay = Math.min(retryDelay * 2, settings.retryMaxNanos);
        if (!outageLogged) {
            // once per outage, not per retry: an operator must learn why, also under fail: open where nothing else shows it
            outageLogged = true;
            AgentLog.error(lastError, null);
        }
    }

    /**
     * The heap ran out while this thread encoded or wrote (the application's allocation, or the records queued): the JVM
     * and the application usually survive it, so this is an outage like an I/O error, not the writer's end (before
     * trial44 03 the thread stopped, and under {@code fail: closed} every later tool call was refused until a restart).
     * The record in hand is counted lost (in the {@code dropped} record the reopen writes), the lines encoded before it
     * are written, and the file is closed and reopened after the usual pause (which also writes the library records
     * again: one whose encoding the error cut is not taken for written). Allocates nothing that it cannot do without.
     */
    private void onOutOfMemory() {
        try {
            if (inHand != null) loseInHand();   // lost, not an encoder's refusal (internalErrors): the heap, not the record
            // the lines encoded before are whole: write them (a direct buffer, no allocation); a failure is an I/O outage
            if (batchLen > 0 && !flushBatch()) return;
            if (!healthy) return;
            lastError = OUT_OF_MEMORY;
            healthy = false;   // after lastError: whoever sees the writer unhealthy also sees why
            closeQuietly();
            nextRetryAt = System.nanoTime() + retryDelay;
            retryDelay = Math.min(retryDelay * 2, settings.retryMaxNanos);
            if (!outageLogged) {
                outageLogged = true;
                AgentLog.error(OUT_OF_MEMORY, null);
            }
        } catch (OutOfMemoryError again) {
            // still no heap: an outage all the same, its line left out; the reopen counts what did not reach the file
            if (batchLen > 0) batchFailed = true;
            lastError = OUT_OF_MEMORY;
            healthy = false;
            closeQuietly();
            nextRetryAt = System.nanoTime() + retryDelay;
        }
    }

    private static final String OUT_OF_MEMORY = "the audit writer ran out of heap (java.lang.OutOfMemoryError): the JVM's heap was"
            + " exhausted while it encoded or wrote records. Those it held are counted as lost, and it reopens the log after a"
            + " pause, as after an I/O error (meanwhile tool calls are refused under fail: closed, and events pass unaudited"
            + " under fail: open); a dropped record in the log counts what is missing. If this recurs, give the JVM more heap"
            + " (-Xmx) or lower audit.queue-size (agent/CONFIG.md, \"What each failure looks like\")";

    private void closeQuietly() {
        OutputStream o = out;
        out = null;
        channel = null;
        if (o != null) {
            try { o.close(); } catch (IOException | RuntimeException ignored) {
                // the error that matters was already recorded; closing a broken stream can fail again
            }
        }
    }
}
