package dev.tracegate.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A host that runs each request on a new virtual thread (Java 21+) must not pay for a new monitor worker and grounding
 * frame (about 10 KB) at every supervised call: the agent lends them from a pool on virtual threads (Scratch). Run on
 * the JDK 25 of this machine with the real agent jar; measured as bytes allocated per request, not time.
 */
class VirtualThreadsTest {
    @TempDir Path dir;

    @Test
    void aRequestOnANewVirtualThreadAllocatesLittleMoreUnderTheAgent() throws IOException {
        Assumptions.assumeTrue(ForkedJvm.java25Present(), "needs " + ForkedJvm.JAVA_25 + " (virtual threads)");
        Path rules = Files.writeString(dir.resolve("methods.txt"), "tool demoapp.plain.VirtualThreadsApp$Desk#lookup name=$method session=0\n");
        Path lib = Files.writeString(dir.resolve("desk.yaml"), """
                library: desk
                contracts:
                  - id: desk.page
                    guarantee: G(call(lookup) -> arg(limit) <= 50)
                  - id: desk.query
                    guarantee: G(call(lookup) -> len(arg(query)) <= 1000)
                """);
        long without = bytesPerRequest(ForkedJvm.run(ForkedJvm.JAVA_25, List.of(), ForkedJvm.appClasspath(),
                "demoapp.plain.VirtualThreadsApp", "20000"));
        long with = bytesPerRequest(ForkedJvm.run(ForkedJvm.JAVA_25, List.of(ForkedJvm.agent("methods=" + rules + ",libraries=" + lib
                + ",audit.path=" + dir.resolve("audit.jsonl"))), ForkedJvm.appClasspath(), "demoapp.plain.VirtualThreadsApp", "20000"));
        // before the pool: about 10,400 bytes more per request (an 8 KB grounding frame and the monitor's worker)
        assertThat(with - without).as("bytes the agent adds per request (%d with, %d without)", with, without).isLessThan(4_000);
    }

    private static long bytesPerRequest(ForkedJvm.Result r) {
        assertThat(r.exit()).as(r.toString()).isZero();
        Matcher m = Pattern.compile("BYTES PER REQUEST (\\d+)").matcher(r.stdout());
        assertThat(m.find()).as(r.toString()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
