package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.contracts.library.LibrarySpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** trial18 repro 03: a tool name one slip away from another tool name of the same library gets a note. */
class ToolNamesTest {

    private static final String SUPPORT = """
            library: support
            atoms:
              refund: call(issue_refnd)
            context:
              - on: {kind: RETURN, tool: lookup_ordr}
                add: looked_up
                value: arg(order_id)
            contracts:
              - id: support.refund-after-lookup
                guarantee: G(refund -> arg_eq_ctx(issue_refund, order_id, looked_up))
                message: Refund only an order that was looked up.
              - id: support.refund-positive
                guarantee: G(call(issue_refund) -> arg(issue_refund, amount) > 0)
                message: Refund amounts must be positive.
              - id: support.no-mail-after-lookup-error
                guarantee: G(failed(lookup_order) -> G !call(send_email))
                message: No mail after a failed lookup.
            injection:
              side-effecting:
                send_emial: [to]
            """;

    @Test
    void aToolNameOneSlipFromAnotherOfTheLibraryIsNoted() {
        List<String> notes = ToolNames.notes(List.of(LibraryReader.read("support.yaml", SUPPORT)));
        assertThat(notes).hasSize(3);
        assertThat(notes).anySatisfy(n -> assertThat(n).startsWith("support.yaml:").contains("tool 'issue_refnd' (call(issue_refnd))")
                .contains("tool 'issue_refund', which 3 other places of this library name").contains("Did you mean 'issue_refund'?"));
        assertThat(notes).anySatisfy(n -> assertThat(n).startsWith("support.yaml:5: tool 'lookup_ordr' (the latch on RETURN of lookup_ordr)")
                .contains("Did you mean 'lookup_order'?"));
        assertThat(notes).anySatisfy(n -> assertThat(n).startsWith("support.yaml: tool 'send_emial' (injection.side-effecting)")
                .contains("Did you mean 'send_email'?"));
    }

    /** trial27 06: a numbered series of tools (tool_0 ... tool_59) is named on purpose: no note per pair (there were ~400). */
    @Test
    void namesThatDifferOnlyInTheirNumbersGetNoNote() {
        StringBuilder tools = new StringBuilder();
        for (int i = 0; i < 60; i++) tools.append(i == 0 ? "" : " | ").append("call(tool_").append(i).append(")");
        LibrarySpec series = LibraryReader.read("allow.yaml", "library: allow\ncontracts:\n  - id: allow.c\n    guarantee: \"G(call -> ("
                + tools + " | call(get_v1) | call(get_v2)))\"\n  - id: allow.d\n    guarantee: G !call(toll_7)\n");
        List<String> notes = ToolNames.notes(List.of(series));
        assertThat(notes).as("the series gives no note; toll_7, a slip from tool_7, still does").singleElement()
                .satisfies(n -> assertThat(n).contains("tool 'toll_7'").contains("Did you mean 'tool_7'?"));
    }

    /** Many pairs in one file (t100/u100 ... t299/u299; shorter names are not compared) are a naming scheme: five notes, then one for the rest, not 200. */
    @Test
    void manyPairsInOneFileAreSummedUpAfterTheFirstFew() {
        StringBuilder t = new StringBuilder(), u = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            t.append(i == 0 ? "" : " | ").append("call(t").append(i).append(")");
            u.append(i == 0 ? "" : " | ").append("call(u").append(i).append(")");
        }
        LibrarySpec big = LibraryReader.read("big.yaml", "library: big\natoms:\n  known_t: \"" + t + "\"\n  known_u: \"" + u
                + "\"\ncontracts:\n  - id: big.allow\n    guarantee: G(call -> (known_t | known_u))\n");
        List<String> notes = ToolNames.notes(List.of(big));
        assertThat(notes).hasSize(ToolNames.SHOWN + 1);
        assertThat(notes.subList(0, ToolNames.SHOWN)).allSatisfy(n -> assertThat(n).contains("is one slip away from tool"));
        assertThat(notes.get(ToolNames.SHOWN)).startsWith("big.yaml: and " + (200 - ToolNames.SHOWN) + " more pairs of tool names one slip apart (")
                .contains("naming scheme");
    }

    @Test
    void distinctToolsAndOtherLibrariesGetNoNote() {
        LibrarySpec a = LibraryReader.read("a.yaml", """
                library: a
                contracts:
                  - id: a.c
                    guarantee: G(call(send_money) -> O returned(verify_identity))
                  - id: a.d
                    guarantee: G(call(read) -> !call(send_email, "x"))
                """);
        LibrarySpec b = LibraryReader.read("b.yaml", "library: b\ncontracts:\n  - id: b.c\n    guarantee: G !call(send_mony)\n");
        assertThat(ToolNames.notes(List.of(a, b))).as("send_mony is in another library; read/send are far apart").isEmpty();
        // the same name in another case is the same tool (names are compared case-folded): no note
        LibrarySpec c = LibraryReader.read("c.yaml", "library: c\ncontracts:\n  - id: c.c\n    guarantee: G(call(Send_Email) -> !call(send_email))\n");
        assertThat(ToolNames.notes(List.of(c))).isEmpty();
        // two spellings side by side in one formula line are on purpose (a configured method and a framework tool)
        LibrarySpec d = LibraryReader.read("d.yaml", "library: d\natoms:\n  search: call(search_kb) | call(searchkb)\n"
                + "contracts:\n  - id: d.c\n    guarantee: G(search -> O user)\n");
        assertThat(ToolNames.notes(List.of(d))).isEmpty();
    }

    @Test
    void aSwappedPairInANestedAtomIsFound() {
        LibrarySpec s = LibraryReader.read("n.yaml", "library: n\ncontracts:\n  - id: n.c\n    guarantee: G(since(call(verify)) > 5 -> !call(vreify))\n");
        assertThat(ToolNames.notes(List.of(s))).singleElement().asString().contains("'verify'").contains("'vreify'");
    }
}
