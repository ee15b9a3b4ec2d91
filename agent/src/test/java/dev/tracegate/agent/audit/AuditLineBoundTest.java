package dev.tracegate.agent.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial47 07: arguments within every bound of the agent (1,000 lists of 1,000 one-letter strings: 4 MB of JSON) became,
 * pseudonymised, one audit line of 42 MB (each cell a digest of about 40 characters), and 9 million cells kept the
 * writer busy for minutes and lost records at exit. A line stops writing the elements of its containers at
 * {@link AuditLines#MAX_LINE_BYTES}, with a marker, and stays valid JSON; a line below the bound is written as before.
 */
class AuditLineBoundTest {

    private static String cells(int rows, int columns) {
        StringBuilder b = new StringBuilder("{\"rows\":[");
        for (int r = 0; r < rows; r++) {
            if (r > 0) b.append(',');
            b.append('[');
            for (int c = 0; c < columns; c++) b.append(c > 0 ? ",\"x\"" : "\"x\"");
            b.append(']');
        }
        return b.append("],\"after\":\"kept?\"}").toString();
    }

    private static String line(byte[] salt, String args) {
        AuditLines lines = new AuditLines();
        lines.header(1_795_988_467_000L, salt, null);
        lines.event(AuditRecord.of(Event.call("s1", 1, "ingest", args), Decision.PASS));
        return new String(lines.buffer(), 0, lines.length(), StandardCharsets.UTF_8);
    }

    @Test
    void aPseudonymisedLineOfAMillionCellsIsCutAtTheBoundAndStaysJson() throws Exception {
        String args = cells(1000, 1000);
        String hashed = line(new byte[16], args);
        assertThat(hashed.length()).as("the line is bounded").isBetween(AuditLines.MAX_LINE_BYTES, AuditLines.MAX_LINE_BYTES + 4096);
        JsonNode record = new ObjectMapper().readTree(hashed);   // valid JSON, its hash field where it belongs
        assertThat(record.path("hash").asText()).hasSize(64);
        JsonNode rows = record.path("args").path("rows");
        JsonNode last = rows.get(rows.size() - 1);
        assertThat(last.isArray() ? last.get(last.size() - 1).asText() : last.asText()).isEqualTo(AuditLines.CUT);
        assertThat(rows.get(0).get(0).asText()).startsWith("sha256:");
        assertThat(record.path("args").path("[cut]").asText()).as("the next argument is left out too").isEqualTo(AuditLines.CUT);
        assertThat(record.path("args").has("after")).isFalse();

        // the same arguments in clear are 4 MB: below the bound, written whole
        String clear = line(null, args);
        assertThat(clear).doesNotContain("[cut").contains("\"after\":\"kept?\"");
        assertThat(new ObjectMapper().readTree(clear).path("args").path("rows").size()).isEqualTo(1000);
    }
}
