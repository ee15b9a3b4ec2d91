package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.config.PersonalData;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditChainTest {
    private static final String[] CONTRACTS = {"no-refund-without-approval", "gdpr-p4"};

    @TempDir Path dir;

    private static AuditRecord record(int i) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("email", "user" + i + "@example.org");
        args.put("amount", i * 10);
        args.put("tags", List.of("a", "b"));
        return AuditRecord.of("s" + (i % 3), i, "CALL", i % 4 == 3 ? Decision.BLOCK : Decision.PASS)
                .ts(1_700_000_000_000L + i).tool("t" + i).id("call-" + i).args(args)
                .atoms("call:t" + i, "count(t)<=3")
                .verdicts(CONTRACTS, new byte[] {AuditRecord.ACTIVE, i % 4 == 3 ? AuditRecord.FAIL : AuditRecord.IDLE})
                .fired(i % 4 == 3 ? new String[] {"no-refund-without-approval"} : new String[0])
                .latencyNs(500 + i);
    }

    /** A log of a header and {@code n} event lines. */
    private Path log(int n, AuditWriter.Settings settings) {
        Path p = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(p, settings);
        for (int i = 0; i < n; i++) assertThat(w.append(record(i))).isEqualTo(AuditWriter.Admission.ACCEPTED);
        assertThat(w.close(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(w.written()).isEqualTo(n);
        return p;
    }

    private Path log(int n) {
        return log(n, AuditWriter.Settings.defaults());
    }

    private static String sha256Hex(String line) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(line.getBytes(StandardCharsets.UTF_8)));
    }

    /** trial10 audit-verify-crlf-message: an intact log whose line ends were converted was reported as "no hash at the end of the line". */
    @Test
    void aLogWhoseLineEndsWereConvertedToCrLfSaysSo() throws Exception {
        Path p = log(3);
        Files.writeString(p, Files.readString(p).replace("\n", "\r\n"));
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isNotEqualTo(AuditVerification.Status.OK);
        assertThat(v.describe()).contains("line 1").contains("CR LF").contains("dos2unix").doesNotContain("no hash");
    }

    @Test
    void roundTripVerifiesAndEachPrevIsThePreviousLinesHashOfItsBytes() throws Exception {
        Path p = log(10);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.records()).isEqualTo(10);
        assertThat(v.lines()).isEqualTo(11);
        // the header is a record too (CONFIG.md lists it among the record types): 11 records, 10 of them events (C18)
        assertThat(v.describe()).startsWith("ok: 11 records (10 events), chain intact; head ");

        // independent of the verifier: recompute the chain from the raw lines
        List<String> lines = LogFiles.lines(p);
        String expected = "0".repeat(64);
        for (String line : lines) {
            JsonNode n = LogFiles.JSON.readTree(line);
            assertThat(n.get("prev").asText()).isEqualTo(expected);
            int at = line.lastIndexOf(",\"hash\":\"");
            assertThat(sha256Hex(line.substring(0, at))).isEqualTo(n.get("hash").asText());
            assertThat(line.substring(at)).isEqualTo(",\"hash\":\"" + n.get("hash").asText() + "\"}");
            expected = sha256Hex(line.substring(0, at));
        }
        assertThat(v.head()).isEqualTo(expected);
    }

    /** Writes lines of the reference encoder in an older format (1: prev = SHA-256 of the previous line's whole bytes; 2) after {@code file}'s last line. */
    private static void appendFormat(Path file, int records, int format) throws Exception {
        List<String> lines = Files.exists(file) ? LogFiles.lines(file) : new ArrayList<>();
        ReferenceAuditLines old = new ReferenceAuditLines(format);
        old.chainFrom(lines.isEmpty() ? null : lines.get(lines.size() - 1).getBytes(StandardCharsets.UTF_8));
        old.header(1_700_000_000_000L, null, null);
        lines.add(new String(old.buffer(), 0, old.length(), StandardCharsets.UTF_8));
        for (int i = 0; i < records; i++) {
            old.event(record(i).time(1_700_000_000_000L + i));
            lines.add(new String(old.buffer(), 0, old.length(), StandardCharsets.UTF_8));
        }
        LogFiles.write(file, lines);
    }

    @Test
    void logsOfTheFormerFormatsStillVerifyAndTheWriterContinuesThemInTheNewOne() throws Exception {
        Path p = dir.resolve("audit.jsonl");
        appendFormat(p, 5, 1);
        assertThat(LogFiles.records(p).get(0).get("format").asText()).isEqualTo("tracegate-audit/1");
        AuditVerification old = AuditVerifier.verify(p);
        assertThat(old.status()).as(old.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(old.records()).isEqualTo(5);
        List<String> oldLines = LogFiles.lines(p);
        assertThat(old.head()).as("format 1: the next prev is the SHA-256 of the last line's bytes")
                .isEqualTo(sha256Hex(oldLines.get(oldLines.size() - 1)));

        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());   // a new agent appends a format-3 segment
        for (int i = 5; i < 9; i++) w.append(record(i));
        w.close();
        AuditVerification mixed = AuditVerifier.verify(p);
        assertThat(mixed.status()).as(mixed.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(mixed.records()).isEqualTo(9);

        appendFormat(p, 2, 2);   // an agent of format 2 after it
        appendFormat(p, 3, 1);   // and one of format 1 after that
        assertThat(LogFiles.ofType(p, "header")).extracting(h -> h.get("format").asText())
                .containsExactly("tracegate-audit/1", "tracegate-audit/3", "tracegate-audit/2", "tracegate-audit/1");
        AuditVerification back = AuditVerifier.verify(p);
        assertThat(back.status()).as(back.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(back.records()).isEqualTo(14);
        List<String> lines = LogFiles.lines(p);
        // a changed format-2 line is found on that line
        int format2 = lines.size() - 4 - 1;   // the last of the format-2 events (seq 1)
        List<String> changed2 = new ArrayList<>(lines);
        changed2.set(format2, changed2.get(format2).replace("\"seq\":1,", "\"seq\":2,"));
        assertThat(changed2.get(format2)).isNotEqualTo(lines.get(format2));
        LogFiles.write(p, changed2);
        assertThat(AuditVerifier.verify(p).badLine()).isEqualTo(format2 + 1);

        // a changed format-1 line is still found on that line, and one removed where the chain breaks
        List<String> edited = new ArrayList<>(lines);
        edited.set(3, edited.get(3).replace("\"decision\":\"pass\"", "\"decision\":\"block\""));
        assertThat(edited.get(3)).isNotEqualTo(lines.get(3));
        LogFiles.write(p, edited);
        assertThat(AuditVerifier.verify(p).badLine()).isEqualTo(4);
        List<String> removed = new ArrayList<>(lines);
        removed.remove(lines.size() - 2);
        LogFiles.write(p, removed);
        AuditVerification cut = AuditVerifier.verify(p);
        assertThat(cut.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(cut.badLine()).isEqualTo(lines.size() - 1);
        assertThat(cut.reason()).startsWith("chain broken");
    }

    /** Decodes a format-3 record's atoms and verdicts as CONFIG.md says, with the library record it names. */
    private static List<String> decodedAtoms(JsonNode library, JsonNode event) {
        List<String> held = new ArrayList<>();
        String hex = event.get("atoms").asText();
        for (int k = 0; k < hex.length(); k++) {
            int d = Character.digit(hex.charAt(k), 16);
            for (int j = 0; j < 4; j++) if ((d & 1 << j) != 0) held.add(library.get("atoms").get(4 * k + j).asText());
        }
        return held;
    }

    @Test
    void recordsGivenAgainstALibraryTableAreWrittenCompactlyAfterOneLibraryRecordAndReadBackAsGiven() throws Exception {
        String[] atoms = new String[70];
        for (int i = 0; i < atoms.length; i++) atoms[i] = "atom" + i;
        LibraryTable small = new LibraryTable(CONTRACTS, new String[] {"call:refund", "count(refund) <= 3", "x", "y", "z"});
        LibraryTable wide = new LibraryTable(new String[] {"c0", "c1", "c2"}, atoms);
        Path p = dir.resolve("compact.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        w.append(AuditRecord.of("s", 1, "CALL", Decision.PASS).atoms(small, new long[] {0b10110})
                .verdicts(small, AuditRecord.pack(AuditRecord.pack(0, 0, AuditRecord.FAIL), 1, AuditRecord.IDLE)));
        w.append(AuditRecord.of("s", 2, "CALL", Decision.ESCALATE).atoms(small, new long[] {0}).verdicts(small, new byte[] {1, 2})
                .fired("gdpr-p4").approved(true));
        w.append(AuditRecord.of("t", 1, "CALL", Decision.PASS).atoms(wide, new long[] {1L << 63, 1L << 5})
                .verdicts(wide, new byte[] {2, 1, 0}));
        w.append(AuditRecord.of("s", 3, "END", Decision.END).verdicts(small, new byte[] {1, 1}));
        assertThat(w.close(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        List<JsonNode> libraries = LogFiles.ofType(p, "library");
        assertThat(libraries).hasSize(2);   // one per table, each before the first record that needs it
        assertThat(libraries.get(0).get("lib").asInt()).isEqualTo(1);
        assertThat(libraries.get(0).get("contracts").toString()).isEqualTo("[\"no-refund-without-approval\",\"gdpr-p4\"]");
        List<JsonNode> events = LogFiles.ofType(p, "event");
        assertThat(events.get(0).get("lib").asInt()).isEqualTo(1);
        assertThat(events.get(0).get("atoms").asText()).isEqualTo("61");
        assertThat(decodedAtoms(libraries.get(0), events.get(0))).containsExactly("count(refund) <= 3", "x", "z");
        assertThat(events.get(0).get("verdicts").asText()).isEqualTo("FI");
        assertThat(events.get(1).get("atoms").asText()).isEmpty();
        assertThat(events.get(1).get("verdicts").asText()).isEqualTo("AF");
        assertThat(events.get(1).get("approved").asBoolean()).isTrue();
        assertThat(events.get(0).has("approved")).isFalse();
        assertThat(events.get(2).get("lib").asInt()).isEqualTo(2);
        assertThat(decodedAtoms(libraries.get(1), events.get(2))).containsExactly("atom63", "atom69");
        assertThat(events.get(2).get("verdicts").asText()).isEqualTo("FAI");
        assertThat(events.get(3).get("lib").asInt()).isEqualTo(1);
        assertThat(events.get(3).get("verdicts").asText()).isEqualTo("AA");

        // an event whose lib names no library record before it cannot be read: verify names the line
        List<String> lines = LogFiles.lines(p);
        int firstLibrary = 1;
        assertThat(lines.get(firstLibrary)).contains("\"rec\":\"library\"");
        List<String> without = new ArrayList<>(lines);
        without.remove(firstLibrary);
        AuditLines relinker = new AuditLines();   // re-chain the rest, so only the missing library is wrong
        List<String> rechained = new ArrayList<>();
        for (String line : without) {
            String body = line.substring(line.indexOf(",\"rec\""), line.lastIndexOf(",\"hash\":\""));
            String withPrev = "{\"prev\":\"" + relinker.head() + "\"" + body;
            String hash = sha256Hex(withPrev);
            rechained.add(withPrev + ",\"hash\":\"" + hash + "\"}");
            relinker.chainFrom((withPrev + ",\"hash\":\"" + hash + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        LogFiles.write(p, rechained);
        AuditVerification dangling = AuditVerifier.verify(p);
        assertThat(dangling.badLine()).as(dangling.describe()).isEqualTo(2);
        assertThat(dangling.reason()).startsWith("event refers to library 1, which no library record before it");
    }

    @Test
    void aRunThatCouldNotStartEndsWithAnUnsupervisedRecordAfterWhichNoEventOfItsSegmentVerifies() throws Exception {
        Path p = dir.resolve("unsupervised.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        assertThat(w.closeUnsupervised(dev.tracegate.agent.config.FailPolicy.OPEN, "lib.yaml:4:28: in formula 'G(x ->': unexpected end\n  hint: ...")).isTrue();
        List<String> lines = LogFiles.lines(p);
        assertThat(lines).hasSize(2);
        JsonNode u = LogFiles.JSON.readTree(lines.get(1));
        assertThat(u.get("rec").asText()).isEqualTo("unsupervised");
        assertThat(u.get("fail").asText()).isEqualTo("open");
        assertThat(u.get("reason").asText()).isEqualTo("lib.yaml:4:28: in formula 'G(x ->': unexpected end\n  hint: ...");
        AuditVerification ok = AuditVerifier.verify(p);
        assertThat(ok.ok()).as(ok.describe()).isTrue();
        assertThat(ok.unsupervised()).isEqualTo(1);
        assertThat(ok.records()).isZero();
        assertThat(ok.describe()).contains("1 run was not supervised");

        // an event chained after it in the same segment contradicts it: verify names the line
        List<String> event = LogFiles.lines(log(1));
        String eventBody = event.get(event.size() - 1);
        eventBody = eventBody.substring(eventBody.indexOf(",\"rec\""), eventBody.lastIndexOf(",\"hash\":\""));
        String withPrev = "{\"prev\":\"" + u.get("hash").asText() + "\"" + eventBody;
        List<String> forged = new ArrayList<>(lines);
        forged.add(withPrev + ",\"hash\":\"" + sha256Hex(withPrev) + "\"}");
        LogFiles.write(p, forged);
        AuditVerification bad = AuditVerifier.verify(p);
        assertThat(bad.status()).as(bad.describe()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(bad.badLine()).isEqualTo(3);
        assertThat(bad.reason()).startsWith("an event after the unsupervised record on line 2");
    }

    @Test
    void aHeaderOfAnUnknownFormatIsNamed() throws Exception {
        Path p = log(2);
        List<String> lines = LogFiles.lines(p);
        AuditLines forger = new AuditLines();
        forger.chainFrom(lines.get(2).getBytes(StandardCharsets.UTF_8));
        forger.header(1, null, null);
        String header = new String(forger.buffer(), 0, forger.length(), StandardCharsets.UTF_8);
        // a header of a format this verifier does not know, with a valid hash of its own bytes
        String body = header.substring(0, header.lastIndexOf(",\"hash\":\"")).replace("tracegate-audit/3", "tracegate-audit/9");
        lines.add(body + ",\"hash\":\"" + sha256Hex(body) + "\"}");
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.badLine()).isEqualTo(4);
        assertThat(v.reason()).isEqualTo("unsupported format 'tracegate-audit/9' (this verifier reads tracegate-audit/3, tracegate-audit/2 and tracegate-audit/1)");
    }

    @Test
    void eventPartHasTheShapeOfATraceLineAndTheRestSaysWhatWasDecided() throws Exception {
        Path p = log(4, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        JsonNode header = LogFiles.records(p).get(0);
        assertThat(header.get("rec").asText()).isEqualTo("header");
        assertThat(header.get("format").asText()).isEqualTo("tracegate-audit/3");
        assertThat(header.get("personalData").asText()).isEqualTo("clear");

        JsonNode e = LogFiles.ofType(p, "event").get(3);
        assertThat(e.get("session").asText()).isEqualTo("s0");
        assertThat(e.get("seq").asLong()).isEqualTo(3);
        assertThat(e.get("ts").asLong()).isEqualTo(1_700_000_000_003L);
        assertThat(e.get("kind").asText()).isEqualTo("call");
        assertThat(e.get("tool").asText()).isEqualTo("t3");
        assertThat(e.get("id").asText()).isEqualTo("call-3");
        assertThat(e.get("args").get("email").asText()).isEqualTo("user3@example.org");
        assertThat(e.get("args").get("amount").asInt()).isEqualTo(30);
        assertThat(e.get("args").get("tags").get(1).asText()).isEqualTo("b");
        assertThat(e.get("atoms").get(0).asText()).isEqualTo("call:t3");
        assertThat(e.get("verdicts").get("no-refund-without-approval").asText()).isEqualTo("ACTIVE");
        assertThat(e.get("verdicts").get("gdpr-p4").asText()).isEqualTo("FAIL");
        assertThat(e.get("decision").asText()).isEqualTo("block");
        assertThat(e.get("fired").get(0).asText()).isEqualTo("no-refund-without-approval");
        assertThat(e.get("latencyNs").asLong()).isEqualTo(503);
        assertThat(e.has("time")).isTrue();
    }

    @Test
    void atomsGivenAsBitsOverATableAreWrittenAsTheirKeys() throws Exception {
        Path p = dir.resolve("bits.jsonl");
        String[] table = new String[70];
        for (int i = 0; i < table.length; i++) table[i] = "a" + i;
        long[] bits = new long[2];
        bits[0] |= 1L << 2;
        bits[1] |= 1L << (65 - 64);
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        w.append(AuditRecord.of("s", 1, "END", Decision.END).atoms(table, bits).unmet("refund-approved"));
        w.close();
        JsonNode e = LogFiles.ofType(p, "event").get(0);
        assertThat(e.get("atoms").toString()).isEqualTo("[\"a2\",\"a65\"]");
        assertThat(e.get("unmet").get(0).asText()).isEqualTo("refund-approved");
        assertThat(e.get("decision").asText()).isEqualTo("end");
    }

    @Test
    void personalDataIsHashedWithThePerFileSaltKeepingStructureAndEquality() throws Exception {
        Path p = dir.resolve("hashed.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        for (int i = 0; i < 3; i++) {
            w.append(AuditRecord.of("s", i, "CALL", Decision.PASS).tool("lookup")
                    .args(Map.of("email", i < 2 ? "ann@example.org" : "bob@example.org", "n", 7))
                    .result("Ann Smith, 12 High St").text("hello ann").subject("ann"));
        }
        w.close();
        String all = Files.readString(p);
        assertThat(all).doesNotContain("ann@example.org", "bob@example.org", "Ann Smith", "hello ann", "\"ann\"");
        JsonNode header = LogFiles.records(p).get(0);
        assertThat(header.get("personalData").asText()).isEqualTo("salted-sha256");
        assertThat(header.get("salt").asText()).hasSize(32);
        List<JsonNode> ev = LogFiles.ofType(p, "event");
        String d0 = ev.get(0).get("args").get("email").asText();
        assertThat(d0).startsWith("sha256:").hasSize(7 + 32);
        assertThat(ev.get(1).get("args").get("email").asText()).isEqualTo(d0);
        assertThat(ev.get(2).get("args").get("email").asText()).isNotEqualTo(d0);
        assertThat(ev.get(0).get("args").get("n").asText()).startsWith("sha256:");
        assertThat(ev.get(0).get("tool").asText()).isEqualTo("lookup"); // structure stays readable
        assertThat(ev.get(0).get("result").asText()).startsWith("sha256:");
        assertThat(ev.get(0).get("subject").asText()).startsWith("sha256:");
        assertThat(AuditVerifier.verify(p).ok()).isTrue();

        // the salt is per file: the same value in another log has another digest
        Path q = dir.resolve("hashed2.jsonl");
        AuditWriter w2 = AuditWriter.start(q, AuditWriter.Settings.defaults());
        w2.append(AuditRecord.of("s", 0, "CALL", Decision.PASS).args(Map.of("email", "ann@example.org")));
        w2.close();
        assertThat(LogFiles.ofType(q, "event").get(0).get("args").get("email").asText()).isNotEqualTo(d0);
    }

    @Test
    void keyedHashingNamesTheKeyButNeverWritesItOrASalt() throws Exception {
        byte[] key = "a key from the configuration".getBytes(StandardCharsets.UTF_8);
        String[] digests = new String[2];
        for (int k = 0; k < 2; k++) {
            Path p = dir.resolve("hmac" + k + ".jsonl");
            AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().hmacKey(key));
            w.append(AuditRecord.of("s", 0, "USER", Decision.PASS).text("my card is 4111 1111 1111 1111"));
            w.close();
            JsonNode header = LogFiles.records(p).get(0);
            assertThat(header.get("personalData").asText()).isEqualTo("hmac-sha256");
            assertThat(header.has("salt")).isFalse();
            assertThat(header.get("keyId").asText()).hasSize(8);
            // the card as written, not a hex digest or a timestamp that happens to hold "4111" (0.1% each)
            assertThat(Files.readString(p).replaceAll("[0-9a-f]{32,}", "<hex>")).doesNotContain("a key from", "4111 1111");
            digests[k] = LogFiles.ofType(p, "event").get(0).get("text").asText();
            assertThat(digests[k]).startsWith("hmac:");
        }
        // the same key gives the same digest across files: logs can be joined on hashed values
        assertThat(digests[1]).isEqualTo(digests[0]);
    }

    @Test
    void aRemovedLineIsFoundWhereTheChainBreaks() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        lines.remove(5);             // line 6 goes; the old line 7 becomes line 6
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.badLine()).isEqualTo(6);
        assertThat(v.reason()).startsWith("chain broken: prev is not the hash of line 5");
        assertThat(v.records()).isEqualTo(4);
    }

    @Test
    void aReorderedPairIsFoundAtTheFirstOfThem() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        String l6 = lines.get(5);
        lines.set(5, lines.get(6));
        lines.set(6, l6);
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.badLine()).isEqualTo(6);
        assertThat(v.reason()).startsWith("chain broken");
    }

    @Test
    void anEditedFieldIsFoundOnTheEditedLine() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        assertThat(lines.get(5)).contains("\"decision\":\"pass\"");
        lines.set(5, lines.get(5).replace("\"decision\":\"pass\"", "\"decision\":\"block\""));
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.badLine()).isEqualTo(6);
        assertThat(v.reason()).isEqualTo("hash mismatch: the line was changed after it was written");
    }

    @Test
    void anInsertedCopyOfALineIsFoundWhereItStands() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        lines.add(6, lines.get(2));
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.badLine()).isEqualTo(7);
        assertThat(v.reason()).startsWith("chain broken");
    }

    @Test
    void anInsertedLineForgedWithAValidSelfHashAndPrevIsFoundOnTheLineAfterIt() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        AuditLines forger = new AuditLines();
        forger.chainFrom(lines.get(5).getBytes(StandardCharsets.UTF_8));
        forger.event(AuditRecord.of("s2", 5, "CALL", Decision.PASS).time(1).tool("approve_refund"));
        lines.add(6, new String(forger.buffer(), 0, forger.length(), StandardCharsets.UTF_8));
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.badLine()).isEqualTo(8);
        assertThat(v.reason()).contains("line 7 was rewritten");
    }

    @Test
    void aTruncatedLastLineIsACleanPrefixNotTampering() throws Exception {
        Path p = log(10);
        byte[] all = Files.readAllBytes(p);
        int lastStart = new String(all, StandardCharsets.UTF_8).lastIndexOf('\n', all.length - 2) + 1;
        Files.write(p, java.util.Arrays.copyOf(all, lastStart + 40));
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.TRUNCATED);
        assertThat(v.records()).isEqualTo(9);
        assertThat(v.badLine()).isEqualTo(11);
        assertThat(v.describe()).startsWith("clean prefix of 10 records (9 events), last line truncated (line 11: 40 bytes without a line end)");
    }

    @Test
    void aLineCutInTheMiddleOfTheFileIsBrokenJson() throws Exception {
        Path p = log(10);
        List<String> lines = LogFiles.lines(p);
        lines.set(5, lines.get(5).substring(0, 50));
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.badLine()).isEqualTo(6);
        assertThat(v.reason()).startsWith("broken JSON");
    }

    @Test
    void aLogWithoutItsHeaderOrEmptyIsReportedAsMissingTheHeader() throws Exception {
        Path p = log(3);
        List<String> lines = LogFiles.lines(p);
        lines.remove(0);
        LogFiles.write(p, lines);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.badLine()).isEqualTo(1);
        assertThat(v.reason()).isEqualTo("missing header: the first line is not a tracegate audit header");

        Path empty = Files.createFile(dir.resolve("empty.jsonl"));
        AuditVerification e = AuditVerifier.verify(empty);
        assertThat(e.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(e.reason()).isEqualTo("missing header: the file is empty");
    }

    @Test
    void aSessionsSeqGoingBackwardsIsReportedEvenWithAnIntactChain() throws Exception {
        Path p = dir.resolve("seq.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        w.append(AuditRecord.of("a", 1, "CALL", Decision.PASS));
        w.append(AuditRecord.of("b", 1, "CALL", Decision.PASS));
        w.append(AuditRecord.of("a", 2, "CALL", Decision.PASS));
        w.append(AuditRecord.of("a", 2, "RETURN", Decision.PASS));  // equal seq is allowed
        w.append(AuditRecord.of("a", 1, "CALL", Decision.PASS));
        w.close();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.badLine()).isEqualTo(6);
        assertThat(v.reason()).isEqualTo("sequence out of order: session 'a' has seq 1 after seq 2");
    }

    @Test
    void aSessionIdUsedAgainAfterItsEndMayCountFromTheStart() throws Exception {
        Path p = dir.resolve("reused.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        w.append(AuditRecord.of("default", 1, "USER", Decision.PASS));
        w.append(AuditRecord.of("default", 2, "END", Decision.END));
        w.append(AuditRecord.of("default", 0, "USER", Decision.PASS));   // a new conversation, same memory id
        w.close();
        assertThat(AuditVerifier.verify(p).ok()).isTrue();
    }

    @Test
    void aRestartAppendsANewSegmentAndCutsAPartialLineLeftByACrash() throws Exception {
        Path p = log(5);
        // a crash mid-write leaves half a line
        Files.write(p, "{\"prev\":\"abc".getBytes(StandardCharsets.US_ASCII), java.nio.file.StandardOpenOption.APPEND);
        assertThat(AuditVerifier.verify(p).status()).isEqualTo(AuditVerification.Status.TRUNCATED);

        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        for (int i = 0; i < 4; i++) w.append(record(i));   // a new run: sessions start again
        w.close();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.records()).isEqualTo(9);
        assertThat(LogFiles.ofType(p, "header")).hasSize(2);
        List<JsonNode> notes = LogFiles.ofType(p, "dropped");
        assertThat(notes).hasSize(1);
        assertThat(notes.get(0).get("reason").asText()).isEqualTo("partial-line-removed");
        assertThat(notes.get(0).get("truncatedBytes").asLong()).isEqualTo(12);
        assertThat(notes.get(0).get("count").asLong()).isZero();
    }

    @Test
    void settingsFromTheConfigurationApplyToTheLog() throws Exception {
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "audit.personal-data=clear,audit.queue-size=8,audit.on-full=drop,fail=open", Map.of(), Map.of(), java.util.Set.of());
        Path p = dir.resolve("configured.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.from(config));
        assertThat(w.queueCapacity()).isEqualTo(8);
        w.append(AuditRecord.of("s", 0, "USER", Decision.PASS).text("in clear"));
        w.close();
        assertThat(LogFiles.ofType(p, "event").get(0).get("text").asText()).isEqualTo("in clear");
        assertThat(LogFiles.records(p).get(0).get("personalData").asText()).isEqualTo("clear");
    }

    @Test
    void hostObjectsThatContainThemselvesOrFailToPrintDoNotStopTheLog() throws Exception {
        Path p = dir.resolve("hostile.jsonl");
        Map<String, Object> loop = new java.util.HashMap<>();
        loop.put("self", loop);
        Object broken = new Object() {
            @Override public String toString() { throw new IllegalStateException("no text for you"); }
        };
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        w.append(AuditRecord.of("s", 0, "CALL", Decision.PASS).tool("a").args(loop));
        w.append(AuditRecord.of("s", 1, "CALL", Decision.PASS).tool("b").args(Map.of("x", broken)));
        w.append(AuditRecord.of("s", 2, "CALL", Decision.PASS).tool("c"));
        w.close();
        assertThat(AuditVerifier.verify(p).ok()).isTrue();
        List<JsonNode> ev = LogFiles.ofType(p, "event");
        assertThat(ev).extracting(e -> e.get("tool").asText()).containsExactly("a", "c");
        assertThat(Files.readString(p)).contains("(nested more than 64 levels: not written)");
        assertThat(w.internalErrors()).isEqualTo(1);
        assertThat(w.lastError()).contains("no text for you");
    }

    @Test
    void textWithQuotesControlsAndNonAsciiRoundTrips() throws Exception {
        Path p = dir.resolve("text.jsonl");
        String text = "quote \" backslash \\ newline \n tab \t nul \u0000 é 漢 😀 lone \ud800 end";
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        w.append(AuditRecord.of("s", 0, "ASSISTANT", Decision.PASS).text(text).message("a \"message\""));
        w.close();
        assertThat(AuditVerifier.verify(p).ok()).isTrue();
        JsonNode e = LogFiles.ofType(p, "event").get(0);
        assertThat(e.get("text").asText()).isEqualTo(text.replace('\ud800', '\ufffd'));
        assertThat(e.get("message").asText()).isEqualTo("a \"message\"");
        List<String> lines = new ArrayList<>(LogFiles.lines(p));
        assertThat(lines).hasSize(2);   // the newline in the text did not split the line
    }
}
