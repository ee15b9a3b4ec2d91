package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configured methods in the shapes a stranger's plain Java has (trial7 findings 16 and 17), woven by the real agent jar
 * in a forked JVM: an interface's default method is supervised when the interface is named, and a glob over a record
 * makes its own methods tools but not its equals, hashCode, toString or accessors; and a withheld result that is an object,
 * not text, never reaches the caller (trial7 finding 13): a Map is replaced by {"error": notice} (session 23, trial46 02),
 * any other object by a TracegateViolation.
 */
class ConfiguredShapesTest {
    @TempDir Path dir;

    @Test
    void anInterfacesDefaultMethodAndARecordsOwnMethodsAreTheTools() throws IOException {
        Path rules = Files.writeString(dir.resolve("methods.txt"), String.join("\n",
                "tool demoapp.plain.ShapesApp$Payments#pay name=$method session=0",
                "tool demoapp.plain.ShapesApp$Order#* name=$method session=0",
                "tool demoapp.plain.ShapesApp$Vault#read name=$method session=0", ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + rules + ",block=pay,suppress=read,trace=true")),
                ForkedJvm.appClasspath(), "demoapp.plain.ShapesApp");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString())
                .contains("PAY: tracegate blocked the call to pay")
                .contains("ORDER: Order[id=O1, amount=5] 5 true refunded O1")
                .contains("VAULT: {error=[withheld by tracegate: the result of read breaks an assumption of contract rule.suppress]}")
                .doesNotContain("secret 42");
        assertThat(r.stderr()).as(r.toString()).contains("CALL configured session=s2 tool=refund");
        for (String plumbing : new String[] {"tool=hashCode", "tool=equals", "tool=toString", "tool=id ", "tool=amount "}) {
            assertThat(r.stderr()).as(plumbing + "\n" + r).doesNotContain(plumbing);
        }
    }
}
