package dev.tracegate.contracts.library;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.ParseException;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.Term;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a library file (YAML) into a {@link LibrarySpec}: checks every key and type, parses every
 * formula, expands named atoms; each mistake is a {@link LibraryException} with file:line:column.
 */
public final class LibraryReader {
    static final Set<String> TOP = Set.of("tracegate", "library", "description", "settings", "atoms", "context",
            "contracts", "gdpr", "injection", "permissions");
    static final Set<String> CONTRACT = Set.of("id", "description", "assume", "guarantee", "strategy", "message",
            "next", "redirect-to");
    static final Set<String> STRATEGIES = Set.of("block", "redirect", "escalate", "redact", "suppress");
    static final Set<String> LATCH = Set.of("on", "set", "add", "clear", "value");
    static final Set<String> LATCH_ON = Set.of("kind", "tool", "success");
    static final Set<String> KINDS = Set.of("USER", "ASSISTANT", "CALL", "RETURN", "CONSENT", "ERASURE");
    static final Set<String> SETTINGS = Set.of("unevaluable", "max-states");
    static final Set<String> GDPR = Set.of("purposes", "consent-purposes", "tools", "fields", "consent-tools", "erasure-tools", "subject-fields",
            "scope", "register-capacity");
    static final Set<String> CONSENT_TOOL = Set.of("subject", "purposes", "granted");
    static final Set<String> ERASURE_TOOL = Set.of("subject");
    static final Set<String> INJECTION = Set.of("side-effecting", "provenance");
    static final Set<String> PROVENANCE = Set.of("whole-fields", "labelled-lines", "named-owner", "endorse", "delegation",
            "fetch-tools", "link-payloads", "max-chars");
    static final Set<String> ENDORSE = Set.of("none", "direct", "transitive", "record");

    private LibraryReader() {}

    /** Whether {@code key} is a top-level key of a library file ({@code library}, {@code contracts}, ...). */
    public static boolean isTopLevelKey(String key) {
        return TOP.contains(key);
    }

    public static LibrarySpec read(String file, String yaml) {
        Node root = YamlReader.read(file, yaml);
        Fields top = Fields.of(root, "the library", TOP);
        if (top.has("tracegate")) {
            int v = top.integer("tracegate", 1, 1, 1);
            if (v != 1) throw Fields.error(top.get("tracegate"), "format version " + v + " is not supported", "use 'tracegate: 1'");
        }
        String name = top.requiredString("library", "start the file with 'library: <name>'");
        String description = top.string("description", "");

        LibrarySpec.Settings settings = LibrarySpec.Settings.DEFAULT;
        if (top.has("settings")) {
            Fields s = Fields.of(top.get("settings"), "settings", SETTINGS);
            settings = new LibrarySpec.Settings(
                    s.choice("unevaluable", "refuse", Set.of("refuse", "allow")).equals("refuse"),
                    s.integer("max-states", LibrarySpec.Settings.DEFAULT.maxStates(), 2, 10_000_000));
        }

        Map<Atom, LibrarySpec.Position> positions = new HashMap<>();
        Map<String, Formula> named = namedAtoms(top, positions);

        List<LibrarySpec.ContractSpec> contracts = new ArrayList<>();
        // A file that only carries the gdpr: or injection: section for the built-in libraries needs no contract.
        boolean policy = top.has("gdpr") || top.has("injection");
        Node cs = policy ? top.get("contracts") : top.required("contracts", "add a 'contracts:' list with at least one contract");
        if (cs instanceof Node.Scalar s0 && s0.isNull()) cs = null;
        if (cs != null && !(cs instanceof Node.Seq)) {
            throw Fields.error(cs, "contracts must be a list, found " + cs.kind(), "start each contract with '- id: ...'");
        }
        Map<String, Node> ids = new HashMap<>();
        for (Node c : cs == null ? List.<Node>of() : ((Node.Seq) cs).items()) {
            Fields f = Fields.of(c, "a contract", CONTRACT);
            Node idNode = f.required("id", "give every contract an 'id:'");
            String id = Fields.text(idNode, "contract id");
            if (!id.matches("[A-Za-z0-9_.:-]+")) {
                throw Fields.error(idNode, "contract id '" + id + "' has characters other than letters, digits, '_', '.', ':' and '-'", null);
            }
            Node prev = ids.put(id, idNode);
            if (prev != null) throw Fields.error(idNode, "duplicate contract id '" + id + "'", "it is already used at line " + prev.line() + "; ids must be unique");
            String strategy = f.choice("strategy", "block", STRATEGIES);
            String redirectTo = f.string("redirect-to", null);
            if (strategy.equals("redirect") && redirectTo == null) {
                throw Fields.error(c, "contract '" + id + "' has strategy redirect but no 'redirect-to'", "name the tool to run instead: redirect-to: <tool>");
            }
            if (redirectTo != null && !strategy.equals("redirect")) {
                throw Fields.error(f.get("redirect-to"), "'redirect-to' only applies to strategy redirect", "set 'strategy: redirect' or remove it");
            }
            Node gNode = f.required("guarantee", "every contract needs a 'guarantee:' formula, e.g. G(refund -> O approve)");
            Node aNode = f.get("assume");
            String gText = formulaText(gNode, "guarantee");
            String aText = aNode == null ? "true" : formulaText(aNode, "assume");
            Formula g = expand(pastOnly(formula(gNode, gText, positions), gNode, gText, named), named, gNode, positions);
            Formula a = aNode == null ? Formula.Const.TRUE
                    : expand(pastOnly(formula(aNode, aText, positions), aNode, aText, named), named, aNode, positions);
            contracts.add(new LibrarySpec.ContractSpec(id, f.string("description", ""), a, g, strategy,
                    f.string("message", ""), f.string("next", ""), redirectTo, aText, gText, c.line(), c.column()));
        }
        if (contracts.isEmpty() && !policy) throw Fields.error(cs, "the library has no contracts", "add at least one '- id: ...' under contracts");

        List<LibrarySpec.LatchSpec> latches = latches(top);
        LibrarySpec.GdprSpec gdpr = top.has("gdpr") ? gdpr(top.get("gdpr")) : null;
        LibrarySpec.InjectionSpec injection = top.has("injection") ? injection(top.get("injection")) : null;
        for (Map.Entry<String, Formula> e : named.entrySet()) positions.remove(Atom.of(e.getKey()));
        return new LibrarySpec(name, description, file, settings, contracts, latches, gdpr, injection,
                top.strings("permissions"), Map.copyOf(positions), Set.copyOf(named.keySet()));
    }

    private static String formulaText(Node n, String what) {
        if (n instanceof Node.Scalar s && s.type() == Node.Scalar.Type.BOOLEAN) return s.text();
        if (n instanceof Node.Scalar s && s.tag() != null && !s.tag().startsWith("!!")) {
            // YAML takes a leading '!word' as a tag and drops it: '!call(x) W y' would silently become 'W y'.
            String written = s.tag() + (s.isNull() || s.text().isEmpty() ? "" : " " + s.text());
            String key = what.startsWith("atom ") ? what.substring("atom ".length()) : what;
            throw Fields.error(n, "formula '" + written + "' starts with '" + s.tag() + "', which YAML reads as a tag and drops, leaving '"
                    + (s.isNull() ? "" : s.text()) + "'", "quote the formula: " + key + ": " + quoted(written));
        }
        return Fields.text(n, what);
    }

    /** {@code text} as a YAML quoted scalar. */
    private static String quoted(String text) {
        if (text.indexOf('"') < 0 && text.indexOf('\\') < 0) return "\"" + text + "\"";
        if (text.indexOf('\'') < 0) return "'" + text + "'";
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static Map<String, Formula> namedAtoms(Fields top, Map<Atom, LibrarySpec.Position> positions) {
        Map<String, Formula> raw = new LinkedHashMap<>();
        Map<String, Node> where = new HashMap<>();
        Map<String, String> texts = new HashMap<>();
        if (!top.has("atoms")) return raw;
        Node an = top.get("atoms");
        if (!(an instanceof Node.MapNode m)) throw Fields.error(an, "atoms must be a map of name: definition", "for example: refund: call(refund)");
        for (Map.Entry<String, Node> e : m.entries().entrySet()) {
            String key = e.getKey();
            Node.Scalar keyNode = m.keys().get(key);
            if (!key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw Fields.error(keyNode, "atom name '" + key + "' is not an identifier", "use letters, digits and '_', starting with a letter");
            }
            if (Set.of("X", "WX", "F", "G", "U", "W", "R", "Y", "O", "H", "S", "true", "false").contains(key)) {
                throw Fields.error(keyNode, "atom name '" + key + "' is a reserved operator", "choose another name");
            }
            Node v = e.getValue();
            String text = formulaText(v, "atom " + key);
            raw.put(key, formula(v, text, positions));
            where.put(key, v);
            texts.put(key, text);
        }
        // Expand definitions that use other named atoms; a cycle is an error.
        Map<String, Formula> done = new LinkedHashMap<>();
        for (String k : raw.keySet()) resolve(k, raw, where, done, new ArrayDeque<>(), positions);
        for (String k : raw.keySet()) pastOnly(raw.get(k), where.get(k), texts.get(k), done);
        return done;
    }

    private static Formula resolve(String k, Map<String, Formula> raw, Map<String, Node> where, Map<String, Formula> done,
                                   Deque<String> path, Map<Atom, LibrarySpec.Position> positions) {
        Formula f = done.get(k);
        if (f != null) return f;
        if (path.contains(k)) {
            List<String> cycle = new ArrayList<>(path);
            java.util.Collections.reverse(cycle);
            cycle.add(k);
            throw Fields.error(where.get(k), "named atoms refer to each other in a cycle: " + String.join(" -> ", cycle),
                    "define one of them without the others");
        }
        path.push(k);
        Formula out = substitute(raw.get(k), name -> raw.containsKey(name) ? resolve(name, raw, where, done, path, positions) : null,
                where.get(k), positions);
        path.pop();
        done.put(k, out);
        return out;
    }

    /**
     * The compiler's restriction, checked here so that the error can name the place in the file: the
     * operand of a past operator (Y, O, H, S) has no future operator, neither written in it nor inside
     * a named atom it uses. Returns {@code f}.
     */
    private static Formula pastOnly(Formula f, Node n, String text, Map<String, Formula> named) {
        if (f instanceof Formula.Unary u) {
            if (u.op().isPast()) requirePast(u.arg(), u.op().symbol, n, text, named);
            pastOnly(u.arg(), n, text, named);
        } else if (f instanceof Formula.Binary b) {
            if (b.op().isPast()) {
                requirePast(b.left(), b.op().symbol, n, text, named);
                requirePast(b.right(), b.op().symbol, n, text, named);
            }
            pastOnly(b.left(), n, text, named);
            pastOnly(b.right(), n, text, named);
        }
        return f;
    }

    private static void requirePast(Formula operand, String pastOp, Node n, String text, Map<String, Formula> named) {
        Formula bad = firstFuture(operand, named);
        if (bad == null) return;
        String hint = "rewrite so that the future operator is outside and the past one inside, e.g. G(b -> O a) "
                + "(every b preceded by an a) instead of O(F ...) or H(X ...)";
        String rule = "the operands of Y, O, H and S must be past-only";
        if (bad instanceof Atom a) {   // a named atom whose definition has a future operator
            Formula def = named.get(a.name());
            Formula op = firstFuture(def, Map.of());
            throw atAtom(n, a, "in formula '" + text.strip() + "': named atom '" + a.name() + "' (" + Formulas.print(def)
                    + ") has future operator " + symbol(op) + " and is used inside past operator " + pastOp + "; " + rule, hint);
        }
        Atom first = Formulas.firstAtom(bad);
        String problem = "in formula '" + text.strip() + "': future operator " + symbol(bad) + " inside past operator " + pastOp
                + "; " + rule;
        int[] op = operatorAt(bad, text);
        if (op != null) {
            int[] at = inFile(n, op[0], op[1]);
            throw new LibraryException(n.file(), at[0], at[1], problem, hint);
        }
        if (first == null || first.line() <= 0) throw Fields.error(n, problem, hint);
        throw atAtom(n, first, problem, hint);
    }

    /**
     * The 1-based {line, column} in {@code text} of the operator of {@code bad} (X in {@code H(X call(a))}, U in
     * {@code O(call(c) U call(a))}), found from its atoms' positions: a prefix operator is written before its operand's
     * first atom with only spaces and '(' between, a binary one before its right operand's. Null when the text does not
     * read so (an atom from a named atom's definition, an operator spelt otherwise): then the atom's position is given.
     */
    static int[] operatorAt(Formula bad, String text) {
        int[] lineStart = lineStarts(text);
        int at;
        if (bad instanceof Formula.Unary u) {
            at = startOf(u, text, lineStart);
        } else if (bad instanceof Formula.Binary b) {
            int right = startOf(b.right(), text, lineStart);
            at = right < 0 ? -1 : tokenBefore(text, right, b.op().symbol);
        } else {
            return null;
        }
        if (at < 0) return null;
        int line = 0;
        while (line + 1 < lineStart.length && lineStart[line + 1] <= at) line++;
        return new int[] {line + 1, at - lineStart[line] + 1};
    }

    private static int[] lineStarts(String text) {
        List<Integer> starts = new ArrayList<>();
        starts.add(0);
        for (int i = 0; i < text.length(); i++) if (text.charAt(i) == '\n') starts.add(i + 1);
        return starts.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The offset where {@code f} is written in {@code text}, or -1. */
    private static int startOf(Formula f, String text, int[] lineStart) {
        if (f instanceof Atom a) {
            if (a.line() < 1 || a.line() > lineStart.length || a.column() < 1) return -1;
            int off = lineStart[a.line() - 1] + a.column() - 1;
            return off < text.length() && text.startsWith(a.name(), off) ? off : -1;
        }
        if (f instanceof Formula.Unary u) {
            int operand = startOf(u.arg(), text, lineStart);
            return operand < 0 ? -1 : tokenBefore(text, operand, u.op().symbol);
        }
        if (f instanceof Formula.Binary b) return startOf(b.left(), text, lineStart);
        return -1;
    }

    /** The offset of {@code symbol} written before {@code at} with only spaces and '(' between, or -1. */
    private static int tokenBefore(String text, int at, String symbol) {
        int i = at;
        while (i > 0 && (Character.isWhitespace(text.charAt(i - 1)) || text.charAt(i - 1) == '(')) i--;
        int from = i - symbol.length();
        return from >= 0 && text.startsWith(symbol, from) ? from : -1;
    }

    /** The first future subformula of {@code f}, or a named atom of {@code named} whose definition has one. */
    private static Formula firstFuture(Formula f, Map<String, Formula> named) {
        if (f instanceof Atom a) {
            Formula def = a.args().isEmpty() && a.comparison() == null ? named.get(a.name()) : null;
            return def != null && firstFuture(def, Map.of()) != null ? a : null;
        }
        if (f instanceof Formula.Unary u) return u.op().isFuture() ? u : firstFuture(u.arg(), named);
        if (f instanceof Formula.Binary b) {
            if (b.op().isFuture()) return b;
            Formula l = firstFuture(b.left(), named);
            return l != null ? l : firstFuture(b.right(), named);
        }
        return null;
    }

    private static String symbol(Formula f) {
        return f instanceof Formula.Unary u ? u.op().symbol : ((Formula.Binary) f).op().symbol;
    }

    /** An error at an atom of the formula scalar {@code n}, mapped into the file as the parser's positions are. */
    private static LibraryException atAtom(Node n, Atom a, String problem, String hint) {
        int[] at = inFile(n, Math.max(a.line(), 1), Math.max(a.column(), 1));
        return new LibraryException(n.file(), at[0], at[1], problem, hint);
    }

    /**
     * The file's {line, column} of 1-based {@code line}:{@code column} inside the formula scalar {@code n}: exact through
     * YAML's folding, quotes and blocks when the file text is known; else the scalar's start plus the offset, which is
     * exact for a plain scalar on one line.
     */
    static int[] inFile(Node n, int line, int column) {
        int[] at = n instanceof Node.Scalar s ? s.positionOf(line, column) : null;
        if (at != null) return at;
        return new int[] {n.line() + line - 1, line == 1 ? n.column() + column - 1 : column};
    }

    private static Formula expand(Formula f, Map<String, Formula> named, Node where, Map<Atom, LibrarySpec.Position> positions) {
        return substitute(f, named::get, where, positions);
    }

    /** {@code f} with its named atoms replaced by their definitions, bare or as the condition of {@code since(...)}. */
    private static Formula substitute(Formula f, java.util.function.Function<String, Formula> lookup, Node where,
                                      Map<Atom, LibrarySpec.Position> positions) {
        if (f instanceof Atom a) {
            if (a.args().isEmpty() && a.comparison() == null) {
                Formula def = lookup.apply(a.name());
                if (def != null) return def;
            }
            return sinceNamed(a, lookup, where, positions);
        }
        if (f instanceof Formula.Unary u) return Formulas.unary(u.op(), substitute(u.arg(), lookup, where, positions));
        if (f instanceof Formula.Binary b) {
            return Formulas.binary(b.op(), substitute(b.left(), lookup, where, positions), substitute(b.right(), lookup, where, positions));
        }
        return f;
    }

    /**
     * {@code since(name)} with a named atom: since counts the events since one condition atom held, so the named atom's
     * definition, when it is one atom without a comparison, takes its place ({@code since(verified) <= 3} with
     * {@code verified: returned(verify)} reads {@code since(returned(verify)) <= 3}); any other definition is an error.
     */
    private static Atom sinceNamed(Atom a, java.util.function.Function<String, Formula> lookup, Node where,
                                   Map<Atom, LibrarySpec.Position> positions) {
        if (!a.name().equals("since") || a.args().size() != 1 || !(a.args().get(0) instanceof Term.Name n)) return a;
        Formula def = lookup.apply(n.value());
        if (def == null) return a;
        if (def instanceof Atom d && d.comparison() == null) {
            Term inner = d.args().isEmpty() ? new Term.Name(d.name()) : new Term.Call(d.name(), d.args());
            Atom out = new Atom(a.name(), List.of(inner), a.comparison(), a.bound(), a.line(), a.column());
            LibrarySpec.Position at = positions.get(a);
            if (at != null) positions.putIfAbsent(out, at);
            return out;
        }
        throw atAtom(where, a, "atom `" + a.key() + "`: named atom '" + n.value() + "' is " + Formulas.print(def) + ", and since(...)"
                        + " counts the events since one condition atom held, not a " + (def instanceof Atom ? "comparison" : "formula"),
                "use a named atom that is one condition atom (verified: returned(verify), then since(verified) <= 3), or write"
                        + " the atom inside: since(returned(verify)) <= 3");
    }

    /** Parses a formula scalar, mapping the parser's position into the file. */
    static Formula formula(Node n, String text) {
        return formula(n, text, null);
    }

    /** As {@link #formula(Node, String)}, recording where in the file each atom first occurs. */
    static Formula formula(Node n, String text, Map<Atom, LibrarySpec.Position> positions) {
        if (n instanceof Node.Scalar s && s.source() != null) {
            String written = ScalarOrigin.written(s.source(), s.line(), s.column());
            // '*name' is a YAML alias: of an anchor no one set, YAML gives the bare name, which may even parse ('*p' reads 'p')
            String alias = written == null || written.isBlank() ? "" : written.strip().split("\\s+")[0];
            if (alias.startsWith("*") && alias.substring(1).equals(text.strip())) {
                throw new LibraryException(n.file(), n.line(), n.column(), "formula '" + alias + "' starts with '*', which YAML reads"
                        + " as an alias (a reference to a value marked '&" + text.strip() + "') and drops, leaving '" + text.strip() + "'",
                        "quote the formula: " + quoted(alias));
            }
        }
        try {
            Formula f = Parser.parse(text);
            if (positions != null) recordAtoms(f, n, positions);
            return f;
        } catch (ParseException e) {
            int[] at = inFile(n, Math.max(e.line(), 1), Math.max(e.column(), 1));
            LibraryException cut = cutByComment(n, text, e);
            if (cut != null) throw cut;
            int[] open = e.openedAt();
            String reason = open == null ? e.reason() : reasonOpenedInFile(n, e, open);
            throw new LibraryException(n.file(), at[0], at[1], "in formula '" + text.strip() + "': " + reason,
                    boundFirst(text, e.line(), e.column()) + escapeInYaml(n, e) + quotesInYaml(n, e) + "the formula syntax is in docs/FORMULAS.md");
        }
    }

    /** The parser's reason with the unclosed bracket placed in the file as line:column (trial42 03: it said 1:2). */
    private static String reasonOpenedInFile(Node n, ParseException e, int[] open) {
        int[] at = inFile(n, open[0], open[1]);
        return e.reasonWithOpening(at[0], at[1]);
    }

    /**
     * A formula that does not parse because YAML ended it at ' #' (a plain scalar's comment): the error at the '#', naming
     * the comment and the quoted formula as written; null when the formula is quoted, a block, or not followed by ' #'.
     */
    private static LibraryException cutByComment(Node n, String text, ParseException e) {
        if (!(n instanceof Node.Scalar s) || s.source() == null) return null;
        String written = ScalarOrigin.written(s.source(), s.line(), s.column());
        if (written == null || written.isEmpty() || "\"'|>".indexOf(written.charAt(0)) >= 0) return null;
        String[] lines = text.split("\n", -1);
        int[] end = s.positionOf(lines.length, lines[lines.length - 1].length() + 1);
        if (end == null) return null;
        String rest = ScalarOrigin.written(s.source(), end[0], end[1]);
        if (rest == null || !rest.matches("\\s+#.*")) return null;
        String comment = rest.stripTrailing();
        int hash = comment.indexOf('#');
        return new LibraryException(n.file(), end[0], end[1] + hash, "in formula '" + text.strip() + "': " + e.reason() + ", because YAML"
                + " reads ' #' and what follows on the line ('" + comment.substring(hash) + "') as a comment and cuts the formula there",
                "quote the formula: " + quoted(text.strip() + comment));
    }

    /**
     * For a pattern's escape the formula refuses ({@code \d}), how to write it in the kind of scalar the formula is in:
     * YAML reads a double-quoted scalar's backslashes first, a plain or single-quoted one's not; else "".
     */
    private static String escapeInYaml(Node n, ParseException e) {
        if (!e.reason().startsWith("unexpected escape '\\") || !e.expected().contains("(a pattern's backslash")) return "";
        String esc = e.token();
        String doubled = "\\" + esc;
        String written = n instanceof Node.Scalar s && s.source() != null ? ScalarOrigin.written(s.source(), s.line(), s.column()) : null;
        if (written != null && written.startsWith("\"")) {
            return "this formula is a YAML double-quoted scalar, which reads its backslashes first: write \\\\" + doubled + " for the"
                    + " pattern's " + esc + " (or leave the formula unquoted, or in single quotes, and write " + doubled + "); ";
        }
        return "write the pattern's backslash twice: " + doubled + "; ";
    }

    /**
     * For a name the parser says to write in double quotes ({@code call("send-email")}): in a YAML double-quoted scalar
     * those quotes are written {@code \"}; else "".
     */
    private static String quotesInYaml(Node n, ParseException e) {
        if (!e.expected().contains("is written in double quotes")) return "";
        String written = n instanceof Node.Scalar s && s.source() != null ? ScalarOrigin.written(s.source(), s.line(), s.column()) : null;
        if (written == null || !written.startsWith("\"")) return "";
        return "this formula is a YAML double-quoted scalar, so each quote around the name is written \\\" inside it (or leave the"
                + " formula unquoted, or in single quotes); ";
    }

    private static final java.util.regex.Pattern BOUND_FIRST =
            java.util.regex.Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*(<=|>=|==|!=|<|>)\\s*([a-z_]+\\([^()]*\\))");

    /**
     * "a comparison starts with its atom: write arg(pay, amount) <= 100; " when the parser stopped at a number that a
     * comparison operator and an atom follow (a bound written first, trial7 repro 20), else "".
     */
    static String boundFirst(String text, int line, int column) {
        String[] lines = text.split("\n", -1);
        if (line < 1 || line > lines.length || column < 1 || column > lines[line - 1].length()) return "";
        java.util.regex.Matcher m = BOUND_FIRST.matcher(lines[line - 1].substring(column - 1));
        if (!m.lookingAt()) return "";
        String flipped = switch (m.group(2)) {
            case "<=" -> ">="; case ">=" -> "<="; case "<" -> ">"; case ">" -> "<"; default -> m.group(2);
        };
        return "a comparison starts with its atom: write " + m.group(3) + " " + flipped + " " + m.group(1) + "; ";
    }

    private static void recordAtoms(Formula f, Node n, Map<Atom, LibrarySpec.Position> positions) {
        if (f instanceof Atom a) {
            int[] at = inFile(n, Math.max(a.line(), 1), Math.max(a.column(), 1));
            positions.putIfAbsent(a, new LibrarySpec.Position(n.file(), at[0], at[1]));
        } else if (f instanceof Formula.Unary u) {
            recordAtoms(u.arg(), n, positions);
        } else if (f instanceof Formula.Binary b) {
            recordAtoms(b.left(), n, positions);
            recordAtoms(b.right(), n, positions);
        }
    }

    private static List<LibrarySpec.LatchSpec> latches(Fields top) {
        List<LibrarySpec.LatchSpec> out = new ArrayList<>();
        if (!top.has("context")) return out;
        Node cn = top.get("context");
        if (!(cn instanceof Node.Seq seq)) throw Fields.error(cn, "context must be a list of latches", "for example:\n    - on: {kind: RETURN, tool: approve_refund}\n      set: approved\n      value: arg(amount)");
        for (Node ln : seq.items()) {
            Fields l = Fields.of(ln, "a context latch", LATCH);
            Fields on = Fields.of(l.required("on", "say which event sets the context: on: {kind: RETURN, tool: T}"), "on", LATCH_ON);
            String kind = on.choice("kind", "RETURN", KINDS);
            int modes = (l.has("set") ? 1 : 0) + (l.has("add") ? 1 : 0) + (l.has("clear") ? 1 : 0);
            if (modes != 1) throw Fields.error(ln, "a latch needs exactly one of 'set', 'add', 'clear'", "set: key (single value), add: key (set of values) or clear: key");
            String mode = l.has("set") ? "set" : l.has("add") ? "add" : "clear";
            String key = Fields.name(l.required(mode, "name the context key"), "latch " + mode);
            String value = l.string("value", defaultValue(kind));
            out.add(new LibrarySpec.LatchSpec(kind, on.string("tool", null), on.bool("success", true), key, value, mode,
                    ln.line(), ln.column()));
        }
        return out;
    }

    private static String defaultValue(String kind) {
        return switch (kind) {
            case "CONSENT", "ERASURE" -> "subject";
            case "RETURN" -> "result";
            default -> "true";
        };
    }

    private static LibrarySpec.GdprSpec gdpr(Node n) {
        Fields g = Fields.of(n, "gdpr", GDPR);
        Map<String, List<String>> purposes = listMap(g.get("purposes"), "gdpr.purposes");
        Map<String, List<String>> tools = listMap(g.get("tools"), "gdpr.tools");
        for (Map.Entry<String, List<String>> e : tools.entrySet()) {
            for (String p : e.getValue()) {
                if (!purposes.containsKey(p)) {
                    throw Fields.error(((Node.MapNode) g.get("tools")).entries().get(e.getKey()),
                            "tool '" + e.getKey() + "' is bound to purpose '" + p + "', which is not declared",
                            "declare it under gdpr.purposes with the categories it needs (declared: "
                                    + String.join(", ", purposes.keySet()) + ")");
                }
            }
        }
        Map<String, Map<String, String>> fields = new LinkedHashMap<>();
        Node fn = g.get("fields");
        if (fn != null) {
            if (!(fn instanceof Node.MapNode fm)) throw Fields.error(fn, "gdpr.fields must map tool -> {field: category}", null);
            for (Map.Entry<String, Node> e : fm.entries().entrySet()) {
                Fields.key(fm, e.getKey(), "gdpr.fields tool");
                if (!(e.getValue() instanceof Node.MapNode inner)) throw Fields.error(e.getValue(), "gdpr.fields." + e.getKey() + " must map field -> category", null);
                Map<String, String> m = new LinkedHashMap<>();
                for (Map.Entry<String, Node> f : inner.entries().entrySet()) {
                    m.put(Fields.key(inner, f.getKey(), "gdpr.fields." + e.getKey() + " field"), Fields.name(f.getValue(), "category"));
                }
                fields.put(e.getKey(), m);
            }
        }
        Map<String, List<String>> consentTools = new LinkedHashMap<>();
        Node cn = g.get("consent-tools");
        if (cn != null) {
            if (!(cn instanceof Node.MapNode cm)) throw Fields.error(cn, "gdpr.consent-tools must map tool -> {subject, purposes, granted}", null);
            for (Map.Entry<String, Node> e : cm.entries().entrySet()) {
                Fields.key(cm, e.getKey(), "gdpr.consent-tools tool");
                String where = "gdpr.consent-tools." + e.getKey();
                Fields t = Fields.of(e.getValue(), where, CONSENT_TOOL);
                String subject = t.requiredString("subject", "name the argument that holds the data subject");
                // purposes: the argument that holds them (a scalar), or the purposes themselves (a list)
                Node pn = t.required("purposes", "name the argument that holds the purpose(s), or list the purposes the tool"
                        + " always records: purposes: [marketing]");
                String purposesField = null;
                String purposesFixed = null;
                if (pn instanceof Node.Seq) {
                    List<String> fixed = Fields.strings(pn, where + ".purposes");
                    if (fixed.isEmpty()) throw Fields.error(pn, where + ".purposes is an empty list, so the tool would record no consent",
                            "list the purposes the tool records ([marketing]), or name the argument that holds them (purposes: purpose)");
                    for (String p : fixed) {
                        if (!purposes.containsKey(p)) throw Fields.error(pn, where + ".purposes lists '" + p + "', which is not a declared purpose",
                                "declare it under gdpr.purposes (declared: " + String.join(", ", purposes.keySet()) + "), or, if the tool's"
                                        + " argument holds the purposes, write its name without brackets (purposes: purpose)");
                    }
                    purposesFixed = String.join(",", fixed);
                } else {
                    purposesField = Fields.name(pn, where + ".purposes");
                    if (purposes.containsKey(purposesField)) {
                        throw Fields.error(pn, where + ".purposes: '" + purposesField + "' names the tool's argument that holds the"
                                + " purposes, but " + purposesField + " is a declared purpose, so the tool would record consent to"
                                + " whatever that argument says (nothing when the tool has no such argument)",
                                "to record consent to " + purposesField + " at every call, list it: purposes: [" + purposesField + "]");
                    }
                }
                // granted: the argument whose boolean says grant or withdraw, or true / false for every call
                Node gn = t.get("granted");
                String grantedField = null;
                String grantedFixed = null;
                if (gn != null && !(gn instanceof Node.Scalar gs && gs.isNull())) {
                    String g0 = Fields.name(gn, where + ".granted");
                    if (g0.equalsIgnoreCase("true") || g0.equalsIgnoreCase("false")) grantedFixed = g0.toLowerCase(java.util.Locale.ROOT);
                    else grantedField = g0;
                }
                consentTools.put(e.getKey(), java.util.Arrays.asList(subject, purposesField, grantedField, purposesFixed, grantedFixed));
            }
        }
        Map<String, String> erasureTools = new LinkedHashMap<>();
        Node en = g.get("erasure-tools");
        if (en != null) {
            if (!(en instanceof Node.MapNode em)) throw Fields.error(en, "gdpr.erasure-tools must map tool -> {subject}", null);
            for (Map.Entry<String, Node> e : em.entries().entrySet()) {
                Fields.key(em, e.getKey(), "gdpr.erasure-tools tool");
                Fields t = Fields.of(e.getValue(), "gdpr.erasure-tools." + e.getKey(), ERASURE_TOOL);
                erasureTools.put(e.getKey(), t.requiredString("subject", "name the argument that holds the data subject"));
            }
        }
        Node cp = g.get("consent-purposes");
        boolean none = cp instanceof Node.Scalar s && !s.isNull() && s.text().trim().equalsIgnoreCase("none");
        List<String> consentPurposes = none ? List.of() : g.strings("consent-purposes");
        if (consentPurposes.isEmpty() && cp != null && !none) {
            // an empty list reads as "none", but without the key every purpose rests on consent: refuse the ambiguity
            throw Fields.error(cp, "consent-purposes is empty, which would mean that every purpose rests on consent"
                    + " (as when the key is left out), not that none does",
                    "list the purposes that rest on consent, write 'consent-purposes: none' when none does, or leave the key out for all of them");
        }
        for (String p : consentPurposes) {
            if (!purposes.containsKey(p)) {
                throw Fields.error(g.get("consent-purposes"), "consent purpose '" + p + "' is not declared",
                        "declare it under gdpr.purposes (declared: " + String.join(", ", purposes.keySet()) + ")");
            }
        }
        String scope = g.string("scope", null);
        if (scope != null) {
            scope = scope.trim().toLowerCase(java.util.Locale.ROOT);
            if (!scope.equals("global") && !scope.equals("session")) {
                throw Fields.error(g.get("scope"), "gdpr.scope is '" + scope + "', which is neither global nor session",
                        "write 'scope: global' (the default: a consent or an erasure given in any conversation counts in all of them)"
                                + " or 'scope: session' (each conversation keeps its own)");
            }
        }
        int registerCapacity = g.has("register-capacity")
                ? g.integer("register-capacity", dev.tracegate.matchers.predicate.SubjectRegister.DEFAULT_CAPACITY, 1, 50_000_000) : 0;
        return new LibrarySpec.GdprSpec(purposes, tools, fields, consentTools, erasureTools, consentPurposes, g.strings("subject-fields"), none,
                scope, registerCapacity);
    }

    private static LibrarySpec.InjectionSpec injection(Node n) {
        Fields f = Fields.of(n, "injection", INJECTION);
        Map<String, List<String>> sideEffecting = listMap(f.get("side-effecting"), "injection.side-effecting");
        LibrarySpec.ProvenanceSpec provenance = f.has("provenance") ? provenance(f.get("provenance"), sideEffecting) : null;
        return new LibrarySpec.InjectionSpec(sideEffecting, provenance);
    }

    private static LibrarySpec.ProvenanceSpec provenance(Node n, Map<String, List<String>> sideEffecting) {
        if (n instanceof Node.Scalar s && (s.isNull() || s.text().isBlank())) {
            throw Fields.error(n, "injection.provenance is empty", "write 'provenance: {}' for whole-word provenance without refinements, "
                    + "or list refinements such as 'whole-fields: true'");
        }
        Fields p = Fields.of(n, "injection.provenance", PROVENANCE);
        List<String> fetch = p.strings("fetch-tools");
        for (String t : fetch) requireSideEffecting(p.get("fetch-tools"), t, "fetch-tools", sideEffecting);
        Map<String, List<String>> links = listMap(p.get("link-payloads"), "injection.provenance.link-payloads");
        if (p.has("link-payloads")) {
            Node.MapNode m = (Node.MapNode) p.get("link-payloads");
            for (Map.Entry<String, List<String>> e : links.entrySet()) {
                requireSideEffecting(m.keys().get(e.getKey()), e.getKey(), "link-payloads", sideEffecting);
                if (e.getValue().isEmpty()) {
                    throw Fields.error(m.entries().get(e.getKey()), "injection.provenance.link-payloads." + e.getKey() + " lists no argument",
                            "name the payload arguments, e.g. [body, subject]");
                }
            }
        }
        return new LibrarySpec.ProvenanceSpec(p.bool("whole-fields", false), p.bool("labelled-lines", false),
                p.bool("named-owner", false), p.choice("endorse", "none", ENDORSE), p.bool("delegation", false), fetch, links,
                p.integer("max-chars", dev.tracegate.matchers.predicate.Provenance.DEFAULT_MAX_CHARS, 1024, Integer.MAX_VALUE));
    }

    private static void requireSideEffecting(Node where, String tool, String key, Map<String, List<String>> sideEffecting) {
        if (!sideEffecting.containsKey(tool)) {
            String near = Fields.closest(tool, sideEffecting.keySet());
            throw Fields.error(where, "injection.provenance." + key + " names '" + tool + "', which is not under injection.side-effecting",
                    (near != null ? "did you mean '" + near + "'? " : "") + "declare the tool under side-effecting with its target arguments");
        }
    }

    private static Map<String, List<String>> listMap(Node n, String what) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (n == null) return out;
        if (!(n instanceof Node.MapNode m)) throw Fields.error(n, what + " must be a map of name: [values]", null);
        for (Map.Entry<String, Node> e : m.entries().entrySet()) {
            out.put(Fields.key(m, e.getKey(), what + " entry"), Fields.strings(e.getValue(), what + "." + e.getKey()));
        }
        return out;
    }
}
