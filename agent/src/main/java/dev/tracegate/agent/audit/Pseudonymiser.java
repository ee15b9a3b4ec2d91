package dev.tracegate.agent.audit;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Replaces one personal-data value by a short keyed or salted digest, so that equal values stay equal
 * within one log (structural and equality predicates still replay) while the value itself is not
 * written.
 *
 * <p>Salted mode: {@code "sha256:" + hex(first 16 bytes of SHA-256(salt || typed value))}, the salt
 * being random per log segment and written in the segment's header; anyone holding the log can test a
 * guess of a value (fine for high-entropy values, weak for names or phone numbers). Keyed mode:
 * {@code "hmac:" + hex(first 16 bytes of HMAC-SHA256(key, typed value))}, the key coming from the
 * configuration and never written (the header names only a key id), so a guess cannot be tested
 * without the key. The typed value is one tag byte ({@code s} string, {@code n} number, {@code b}
 * boolean) followed by the value's UTF-8 text, so the string "1" and the number 1 differ.
 *
 * <p>Not thread-safe: the audit writer thread owns one instance.
 */
final class Pseudonymiser {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    static final int DIGEST_BYTES = 16;

    private final MessageDigest sha;
    private final Mac mac;
    private final byte[] salt;
    private final String prefix;
    private final byte[] prefixBytes;
    private final byte[] scratch = new byte[32];
    private byte[] input = new byte[128];   // [salt] tag value: one digest's input
    private boolean inputHasSalt;           // input begins with the salt (copied once; growing the array keeps it)
    private final StringBuilder out = new StringBuilder(7 + 2 * DIGEST_BYTES);

    private Pseudonymiser(byte[] salt, byte[] key) {
        try {
            if (key != null) {
                this.mac = Mac.getInstance("HmacSHA256");
                this.mac.init(new SecretKeySpec(key, "HmacSHA256"));
                this.sha = null;
                this.salt = null;
                this.prefix = "hmac:";
            } else {
                this.mac = null;
                this.sha = MessageDigest.getInstance("SHA-256");
                this.salt = salt.clone();
                this.prefix = "sha256:";
            }
            this.prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM lacks SHA-256/HmacSHA256, which every Java 17 JVM must provide", e);
        }
    }

    static Pseudonymiser salted(byte[] salt) { return new Pseudonymiser(salt, null); }

    static Pseudonymiser keyed(byte[] key) { return new Pseudonymiser(null, key); }

    /** A short public name of an HMAC key (first 8 hex digits of SHA-256 of it), to tell keys apart. */
    static String keyId(byte[] key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key);
            return hex(d, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A data subject as the contracts compare it (matchers' TextHash): case-folded, without white space and the marks
     * {@code - ( )}; the value itself when it is already in that form (nothing allocated). A consent's or erasure's
     * subject and a call's subject-field values are digested in this form, so that a hashed log replays consent and
     * erasure by subject as the agent decided them ({@code Ada@Example.com} and {@code ada@example.com} are one subject
     * online: trial17 found replay reporting P1 violations for them).
     */
    static String subjectForm(String value) {
        int n = value.length();
        int i = 0;
        while (i < n && folded(value.charAt(i)) == value.charAt(i)) i++;
        if (i == n) return value;
        StringBuilder b = new StringBuilder(n).append(value, 0, i);
        for (; i < n; i++) {
            int c = folded(value.charAt(i));
            if (c >= 0) b.append((char) c);
        }
        return b.toString();
    }

    /** The char as TextHash reads it: case-folded, or -1 for white space and the marks {@code - ( )}, which it skips. */
    private static int folded(char c) {
        if (c < 128) {
            if (c <= ' ' ? c == ' ' || c == '\t' || c == '\n' || c == '\r' : c == '-' || c == '(' || c == ')') return -1;
            return c >= 'A' && c <= 'Z' ? c + 32 : c;
        }
        return c == '\u00A0' ? -1 : Character.toLowerCase(c);
    }

    /** The digest of a value of the given type tag ('s', 'n', 'b'). */
    String digest(char tag, String value) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] d;
        if (mac != null) {
            mac.update((byte) tag);
            d = mac.doFinal(v);
        } else {
            sha.update(salt);
            sha.update((byte) tag);
            d = sha.digest(v);
        }
        out.setLength(0);
        out.append(prefix);
        for (int i = 0; i < DIGEST_BYTES; i++) out.append(HEX[(d[i] >> 4) & 15]).append(HEX[d[i] & 15]);
        return out.toString();
    }

    /**
     * The digest of a typed value given as UTF-8 bytes {@code utf8[from, to)}, written as ASCII text (the
     * same text {@link #digest} returns) into {@code out} at {@code at}; returns the end. Allocates nothing;
     * {@code out} must have room for {@link #textLength()} bytes.
     */
    int write(char tag, byte[] utf8, int from, int to, byte[] out, int at) {
        // the digest's input (salt, tag, value) laid out in one array and given in one update: each update call
        // costs the provider's checks and a copy into its block buffer, about as much as a short value's hashing
        int n = to - from;
        int start = salt == null ? 0 : salt.length;
        if (input.length < start + 1 + n) input = Arrays.copyOf(input, Math.max(start + 1 + n, 2 * input.length));
        if (salt != null && !inputHasSalt) {
            System.arraycopy(salt, 0, input, 0, salt.length);
            inputHasSalt = true;
        }
        input[start] = (byte) tag;
        System.arraycopy(utf8, from, input, start + 1, n);
        try {
            if (mac != null) {
                mac.update(input, 0, 1 + n);
                mac.doFinal(scratch, 0);
            } else {
                sha.update(input, 0, start + 1 + n);
                sha.digest(scratch, 0, scratch.length);
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the digest buffer is too short", e);
        }
        for (int i = 0; i < prefixBytes.length; i++) out[at++] = prefixBytes[i];
        for (int i = 0; i < DIGEST_BYTES; i++) {
            out[at++] = (byte) HEX[(scratch[i] >> 4) & 15];
            out[at++] = (byte) HEX[scratch[i] & 15];
        }
        return at;
    }

    /** The length of a digest's text ({@code "sha256:"} or {@code "hmac:"} and 32 hex digits). */
    int textLength() { return prefixBytes.length + 2 * DIGEST_BYTES; }

    static String hex(byte[] b, int n) {
        char[] c = new char[2 * n];
        for (int i = 0; i < n; i++) { c[2 * i] = HEX[(b[i] >> 4) & 15]; c[2 * i + 1] = HEX[b[i] & 15]; }
        return new String(c);
    }
}
