package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.matchers.predicate.SubjectRegister;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's file of the GDPR register's changes ({@code register.path}): one JSON line per erasure, consent or
 * withdrawal, appended on the thread that records the change, and read back at start so that erasures and consents
 * outlive a restart.
 *
 * <p>Format (UTF-8, one object per line, each ending in LF): {@code {"op":"erase","subject":"ada@example.com","time":"..."}},
 * {@code {"op":"consent","subject":"ada@example.com","purpose":"marketing","time":"..."}}, {@code "op":"withdraw"} likewise;
 * {@code time} (ISO-8601) is for people and is not read back; other fields are ignored; blank lines are skipped.
 * Lines are read in order, as the register recorded them, so the last word of a subject about a purpose wins.
 *
 * <p>Concurrency: {@link #erased} and {@link #consented} are called under the register's monitor (one change at a time);
 * {@link #errors()} may be read from any thread.
 */
public final class RegisterFile implements SubjectRegister.Journal {
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    /** What one line says. */
    public enum Op {
        ERASE("erase"), CONSENT("consent"), WITHDRAW("withdraw");

        final String wire;

        Op(String wire) { this.wire = wire; }

        /** The {@code op} text of a line. */
        public String wire() { return wire; }
    }

    /** One change: an erasure of {@code subject}, or a grant or withdrawal of its consent to {@code purpose}. */
    public record Change(Op op, String subject, String purpose) {
        /** This change as the register restores it. */
        public SubjectRegister.Change toRegister() {
            return op == Op.ERASE ? SubjectRegister.Change.erasure(subject) : SubjectRegister.Change.consent(subject, purpose, op == Op.CONSENT);
        }
    }

    /** The first {@code lines} lines of a register file: their changes, and the SHA-256 (hex) of their bytes. */
    public record Contents(Path file, List<Change> changes, long lines, long bytes, String sha256) {
        /** Records the changes in {@code register}, in order (more erasures than it can hold throw {@link SubjectRegister.Full}). */
        public void seed(SubjectRegister register) {
            List<SubjectRegister.Change> all = new ArrayList<>(changes.size());
            for (Change c : changes) all.add(c.toRegister());
            register.restore(all);
        }
    }

    private final Path file;
    private final Contents contents;
    private final AtomicLong errors = new AtomicLong();
    /** Guarded by the register's monitor (the only caller of the journal methods). */
    private FileChannel out;
    /** The length of the file's complete lines: where the next line goes (a failed write's part is cut off). */
    private long size;

    private RegisterFile(Path file, Contents contents, FileChannel out) {
        this.file = file;
        this.contents = contents;
        this.out = out;
        this.size = contents.bytes();
    }

    /**
     * Opens the file for the agent: creates it (owner-only where the file system has POSIX permissions, with missing
     * directories) or reads every line of it, cutting off a last line without its LF that is not a complete change (a
     * write that a kill interrupted), and keeps it open for appending.
     *
     * @throws IllegalArgumentException a malformed line (file:line:column, what, how to fix), or a file that cannot be
     *         created, read or opened for writing
     */
    public static RegisterFile open(Path file) {
        Path f = file.toAbsolutePath();
        try {
            if (!Files.exists(f)) create(f);
            byte[] all = Files.readAllBytes(f);
            int complete = lastLineEnd(all);
            FileChannel out = FileChannel.open(f, StandardOpenOption.WRITE);
            if (complete < all.length) {
                byte[] tail = java.util.Arrays.copyOfRange(all, complete, all.length);
                if (parseable(tail)) {
                    // the line was written whole but for its LF: it is a change the agent recorded, keep it
                    out.write(ByteBuffer.wrap(new byte[] {'\n'}), all.length);
                    all = java.util.Arrays.copyOf(all, all.length + 1);
                    all[all.length - 1] = '\n';
                    complete = all.length;
                } else {
                    AgentLog.warn("register.path " + f + ": its last line was cut off (" + (all.length - complete) + " bytes without"
                            + " an end of line: a write interrupted by a kill or a crash, whose event was never decided); it is removed");
                    out.truncate(complete);
                }
            }
            try {
                return new RegisterFile(f, parse(f, all, complete, Long.MAX_VALUE), out);
            } catch (IllegalArgumentException malformed) {
                out.close();
                throw malformed;
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("register.path " + f + ": the file of the GDPR register cannot be "
                    + (Files.exists(f) ? "read or opened for writing" : "created") + " (" + e + "). Give a path the JVM's user can"
                    + " write, or leave register.path out to keep the register in memory only (erasures are then forgotten at a restart).", e);
        }
    }

    /**
     * Reads the first {@code maxLines} lines of a register file, as {@code replay --register} does (fewer when the file has
     * fewer complete lines; a last line without its LF is not read).
     *
     * @throws IllegalArgumentException a malformed line (file:line:column, what, how to fix)
     */
    public static Contents read(Path file, long maxLines) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return parse(file, all, lastLineEnd(all), maxLines);
    }

    /** What the file held at start: the changes the register was seeded with. */
    public Contents contents() { return contents; }

    /** The file's absolute path. */
    public Path path() { return file; }

    /** Changes this file could not take (each also an internal error under the failure policy). */
    public long errors() { return errors.get(); }

    @Override public void erased(String subject) {
        append(Op.ERASE, subject, null);
    }

    @Override public void consented(String subject, String purpose, boolean granted) {
        append(granted ? Op.CONSENT : Op.WITHDRAW, subject, purpose);
    }

    /** One line, written to the OS before this returns (the event's decision waits for it); no fsync. */
    private void append(Op op, String subject, String purpose) {
        byte[] line = line(op, subject, purpose, Instant.now());
        try {
            FileChannel ch = out;
            if (ch == null) {
                ch = FileChannel.open(file, StandardOpenOption.WRITE);
                if (ch.size() > size) ch.truncate(size);   // a failed write's part line
                out = ch;
            }
            ByteBuffer b = ByteBuffer.wrap(line);
            long at = size;
            while (b.hasRemaining()) at += ch.write(b, at);
            size = at;
        } catch (IOException | RuntimeException e) {
            errors.incrementAndGet();
            FileChannel ch = out;
            out = null;   // reopened at the next change
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the write's failure is the one reported
                }
            }
            // the message names the file and the change's kind, never the subject (it is personal data)
            throw new UncheckedIOException(new IOException("the GDPR register file " + file + " could not take a change ("
                    + op.wire + "): " + e + ". The change counts in this JVM but is not in the file, so a restart would forget"
                    + " it; the MBean's RegisterFileErrors counts such changes. Free the disk or fix the file's permissions", e));
        }
    }

    /** A change as one line of the file, LF included. */
    static byte[] line(Op op, String subject, String purpose, Instant time) {
        ObjectNode n = JSON.createObjectNode();
        n.put("op", op.wire);
        n.put("subject", subject);
        if (op != Op.ERASE) n.put("purpose", purpose);
        n.put("time", time.toString());
        try {
            return (JSON.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a register line could not be encoded", e);
        }
    }

    private static void create(Path f) throws IOException {
        Path dir = f.getParent();
        if (dir != null) Files.createDirectories(dir);
        try {
            if (f.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                // it holds data subjects' identifiers (a suppression list): readable by the service's user only
                Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(f);
            }
        } catch (FileAlreadyExistsException raced) {
            // another process created it meanwhile: read it as it is
        }
    }

    /** The end of the last LF-terminated line (0: none). */
    private static int lastLineEnd(byte[] all) {
        int i = all.length;
        while (i > 0 && all[i - 1] != '\n') i--;
        return i;
    }

    private static boolean parseable(byte[] tail) {
        try {
            change(null, 0, new String(tail, StandardCharsets.UTF_8));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Contents parse(Path file, byte[] all, int end, long maxLines) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        List<Change> changes = new ArrayList<>();
        var utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        long lines = 0;
        int from = 0;
        while (from < end && lines < maxLines) {
            int lf = from;
            while (all[lf] != '\n') lf++;
            lines++;
            String text;
            try {
                text = utf8.decode(ByteBuffer.wrap(all, from, lf - from)).toString();
            } catch (CharacterCodingException e) {
                throw malformed(file, lines, 1, "the line is not UTF-8 text");
            }
            if (!text.isBlank()) changes.add(change(file, lines, text));
            sha.update(all, from, lf + 1 - from);
            from = lf + 1;
        }
        return new Contents(file, List.copyOf(changes), lines, from, hex(sha.digest()));
    }

    /** One line's change; throws the paragraph that says where and what is wrong. */
    private static Change change(Path file, long lineNo, String text) {
        JsonNode n;
        try {
            n = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            int col = at == null || at.getColumnNr() < 1 ? 1 : at.getColumnNr();
            throw malformed(file, lineNo, col, "not a JSON object (" + e.getOriginalMessage() + ")");
        }
        if (n == null || !n.isObject()) throw malformed(file, lineNo, 1, "not a JSON object");
        JsonNode op = n.get("op");
        if (op == null || !op.isTextual()) {
            throw malformed(file, lineNo, column(text, "op"), "no \"op\" text (erase, consent or withdraw)");
        }
        Op kind = switch (op.asText()) {
            case "erase" -> Op.ERASE;
            case "consent" -> Op.CONSENT;
            case "withdraw" -> Op.WITHDRAW;
            default -> throw malformed(file, lineNo, column(text, "op"), "unknown op '" + op.asText() + "' (erase, consent or withdraw)");
        };
        JsonNode subject = n.get("subject");
        if (subject == null || !subject.isTextual() || subject.asText().isBlank()) {
            throw malformed(file, lineNo, column(text, "subject"), "no \"subject\" text (the data subject, as the agent was given it)");
        }
        JsonNode purpose = n.get("purpose");
        if (kind != Op.ERASE && (purpose == null || !purpose.isTextual() || purpose.asText().isBlank())) {
            throw malformed(file, lineNo, column(text, "purpose"), "a " + kind.wire + " without a \"purpose\" text");
        }
        return new Change(kind, subject.asText(), kind == Op.ERASE ? null : purpose.asText());
    }

    private static int column(String text, String key) {
        int i = text.indexOf("\"" + key + "\"");
        return i < 0 ? 1 : i + 1;
    }

    private static IllegalArgumentException malformed(Path file, long line, int column, String what) {
        return new IllegalArgumentException(file + ":" + line + ":" + column + ": " + what + ". This is the file of the GDPR register's"
                + " erasures and consents (register.path), one JSON object per line: {\"op\":\"erase\",\"subject\":\"ada@example.com\"}"
                + " or {\"op\":\"consent\"|\"withdraw\",\"subject\":...,\"purpose\":\"marketing\"}. Correct or delete that line (keep the"
                + " others: each erasure in it still has to block), or move the file away to start with an empty register, which"
                + " forgets the erasures it holds.");
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder(b.length * 2);
        for (byte x : b) s.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        return s.toString();
    }
}
