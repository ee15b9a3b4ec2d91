package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A contract on a misspelt tool ({@code call(reset_pasword)} for the application's {@code reset_password}) loads, never
 * matches and never acts, and before nothing said so. The agent now says it as the JVM exits, once the audit log has the
 * run's records: one WARN for the library file, naming the tool and the nearest tool that came. The application
 * (compiled here, imports nothing of tracegate) writes a mark on stderr after its calls: the line comes after it.
 */
class UnseenToolsEndToEndTest {

    private static final String APP = String.join("\n",
            "package u;",
            "public class Accounts {",
            "  public String reset_password(String session, String user) { return \"reset \" + user; }",
            "  public String lookup(String session, String user) { return \"found \" + user; }",
            "  public static void main(String[] a) {",
            "    Accounts x = new Accounts();",
            "    System.out.println(x.lookup(\"s1\", \"ada\") + \"; \" + x.reset_password(\"s1\", \"ada\"));",
            "    System.err.println(\"MARK the application ran\");",
            "    System.err.flush();",
            "  }",
            "}", "");

    @Test
    void aToolAContractNamesThatNeverCameIsSaidAtExitWithTheNearestToolThatDid(@TempDir Path dir) throws IOException {
        Path src = dir.resolve("src/u/Accounts.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, APP);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the tests need a JDK").isNotNull();
        assertThat(javac.run(null, null, null, "-g", "-d", classes.toString(), src.toString())).isZero();
        Path lib = Files.writeString(dir.resolve("accounts.yaml"), String.join("\n",
                "library: accounts",
                "contracts:",
                "  - id: accounts.reset-asked",
                "    guarantee: G (call(reset_pasword) -> O user_matches(\"(?i)reset\"))",
                "    message: A password is reset only when the user asks.", ""));
        Path yaml = Files.writeString(dir.resolve("tg.yaml"), String.join("\n",
                "libraries: [" + lib + "]",
                "audit: {path: " + dir.resolve("audit.jsonl") + "}",
                "configured-methods:",
                "  - {class: u.Accounts, method: reset_password, kind: tool, session-param: 0}",
                "  - {class: u.Accounts, method: lookup, kind: tool, session-param: 0}", ""));

        ForkedJvm.Result run = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + yaml)), classes.toString(), "u.Accounts");

        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stdout()).as("the contract never acted: the reset ran").contains("found ada; reset ada");
        String err = run.stderr();
        int mark = err.indexOf("MARK the application ran");
        assertThat(mark).as(run.toString()).isPositive();
        assertThat(err.substring(mark)).as(run.toString()).contains("WARN " + lib + ": its contracts name a tool that no tool event of"
                + " this run had, while 2 tools did: reset_pasword (line 4; nearest that came: reset_password, 1 edit). Tool names are"
                + " compared ignoring case, otherwise letter for letter, so a misspelt one never matches and its contract never acts");
        assertThat(ForkedJvm.count(err, "no tool event of this run had")).as("once\n" + run).isEqualTo(1);
    }
}
