package dev.tracegate.agent.audit;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
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
 * its own bytes (so a changed field is found on the changed line); its {@code prev} is the SHA-256 of
 * the previous line's bytes, or the genesis value on line 1 (so a removed, inserted or reordered line is
 * found where the chain breaks); line 1 is a header; within a session, {@code seq} never decreases
 * (counted from the last header, since a restarted service starts its sessions again). A last line
 * without its line end is reported as {@link AuditVerification.Status#TRUNCATED}, not as tampering.
 * Stateless and thread-safe.
 */
public final class AuditVerifier {
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final byte[] HASH_FIELD = AuditLines.HASH_FIELD.getBytes(StandardCharsets.US_ASCII);

    private AuditVerifier() {}

    /** Verifies the log at {@code path}; an unreadable file is an {@link IOException}, a bad one a {@code BAD} result. */
    public static AuditVerification verify(Path path) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16)) {
            return verify(in);
        }
    }

    /** Verifies a log read from {@code in} (not closed). */
    public static AuditVerification verify(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        String expectedPrev = AuditLines.GENESIS;
        Map<String, Long> lastSeq = new HashMap<>();
        byte[] line = new byte[4096];
        long lineNo = 0;
        long records = 0;
        while (true) {
            int len = 0;
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                if (len == line.length) line = Arrays.copyOf(line, len * 2);
                line[len++] = (byte) b;
            }
            if (b < 0) {
                if (len == 0) {
                    if (lineNo == 0) return bad(1, records, "missing header: the file is empty", expectedPrev);
                    return new AuditVerification(AuditVerification.Status.OK, lineNo, records, 0, null, expectedPrev);
                }
                return new AuditVerification(AuditVerification.Status.TRUNCATED, lineNo, records, lineNo + 1,
                        len + " bytes without a line end", expectedPrev);
            }
            lineNo++;
            if (len == 0) return bad(lineNo, records, "empty line", expectedPrev);
            JsonNode node;
            try {
                node = JSON.readTree(line, 0, len);
            } catch (JsonProcessingException e) {
                return bad(lineNo, records, "broken JSON: " + e.getOriginalMessage(), expectedPrev);
            }
            if (node == null || !node.isObject()) return bad(lineNo, records, "not a JSON object", expectedPrev);

            // the line's own hash covers every byte before ,"hash":"
            int at = len - 2 - 64 - HASH_FIELD.length;
            if (at < 0 || line[len - 1] != '}' || line[len - 2] != '"'
                    || !Arrays.equals(line, at, at + HASH_FIELD.length, HASH_FIELD, 0, HASH_FIELD.length)) {
                return bad(lineNo, records, "no hash at the end of the line", expectedPrev);
            }
            sha.update(line, 0, at);
            String self = hex(sha.digest());
            String claimed = new String(line, at + HASH_FIELD.length, 64, StandardCharsets.US_ASCII);
            if (!self.equals(claimed) || !claimed.equals(node.path("hash").asText())) {
                return bad(lineNo, records, "hash mismatch: the line was changed after it was written", expectedPrev);
            }
            String rec = node.path("rec").asText("");
            if (lineNo == 1 && !rec.equals("header")) {
                return bad(lineNo, records, "missing header: the first line is not a tracegate audit header", expectedPrev);
            }
            String prev = node.path("prev").asText(null);
            if (!expectedPrev.equals(prev)) {
                String why = lineNo == 1
                        ? "chain broken: the first line's prev is not the genesis value, so lines before it were removed"
                        : "chain broken: prev is not the hash of line " + (lineNo - 1)
                          + ", so a line was removed, inserted or reordered here, or line " + (lineNo - 1) + " was rewritten";
                return bad(lineNo, records, why, expectedPrev);
            }
            switch (rec) {
                case "header": {
                    String format = node.path("format").asText("");
                    if (!AuditLines.FORMAT.equals(format)) {
                        return bad(lineNo, records, "unsupported format '" + format + "' (this verifier reads " + AuditLines.FORMAT + ")", expectedPrev);
                    }
                    lastSeq.clear();
                    break;
                }
                case "event": {
                    JsonNode s = node.get("session");
                    JsonNode q = node.get("seq");
                    if (s == null || !s.isTextual() || q == null || !q.canConvertToLong()) {
                        return bad(lineNo, records, "event without a text session or a whole-number seq", expectedPrev);
                    }
                    long seq = q.asLong();
                    Long before = lastSeq.put(s.asText(), seq);
                    if (before != null && seq < before) {
                        return bad(lineNo, records, "sequence out of order: session '" + s.asText() + "' has seq " + seq
                                + " after seq " + before, expectedPrev);
                    }
                    records++;
                    break;
                }
                case "dropped":
                    break;
                default:
                    return bad(lineNo, records, "unknown record type '" + rec + "'", expectedPrev);
            }
            sha.update(line, 0, len);
            expectedPrev = hex(sha.digest());
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
