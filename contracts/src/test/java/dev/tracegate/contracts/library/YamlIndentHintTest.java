package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The hint for a line indented like no block above it names an indentation that, followed, makes the line read
 * (trial9 repro yaml-indent-hint: a key of a list item, indented 3 under {@code   - id: ...}, was told to take the
 * {@code -} line's 2 spaces, which gives the same error again; the item's keys are at 4). Oracle: YAML itself; every
 * line of a few libraries is mis-indented by 1 to 3 spaces either way, and where the reader gives an indentation hint,
 * the line it names re-indented as the hint says no longer fails.
 */
class YamlIndentHintTest {
    private static final List<String> LIBRARIES = List.of("""
            library: ops
            contracts:
              - id: ops.search-cap
                guarantee: G(count(search) <= 1)
                message: m
              - id: ops.close
                assume: G !failed(open)
                guarantee: >-
                  G(call(open) -> F returned(close))
                message: close it
            """, """
            library: shop
            gdpr:
              purposes:
                billing: [email]
              consent-tools:
                give_consent:
                  subject: customer
                  purposes: purposes
            context:
            - on: {kind: RETURN, tool: approve}
              set: approved
              value: arg(amount)
            contracts:
            - id: shop.pay
              guarantee: G(call(pay) -> ctx(approved))
            """, """
            library: deep
            contracts:
              -   id: deep.a
                  guarantee: G p
              - - x
                - y
            """);

    /** Both hints that name an indentation: this one, and the one for a line indented under a key that has a value. */
    private static final Pattern HINT = Pattern.compile("on line \\d+ \\('[^\\n]*'\\) has (\\d+) spaces before it|^indent it like line \\d+(?:'s key '[^']*')? \\((\\d+) spaces|more than its key: (\\d+) spaces");

    @Test
    void followingTheIndentationHintMakesTheLineRead() {
        int hinted = 0;
        for (String lib : LIBRARIES) {
            String[] lines = lib.split("\n", -1);
            for (int l = 1; l < lines.length; l++) {
                if (lines[l].isBlank()) continue;
                int indent = lines[l].length() - lines[l].stripLeading().length();
                for (int d : new int[] {-3, -2, -1, 1, 2, 3}) {
                    if (indent + d < 0) continue;
                    String bad = with(lines, l, indent + d);
                    LibraryException e = catchThrowableOfType(LibraryException.class, () -> YamlReader.read("lib.yaml", bad));
                    if (e == null || e.hint() == null || !e.hint().startsWith("indent")) continue;
                    hinted++;
                    Matcher m = HINT.matcher(e.hint());
                    assertThat(m.find()).as(e.getMessage()).isTrue();
                    String[] badLines = bad.split("\n", -1);
                    String followed = with(badLines, e.line() - 1, Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3)));
                    LibraryException again = catchThrowableOfType(LibraryException.class, () -> YamlReader.read("lib.yaml", followed));
                    assertThat(again == null || again.line() != e.line())
                            .as("following\n" + e.getMessage() + "\nof\n" + bad + "gives\n" + (again == null ? "" : again.getMessage()))
                            .isTrue();
                }
            }
        }
        assertThat(hinted).as("mis-indentations that get the hint").isGreaterThan(5);
    }

    private static String with(String[] lines, int l, int indent) {
        String[] copy = lines.clone();
        copy[l] = " ".repeat(indent) + lines[l].stripLeading();
        return String.join("\n", copy);
    }
}
