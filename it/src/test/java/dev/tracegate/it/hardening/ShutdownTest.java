package dev.tracegate.it.hardening;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A forked application calling a configured tool from four threads over a thousand sessions under
 * a contract library: stopped with SIGTERM, every call it saw decided has its audit records and the
 * chain verifies; killed with SIGKILL, {@code audit verify} finds an intact prefix that lacks at most
 * the records the audit queue could hold.
 */
class ShutdownTest {
    private static final String APP = "demoapp.hardening.LoadApp";
    private static final int QUEUE = 1024;
    private static final long MIN_CALLS = 2000;

    @TempDir Path dir;

    private Process start(Path audit, Path out) throws Exception {
        Path methods = Files.writeString(dir.resolve("methods.txt"), "tool demoapp.hardening.LoadApp$Payments#charge name=charge args=1 session=0\n");
        List<String> cmd = Forked.command(Forked.java(), "libraries=temporal-classes,methods=" + methods + ",audit.path=" + audit
                + ",audit.queue-size=" + QUEUE + ",view=off", APP, "4", "1000");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (lastProgress(out) < MIN_CALLS) {
            assertThat(p.isAlive()).as("app output:\n%s", Files.readString(out)).isTrue();
            if (System.nanoTime() > deadline) { p.destroyForcibly(); throw new AssertionError("too few calls:\n" + Files.readString(out)); }
            Thread.sleep(50);
        }
        return p;
    }

    @Test void sigtermUnderLoadLosesNoAuditRecord() throws Exception {
        Path audit = dir.resolve("term.jsonl"), out = dir.resolve("term.out");
        Process p = start(audit, out);
        p.destroy();   // SIGTERM: shutdown hooks run
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        String text = Files.readString(out);
        Matcher m = Pattern.compile("DECIDED (\\d+)").matcher(text);
        assertThat(m.find()).as(text).isTrue();
        long decided = Long.parseLong(m.group(1));

        Forked.Output verify = Forked.run(List.of(Forked.java(), "-jar", Forked.agentJar().toString(), "audit", "verify", audit.toString()));
        assertThat(verify.stdout()).as(verify.toString()).contains("ok:").contains("chain intact");
        Records r = Records.of(audit);
        assertThat(r.calls).as("call records vs calls the app saw decided").isEqualTo(decided);
        assertThat(r.returns).as("return records").isEqualTo(decided);
        assertThat(r.endedSessions).as("every session seen is ended in the log").isEqualTo(r.sessions);
        System.out.println("[hardening] SIGTERM after " + decided + " decided calls: " + r.calls + " call + " + r.returns
                + " return + " + r.ends + " end records, chain intact");
    }

    @Test void sigkillLeavesAnIntactPrefixShortOfAtMostTheQueue() throws Exception {
        Path audit = dir.resolve("kill.jsonl"), out = dir.resolve("kill.out");
        Process p = start(audit, out);
        long seen = lastProgress(out);
        p.destroyForcibly();   // SIGKILL: no hook, no flush
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        // verify exits 0 on an intact log and 1 on a last line the kill cut mid-write (legitimate: "clean prefix ..., last
        // line truncated"); exit 1 for anything else (a broken chain, a changed line) and exit 2 fail the test
        Verified verify = verify(audit);
        assertThat(intactOrCutShort(audit, verify)).as(verify.toString()).isTrue();
        // whatever this kill left, the acceptance takes the case it exists for (a last line cut mid-write) ...
        byte[] bytes = Files.readAllBytes(audit);
        Path cut = dir.resolve("cut.jsonl");
        Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        Verified cutShort = verify(cut);
        assertThat(cutShort.exit()).as(cutShort.toString()).isEqualTo(1);
        assertThat(intactOrCutShort(cut, cutShort)).as(cutShort.toString()).isTrue();
        // ... and refuses the killed log with a line taken out of its middle (a broken chain)
        List<String> lines = Files.readAllLines(audit, StandardCharsets.UTF_8);
        assertThat(lines.size()).as("lines in the killed log").isGreaterThan(3);
        Path removed = dir.resolve("removed.jsonl");
        List<String> broken = new java.util.ArrayList<>(lines);
        broken.remove(lines.size() / 2);
        Files.write(removed, broken, StandardCharsets.UTF_8);
        Verified bad = verify(removed);
        assertThat(bad.stdout()).as(bad.toString()).contains("chain broken");
        assertThat(intactOrCutShort(removed, bad)).as(bad.toString()).isFalse();
        Records r = Records.of(audit);
        assertThat(r.calls).as("calls decided before the last PROGRESS line (%d) minus the queue (%d)", seen, QUEUE)
                .isGreaterThanOrEqualTo(seen - QUEUE);
        System.out.println("[hardening] SIGKILL after >= " + seen + " decided calls: " + r.calls + " call records kept; " + verify.stdout().strip());
    }

    /** What {@code audit verify} printed and its exit status (not an error when 1: a SIGKILL may cut the last line). */
    private record Verified(int exit, String stdout, String stderr) {
        @Override public String toString() { return "audit verify exit " + exit + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr; }
    }

    /** Exit 0 with the chain intact, or exit 1 for exactly a last line cut mid-write after an intact prefix. */
    private static boolean intactOrCutShort(Path audit, Verified v) {
        if (v.exit() == 0) return v.stdout().startsWith(audit + ": ok:") && v.stdout().contains("chain intact");
        return v.exit() == 1 && v.stdout().startsWith(audit + ": clean prefix of ") && v.stdout().contains("last line truncated")
                && v.stdout().contains("this is not tampering");
    }

    private Verified verify(Path audit) throws Exception {
        Path o = dir.resolve("verify.out"), e = dir.resolve("verify.err");
        Process p = new ProcessBuilder(Forked.java(), "-jar", Forked.agentJar().toString(), "audit", "verify", audit.toString())
                .redirectOutput(o.toFile()).redirectError(e.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("audit verify did not finish on " + audit);
        }
        return new Verified(p.exitValue(), Files.readString(o, StandardCharsets.UTF_8), Files.readString(e, StandardCharsets.UTF_8));
    }

    private static long lastProgress(Path out) throws Exception {
        if (!Files.exists(out)) return 0;
        long last = 0;
        for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
            if (line.startsWith("PROGRESS ")) last = Long.parseLong(line.substring(9).strip());
        }
        return last;
    }

    /** Counts of the audit log's event records (a torn last line, after SIGKILL, is ignored). */
    private record Records(long calls, long returns, long ends, int sessions, int endedSessions) {
        static Records of(Path audit) throws Exception {
            ObjectMapper json = new ObjectMapper();
            long calls = 0, returns = 0, ends = 0;
            Set<String> seen = new HashSet<>(), ended = new HashSet<>();
            for (String line : Files.readAllLines(audit, StandardCharsets.UTF_8)) {
                JsonNode r;
                try { r = json.readTree(line); } catch (Exception torn) { continue; }
                if (!"event".equals(r.path("rec").asText())) continue;
                String s = r.path("session").asText();
                switch (r.path("kind").asText()) {
                    case "call" -> { calls++; seen.add(s); }
                    case "return" -> returns++;
                    case "end" -> { ends++; ended.add(s); }
                    default -> { }
                }
            }
            ended.retainAll(seen);
            return new Records(calls, returns, ends, seen.size(), ended.size());
        }
    }
}
