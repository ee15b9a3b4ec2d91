package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.re2j.Pattern;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What one session has seen, for {@link Provenance}: the user's messages and the tool outputs (folded
 * to lower case, URLs without scheme), each output's whole fields, and the outputs or records the
 * user pointed at. Immutable: an update returns a new instance sharing the old texts, so a refused
 * event, whose update is never published, leaves no trace. Bounded by {@link Provenance#maxChars()}
 * characters (oldest dropped first, then every value counts as from a tool) and
 * {@value #MAX_PENDING} open calls.
 */
final class Sightings {
    /** Open calls remembered for their RETURN (the oldest is forgotten first: its output then endorses nothing). */
    static final int MAX_PENDING = 256;
    static final Sightings EMPTY = new Sightings(new String[0], new String[0], new String[0], new Set[0], new String[0],
            new String[0], new String[0], new String[0], false, false, 0);

    private static final Pattern DELEGATION = Pattern.compile(Provenance.DELEGATION_WORDS);
    /** What a labelled line is, as a pattern (the specification of {@link #labelledValue}; tests compare the two). */
    static final Pattern LABELLED = Pattern.compile("(?m)^[ \\t]*[A-Za-z][A-Za-z0-9 _-]{0,30}:[ \\t]+(\\S[^\\n]*?)[ \\t]*$");

    final String[] user;
    final String[] names;        // parallel to user: the names each message wrote ({@link #names(String)})
    final String[] outputs;
    final Set<String>[] fields;  // parallel to outputs; empty sets when whole fields are off
    final String[] endorsed;
    final String[] pending;      // call ids whose output comes from a source the user named
    final String[] records;      // records a fetch tool may open
    final String[] delegated;    // outputs of sources the user handed the task to
    final boolean delegating;    // a kept user message hands the task to a source
    final boolean truncated;     // a tool output was dropped: every value counts as from a tool
    final int chars;

    private Sightings(String[] user, String[] names, String[] outputs, Set<String>[] fields, String[] endorsed, String[] pending,
                      String[] records, String[] delegated, boolean delegating, boolean truncated, int chars) {
        this.user = user;
        this.names = names;
        this.outputs = outputs;
        this.fields = fields;
        this.endorsed = endorsed;
        this.pending = pending;
        this.records = records;
        this.delegated = delegated;
        this.delegating = delegating;
        this.truncated = truncated;
        this.chars = chars;
    }

    static Sightings of(Object ref) { return ref instanceof Sightings s ? s : EMPTY; }

    // ------------------------------------------------------------------ updates (on accepted events)

    /** After a user message. */
    Sightings user(String text, Provenance p) {
        String t = fold(text);
        String n = names(text);
        return new Sightings(append(user, t), append(names, n), outputs, fields, endorsed, pending, records, delegated,
                delegating || DELEGATION.matcher(t).find(), truncated, chars + t.length() + n.length()).bounded(p);
    }

    /** After a call of a side effect or a read: remembers whether its output comes from a source the user named. */
    Sightings call(String callId, boolean named) {
        String id = String.valueOf(callId);
        int at = indexOf(pending, id);
        if (named == (at >= 0)) return this;
        String[] p;
        if (named) {
            p = append(pending, id);
            if (p.length > MAX_PENDING) p = Arrays.copyOfRange(p, 1, p.length);
        } else {
            p = new String[pending.length - 1];
            System.arraycopy(pending, 0, p, 0, at);
            System.arraycopy(pending, at + 1, p, at, p.length - at);
        }
        return new Sightings(user, names, outputs, fields, endorsed, p, records, delegated, delegating, truncated, chars);
    }

    /** After a successful tool output; {@code tree} is the output read as YAML or JSON, or null for plain text. */
    Sightings output(String callId, String result, JsonNode tree, Provenance p) {
        String folded = fold(result);
        // the output as written and, when it has escapes (Escapes: HTML references, JSON \\u escapes, %40), decoded after it
        String decoded = Escapes.decode(result);
        String kept = decoded == result ? folded : folded + "\n" + fold(decoded);
        int added = kept.length();
        Set<String> f = Set.of();
        if (p.wholeFields) {
            Set<String> s = new HashSet<>();
            fields(result, tree, s, p.labelledLines);
            f = Set.copyOf(s);
            for (String x : f) added += x.length();
        }
        boolean fromNamed = indexOf(pending, String.valueOf(callId)) >= 0;
        String[] en = endorsed;
        if (p.endorse == Provenance.Endorse.RECORD) {
            if (tree != null) en = records(tree, user, names, null, en);
        } else if (p.endorse != Provenance.Endorse.NONE && fromNamed) {
            en = append(en, folded);
        }
        String[] del = delegated;
        if (p.delegation && fromNamed && delegating) del = append(del, folded);
        String[] rec = records;
        if (!p.fetchTools.isEmpty() && tree != null) rec = records(tree, user, names, delegated, rec);
        added += added(en, endorsed) + added(del, delegated) + added(rec, records);
        return new Sightings(user, names, append(outputs, kept), appendSet(fields, f), en, pending, rec, del, delegating, truncated,
                chars + added).bounded(p);
    }

    /** Drops the oldest texts until the session keeps at most {@code p.maxChars} characters. */
    private Sightings bounded(Provenance p) {
        if (chars <= p.maxChars) return this;
        String[] u = user, nm = names, o = outputs, en = endorsed, rec = records, del = delegated;
        Set<String>[] fs = fields;
        int c = chars;
        boolean cut = truncated;
        while (c > p.maxChars && o.length > 0) {
            c -= o[0].length();
            for (String x : fs[0]) c -= x.length();
            o = Arrays.copyOfRange(o, 1, o.length);
            fs = Arrays.copyOfRange(fs, 1, fs.length);
            cut = true;
        }
        while (c > p.maxChars && rec.length > 0) { c -= rec[0].length(); rec = Arrays.copyOfRange(rec, 1, rec.length); }
        while (c > p.maxChars && en.length > 0) { c -= en[0].length(); en = Arrays.copyOfRange(en, 1, en.length); }
        while (c > p.maxChars && del.length > 0) { c -= del[0].length(); del = Arrays.copyOfRange(del, 1, del.length); }
        while (c > p.maxChars && u.length > 0) {
            c -= u[0].length() + nm[0].length();
            u = Arrays.copyOfRange(u, 1, u.length);
            nm = Arrays.copyOfRange(nm, 1, nm.length);
        }
        boolean dg = false;
        for (String x : u) if (DELEGATION.matcher(x).find()) { dg = true; break; }
        return new Sightings(u, nm, o, fs, en, pending, rec, del, dg, cut, c);
    }

    // ------------------------------------------------------------------ questions (while grounding)

    /** True when {@code value} came from a tool output, the user never wrote it, and no refinement trusts it. */
    boolean untrusted(String value, Provenance p) {
        String v = fold(value);
        if (v.isEmpty()) return false;
        String iban = IbanSpelling.compact(v); // an IBAN, found compact or in groups however separated
        boolean fromTool = truncated;
        if (!fromTool) for (String o : outputs) if (contains(o, v, iban)) { fromTool = true; break; }
        if (!fromTool) return false;
        for (String u : user) if (contains(u, v, iban)) return false;
        if (p.namedOwner && ownerNamed(v)) return false;
        if (p.endorse != Provenance.Endorse.NONE) for (String u : endorsed) if (contains(u, v, iban)) return false;
        if (p.wholeFields) for (Set<String> f : fields) if (f.contains(v) || (iban != null && ibanField(f, iban))) return false;
        return true;
    }

    /**
     * A call's target value (or an {@code untrusted(f)} argument) is untrusted: {@link #untrusted} for the whole value, and
     * for a value the model composed (found whole in no output and no user message: {@code "IBAN: DE89..."},
     * {@code "DE89...."}) also for each identifier inside it ({@link Identifiers#find}: a number of 4+ digits, an IBAN in
     * groups, an address, a URL or domain, a quoted string), as the default mode reads a target. A composed value too long to
     * check that way ({@link Identifiers#distinct}: over 65,536 characters or 64 distinct identifiers) is untrusted. A
     * value or identifier that lies inside a record a fetch tool may open ({@code inRecordTrusted}) is not untrusted.
     */
    boolean untrustedTarget(String value, Provenance p, boolean inRecordTrusted) {
        if (Identifiers.displayName(value)) value = Identifiers.displayAddress(value); // "Bob Smith <bob@...>": its address
        if (untrusted(value, p) && !(inRecordTrusted && inRecord(value))) return true;
        String v = fold(value);
        if (v.isEmpty() || truncated || seenWhole(v)) return false; // decided as a whole, with its refinements
        // the value with its white space left out, as the default mode compares it: "attacker @evil.example" is the address
        String squeezed = squeeze(v);
        if (squeezed != v && untrusted(squeezed, p) && !(inRecordTrusted && inRecord(squeezed))) return true;
        List<String> ids = Identifiers.distinct(value);
        if (ids == null) return true; // more than the bound reads (65,536 chars, 64 distinct identifiers): not checked, not trusted
        for (String id : ids) {
            if (!fold(id).equals(v) && untrusted(id, p) && !(inRecordTrusted && inRecord(id))) return true;
        }
        return false;
    }

    /** {@code v} without white space ({@link TextHash#white}); {@code v} itself when it has none. */
    static String squeeze(String v) {
        int i = 0, n = v.length();
        while (i < n && !TextHash.white(v.charAt(i))) i++;
        if (i == n) return v;
        StringBuilder b = new StringBuilder(n).append(v, 0, i);
        for (; i < n; i++) if (!TextHash.white(v.charAt(i))) b.append(v.charAt(i));
        return b.toString();
    }

    /** {@link #why}: not untrusted; untrusted on what the session keeps; a target over the identifier bound; only past max-chars. */
    static final int TRUSTED = 0, INTRODUCED = 1, TOO_LONG = 2, DROPPED = 3;

    /**
     * For reports (a refusal's reason), never while grounding: why a target value ({@code target}: {@link #untrustedTarget})
     * or a link payload's identifier ({@link #untrusted}, unless it lies in a record a fetch tool may open) counts as
     * untrusted: {@link #INTRODUCED} when it does on the texts the session keeps, {@link #TOO_LONG} when the target is
     * only too long to check ({@link Identifiers#distinct}), {@link #DROPPED} when it does only because texts were dropped
     * past {@code max-chars} (then every value the user did not write counts as from a tool), else {@link #TRUSTED}.
     */
    int why(String value, Provenance p, boolean inRecordTrusted, boolean target) {
        boolean holds = target ? untrustedTarget(value, p, inRecordTrusted) : untrusted(value, p) && !(inRecordTrusted && inRecord(value));
        if (!holds) return TRUSTED;
        if (truncated) {
            int kept = new Sightings(user, names, outputs, fields, endorsed, pending, records, delegated, delegating, false, chars)
                    .why(value, p, inRecordTrusted, target);
            return kept == TRUSTED ? DROPPED : kept;
        }
        if (!target || untrusted(value, p) && !(inRecordTrusted && inRecord(value))) return INTRODUCED;
        return Identifiers.distinct(value) == null ? TOO_LONG : INTRODUCED;
    }

    /** True when {@code v} (folded) occurs as a whole word, or as an IBAN in any spelling, in an output or a user message. */
    private boolean seenWhole(String v) {
        String iban = IbanSpelling.compact(v);
        for (String o : outputs) if (contains(o, v, iban)) return true;
        for (String u : user) if (contains(u, v, iban)) return true;
        return false;
    }

    /** {@link #containsWord(String, String)} for {@code v}, or the IBAN {@code iban} in any spelling when it is one. */
    private static boolean contains(String text, String v, String iban) {
        return iban != null ? IbanSpelling.occursIn(text, iban) : containsWord(text, v);
    }

    /** True when one of the fields {@code f} is the IBAN {@code iban} in some spelling. */
    private static boolean ibanField(Set<String> f, String iban) {
        if (f.contains(iban)) return true;
        for (String x : f) if (x.length() > iban.length() && iban.equals(IbanSpelling.compact(x))) return true;
        return false;
    }

    /** True when {@code value} lies inside a record a fetch tool may open. */
    boolean inRecord(String value) {
        String v = fold(value);
        for (String r : records) if (containsWord(r, v)) return true;
        return false;
    }

    /** True when the output of call {@code callId} comes from a source the user handed the task to. */
    boolean delegatedReturn(String callId) {
        return delegating && indexOf(pending, String.valueOf(callId)) >= 0;
    }

    /** True when {@code v} (folded, 3+ characters) is a word the user wrote, or (transitively) one an endorsed output gave. */
    boolean named(String v, boolean endorsedToo) {
        String iban = IbanSpelling.compact(v);
        for (String u : user) if (contains(u, v, iban)) return true;
        if (endorsedToo) for (String u : endorsed) if (contains(u, v, iban)) return true;
        return false;
    }

    /** True when {@code v} is an e-mail address and a word of its local part (3+ letters) is a name the user wrote ({@link #names}). */
    private boolean ownerNamed(String v) {
        int at = v.indexOf('@');
        if (at <= 0) return false;
        for (String w : v.substring(0, at).split("[^\\p{L}]+")) {
            if (w.length() < 3) continue;
            for (String u : names) if (containsLine(u, w)) return true;
        }
        return false;
    }

    /**
     * The names a user message wrote, folded, one a line (so a name is a whole line): each word of 2+ letters starting with
     * a capital letter that does not start a sentence (it follows a word, a comma or the like on its line; not the text's
     * start, a line's start or {@code . ! ? :}), each run of such words joined by single spaces ({@code Dora Kim}), and each
     * quoted string of 1 to 64 characters on one line ({@code 'general'}, {@code "notice.txt"}, `x`, “x”, ‘x’, «x»).
     * Computed once per USER event, when the session keeps its text.
     */
    static String names(String text) {
        StringBuilder out = new StringBuilder();
        int n = text.length(), runStart = -1, runEnd = -1;
        boolean sentenceStart = true;
        for (int i = 0; i < n; ) {
            char c = text.charAt(i);
            if (Character.isLetter(c)) {
                int e = i + 1;
                while (e < n && Character.isLetter(text.charAt(e))) e++;
                boolean name = !sentenceStart && e - i >= 2 && Character.isUpperCase(c);
                if (name) {
                    line(out, text.substring(i, e));
                    if (runStart >= 0 && runEnd == i - 1 && text.charAt(i - 1) == ' ') runEnd = e;
                    else { run(out, text, runStart, runEnd); runStart = i; runEnd = e; }
                } else {
                    run(out, text, runStart, runEnd);
                    runStart = -1;
                }
                sentenceStart = false;
                i = e;
                continue;
            }
            if (c == '.' || c == '!' || c == '?' || c == ':' || c == '\n' || c == '\r' || c == '\u3002' || c == '\uff01'
                    || c == '\uff1f' || c == '\uff1a') sentenceStart = true;
            else if (Character.isDigit(c)) sentenceStart = false;
            int close = QUOTES.indexOf(c);
            if (close >= 0 && close % 2 == 0 && (i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1)))) {
                char q = QUOTES.charAt(close + 1);
                int e = i + 1;
                while (e < n && e - i <= 65 && text.charAt(e) != q && text.charAt(e) != '\n') e++;
                if (e < n && text.charAt(e) == q && e > i + 1 && e - i <= 65
                        && (e + 1 == n || !Character.isLetterOrDigit(text.charAt(e + 1)))) {
                    line(out, text.substring(i + 1, e));
                }
            }
            i++;
        }
        run(out, text, runStart, runEnd);
        return out.toString();
    }

    /** Pairs of an opening and a closing quote. */
    private static final String QUOTES = "''\"\"``\u2018\u2019\u201c\u201d\u00ab\u00bb";

    private static void run(StringBuilder out, String text, int start, int end) {
        if (start >= 0 && text.indexOf(' ', start) >= 0 && text.indexOf(' ', start) < end) line(out, text.substring(start, end));
    }

    private static void line(StringBuilder out, String name) {
        String f = fold(name);
        if (!f.isEmpty()) out.append(f).append('\n');
    }

    /** True when {@code lines} (each line ended by a new line) has a line equal to {@code w}. */
    private static boolean containsLine(String lines, String w) {
        for (int i = lines.indexOf(w); i >= 0; i = lines.indexOf(w, i + 1)) {
            int end = i + w.length();
            if ((i == 0 || lines.charAt(i - 1) == '\n') && end < lines.length() && lines.charAt(end) == '\n') return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ text

    /**
     * Invisible format chars dropped, lower case, a URL's scheme dropped, a leading {@code www.} dropped when a domain remains (a dot
     * before any {@code /} or blank), and trailing slashes cut (so {@code http://www.a.com/} is {@code a.com}).
     */
    static String fold(String s) {
        String t = trim(stripInvisible(s)).toLowerCase(Locale.ROOT);
        t = t.replace("https://", "").replace("http://", "");
        int start = t.startsWith("www.") && domainAfterWww(t) ? 4 : 0;
        int end = t.length();
        while (end > start && t.charAt(end - 1) == '/') end--;
        return start == 0 && end == t.length() ? t : t.substring(start, end);
    }

    /** {@code s} without leading and trailing white space ({@link TextHash#white}: no-break spaces too). */
    private static String trim(String s) {
        int a = 0, b = s.length();
        while (a < b && TextHash.white(s.charAt(a))) a++;
        while (b > a && TextHash.white(s.charAt(b - 1))) b--;
        return a == 0 && b == s.length() ? s : s.substring(a, b);
    }

    /**
     * {@code s} without invisible format chars (Unicode Cf: U+200B, U+FEFF, ...), which {@link TextHash} ignores too, and
     * with compatibility chars as the ASCII char NFKC or IDNA makes of them ({@link TextHash#compat}: {@code ｅ}, {@code ＠},
     * {@code 。}), as {@link TextHash} reads them.
     */
    static String stripInvisible(String s) {
        int i = 0, n = s.length();
        while (i < n && !invisible(s.charAt(i)) && TextHash.ascii(s.charAt(i)) == s.charAt(i)) i++;
        if (i == n) return s;
        StringBuilder b = new StringBuilder(n).append(s, 0, i);
        for (; i < n; i++) if (!invisible(s.charAt(i))) b.append(TextHash.ascii(s.charAt(i)));
        return b.toString();
    }

    private static boolean invisible(char c) { return c >= 128 && Character.getType(c) == Character.FORMAT; }

    /** True when {@code t}, which starts with {@code www.}, has another dot before its first {@code /} or blank. */
    private static boolean domainAfterWww(String t) {
        for (int i = 4; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '.') return true;
            if (c == '/' || TextHash.white(c)) return false;
        }
        return false;
    }

    /** True when {@code word} occurs in {@code text} not preceded or followed by a letter or digit. */
    static boolean containsWord(String text, String word) {
        // an ASCII-edged e-mail address ends where a letter of another script than Latin touches it (请发给bob@corp.example谢谢:
        // session 17), as the identifier scan cuts it out (Identifiers.scriptSpan)
        boolean address = word.indexOf('@') > 0;
        boolean asciiStart = address && word.charAt(0) < 128, asciiEnd = address && word.charAt(word.length() - 1) < 128;
        for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
            int end = i + word.length();
            boolean before = i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1))
                    || asciiStart && Identifiers.otherScript(text.charAt(i - 1));
            boolean after = end == text.length() || !Character.isLetterOrDigit(text.charAt(end))
                    || asciiEnd && Identifiers.otherScript(text.charAt(end));
            if (before && after) return true;
        }
        return false;
    }

    /** Adds every scalar, list item and mapping key of an output, folded; plain text adds itself. */
    static void fields(String result, JsonNode tree, Set<String> out, boolean labelledLines) {
        if (labelledLines) labelled(result, out); // also text that YAML reads differently (tabs, "---" lines)
        if (tree == null) add(result, out, labelledLines);
        else walk(tree, out, labelledLines);
    }

    private static void walk(JsonNode n, Set<String> out, boolean labelledLines) {
        if (n.isObject()) {
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                out.add(fold(e.getKey()));
                walk(e.getValue(), out, labelledLines);
            }
        } else if (n.isArray()) {
            for (JsonNode x : n) walk(x, out, labelledLines);
        } else if (!n.isNull()) {
            add(n.asText(), out, labelledLines);
        }
    }

    private static void add(String scalar, Set<String> out, boolean labelledLines) {
        out.add(fold(scalar));
        if (labelledLines && scalar.indexOf('\n') >= 0) labelled(scalar, out);
    }

    private static void labelled(String text, Set<String> out) {
        int n = text.length();
        for (int ls = 0; ls <= n; ) {
            int le = text.indexOf('\n', ls);
            if (le < 0) le = n;
            int v = labelledValue(text, ls, le);
            if (v >= 0) out.add(fold(text.substring(v, trimEnd(text, v, le))));
            ls = le + 1;
        }
    }

    /**
     * Start of the value of a {@code Label: value} line in {@code [ls, le)}, or -1: optional blanks, a
     * letter, at most 30 letters, digits, blanks, '_' or '-', a colon, at least one blank, then a
     * non-blank. The same lines as the pattern {@link #LABELLED} (kept as its specification and tested against it).
     */
    static int labelledValue(String t, int ls, int le) {
        int i = ls;
        while (i < le && (t.charAt(i) == ' ' || t.charAt(i) == '\t')) i++;
        if (i >= le || !asciiLetter(t.charAt(i))) return -1;
        int k = i + 1;
        while (k < le && k - i - 1 < 30 && labelChar(t.charAt(k))) k++;
        if (k >= le || t.charAt(k) != ':') return -1;
        int m = k + 1;
        if (m >= le || (t.charAt(m) != ' ' && t.charAt(m) != '\t')) return -1;
        while (m < le && (t.charAt(m) == ' ' || t.charAt(m) == '\t')) m++;
        if (m >= le) return -1;
        char c = t.charAt(m);
        return c == '\f' || c == '\r' ? -1 : m; // RE2's \S: not one of [\t\n\f\r ]
    }

    /** End of the value starting at {@code v}: trailing blanks (space, tab) before {@code le} cut, the first character kept. */
    static int trimEnd(String t, int v, int le) {
        int e = le;
        while (e > v + 1 && (t.charAt(e - 1) == ' ' || t.charAt(e - 1) == '\t')) e--;
        return e;
    }

    private static boolean asciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

    private static boolean labelChar(char c) {
        return asciiLetter(c) || (c >= '0' && c <= '9') || c == ' ' || c == '_' || c == '-';
    }

    /**
     * Appends the text of each record (mapping) of {@code n} that has a short field (3 to 64 characters, one line) which
     * the user named: a name the user wrote ({@code names}: {@link #names(String)}), or a field with a character other than
     * a letter or a space ({@code notice.txt}, {@code general-news}, {@code 42}) that a user text ({@code naming}) holds as
     * a whole word; or which one of {@code alsoNaming} (outputs of a source the user handed the task to) holds as a whole word.
     * A common word the user wrote ("Open the page") names no record.
     */
    private static String[] records(JsonNode n, String[] naming, String[] names, String[] alsoNaming, String[] out) {
        if (n.isArray()) {
            for (JsonNode x : n) out = records(x, naming, names, alsoNaming, out);
            return out;
        }
        if (!n.isObject()) return out;
        boolean named = false;
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, JsonNode> field : n.properties()) {
            JsonNode v = field.getValue();
            if (v.isContainerNode()) {
                out = records(v, naming, names, alsoNaming, out);
                continue;
            }
            String t = fold(v.asText());
            text.append(t).append('\n');
            if (!named && t.length() >= 3 && t.length() <= 64 && t.indexOf('\n') < 0) {
                for (String u : names) if (containsLine(u, t)) { named = true; break; }
                if (!named && !lettersAndSpaces(t)) for (String u : naming) if (containsWord(u, t)) { named = true; break; }
                if (!named && alsoNaming != null) for (String u : alsoNaming) if (containsWord(u, t)) { named = true; break; }
            }
        }
        return named ? append(out, text.toString()) : out;
    }

    private static boolean lettersAndSpaces(String t) {
        for (int i = 0; i < t.length(); i++) if (!Character.isLetter(t.charAt(i)) && t.charAt(i) != ' ') return false;
        return true;
    }

    // ------------------------------------------------------------------ arrays

    private static String[] append(String[] a, String x) {
        String[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = x;
        return b;
    }

    @SuppressWarnings("unchecked")
    private static Set<String>[] appendSet(Set<String>[] a, Set<String> x) {
        Set<String>[] b = Arrays.copyOf(a, a.length + 1);
        b[a.length] = x;
        return b;
    }

    private static int indexOf(String[] a, String x) {
        for (int i = a.length - 1; i >= 0; i--) if (a[i].equals(x)) return i;
        return -1;
    }

    private static int added(String[] now, String[] before) {
        int n = 0;
        for (int i = before.length; i < now.length; i++) n += now[i].length();
        return n;
    }

    // ------------------------------------------------------------------ byte form

    /** The byte form (tag 5 in {@link Grounding#writeRefs}): the user's names after the user texts. */
    void write(DataOutput out) throws IOException {
        strings(user, out);
        strings(names, out);
        strings(outputs, out);
        for (Set<String> f : fields) strings(f.toArray(new String[0]), out);
        strings(endorsed, out);
        strings(pending, out);
        strings(records, out);
        strings(delegated, out);
        out.writeBoolean(delegating);
        out.writeBoolean(truncated);
        out.writeInt(chars);
    }

    /**
     * Reads {@link #write}'s form; {@code withNames} false reads the form before session 16 (tag 3), without the user's
     * names: such a session trusts no address or record by a name the user wrote before it was moved.
     */
    @SuppressWarnings("unchecked")
    static Sightings read(DataInput in, boolean withNames) throws IOException {
        String[] u = strings(in);
        String[] nm;
        if (withNames) {
            nm = strings(in);
            if (nm.length != u.length) throw new IOException("provenance context holds " + nm.length + " name lists for " + u.length + " user texts");
        } else {
            nm = new String[u.length];
            Arrays.fill(nm, "");
        }
        String[] o = strings(in);
        Set<String>[] fs = new Set[o.length];
        for (int i = 0; i < fs.length; i++) {
            String[] f = strings(in);
            fs[i] = Set.copyOf(Arrays.asList(f)); // duplicates (bytes not written by write) collapse
        }
        String[] en = strings(in), p = strings(in), rec = strings(in), del = strings(in);
        boolean dg = in.readBoolean(), cut = in.readBoolean();
        int c = in.readInt();
        if (c < 0) throw new IOException("provenance context holds a negative character count " + c);
        return new Sightings(u, nm, o, fs, en, p, rec, del, dg, cut, c);
    }

    private static void strings(String[] a, DataOutput out) throws IOException {
        out.writeInt(a.length);
        for (String s : a) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private static String[] strings(DataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1 << 24) throw new IOException("provenance context list of " + n + " texts");
        String[] a = new String[n];
        for (int i = 0; i < n; i++) {
            int len = in.readInt();
            if (len < 0 || len > 1 << 28) throw new IOException("provenance context text of " + len + " bytes");
            byte[] b = new byte[len];
            in.readFully(b);
            a[i] = new String(b, StandardCharsets.UTF_8);
        }
        return a;
    }

    @Override public boolean equals(Object o) {
        if (!(o instanceof Sightings s)) return false;
        if (fields.length != s.fields.length) return false;
        for (int i = 0; i < fields.length; i++) if (!fields[i].equals(s.fields[i])) return false;
        return Arrays.equals(user, s.user) && Arrays.equals(names, s.names) && Arrays.equals(outputs, s.outputs) && Arrays.equals(endorsed, s.endorsed)
                && Arrays.equals(pending, s.pending) && Arrays.equals(records, s.records) && Arrays.equals(delegated, s.delegated)
                && delegating == s.delegating && truncated == s.truncated && chars == s.chars;
    }

    @Override public int hashCode() { return Arrays.hashCode(outputs) * 31 + Arrays.hashCode(user) + chars; }

    @Override public String toString() {
        return "Sightings{user=" + user.length + ", outputs=" + outputs.length + ", endorsed=" + endorsed.length + ", pending="
                + List.of(pending) + ", records=" + records.length + ", delegated=" + delegated.length + ", delegating=" + delegating
                + ", truncated=" + truncated + ", chars=" + chars + "}";
    }
}
