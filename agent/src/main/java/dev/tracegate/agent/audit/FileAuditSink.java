package dev.tracegate.agent.audit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * An audit log in one file, appended to across runs (the agent does not rotate it, but follows a move: see below); a
 * named pipe or a device is written as a stream, each opening starting a new segment.
 *
 * <p>One process at a time: the file is locked while it is open ({@link FileChannel#tryLock}). A second process
 * configured with the same path (a child JVM that inherited {@code JAVA_TOOL_OPTIONS} and the configuration, such as
 * an MCP stdio server) would interleave its lines with the first one's and break both chains, so it writes to a
 * sibling of its own instead, {@code name.pid-N.jsonl}, and says so once. That file is made by the process's first
 * write, not at its start, so a JVM that records nothing ({@code jcmd} or {@code jps} under {@code JAVA_TOOL_OPTIONS}
 * naming the agent, while the service runs) leaves no file behind (trial44 05). A file system without locks is written
 * unlocked.
 *
 * <p>Moving the file away while the agent runs (rotation, {@code logrotate}'s default {@code create} mode) is noticed
 * within about a second: the writer then starts a new file at the path, whose header names the moved file's head
 * ({@code continues}).
 */
public final class FileAuditSink implements AuditSink {
    private static final int CHUNK = 8192;

    private final Path path;
    /** The file written: {@link #path}, or its sibling for this process while another holds the path's lock (writer thread only). */
    private Path current;
    /** The identity (inode) of the file opened last, to notice that it was moved away; null: unknown. */
    private Object openedKey;
    /** The regular file opened last (writer thread only); null for a stream, or before the first opening. */
    private FileChannel file;
    /** {@link #truncated} found the file cut under the writer: the next opening cuts a leading hole of NUL bytes. */
    private boolean shrank;
    private final UnaryOperator<OutputStream> wrap;
    /** No wrapping stream: the writer may write the file's channel directly. */
    private final boolean direct;
    /** The WARN that this process writes its own sibling was said (once, when that file was made or first opened). */
    private boolean siblingSaid;

    public FileAuditSink(Path path) {
        this.path = Objects.requireNonNull(path, "path");
        this.current = path;
        this.wrap = UnaryOperator.identity();
        this.direct = true;
    }

    /** A file sink whose stream passes through {@code wrap} (tests use it to slow writes down or make them fail). */
    public FileAuditSink(Path path, UnaryOperator<OutputStream> wrap) {
        this.path = Objects.requireNonNull(path, "path");
        this.current = path;
        this.wrap = Objects.requireNonNull(wrap, "wrap");
        this.direct = false;
    }

    /** The configured path. */
    public Path path() { return path; }

    /** The file written: the configured path, or this process's sibling of it when another process holds its lock. */
    public Path current() { return current; }

    @Override public String describe() { return current.toString(); }

    @Override public Opened open() throws IOException {
        // once on its own file, a process stays there: going back would splice its chain into the other one's
        if (current.equals(path)) {
            Opened o = open(path);
            if (o != null) {
                openedKey = fileKey(path);
                return o;
            }
        }
        Path own = sibling(path, ProcessHandle.current().pid());
        if (!Files.exists(own, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            // made by the first write: a process that records nothing leaves no header-only file (trial44 05)
            current = own;
            openedKey = null;
            file = null;
            Deferred d = new Deferred(own);
            return new Opened(wrap.apply(Channels.newOutputStream(d)), direct ? d : null, null, 0, true);
        }
        Opened o = openOwn(own);
        current = own;
        openedKey = fileKey(own);
        return o;
    }

    /** Opens this process's sibling of the path (null never: both locked is an error) and says once that it writes there. */
    private Opened openOwn(Path own) throws IOException {
        Opened o = open(own);
        if (o == null) {
            throw new IOException("audit.path " + path + " and this process's own " + own + " are both locked by other processes;"
                    + " give each process its own audit.path");
        }
        if (!siblingSaid) {
            siblingSaid = true;
            dev.tracegate.agent.core.AgentLog.warn("the audit log " + path + " is being written by another process (it holds the"
                    + " file's lock), so this process writes its own chain to " + own + " instead of breaking that one's;"
                    + " give each process its own audit.path (a child JVM inherits -javaagent through JAVA_TOOL_OPTIONS)");
        }
        return o;
    }

    /**
     * This process's sibling file, made at the first write that has bytes to write (the header with the first record):
     * until then nothing is on disk. A file found there by then (it cannot be another process's: the name holds this
     * process's id) is not appended to through this channel, whose lines chain from a new file's start: the write
     * fails, and the writer's reopen continues that file as any other.
     */
    private final class Deferred implements java.nio.channels.WritableByteChannel {
        private final Path own;
        private FileChannel real;
        private boolean closed;

        Deferred(Path own) { this.own = own; }

        @Override public int write(ByteBuffer src) throws IOException {
            if (closed) throw new java.nio.channels.ClosedChannelException();
            if (!src.hasRemaining()) return 0;
            FileChannel ch = real;
            if (ch == null) {
                if (Files.exists(own, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    throw new IOException(own + " appeared after this process's start; it is reopened and continued");
                }
                openOwn(own);
                ch = file;
                openedKey = fileKey(own);
                real = ch;
            }
            return ch.write(src);
        }

        @Override public boolean isOpen() { return !closed; }

        @Override public void close() throws IOException {
            closed = true;
            if (real != null) real.close();
        }
    }

    /** Whether the file this process writes is on disk: false while its own sibling waits for its first record. */
    @Override public boolean created() {
        return Files.exists(current, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    @Override public boolean moved() {
        if (openedKey == null) return false;
        try {
            return !openedKey.equals(fileKey(current));
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override public boolean truncated(boolean thorough) {
        FileChannel ch = file;
        if (ch == null) return false;
        try {
            long pos = ch.position();
            if (pos == 0) return false;
            long size = ch.size();
            boolean cut = size < pos;
            if (!cut && thorough) {
                ByteBuffer b = ByteBuffer.allocate(1);
                cut = ch.read(b, 0) == 1 && b.get(0) == 0;
            }
            if (cut) shrank = true;
            return cut;
        } catch (IOException | RuntimeException e) {
            return false;   // a closed or failing file: the write says what is wrong
        }
    }

    @Override public byte[] tail() {
        FileChannel ch = file;
        if (ch == null) return null;
        try {
            long lf = lastIndexOfLf(ch, ch.size());
            if (lf < 0) return null;
            long start = lastIndexOfLf(ch, lf) + 1;
            return read(ch, start, (int) (lf - start));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Linux: the entry of {@code /proc/self/fd} that is this file (same identity) and its link count, 0 once no name is
     * left. A move is rare, so the walk over the process's open files is paid once per move.
     */
    @Override public boolean deletedWhileOpen() {
        Object key = openedKey;
        Path fds = Path.of("/proc/self/fd");
        if (key == null || !Files.isDirectory(fds)) return false;
        try (java.util.stream.Stream<Path> open = Files.list(fds)) {
            for (Path fd : (Iterable<Path>) open::iterator) {
                if (!key.equals(fileKey(fd))) continue;
                Object links = Files.getAttribute(fd, "unix:nlink");
                return links instanceof Integer n && n == 0;
            }
        } catch (IOException | RuntimeException e) {
            // cannot tell: the move is reported as a move
        }
        return false;
    }

    /** The file's identity, or null when it is absent there (or the file system has none). */
    private static Object fileKey(Path p) {
        try {
            return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * What a start says when {@code audit.path} names something other than a regular file (or a file still to be
     * made), which the agent writes as a stream and accepts: the null device switches the log off, a device or a named
     * pipe keeps the records only where it puts them; in every case {@code audit verify} and {@code replay} have no
     * file at the path to read. Null for a regular file, one not there yet, or a directory (an error of its own).
     */
    public static String notAFileNote(Path path) {
        try {
            if (path == null || !Files.exists(path) || Files.isRegularFile(path) || Files.isDirectory(path)) return null;
            String kind = "not a regular file";
            boolean nullDevice = false;
            try {
                Path devNull = Path.of("/dev/null");
                nullDevice = Files.exists(devNull) && Files.isSameFile(path, devNull);
            } catch (IOException | RuntimeException e) {
                // no null device to compare with (not a Unix system): the kind below says what it is
            }
            try {
                int type = ((Integer) Files.getAttribute(path, "unix:mode")) & 0170000;
                kind = type == 0020000 ? "a character device" : type == 0060000 ? "a block device"
                        : type == 0010000 ? "a named pipe" : type == 0140000 ? "a socket" : kind;
            } catch (IOException | RuntimeException e) {
                // a file system without the unix view: "not a regular file" is all that is known
            }
            String continues = " tracegate runs on (a test set-up may want this); set audit.path to a file to keep a log that"
                    + " can be checked (agent/CONFIG.md, \"The audit log\")";
            if (nullDevice) {
                return "audit.path " + path + " is the null device: the audit log is switched off. Every record (each"
                        + " decision, the hash chain) is discarded as it is written, so nothing is kept and tracegate audit"
                        + " verify and replay have nothing to read; the calls are still decided, and the writer still encodes"
                        + " and hashes every record." + continues;
            }
            return "audit.path " + path + " is " + kind + ", not a file: the audit log is written to it as a stream and kept"
                    + " only by whatever reads or stores it there (nothing, if nothing does), and tracegate audit verify and"
                    + " replay cannot read it from the path; they need a copy of the whole stream in a file." + continues;
        } catch (RuntimeException e) {
            return null;   // a path that cannot be looked at now: opening it says what is wrong
        }
    }

    /** {@code audit.jsonl} gives {@code audit.pid-42.jsonl}; a name without an extension gets {@code .pid-42} at its end. */
    static Path sibling(Path path, long pid) {
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String own = dot > 0 ? name.substring(0, dot) + ".pid-" + pid + name.substring(dot) : name + ".pid-" + pid;
        return path.resolveSibling(own);
    }

    /** Opens {@code path} for appending; null when another process (or another writer of this JVM) holds its lock. */
    private Opened open(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            for (Path p = parent; p != null; p = p.getParent()) {
                if (Files.exists(p) && !Files.isDirectory(p)) {
                    throw new IOException("audit.path " + path + " cannot be created: " + p + " is a file, not a directory;"
                            + " set audit.path to a file in an existing or creatable directory");
                }
            }
            Files.createDirectories(parent);
        }
        if (Files.isDirectory(path)) {
            throw new IOException("audit.path " + path + " is a directory; set it to a file, e.g. " + path.resolve("tracegate-audit.jsonl"));
        }
        if (Files.exists(path) && !Files.isRegularFile(path)) {
            // a named pipe or a device (a log shipper's FIFO): no tail to read, no position to seek; every
            // opening starts a new segment. READ+WRITE so that opening a FIFO does not wait for a reader.
            FileChannel stream = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
            file = null;
            return new Opened(wrap.apply(Channels.newOutputStream(stream)), direct ? stream : null, null, 0);
        }
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            if (!lock(ch)) {
                ch.close();
                return null;
            }
            long size = ch.size();
            long cut = 0;
            if (shrank) {
                // truncated under this writer (copytruncate): a write that came just after it left a hole of NUL bytes at
                // the start, and lines behind it that chain from the copied file; the new segment starts at offset 0
                shrank = false;
                if (size > 0 && read(ch, 0, 1)[0] == 0) {
                    cut = size;
                    ch.truncate(0);
                    ch.force(false);
                    size = 0;
                }
            }
            checkIsAuditLog(path, ch, size);
            byte[] last = null;
            if (size > 0) {
                long lf = lastIndexOfLf(ch, size);      // -1 if none
                long keep = lf + 1;
                if (keep < size) {
                    cut += size - keep;
                    ch.truncate(keep);
                    ch.force(false);
                }
                if (lf >= 0) {
                    long start = lastIndexOfLf(ch, lf) + 1;
                    last = read(ch, start, (int) (lf - start));
                }
            }
            ch.position(ch.size());
            file = ch;
            return new Opened(wrap.apply(Channels.newOutputStream(ch)), direct ? ch : null, last, cut);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Takes the file's exclusive lock, held until the channel closes; false when another process or another writer in
     * this JVM holds it. A file system that has no locks (some network ones) answers with an error: written unlocked.
     */
    private static boolean lock(FileChannel ch) {
        try {
            return ch.tryLock() != null;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    private static final byte[] HEADER_START = ("{\"prev\":\"" + AuditLines.GENESIS + "\",\"rec\":\"header\"")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Refuses to append to a file that does not start as an audit log (a mistyped audit.path must not damage another file). */
    private static void checkIsAuditLog(Path path, FileChannel ch, long size) throws IOException {
        if (size == 0) return;
        int n = (int) Math.min(size, HEADER_START.length);
        byte[] start = read(ch, 0, n);
        if (!java.util.Arrays.equals(start, 0, n, HEADER_START, 0, n)) {
            throw new IOException(path + " is not a tracegate audit log (it does not begin with an audit header), so nothing"
                    + " is appended to it; set audit.path to a new file or to an existing audit log");
        }
    }

    /** Position of the last LF strictly before {@code end}, or -1. */
    private static long lastIndexOfLf(FileChannel ch, long end) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(CHUNK);
        long pos = end;
        while (pos > 0) {
            int n = (int) Math.min(CHUNK, pos);
            pos -= n;
            b.clear().limit(n);
            readFully(ch, b, pos);
            for (int i = n - 1; i >= 0; i--) if (b.get(i) == '\n') return pos + i;
        }
        return -1;
    }

    private static byte[] read(FileChannel ch, long from, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        readFully(ch, b, from);
        return b.array();
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
        long p = at;
        while (b.hasRemaining()) {
            int r = ch.read(b, p);
            if (r < 0) throw new IOException("unexpected end of " + "file while reading its tail");
            p += r;
        }
    }
}
