package dev.tracegate.agent.audit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks an audit log's hash chain and reports the first line that does not verify.
 *
 * <p>For each line, in this order: it is a JSON object (no duplicate keys); its {@code hash} matches
 * its own bytes (so a changed field is found on the changed line); its {@code prev} is the previous
 * line's {@code hash} (format {@code tracegate-audit/2}; in a segment of format {@code tracegate-audit/1},
 * the SHA-256 of the previous line's whole bytes), or the genesis value on line 1 (so a removed, inserted
 * or reordered line is found where the chain breaks); line 1 is a header; within a session, {@code seq} never decreases
 * (counted from the last header and the session's last END, since a restarted service or a new session
 * with the same id counts again from the start); in format {@code tracegate-audit/3}, an event's {@code lib}
 * names a {@code library} record before it in its segment, and no event follows an {@code unsupervised} record in its
 * segment. A last line
 * without its line end is reported as {@link AuditVerification.Status#TRUNCATED}, not as tampering.
 * Stateless and thread-safe.
 */
public final class AuditVerifier {
    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final byte[] HASH_FIELD = AuditLines.HASH_FIELD.getBytes(StandardCharsets.US_ASCII);

    private AuditVerifier() {}

    /** Verifies the log at {@code path}; an unreadable file is an {@link IOException}, a bad one a {@code BAD} result. */
    public static AuditVerification verify(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return verify(in);
        }
    }

    /** Verifies a log read from {@code in} (not closed). */
    public static AuditVerification verify(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        // what the next line's prev must be: the previous line's hash (format 2), or the SHA-256 of its whole
        // bytes (format 1); which applies is the format of the segment the next line belongs to
        String expectedPrev = AuditLines.GENESIS;
        String expectedPrev1 = AuditLines.GENESIS;
        String segmentFormat = null;
        Map<String, Long> lastSeq = new HashMap<>();
        java.util.Set<Long> libraries = new java.util.HashSet<>();   // lib numbers defined in this segment
        long unsupervisedAt = 0;   // the line of this segment's unsupervised record, 0 when none
        long unsupervised = 0;     // unsupervised records in the whole log
        long dropped = 0;          // events the writer noted it did not write (dropped records' counts)
        long firstDrop = 0;        // the line of the first dropped record
        Map<String, Long> dropReasons = new java.util.LinkedHashMap<>(); // their counts by reason, in order of appearance
        Lines lines = new Lines(in);
        Fields f = new Fields();
        long lineNo = 0;
        long records = 0;
        while (true) {
            int len = lines.next();
            String head = AuditLines.FORMAT_1.equals(segmentFormat) ? expectedPrev1 : expectedPrev;
            if (len < 0) {
                if (lineNo == 0) return bad(1, records, "missing header: the file is empty", head);
                return new AuditVerification(AuditVerification.Status.OK, lineNo, records, 0, null, head).unsupervised(unsupervised).dropped(dropped, firstDrop, dropReasons);
            }
            if (!lines.terminated) {
                return new AuditVerification(AuditVerification.Status.TRUNCATED, lineNo, records, lineNo + 1,
                        len + " bytes without a line end", head).unsupervised(unsupervised).dropped(dropped, firstDrop, dropReasons);
            }
            byte[] line = lines.buf;
            lineNo++;
            if (len == 0) return bad(lineNo, records, "empty line", head);
            if (line[0] == 0) {
                int nuls = 0;
                while (nuls < len && line[nuls] == 0) nuls++;
                return bad(lineNo, records, "the line starts with " + nuls + " NUL bytes" + (lineNo == 1
                        ? ": the file was truncated under a running writer (copytruncate) that went on writing at its old offset, so"
                          + " the records behind the NULs chain from lines the truncation removed and cannot be verified. Rotate in"
                          + " logrotate's create mode, not copytruncate (an agent since session 21 notices a truncation and starts a"
                          + " new segment at offset 0); the copy logrotate made verifies on its own up to the copy"
                        : ": a hole in the file (a write at an offset past its end, as after a truncation under a running writer), not"
                          + " a line the writer wrote"), head);
            }
            if (line[len - 1] == '\r') {
                // the writer ends every line with LF alone: CR LF means the file went through a tool that converted it
                return bad(lineNo, records, "the line ends in CR LF, not LF: the file's line ends were converted (a Windows editor,"
                        + " git core.autocrlf, a copy through a Windows share); convert them back to LF (dos2unix FILE) and verify again", head);
            }
            String problem = f.read(line, len);
            if (problem != null) return bad(lineNo, records, problem, head);

            // the line's own hash covers every byte before ,"hash":"
            int at = len - 2 - 64 - HASH_FIELD.length;
            if (at < 0 || line[len - 1] != '}' || line[len - 2] != '"'
                    || !Arrays.equals(line, at, at + HASH_FIELD.length, HASH_FIELD, 0, HASH_FIELD.length)) {
                return bad(lineNo, records, "no hash at the end of the line", head);
            }
            sha.update(line, 0, at);
            String self = hex(AuditLines.fork(sha).digest());
            String claimed = new String(line, at + HASH_FIELD.length, 64, StandardCharsets.US_ASCII);
            if (!self.equals(claimed) || !claimed.equals(f.hash)) {
                return bad(lineNo, records, "hash mismatch: the line was changed after it was written", head);
            }
            sha.update(line, at, len - at);
            String lineHash = hex(sha.digest());
            String rec = f.rec == null ? "" : f.rec;
            if (lineNo == 1 && !rec.equals("header")) {
                return bad(lineNo, records, "missing header: the first line is not a tracegate audit header", head);
            }
            String format = segmentFormat;
            if (rec.equals("header")) {
                format = f.format == null ? "" : f.format;
                if (!AuditLines.FORMAT.equals(format) && !AuditLines.FORMAT_2.equals(format) && !AuditLines.FORMAT_1.equals(format)) {
                    return bad(lineNo, records, "unsupported format '" + format + "' (this verifier reads " + AuditLines.FORMAT
                            + ", " + AuditLines.FORMAT_2 + " and " + AuditLines.FORMAT_1 + ")", head);
                }
            }
            if (!(AuditLines.FORMAT_1.equals(format) ? expectedPrev1 : expectedPrev).equals(f.prev)) {
                String why = lineNo == 1
                        ? "chain broken: the first line's prev is not the genesis value, so lines before it were removed"
                        : "chain broken: prev is not the hash of line " + (lineNo - 1)
                          + ", so a line was removed, inserted or reordered here, or line " + (lineNo - 1) + " was rewritten";
                return bad(lineNo, records, why, head);
            }
            switch (rec) {
                case "header": {
                    segmentFormat = format;
                    lastSeq.clear();
                    libraries.clear();
                    unsupervisedAt = 0;
                    break;
                }
                case "library": {
                    if (!AuditLines.FORMAT.equals(format)) {
                        return bad(lineNo, records, "a library record in a segment of format " + format + " (only " + AuditLines.FORMAT
                                + " has them)", head);
                    }
                    if (f.lib <= 0) return bad(lineNo, records, "library record without a positive whole-number lib", head);
                    libraries.add(f.lib);
                    break;
                }
                case "event": {
                    if (unsupervisedAt > 0) {
                        return bad(lineNo, records, "an event after the unsupervised record on line " + unsupervisedAt
                                + ", which says the agent supervised nothing more in this run", head);
                    }
                    if (f.session == null || f.seq < 0) {
                        return bad(lineNo, records, "event without a text session or a whole-number seq", head);
                    }
                    if (f.lib != -1 && !libraries.contains(f.lib)) {
                        return bad(lineNo, records, "event refers to library " + (f.lib < 0 ? "(not a whole number)" : f.lib)
                                + ", which no library record before it in its segment defines, so its atoms and verdicts cannot be read", head);
                    }
                    Long before = lastSeq.put(f.session, f.seq);
                    if (before != null && f.seq < before) {
                        return bad(lineNo, records, "sequence out of order: session '" + f.session + "' has seq " + f.seq
                                + " after seq " + before, head);
                    }
                    // an ended session's id may be used again by a new session, which counts from the start
                    if ("end".equals(f.kind)) lastSeq.remove(f.session);
                    records++;
                    break;
                }
                case "dropped":
                    if (f.count > 0) {
                        if (dropped == 0) firstDrop = lineNo;
                        dropped += f.count;
                        dropReasons.merge(f.reason == null ? "" : f.reason, f.count, Long::sum);
                    }
                    break;
                case "register":
                    // the GDPR register the agent started with (register.path): replay --register reads the same lines
                    if (!AuditLines.FORMAT.equals(format)) {
                        return bad(lineNo, records, "a register record in a segment of format " + format + " (only " + AuditLines.FORMAT
                                + " has them)", head);
                    }
                    break;
                case "unsupervised":
                    // the agent could not start (fail: open ran the application without it; closed refused the start)
                    unsupervisedAt = lineNo;
                    unsupervised++;
                    break;
                default:
                    return bad(lineNo, records, "unknown record type '" + rec + "'", head);
            }
            expectedPrev = claimed;
            expectedPrev1 = lineHash;
        }
    }

    /** The top-level fields the verifier needs, read with a streaming parser that still checks the whole line's syntax. */
    private static final class Fields {
        String prev, rec, hash, format, session, kind, reason;
        long seq;
        long count;   // a dropped record's count, 0 when absent
        long lib;   // -1 absent, -2 not a whole number

        /** Reads a line; returns a problem, or null. */
        String read(byte[] line, int len) throws IOException {
            prev = rec = hash = format = session = kind = reason = null;
            seq = -1;
            lib = -1;
            count = 0;
            try (JsonParser p = JSON.createParser(line, 0, len)) {
                if (p.nextToken() != JsonToken.START_OBJECT) return "not a JSON object";
                JsonToken t;
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    String text = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    switch (name) {
                        case "prev": prev = text; break;
                        case "rec": rec = text; break;
                        case "hash": hash = text; break;
                        case "format": format = text; break;
                        case "session": session = text; break;
                        case "kind": kind = text; break;
                        case "reason": reason = text; break;
                        case "count": count = v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? p.getLongValue() : 0; break;
                        case "seq": seq = v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER ? p.getLongValue() : -1; break;
                        case "lib": lib = v == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT ? p.getIntValue() : -2; break;
                        default: p.skipChildren();
                    }
                }
                if (t != JsonToken.END_OBJECT) return "broken JSON: the object is not closed";
                if (p.nextToken() != null) return "broken JSON: more than one value on the line";
                return null;
            } catch (JsonProcessingException e) {
                return "broken JSON: " + e.getOriginalMessage();
            }
        }
    }

    /** Splits a stream into lines without decoding them; {@code buf} holds the last line. */
    private static final class Lines {
        private final InputStream in;
        private final byte[] chunk = new byte[1 << 16];
        private int pos;
        private int end;
        byte[] buf = new byte[4096];
        boolean terminated;

        Lines(InputStream in) { this.in = in; }

        /** The next line's length (its bytes in {@code buf}), or -1 at the end of the input. */
        int next() throws IOException {
            int len = 0;
            while (true) {
                if (pos == end) {
                    end = in.read(chunk, 0, chunk.length);
                    pos = 0;
                    if (end <= 0) {
                        end = 0;
                        terminated = false;
                        return len == 0 ? -1 : len;
                    }
                }
                int lf = pos;
                while (lf < end && chunk[lf] != '\n') lf++;
                int n = lf - pos;
                if (len + n > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
                System.arraycopy(chunk, pos, buf, len, n);
                len += n;
                pos = lf;
                if (lf < end) {
                    pos++;
                    terminated = true;
                    return len;
                }
            }
        }
    }

    private static AuditVerification bad(long line, long records, String why, String head) {
        return new AuditVerification(AuditVerification.Status.BAD, line - 1, records, line, why, head);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] d) {
        return Pseudonymiser.hex(d, d.length);
    }
}
