package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.ToolProvider;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial40 07: a configured method in a named module that opens nothing (exporting does not let private fields be read), taking a record: the agent could not read the
 * record's fields, so every call was refused as uncheckable (on the class path it worked). The agent now opens the
 * package to itself when it first reads such an argument. A forked JVM, the module on its module path.
 */
class ModuleRecordArgumentTest {
    @TempDir Path dir;

    /**
     * The child's main: defines module m.vault in a layer of its own (with its own loader: the forked agent's classes share
     * the class path's loader, which the weaver leaves alone) and runs its main, as a JPMS application would.
     */
    public static final class LayerHost {
        public static void main(String[] args) throws Exception {
            java.lang.module.ModuleFinder finder = java.lang.module.ModuleFinder.of(Path.of(System.getProperty("host.mods")));
            ModuleLayer boot = ModuleLayer.boot();
            java.lang.module.Configuration cf = boot.configuration().resolve(finder, java.lang.module.ModuleFinder.of(),
                    java.util.Set.of("m.vault"));
            ModuleLayer layer = boot.defineModulesWithOneLoader(cf, ClassLoader.getSystemClassLoader());
            layer.findLoader("m.vault").loadClass("m.vault.Vault").getMethod("main", String[].class).invoke(null, (Object) args);
        }
    }

    @Test
    void aRecordArgumentOfAModuleThatOpensNothingIsRead() throws Exception {
        Path src = dir.resolve("src/m.vault");
        Files.createDirectories(src.resolve("m/vault"));
        Files.writeString(src.resolve("module-info.java"), "module m.vault { exports m.vault; }\n");
        Files.writeString(src.resolve("m/vault/Vault.java"), """
                package m.vault;
                public class Vault {
                    public record Req(String to, long amount) {}
                    public String move(Req r) { return "moved " + r.amount(); }
                    public static void main(String[] a) {
                        Vault v = new Vault();
                        System.out.println("SMALL: " + v.move(new Req("bob", 10)));
                        System.out.println("BIG: " + v.move(new Req("bob", 500)));
                    }
                }
                """);
        Path mods = dir.resolve("mods/m.vault");
        int javac = ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", mods.toString(),
                src.resolve("module-info.java").toString(), src.resolve("m/vault/Vault.java").toString());
        assertThat(javac).isZero();
        Path lib = Files.writeString(dir.resolve("cap.yaml"), """
                library: cap
                contracts:
                  - id: cap.move
                    guarantee: G(call(move) -> arg(move, amount) <= 100)
                    message: Moves above 100 are refused.
                """);
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + "]\nfail: closed\nwarmup: false\n"
                + "audit.path: " + dir.resolve("audit.jsonl") + "\n"
                + "configured-methods:\n  - {class: \"m.vault.Vault\", method: move, kind: tool, args-param: 0}\n");
        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + config, LayerHost.class.getName(), null, null,
                "-Dhost.mods=" + dir.resolve("mods"));
        assertThat(run.out()).as(run.err()).contains("SMALL: moved 10").contains("BIG: tracegate blocked the call to move (contract cap.move)");
        assertThat(run.err()).doesNotContain("does not open package");
    }
}
