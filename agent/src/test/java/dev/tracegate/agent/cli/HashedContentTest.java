package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HashedContentTest {
    @TempDir Path dir;

    /**
     * Context values are content when a latch takes them from content: a permission added from a call's argument
     * is a digest in a hashed log, so a contract asking for it is named; a key set to a constant is not.
     */
    @Test
    void contractsReadingContextValuesAreNamedByWhereTheLibrarysLatchesTakeThemFrom() throws Exception {
        Files.writeString(dir.resolve("roles.yaml"), """
                library: roles
                context:
                  - on: {kind: CALL, tool: promote}
                    add: permissions
                    value: arg(role)
                  - on: {kind: CALL, tool: login}
                    set: mode
                    value: "strict"
                  - on: {kind: CALL, tool: approve}
                    set: limit
                    value: arg(amount)
                contracts:
                  - id: roles.admin-deletes
                    guarantee: G(call(delete) -> permission(admin))
                  - id: roles.strict-export
                    guarantee: G(call(export) -> ctx(mode) == "strict")
                  - id: roles.login-first
                    guarantee: G(call(delete) -> O call(login))
                  - id: roles.few-exports
                    guarantee: G(call(export) -> count(export) <= ctx(limit))
                  - id: roles.limit-set
                    guarantee: G(call(export) -> ctx(limit))
                """);
        Library lib = Library.load(List.of("roles.yaml"), dir);
        assertThat(HashedContent.contracts(lib)).containsExactly("roles.admin-deletes (permission(admin))",
                "roles.few-exports (count(export) <= ctx(limit))");
    }
}
