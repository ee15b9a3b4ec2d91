package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditRecord;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.matchers.predicate.SubjectRegister;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The file of the GDPR register's changes (register.path): what the agent writes, it reads back; what is broken, it names. */
class RegisterFileTest {
    @TempDir
    Path dir;

    /** A register journalled to {@code file}, as the agent's supervisor sets it up. */
    private static SubjectRegister opened(RegisterFile file) {
        SubjectRegister r = new SubjectRegister(SubjectRegister.DEFAULT_CAPACITY);
        file.contents().seed(r);
        r.journal(file);
        return r;
    }

    @Test
    void whatOneRunRecordsTheNextRunStartsFrom() throws Exception {
        Path path = dir.resolve("sub/register.jsonl");   // a missing directory is made
        SubjectRegister run1 = opened(RegisterFile.open(path));
        run1.erase("ada@example.com");
        run1.consent("bob@example.com", "marketing", true);
        run1.consent("eve@example.com", "marketing", true);
        run1.consent("eve@example.com", "marketing", false);
        run1.erase("Zoë \"Z\" Ünal\nsecond line");   // quotes, a line break and non-ASCII stay one line

        List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("{\"op\":\"erase\",\"subject\":\"ada@example.com\",\"time\":\"");
        assertThat(lines.get(1)).startsWith("{\"op\":\"consent\",\"subject\":\"bob@example.com\",\"purpose\":\"marketing\",\"time\":\"");
        assertThat(lines.get(3)).startsWith("{\"op\":\"withdraw\",");

        RegisterFile again = RegisterFile.open(path);
        assertThat(again.contents().lines()).isEqualTo(5);
        SubjectRegister run2 = opened(again);
        assertThat(run2.erased("ada@example.com")).isTrue();
        assertThat(run2.erased("Zoë \"Z\" Ünal\nsecond line")).isTrue();
        assertThat(run2.consented("bob@example.com", "marketing")).isTrue();
        assertThat(run2.consented("eve@example.com", "marketing")).isFalse();
        assertThat(run2.withdrew("eve@example.com", "marketing")).isTrue();
        assertThat(run2.erasures()).isEqualTo(2);
        assertThat(run2.consents()).isEqualTo(1);

        run2.consent("eve@example.com", "marketing", true);   // appended after what was there
        assertThat(Files.readAllLines(path)).hasSize(6);
        assertThat(opened(RegisterFile.open(path)).consented("eve@example.com", "marketing")).isTrue();
    }

    @Test
    void theFileIsCreatedReadableByItsOwnerOnly() throws Exception {
        Path path = dir.resolve("register.jsonl");
        assumeTrue(path.getFileSystem().supportedFileAttributeViews().contains("posix"));
        RegisterFile.open(path);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
    }

    @Test
    void theDigestIsTheSha256OfTheLinesReadAndReadStopsAtTheLinesAsked() throws Exception {
        Path path = dir.resolve("register.jsonl");
        String l1 = "{\"op\":\"erase\",\"subject\":\"a\"}\n";
        String l2 = "{\"op\":\"consent\",\"subject\":\"b\",\"purpose\":\"marketing\"}\n";
        String l3 = "{\"op\":\"erase\",\"subject\":\"c\"}\n";
        Files.writeString(path, l1 + l2 + l3);
        RegisterFile.Contents two = RegisterFile.read(path, 2);
        assertThat(two.lines()).isEqualTo(2);
        assertThat(two.changes()).containsExactly(new RegisterFile.Change(RegisterFile.Op.ERASE, "a", null),
                new RegisterFile.Change(RegisterFile.Op.CONSENT, "b", "marketing"));
        assertThat(two.sha256()).isEqualTo(sha256(l1 + l2));
        assertThat(RegisterFile.open(path).contents().sha256()).isEqualTo(sha256(l1 + l2 + l3));
        assertThat(RegisterFile.read(path, 0).sha256()).isEqualTo(sha256(""));
        assertThat(RegisterFile.read(path, 9).lines()).isEqualTo(3);
    }

    @Test
    void aLastLineCutByAKillIsRemovedAndACompleteOneKeeps() throws Exception {
        Path path = dir.resolve("register.jsonl");
        String good = "{\"op\":\"erase\",\"subject\":\"a\"}\n";
        Files.writeString(path, good + "{\"op\":\"erase\",\"subj");
        RegisterFile f = RegisterFile.open(path);
        assertThat(f.contents().lines()).isEqualTo(1);
        assertThat(Files.readString(path)).isEqualTo(good);
        opened(f).erase("b");
        assertThat(Files.readAllLines(path)).hasSize(2).allSatisfy(l -> assertThat(l).startsWith("{\"op\":\"erase\""));

        Path whole = dir.resolve("whole.jsonl");
        Files.writeString(whole, good + "{\"op\":\"erase\",\"subject\":\"b\"}");   // all but its LF
        SubjectRegister r = opened(RegisterFile.open(whole));
        assertThat(r.erased("b")).isTrue();
        assertThat(Files.readString(whole)).endsWith("\"b\"}\n");
    }

    @Test
    void aMalformedLineIsNamedByFileLineAndColumnWithWhatAndHowToFix() throws Exception {
        String ok = "{\"op\":\"erase\",\"subject\":\"a\"}\n";
        assertMalformed(ok + "{\"op\":\"erase\",\"subject\":}\n", ":2:", "not a JSON object");
        assertMalformed(ok + "\n" + "{\"op\":\"forget\",\"subject\":\"a\"}\n", ":3:2:", "unknown op 'forget' (erase, consent or withdraw)");
        assertMalformed("{\"op\":\"consent\",\"subject\":\"a\"}\n", ":1:1:", "a consent without a \"purpose\" text");
        assertMalformed("{\"op\":\"erase\",\"subject\":\"  \"}\n", ":1:15:", "no \"subject\" text");
        assertMalformed("[1,2]\n", ":1:1:", "not a JSON object");
        assertMalformed("{\"op\":\"erase\",\"subject\":\"a\",\"subject\":\"b\"}\n", ":1:", "Duplicate field 'subject'");
    }

    private void assertMalformed(String content, String where, String what) throws Exception {
        Path path = dir.resolve("bad.jsonl");
        Files.writeString(path, content);
        assertThatThrownBy(() -> RegisterFile.open(path))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(path.toAbsolutePath() + where)
                .hasMessageContaining(what)
                .hasMessageContaining("Correct or delete that line");
    }

    @Test
    void aChangeTheFileCannotTakeIsCountedAndThrownWithoutTheSubject() throws Exception {
        Path path = dir.resolve("register.jsonl");
        RegisterFile f = RegisterFile.open(path);
        SubjectRegister r = opened(f);
        Files.delete(path);
        Files.createDirectory(path);   // the path is now a directory: the reopen after a failure cannot write
        // the open channel still writes to the deleted file; make it fail by closing it through a failed write
        java.lang.reflect.Field out = RegisterFile.class.getDeclaredField("out");
        out.setAccessible(true);
        ((java.nio.channels.FileChannel) out.get(f)).close();
        assertThatThrownBy(() -> r.erase("ada@example.com"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(path.toString())
                .hasMessageContaining("(erase)")
                .hasMessageNotContaining("ada@example.com");
        assertThatThrownBy(() -> r.erase("bob@example.com")).isInstanceOf(UncheckedIOException.class);
        assertThat(f.errors()).isEqualTo(2);
        assertThat(r.erased("ada@example.com")).isTrue();
    }

    @Test
    void theAuditRecordOfTheRegisterReadVerifies() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        w.append(AuditRecord.registerRead("/var/lib/tracegate/register.jsonl", 3, sha256("x")));
        w.append(AuditRecord.of("s1", 1, "CALL", dev.tracegate.agent.audit.Decision.PASS).tool("lookup").time(1L));
        assertThat(w.close(10, TimeUnit.SECONDS)).isTrue();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines.get(1)).contains("\"rec\":\"register\",\"path\":\"/var/lib/tracegate/register.jsonl\",\"lines\":3,\"sha256\":\""
                + sha256("x") + "\"");
        var v = AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.toString()).isTrue();
    }

    private static String sha256(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
