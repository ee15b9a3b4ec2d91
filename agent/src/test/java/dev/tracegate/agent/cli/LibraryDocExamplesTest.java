package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of docs/LIBRARY.md marked {@code <!-- example NAME: file F -->} (the fenced block after the marker is
 * written to F) and {@code <!-- example NAME: tracegate ARGS (exit N) -->} (the command is run in the example's
 * directory; its standard output must be the fenced block after the marker, where a line ending in {@code ...} stands
 * for any line that starts with the text before it, and a last line {@code ...} for the rest of the output). trial26
 * asked how a consent for the whole session is given and whether a consent tool whose handler records the consent
 * itself must be listed; the answers are these examples, run as written.
 */
class LibraryDocExamplesTest {
    @TempDir Path dir;

    private static final Pattern MARKER = Pattern.compile("<!-- example ([a-z0-9-]+): (file (\\S+)|tracegate (.+) \\(exit (\\d+)\\)) -->");

    /** One step of an example: a file to write, or a command to run with its expected output and exit status. */
    private record Step(String file, List<String> command, int exit, String block) {}

    private static String doc() throws IOException {
        return Files.readString(Path.of("..", "docs", "LIBRARY.md"));
    }

    /** The marked steps of docs/LIBRARY.md, by example name, in the page's order. */
    private static Map<String, List<Step>> examples(String doc) {
        Map<String, List<Step>> out = new LinkedHashMap<>();
        Matcher m = MARKER.matcher(doc);
        while (m.find()) {
            int open = doc.indexOf("```", m.end());
            assertThat(doc.substring(m.end(), open).isBlank()).as("a fenced block follows the marker %s", m.group()).isTrue();
            int start = doc.indexOf('\n', open) + 1;
            int end = doc.indexOf("\n```", start);
            String block = doc.substring(start, end + 1);
            Step step = m.group(3) != null ? new Step(m.group(3), null, 0, block)
                    : new Step(null, List.of(m.group(4).split(" ")), Integer.parseInt(m.group(5)), block);
            out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(step);
        }
        return out;
    }

    /** Runs example {@code name}: writes its files, runs its commands, and returns each command's output (paths as written). */
    private List<CliRun> run(String name, Map<String, List<Step>> examples) throws IOException {
        List<Step> steps = examples.get(name);
        assertThat(steps).as("example %s in docs/LIBRARY.md", name).isNotNull();
        Path at = Files.createDirectories(dir.resolve(name));
        List<CliRun> runs = new ArrayList<>();
        for (Step s : steps) {
            if (s.file() != null) {
                Files.writeString(at.resolve(s.file()), s.block());
                continue;
            }
            CliRun r = tracegate(at, s.command());
            assertThat(r.code()).as("exit status of tracegate %s\n%s%s", s.command(), r.out(), r.err()).isEqualTo(s.exit());
            assertMatches(r.out(), s.block(), name + ": tracegate " + String.join(" ", s.command()));
            runs.add(r);
        }
        return runs;
    }

    /** Runs the command line in directory {@code at}: a file name of the example (alone or in a comma list) is its path there. */
    private static CliRun tracegate(Path at, List<String> command) {
        List<String> args = new ArrayList<>();
        for (String a : command) {
            List<String> parts = new ArrayList<>();
            for (String p : a.split(",", -1)) parts.add(Files.exists(at.resolve(p)) ? at.resolve(p).toString() : p);
            args.add(String.join(",", parts));
        }
        args.add(1, "--no-progress");
        CliRun r = CliRun.of(args.toArray(String[]::new));
        String prefix = at.toString() + java.io.File.separator;
        return new CliRun(r.code(), r.out().replace(prefix, ""), r.err().replace(prefix, ""));
    }

    private static void assertMatches(String actual, String expected, String what) {
        List<String> got = actual.lines().toList();
        List<String> want = expected.lines().toList();
        for (int i = 0; i < want.size(); i++) {
            String w = want.get(i);
            if (w.equals("...") && i == want.size() - 1) return;
            assertThat(i).as("%s: the output ends before the documented line %d (%s):\n%s", what, i + 1, w, actual).isLessThan(got.size());
            if (w.endsWith("...")) {
                assertThat(got.get(i)).as("%s, line %d:\n%s", what, i + 1, actual).startsWith(w.substring(0, w.length() - 3));
            } else {
                assertThat(got.get(i)).as("%s, line %d:\n%s", what, i + 1, actual).isEqualTo(w);
            }
        }
        assertThat(got).as("%s: more output than documented:\n%s", what, actual).hasSize(want.size());
    }

    @Test
    void aToolWhoseHandlerRecordsTheConsentRunsUnderConsentToolsAndIsRefusedOtherwise() throws IOException {
        String doc = doc();
        Map<String, List<Step>> examples = examples(doc);
        run("handler-consent", examples);

        // what the prose says of the same conversation without the entry, and with the tool bound to marketing instead
        Path at = dir.resolve("handler-consent");
        String crm = Files.readString(at.resolve("crm.yaml"));
        String entry = "  consent-tools:\n    grant_consent: {subject: email, purposes: [marketing]}\n";
        assertThat(crm).contains(entry);
        Files.writeString(at.resolve("unlisted.yaml"), crm.replace(entry, ""));
        Files.writeString(at.resolve("bound.yaml"), crm.replace(entry, "    grant_consent: [marketing]\n"));
        String p2 = "gdpr.P2-purpose-limitation: violated first at grant.jsonl:1 (seq 1, call grant_consent)";
        String p1 = "gdpr.P1-consent: violated first at grant.jsonl:1";
        assertThat(doc).contains("(`" + p2 + "`)").contains("(`" + p1 + "`)");
        CliRun unlisted = tracegate(at, List.of("replay", "gdpr,unlisted.yaml", "grant.jsonl"));
        assertThat(unlisted.code()).isEqualTo(1);
        assertThat(unlisted.out()).contains(p2).contains("not applied: grant.jsonl:3").doesNotContain("gdpr.P1-consent: violated");
        CliRun bound = tracegate(at, List.of("replay", "gdpr,bound.yaml", "grant.jsonl"));
        assertThat(bound.code()).isEqualTo(1);
        assertThat(bound.out()).contains(p1).doesNotContain("gdpr.P2-purpose-limitation: violated");
    }

    /**
     * trial29 (repros 06 and 13) asked for a data-flow contract for a sink and one for the answer channel: the "dlp"
     * example of docs/LIBRARY.md, "Provenance", refuses a post whose text glues an e-mail's key into {@code api_key=}
     * (flow found whole tokens only before session 16, so this failed) and an answer with a remote image.
     */
    @Test
    void aDataFlowRuleForASinkAndARuleForTheAnswerRefuseWhatTheDocSays() throws IOException {
        assertThat(run("dlp", examples(doc()))).hasSize(1);
    }

    @Test
    void aConsentForTheWholeSessionIsGivenWithoutASubjectAndAContractCanRefuseIt() throws IOException {
        List<CliRun> runs = run("session-consent", examples(doc()));
        assertThat(runs).hasSize(2);
    }
}
