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
 * An audit log in one file, appended to across runs (rotation is not done: use an external tool between
 * runs); a named pipe or a device is written as a stream, each opening starting a new segment.
 */
public final class FileAuditSink implements AuditSink {
    private static final int CHUNK = 8192;

    private final Path path;
    private final UnaryOperator<OutputStream> wrap;
    /** No wrapping stream: the writer may write the file's channel directly. */
    private final boolean direct;

    public FileAuditSink(Path path) {
        this.path = Objects.requireNonNull(path, "path");
        this.wrap = UnaryOperator.identity();
        this.direct = true;
    }

    /** A file sink whose stream passes through {@code wrap} (tests use it to slow writes down or make them fail). */
    public FileAuditSink(Path path, UnaryOperator<OutputStream> wrap) {
        this.path = Objects.requireNonNull(path, "path");
        this.wrap = Objects.requireNonNull(wrap, "wrap");
        this.direct = false;
    }

    public Path path() { return path; }

    @Override public String describe() { return path.toString(); }

    @Override public Opened open() throws IOException {
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
            return new Opened(wrap.apply(Channels.newOutputStream(stream)), direct ? stream : null, null, 0);
        }
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long size = ch.size();
            checkIsAuditLog(ch, size);
            long cut = 0;
            byte[] last = null;
            if (size > 0) {
                long lf = lastIndexOfLf(ch, size);      // -1 if none
                long keep = lf + 1;
                if (keep < size) {
                    cut = size - keep;
                    ch.truncate(keep);
                    ch.force(false);
                }
                if (lf >= 0) {
                    long start = lastIndexOfLf(ch, lf) + 1;
                    last = read(ch, start, (int) (lf - start));
                }
            }
            ch.position(ch.size());
            return new Opened(wrap.apply(Channels.newOutputStream(ch)), direct ? ch : null, last, cut);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private static final byte[] HEADER_START = ("{\"prev\":\"" + AuditLines.GENESIS + "\",\"rec\":\"header\"")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Refuses to append to a file that does not start as an audit log (a mistyped audit.path must not damage another file). */
    private void checkIsAuditLog(FileChannel ch, long size) throws IOException {
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
