package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A contract that names a misspelt tool ({@code call(reset_pasword)}) loads and never acts, and before nothing said so.
 * At shutdown the agent now says, once per library file, which tools its contracts name that no tool event of the run
 * had, with the nearest tool names that did come.
 */
class UnseenToolsTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    private static final String LIBRARY = """
            library: accounts
            contracts:
              - id: accounts.reset-asked
                guarantee: G (call(reset_pasword) -> O user_matches("(?i)reset"))
                message: A password is reset only when the user asks.
              - id: accounts.no-delete
                guarantee: G !call(delete_account)
                strategy: redirect
                redirect-to: archive_account
                message: Accounts are archived, not deleted.
              - id: accounts.wire-cap
                guarantee: G (call(wire_money) -> arg(wire_money, amount) <= 100)
                message: At most 100 per wire.
            """;

    /** A run of the supervisor over {@code tools} (one call each, in one session), shut down as the agent does; what it said. */
    private String run(String... tools) throws Exception {
        Path lib = Files.writeString(dir.resolve("accounts.yaml"), LIBRARY);
        Path log = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + ", sop-refund]\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n");
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));   // what the start said is not asserted
        int n = 0;
        for (String tool : tools) {
            ToolDecision d = s.onToolCall(new ToolCall("lc4j", "s1", tool, "{\"amount\":50}", "t" + n++));
            if (tool.equals("delete_account")) assertThat(d.kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
        }
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        s.sayToolsNeverSeen();
        s.sayToolsNeverSeen();   // once
        return err.toString(StandardCharsets.UTF_8);
    }

    /** trial40 05: tools refused because the audit log could not be opened (fail: closed) did reach tracegate. */
    @Test
    void toolsRefusedDuringAnAuditOutageAreNotSaidToHaveNeverReachedTracegate() throws Exception {
        Path lib = Files.writeString(dir.resolve("accounts.yaml"), LIBRARY);
        Path blocker = Files.writeString(dir.resolve("not-a-directory"), "");
        Path log = blocker.resolve("audit.jsonl");   // under a file: it can never be opened
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + "]\n"
                + "audit.path: " + log + "\nfail: closed\nwarmup: false\n");
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        dev.tracegate.agent.bootstrap.Dispatcher.toolRequested("outage_pay");
        ToolDecision d = s.onToolCall(new ToolCall("lc4j", "s1", "outage_pay", "{\"amount\":50}", "t0"));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        s.sayToolsNeverSeen();
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("never reached tracegate");
    }

    @Test
    void aToolAContractNamesThatNeverCameIsSaidAtShutdownWithTheNearestToolThatDid() throws Exception {
        String said = run("reset_password", "wire_money", "lookup_account", "delete_account");

        String lib = dir.resolve("accounts.yaml").toString();
        assertThat(said).contains("WARN " + lib + ": its contracts name a tool that no tool event of this run had, while 5 tools"
                + " did: reset_pasword (line 4; nearest that came: reset_password, 1 edit). Tool names are compared ignoring"
                + " case, otherwise letter for letter, so a misspelt one never matches and its contract never acts");
        assertThat(said.lines().filter(l -> l.contains("no tool event of this run had")).count()).as("one line, once:\n%s", said).isEqualTo(1);
        assertThat(said).as("a redirected call's tool came, though its record names the target").doesNotContain("delete_account (");
        assertThat(said).as("a built-in library's tools (sop-refund's refund, approve_refund) are tracegate's spelling")
                .doesNotContain("approve_refund").doesNotContain("sop-refund");
    }

    @Test
    void aToolNoneOfTheToolsThatCameIsNearIsNamedWithoutAGuessAndNoToolEventSaysNothing() throws Exception {
        String said = run("lookup_account", "reset_password", "wire_money");
        assertThat(said).contains("its contracts name 2 tools that no tool event of this run had, while 3 tools did: reset_pasword"
                + " (line 4; nearest that came: reset_password, 1 edit), delete_account (line 7; no tool that came is within 3 edits)");

        err.reset();
        said = run();
        assertThat(said).as("no tool event at all: the names cannot be judged").doesNotContain("no tool event of this run had");
    }

    /**
     * bench/agent/support-desk.yaml names its search tool in two spellings, {@code search: call(search_kb) | call(searchkb)}
     * (a configured method and a LangChain4j tool): a run that calls one of them got a WARN for the other ("searchkb (line
     * 3; nearest that came: search_kb, 1 edit)"), though nothing is misspelt. An alternative spelling is named only when
     * none of its chain's alternatives came; other disjuncts of a chain, and a name that also stands alone, still are.
     */
    @Test
    void anAlternativeSpellingInOneChainIsNamedOnlyWhenNoneOfItsAlternativesCame() {
        dev.tracegate.contracts.library.Library lib = dev.tracegate.contracts.library.Library.compile(java.util.List.of(
                dev.tracegate.contracts.library.LibraryReader.read("desk.yaml", """
                        library: desk
                        atoms:
                          search: call(search_kb) | call(searchkb) | call("mcp__kb__search-kb")
                        contracts:
                          - id: desk.page
                            guarantee: G(search -> !(arg(limit) > 50))
                            message: At most 50.
                          - id: desk.known
                            guarantee: G(call -> (search | call(refund) | call(lookup_ordr)))
                            message: Not a desk tool.
                        """)));
        assertThat(UnseenTools.lines(lib, java.util.List.of("search_kb", "refund")))
                .as("searchkb and mcp__kb__search-kb are spellings of search_kb, which came; lookup_ordr is a tool of its own")
                .singleElement().asString()
                .contains("its contracts name a tool that no tool event of this run had, while 2 tools did: lookup_ordr (line 9;")
                .doesNotContain("searchkb").doesNotContain("mcp__kb__search-kb");
        assertThat(UnseenTools.lines(lib, java.util.List.of("searchKb", "lookup_order", "refund")))
                .as("the LangChain4j spelling came").singleElement().asString()
                .contains("lookup_ordr (line 9; nearest that came: lookup_order, 1 edit)").doesNotContain("search_kb");
        assertThat(UnseenTools.lines(lib, java.util.List.of("lookup_ordr", "refund")))
                .as("none of the alternatives came: each is named").singleElement().asString()
                .contains("3 tools that no tool event of this run had").contains("search_kb (line 3;").contains("searchkb (line 3;")
                .contains("mcp__kb__search-kb (line 3;");

        dev.tracegate.contracts.library.Library alone = dev.tracegate.contracts.library.Library.compile(java.util.List.of(
                dev.tracegate.contracts.library.LibraryReader.read("desk2.yaml", """
                        library: desk2
                        contracts:
                          - id: desk2.page
                            guarantee: G((call(search_kb) | call(searchkb)) -> !(arg(limit) > 50))
                            message: At most 50.
                          - id: desk2.count
                            guarantee: G(count(searchkb) <= 3)
                            message: Three searches.
                        """)));
        assertThat(UnseenTools.lines(alone, java.util.List.of("search_kb")))
                .as("searchkb also stands alone in count(searchkb), which never acts").singleElement().asString()
                .contains("searchkb (line 4; nearest that came: search_kb, 1 edit)");
    }

    /**
     * trial31 01: a library that writes its tools as the Java methods (and so the LangChain4j tools) are named,
     * {@code lookupOrder}, got a WARN naming {@code lookuporder}, a spelling the file has nowhere (grep finds nothing), while
     * the tools that came were listed as written. A name is still compared folded; it is shown as the library first writes it.
     */
    @Test
    void anUnseenToolIsNamedAsTheLibraryWritesItNotFolded() {
        dev.tracegate.contracts.library.Library lib = dev.tracegate.contracts.library.Library.compile(java.util.List.of(
                dev.tracegate.contracts.library.LibraryReader.read("shop.yaml", """
                        library: shop
                        contracts:
                          - id: shop.lookup-before-refund
                            guarantee: G(call(refund) -> O returned(lookupOrder))
                            message: A refund needs the order looked up first.
                          - id: shop.no-delete
                            guarantee: G !call(deleteAccount)
                            message: Accounts are archived.
                          - id: shop.lookups
                            guarantee: G(count(LOOKUPORDER) <= 5)
                            message: Five lookups.
                        """)));
        assertThat(UnseenTools.lines(lib, java.util.List.of("archiveAccount", "DELETEACCOUNT")))
                .singleElement().asString()
                .contains("its contracts name 2 tools that no tool event of this run had, while 2 tools did: refund (line 4;"
                        + " no tool that came is within 2 edits), lookupOrder (line 4; no tool that came is within 3 edits)."
                        + " Tool names are compared ignoring case, otherwise letter for letter")
                .as("deleteAccount came as DELETEACCOUNT: case is ignored").doesNotContain("deleteAccount (")
                .as("one name per tool, its first spelling").doesNotContain("lookuporder").doesNotContain("LOOKUPORDER");
    }

    /**
     * trial30 08: a configured method's tool-name took the wrong parameter, so the transfer's events were named
     * {@code com.vendor.agent.internal.Ctx@63b1d4fa} and {@code G !call(transfer)} never acted; the WARN said only that no
     * tool that came was near. When none of a contract's tools came, the line now lists the tools that did.
     */
    @Test
    void whenNoneOfAContractsToolsCameTheToolsThatDidAreListed() {
        dev.tracegate.contracts.library.Library lib = dev.tracegate.contracts.library.Library.compile(java.util.List.of(
                dev.tracegate.contracts.library.LibraryReader.read("bank.yaml", """
                        library: bank
                        contracts:
                          - id: bank.no-transfer
                            guarantee: G !call(transfer)
                            message: No transfers.
                          - id: bank.lookups
                            guarantee: G(count(lookup) <= 5 & count(lookup_acount) <= 5)
                            message: Five lookups.
                        """)));
        String ctx = "com.vendor.agent.internal.Ctx@63b1d4fa";
        assertThat(UnseenTools.lines(lib, java.util.List.of(ctx, "lookup", "{\"to\":\"" + "a".repeat(80) + "\"}")))
                .singleElement().asString()
                .contains("transfer (line 4; no tool that came is within 2 edits)")
                // a name that is not a plain word is one quoted field, escaped as on a decision line (trial47 04)
                .contains(". None of the tools that bank.no-transfer names came; the tools that came: " + ctx + ", lookup, \"{\\\"to\\\":\\\""
                        + "a".repeat(53) + "...\" (a name here that is not your tool's")
                .as("bank.lookups had one of its tools come").doesNotContain("bank.lookups");
        assertThat(UnseenTools.lines(lib, java.util.List.of("transfer", "lookup")))
                .as("each contract had a tool come: lookup_acount is named, and no list")
                .singleElement().asString().contains("lookup_acount (line 7; no tool that came is within 3 edits)")
                .doesNotContain("the tools that came");
    }

    /**
     * trial47 04: the model's tool name is printed in the exit's WARN about tools it asked for that never reached tracegate
     * (and twice in its configured-methods advice). A hallucinated name holding a line break and an escape code forged a
     * whole {@code [tracegate] BLOCK ...} line and erased the rest on a terminal. It is now one field, as on a decision
     * line: the WARN stays one line, with no control character.
     */
    @Test
    void aToolNameTheModelChoseCannotForgeALineOfTheWarning() {
        String forged = "evil\n[tracegate] BLOCK langchain4j session=u1 tool=delete_account contract=pol.no-delete (substitute)\u001b[2K";
        String line = UnseenTools.requestedNeverCame(Map.of(forged, 1, "lookup_order", 2), java.util.List.of("refund"));
        assertThat(line).as(line).doesNotContain("\n").doesNotContain("\r").doesNotContain("\u001b")
                .contains("that never reached tracegate: \"evil\\n[tracegate] BLOCK langchain4j session=u1 tool=delete_account"
                        + " contract=pol.no-delete (substitute)\\u001b[2K\" (asked for 1 time), lookup_order (asked for 2 times).")
                .contains("configured-methods: [{class: <the class that declares \"evil\\n[tracegate] BLOCK")
                .contains("method: \"evil\\n[tracegate] BLOCK");
    }
}
