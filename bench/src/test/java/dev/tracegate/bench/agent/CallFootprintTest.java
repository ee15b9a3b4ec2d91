package dev.tracegate.bench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The footprint harness: how it sorts smaps' mappings into kinds, its smoke run (detached), and its refusals. */
class CallFootprintTest {

    private static final long GIB = 1L << 30;

    /** A mapping's header and the lines smaps gives under it, with {@code referencedKb} as its Referenced line. */
    private static String mapping(long start, long end, String perms, String path, long referencedKb) {
        return String.format("%x-%x %s 00000000 00:00 0 %s%nSize: %d kB%nRss: 4 kB%nReferenced: %d kB%nAnonymous: 0 kB%n",
                start, end, perms, path, (end - start) >> 10, referencedKb);
    }

    @Test
    void mappingsAreSortedIntoHeapCodeMetadataLibrariesAndTheRest() {
        long heap = 0xc0000000L;
        String smaps = mapping(heap, heap + 512 * (1L << 20), "rw-p", "", 40)                       // the heap's committed part
                + mapping(heap + 512 * (1L << 20), heap + GIB, "---p", "", 0)                         // and its reserved rest
                + mapping(0x7f0000000000L, 0x7f0000200000L, "rwxp", "", 100)                          // the code cache
                + mapping(0x7f0001000000L, 0x7f0001800000L, "r--p", "/usr/lib/jvm/lib/server/classes.jsa", 12)
                + mapping(0x7f0001800000L, 0x7f0001800000L + GIB, "rw-p", "", 8)                       // compressed class space
                + mapping(0x7f1000000000L, 0x7f1000100000L, "r-xp", "/usr/lib/jvm/lib/server/libjvm.so", 20)
                + mapping(0x7f2000000000L, 0x7f2000010000L, "rw-p", "", 16)                            // a stack, an arena
                + mapping(0x7f3000000000L, 0x7f3000001000L, "r--p", "[vvar]", 4);
        long[] kb = CallFootprint.referencedKb(smaps, GIB, GIB);
        assertThat(kb).containsExactly(40, 100, 12 + 8, 20, 16 + 4, 40 + 100 + 20 + 20 + 20);
    }

    @Test
    void anAnonymousRunOfAnotherSizeIsNotTakenForTheHeap() {
        long[] kb = CallFootprint.referencedKb(mapping(0x10000000L, 0x10000000L + 256 * (1L << 20), "rw-p", "", 24), GIB, GIB);
        assertThat(kb[0]).as("javaHeap").isZero();
        assertThat(kb[4]).as("otherNative").isEqualTo(24);
    }

    @Test
    void aShortDetachedRunReportsEveryKindForBothHalvesOfTheSample(@TempDir Path dir) throws Exception {
        assumeTrue(new File("/proc/self/clear_refs").canWrite(), "needs Linux and a writable /proc/self/clear_refs");
        Path out = dir.resolve("footprint.json");
        CallFootprint.cli(new String[] {"--samples", "5", "--warmup-calls", "100", "--pause-ms", "1", "--out", out.toString()});
        JsonNode d = new ObjectMapper().readTree(Files.readString(out));
        assertThat(d.get("harness").asText()).isEqualTo("CallFootprint");
        assertThat(d.get("samples").asInt()).isEqualTo(5);
        for (String kind : new String[] {"javaHeap", "codeCache", "classMetadata", "nativeLibraries", "otherNative", "all"}) {
            JsonNode row = d.get("pages").get(kind);
            assertThat(row.get("callPages").asLong()).as(kind)
                    .isEqualTo(row.get("oneCallPagesP50").asLong() - row.get("noCallPagesP50").asLong());
        }
        assertThat(d.get("pages").get("all").get("oneCallPagesP50").asLong())
                .as("reading smaps itself touches pages: a count of none would mean the accessed bits were not read").isPositive();
    }

    @Test
    void anUnknownOptionIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> CallFootprint.cli(new String[] {"--sample", "5"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--samples").hasMessageContaining("--pause-ms");
    }
}
