package dev.tracegate.agent.instrumentation.configured;

import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.core.Applications;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;
import dev.tracegate.agent.core.JsonText;
import dev.tracegate.agent.core.ValueText;
import dev.tracegate.agent.core.SupervisorBridge;
import dev.tracegate.matchers.event.Args;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The methods named in a rules file ({@code methods=FILE}), one per line:
 * <pre>
 * # kind    class#method (globs)          how to read the event
 * tool      com.acme.Shop#checkout         name=checkout args=1 session=0
 * tool      com.acme.*Tools#*              name=$method args=*
 * consent   com.acme.Privacy#grant         subject=0 purpose=1 granted=true
 * erasure   com.acme.Privacy#forget        subject=0 session=1
 * </pre>
 * An index refers to the method's parameters (0-based); anything else is a literal. With {@code args=*} (the
 * default) the arguments are all parameters by name, as the class file records them ({@link ParameterNames}).
 */
public final class ConfiguredMethods {

    private static final String FRAMEWORK = "configured";

    private final List<MethodRule> rules;
    /** What each origin that was called resolves to ({@link Site#NONE} when no rule names it). */
    private final ConcurrentHashMap<String, Site> byOrigin = new ConcurrentHashMap<>();
    /** Parameter names of configured methods, keyed like the advice's origin: {@code class.method(descriptor)}. */
    private final ConcurrentHashMap<String, String[]> parameterNames = new ConcurrentHashMap<>();

    /**
     * Whether a consent or erasure entry has no {@code session-param}: its events belong to the conversation of this
     * thread's configured tool calls ({@link #conversationOf}), so each tool call notes its conversation on the thread.
     */
    private final boolean sessionless;

    private ConfiguredMethods(List<MethodRule> rules) {
        this.rules = Collections.unmodifiableList(rules);
        boolean any = false, nested = false;
        for (int i = 0; i < rules.size(); i++) {
            MethodRule r = rules.get(i);
            r.entry = i + 1;
            any |= r.kind != MethodRule.Kind.TOOL && r.fields.get("session") == null;
            nested |= r.kind == MethodRule.Kind.TOOL && r.nested;
        }
        this.sessionless = any;
        this.anyNested = nested;
    }

    /**
     * Whether a tool entry says {@code nested: true}: each configured tool call then notes its entry and tool name in its
     * thread's nesting cell ({@link Dispatcher#depthCell} [2] and [3]; the advice puts them back at exit), so that a call
     * of such an entry made directly inside a call of the same entry with the same tool name (an overload delegating to
     * another, {@code invoke(name, json)} calling {@code invoke(name, map)}) is part of that call, not a second one
     * (trial30 04). Two array writes per call, only then.
     */
    private final boolean anyNested;

    public static ConfiguredMethods none() {
        return new ConfiguredMethods(new ArrayList<>());
    }

    /** Reads a rules file; an error names file:line:col and how to fix it. */
    public static ConfiguredMethods load(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("tracegate: cannot read the methods file " + file + ": " + e.getMessage()
                    + " (option methods=FILE names a rules file, one method per line)", e);
        }
        return parse(file.toString(), lines);
    }

    /** The methods of the YAML configuration's {@code configured-methods} (already validated there). */
    public static ConfiguredMethods from(List<dev.tracegate.agent.config.ConfiguredMethod> configured) {
        List<MethodRule> rules = new ArrayList<>();
        for (dev.tracegate.agent.config.ConfiguredMethod m : configured) {
            Map<String, String> fields = new LinkedHashMap<>();
            putIfSet(fields, "name", m.toolName());
            putIfSet(fields, "args", m.argsParam());
            putIfSet(fields, "session", m.sessionParam());
            putIfSet(fields, "subject", m.subjectParam());
            putIfSet(fields, "purpose", m.purposeParam());
            putIfSet(fields, "granted", m.grantedParam());
            if (m.nested()) fields.put("nested", "true");
            if (m.blockThrows()) fields.put("block-style", "exception");
            if (!m.excludeParams().isEmpty()) fields.put("exclude", String.join(",", m.excludeParams()));
            rules.add(new MethodRule(MethodRule.Kind.valueOf(m.kind().name()), m.className(), m.method(), fields, m.where()));
        }
        return new ConfiguredMethods(rules);
    }

    /** These rules followed by {@code other}'s (the first rule naming a method wins). */
    public ConfiguredMethods plus(ConfiguredMethods other) {
        if (other.rules.isEmpty()) {
            return this;
        }
        List<MethodRule> all = new ArrayList<>(rules);
        all.addAll(other.rules);
        return new ConfiguredMethods(all);
    }

    private static void putIfSet(Map<String, String> fields, String key, String value) {
        if (value != null) {
            fields.put(key, value);
        }
    }

    static ConfiguredMethods parse(String name, List<String> lines) {
        List<MethodRule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String content = line.strip();
            if (content.isEmpty() || content.startsWith("#")) {
                continue;
            }
            String where = name + ":" + (i + 1);
            String[] tokens = content.split("\\s+");
            MethodRule.Kind kind;
            try {
                kind = MethodRule.Kind.valueOf(tokens[0].toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw error(where, line, tokens[0], "unknown kind '" + tokens[0] + "'; use tool, consent or erasure");
            }
            if (tokens.length < 2 || tokens[1].indexOf('#') <= 0 || tokens[1].endsWith("#")) {
                throw error(where, line, tokens.length < 2 ? tokens[0] : tokens[1],
                        "expected class#method after '" + tokens[0] + "', e.g. com.acme.Shop#checkout (globs with * allowed)");
            }
            int hash = tokens[1].indexOf('#');
            Map<String, String> fields = new LinkedHashMap<>();
            for (int t = 2; t < tokens.length; t++) {
                int eq = tokens[t].indexOf('=');
                if (eq <= 0) {
                    throw error(where, line, tokens[t], "expected key=value, e.g. args=1");
                }
                fields.put(tokens[t].substring(0, eq), tokens[t].substring(eq + 1));
            }
            for (String key : new String[] {"name", "args", "session", "subject", "purpose", "granted"}) {
                String problem = fields.containsKey(key) ? dev.tracegate.agent.config.ConfiguredMethod.paramProblem(key, fields.get(key)) : null;
                if (problem != null) throw error(where, line, key + "=" + fields.get(key), problem);
            }
            String exclude = fields.get("exclude");
            if (exclude != null) {
                for (String one : exclude.split(",", -1)) {
                    String problem = one.isEmpty() ? "exclude needs a parameter's 0-based index or name, e.g. exclude=toolContext (several:"
                            + " exclude=toolContext,3)" : dev.tracegate.agent.config.ConfiguredMethod.paramProblem("exclude", one);
                    if (problem != null) throw error(where, line, "exclude=" + exclude, problem);
                }
                if (kind != MethodRule.Kind.TOOL) {
                    throw error(where, line, "exclude=" + exclude, "exclude applies to a tool method only: a " + kind.name().toLowerCase(Locale.ROOT)
                            + " event has no arguments");
                }
                String args = fields.get("args");
                if (args != null && !args.equals("*")) {
                    throw error(where, line, "exclude=" + exclude, "exclude leaves parameters out of all parameters by name, but args=" + args
                            + " makes the arguments that one parameter's: remove exclude, or remove args");
                }
            }
            String nested = fields.get("nested");
            if (nested != null && !nested.equals("true") && !nested.equals("false")) {
                throw error(where, line, "nested=" + nested, "nested must be true or false");
            }
            String style = fields.get("block-style");
            if (style != null && (kind != MethodRule.Kind.TOOL || !style.equalsIgnoreCase("exception"))) {
                throw error(where, line, "block-style=" + style, kind != MethodRule.Kind.TOOL ? "block-style applies to a tool method only"
                        : "block-style can only be exception (a block or a withheld result of the method throws TracegateViolation,"
                        + " so a cache around it never stores a refusal); leave it out to follow block.style");
            }
            if (kind != MethodRule.Kind.TOOL && !fields.containsKey("subject")) {
                throw error(where, line, tokens[1], kind.name().toLowerCase(Locale.ROOT) + " needs subject=<index|literal>");
            }
            if (kind == MethodRule.Kind.CONSENT && !fields.containsKey("purpose")) {
                throw error(where, line, tokens[1], "consent needs purpose=<index|literal>");
            }
            rules.add(new MethodRule(kind, tokens[1].substring(0, hash), tokens[1].substring(hash + 1), fields, where));
        }
        return new ConfiguredMethods(rules);
    }

    private static IllegalArgumentException error(String where, String line, String token, String message) {
        int column = Math.max(0, line.indexOf(token)) + 1;
        return new IllegalArgumentException(where + ":" + column + ": " + message);
    }

    public List<MethodRule> rules() {
        return rules;
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** True if some rule names this class (binary name). A class glob leaves out generated classes: {@link MethodRule#matchesClass}. */
    public boolean namesClass(String className) {
        MethodRule leaving = null;
        for (MethodRule rule : rules) {
            if (rule.matchesClass(className)) {
                return true;
            }
            if (leaving == null && rule.leavesOut(className)) leaving = rule;
        }
        if (leaving != null) noteLeftOut(leaving, className);
        else noteProxyOfNamed(className);
        for (MethodRule rule : rules) rule.noteNear(className);   // an exact class with a typo: the loaded class it likely means
        return false;
    }

    /**
     * Says that a class a library generated around a class an entry names ({@link MethodRule#generatedBy}: ArC's
     * {@code Tools_ClientProxy}, a CGLIB or Hibernate proxy), which no entry names itself, is not woven, and where a call
     * through it is seen: at the named class's method, which the proxy's method calls (session 19: a rule naming the bean
     * exactly said nothing of its proxy, and a user could not tell whether calls through it were supervised, or twice).
     * As {@link #noteLeftOut}: INFO for an entry's first, then DEBUG. Weave time only; null when nothing is said.
     */
    String noteProxyOfNamed(String className) {
        String[] by = MethodRule.generatedBy(className);
        if (by == null) return null;
        String base = MethodRule.generatedFrom(className, by[0]);
        if (base == null) return null;
        MethodRule naming = null;
        for (MethodRule rule : rules) {
            if (rule.matchesClass(base)) {
                naming = rule;
                break;
            }
        }
        if (naming == null || leftOut.size() >= 4096 || !leftOut.add(className)) return null;
        String line = "configured-methods entry " + naming.where + " (class " + naming.classPattern + ") does not weave " + className
                + ", generated " + (by.length > 2 ? by[2] : "at run time") + " from " + base + " by " + by[1] + ": a call through it"
                + " is seen once, at " + base + "'s method (the proxy's method calls it), with its parameter names (a call the"
                + " proxy answers itself, such as a cache hit, is no tool call). To see calls at the proxy instead, name it in an entry"
                + " (class: \"" + className + "\")";
        if (leftOutSaid.add(naming)) AgentLog.info(line);
        else AgentLog.debug(line);
        return line;
    }

    private boolean namedByAnEntry(String className) {
        for (MethodRule rule : rules) if (rule.matchesClass(className)) return true;
        return false;
    }

    /** The generated classes a class glob left out, said once each (weave time; bounded: a class is met once or twice). */
    private final java.util.Set<String> leftOut = ConcurrentHashMap.newKeySet();
    /** The entries whose first left-out class was said at INFO (the others at DEBUG). */
    private final java.util.Set<MethodRule> leftOutSaid = ConcurrentHashMap.newKeySet();

    /**
     * Says that a class glob left out a class a library generated at run time ({@link MethodRule#generatedBy}): at INFO for
     * an entry's first such class, naming the class it extends (where the call is seen), then at DEBUG. Weave time only.
     */
    String noteLeftOut(MethodRule rule, String className) {
        if (leftOut.size() >= 4096 || !leftOut.add(className)) return null;
        String[] by = MethodRule.generatedBy(className);
        String base = MethodRule.generatedFrom(className, by[0]);
        String line = "configured-methods entry " + rule.where + " (class " + rule.classPattern + ") leaves out " + className
                + ", generated " + (by.length > 2 ? by[2] : "at run time") + (base != null ? " from " + base : "") + " by " + by[1]
                + ": a class glob weaves the application's own classes, so a call is seen "
                + (base != null ? "at " + base + "'s method, with its parameter names" + (namedByAnEntry(base) ? "" : " (which no entry names)")
                        : "at the class that implements the method")
                + ", not at the proxy (a call the proxy answers itself, such as a cache hit, is no tool call). To weave the generated"
                + " class, name it exactly or put " + by[0] + " in the glob";
        if (leftOutSaid.add(rule)) AgentLog.info(line);
        else AgentLog.debug(line);
        return line;
    }

    /**
     * The rule for this class and method, if any: the first that names the method without a glob, else the first whose
     * glob covers it. So an erasure or consent entry listed after a tool glob over its class (one glob for "all our tools"
     * and the privacy class below it, trial17) is still the erasure, not a tool that records nothing.
     */
    public MethodRule find(String className, String methodName) {
        return findToWeave(className, methodName, false, false);
    }

    /** Whether a call of the configured method at {@code origin} is supervised when it runs inside another supervised call. */
    public boolean supervisesNested(String origin) {
        Site s = site(origin);
        return s != null && s.rule.nested;
    }

    /**
     * The rule under which a method is woven: as {@link #find}, except that a method no glob means ({@code notMeantByGlob}:
     * an entry point (any static {@code main}: Java's {@code main(String[])}, Kotlin's {@code main()}), equals, hashCode,
     * toString, a record's accessors, compiler-generated methods) is woven only under a rule that names it without a glob;
     * with {@code method: "*"}, main would make the whole program one tool call (its arguments array the session, every
     * configured call inside it nested, so unsupervised), and hashCode a tool call of every HashSet.add.
     */
    public MethodRule findToWeave(String className, String methodName, boolean notMeantByGlob) {
        return findToWeave(className, methodName, notMeantByGlob, true);
    }

    private MethodRule findToWeave(String className, String methodName, boolean notMeantByGlob, boolean weaving) {
        MethodRule byGlob = null;
        for (MethodRule rule : rules) {
            boolean glob = rule.methodPattern.indexOf('*') >= 0;
            if ((glob && (notMeantByGlob || byGlob != null)) || !rule.matchesClass(className) || !rule.matchesMethod(methodName)) continue;
            if (!glob) {
                byGlob = rule;   // names the method: wins over any glob, before it or after
                break;
            }
            byGlob = rule;
        }
        if (weaving && byGlob != null && !byGlob.woven) byGlob.woven = true;
        return byGlob;
    }

    /**
     * The warnings for the entries that no woven method has matched so far (the whole list: see {@link MethodRule#unmatchedWarning}),
     * less a consent or erasure entry whose method another entry took, which was warned about when its class was woven.
     */
    public List<String> unmatchedWarnings() {
        return unmatchedWarnings(false);
    }

    /** As above; {@code classesMayLoadLater} right after an attach: they then say what is true so far (trial17). */
    public List<String> unmatchedWarnings(boolean classesMayLoadLater) {
        List<String> out = new ArrayList<>();
        Class<?>[] loaded = null;
        for (MethodRule rule : rules) {
            // a consent or erasure entry another entry took its method from was warned about when the class was woven
            // and one said never to match the class it names when that class was woven without its method (trial19)
            if (!rule.woven && !rule.shadowWarned.get() && !rule.missWarned.get()) out.add(rule.unmatchedWarning(classesMayLoadLater));
            else if (!classesMayLoadLater && rule.woven && !rule.ran) {
                if (loaded == null) loaded = loadedClasses();
                Class<?>[] all = loaded;
                String overridden = Overrides.warning(rule, () -> all);
                if (overridden != null) out.add(overridden);
            }
        }
        return out;
    }

    /** The JVM's loaded classes, or null when the agent was given no Instrumentation (a test) or cannot list them. */
    private static Class<?>[] loadedClasses() {
        java.lang.instrument.Instrumentation inst = loadedClasses;
        try {
            return inst == null ? null : inst.getAllLoadedClasses();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The JVM's loaded classes, for the exit warning about a base-class method that subclasses override (trial46 11). */
    private static volatile java.lang.instrument.Instrumentation loadedClasses;

    /** Set at start: the exit warnings may look for the loaded subclasses of a class an entry wove. */
    public static void seeLoadedClasses(java.lang.instrument.Instrumentation instrumentation) {
        loadedClasses = instrumentation;
    }

    /**
     * Says at once that entry {@code rule} will never match {@code className}, a class its class pattern names that is being
     * woven with no method under this entry, and that no method of another class has matched so far (a class does not gain
     * methods: trial19, a {@code kind: erasure} entry with {@code method: erase} where the class has {@code forget} was said
     * only at exit, after every erasure of the run was lost). Not when a method of the class fits the entry's method pattern
     * and another entry took it (that is said as such, {@link MethodRule#shadowedBy}). For a class glob, only when the class
     * has a method of a similar name (likely a typo) and no other class the glob matches declares one the entry would weave
     * ({@code elsewhere}: a glob over several classes, one of which lacks the method, was said although another had it); a
     * class the glob covers that has nothing like it is normal, and the exit warning says what is left. Once per entry: the exit warning leaves it out ({@link MethodRule#missWarned}).
     *
     * @param methods    the names of the methods the class declares (no constructors, no compiler-generated ones), in order
     * @param fits       a method of the class fits the entry's method pattern and could be woven under it
     * @param leftOut    a method of the class fits the entry's method glob but no glob means it (main, toString, ...)
     * @param missHint   where the class has the method without declaring its body (see {@link MethodRule#missHint}), or null
     * @param elsewhere  for a class glob: whether another class it matches declares a method the entry would weave, or may
     *                   (asked only before a warning: a glob over several classes, one of which lacks the method, is said
     *                   only when none of them can ever match)
     * @return the warning printed, or null
     */
    String noteNeverMatches(MethodRule rule, String className, List<String> methods, boolean fits, boolean leftOut, String missHint,
                            java.util.function.BooleanSupplier elsewhere) {
        if (fits || rule.woven || rule.shadowWarned.get() || rule.missWarned.get()) return null;
        boolean classGlob = rule.classPattern.indexOf('*') >= 0;
        boolean methodGlob = rule.methodPattern.indexOf('*') >= 0;
        List<String> others = new ArrayList<>();
        for (String m : methods) if (!rule.matchesMethod(m) && !others.contains(m)) others.add(m);
        String word = rule.methodPattern.replace("*", "");
        String near = word.isEmpty() ? null : dev.tracegate.agent.config.AgentConfig.nearest(word, others);
        if (classGlob && (near == null || elsewhere.getAsBoolean())) return null;
        if (!rule.missWarned.compareAndSet(false, true)) return null;
        String kind = rule.kind.name().toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder("configured-methods entry ").append(rule.where).append(" (").append(kind).append(", class ")
                .append(rule.classPattern).append(", method ").append(rule.methodPattern).append(") can never match");
        if (missHint != null && !classGlob) {
            b.append(": ").append(missHint);
        } else {
            b.append(classGlob ? " " + className + ", a class its pattern matched, now loaded: it" : ": its class " + className + " is loaded and")
                    .append(" declares no method ").append(methodGlob ? "matching " : "").append(rule.methodPattern);
            if (leftOut) b.append(" that a glob weaves (a static main, equals, hashCode, toString, a record's accessors, a Kotlin data class's"
                    + " componentN() and copy, Kotlin property accessors and compiler-generated methods are woven only under an entry that names them)");
            if (near != null) b.append(" (did you mean '").append(near).append("'?)");
            if (others.isEmpty()) {
                b.append("; it declares no other method");
            } else {
                int shown = Math.min(others.size(), 12);
                b.append("; its methods are ").append(String.join(", ", others.subList(0, shown)))
                        .append(others.size() > shown ? " and " + (others.size() - shown) + " more" : "");
            }
        }
        b.append(switch (rule.kind) {
            case ERASURE -> ". So erasures through it are NOT recorded: after such a call the person's data is still used and disclosed"
                    + " (gdpr.P4-erasure does not know of the erasure)";
            case CONSENT -> ". So consents through it are NOT recorded: calls that need the subject's consent are refused as"
                    + " without consent (gdpr.P1-consent), and withdrawals through it are lost";
            default -> ". So its calls are NOT supervised";
        });
        b.append(classGlob ? ": no class its pattern matches on the class path declares such a method" : "")
                .append(". Correct the entry's method (or class) and restart; a class does not gain methods once loaded");
        String warning = b.toString();
        AgentLog.warn(warning);
        return warning;
    }

    /**
     * Remembers the parameter names of the configured methods of a class being woven (from
     * {@link ParameterNames#read}, keyed {@code name + descriptor}).
     */
    public void learnParameterNames(String className, Map<String, String[]> byMethod) {
        learnParameterNames(className, byMethod, key -> true);
    }

    /**
     * As above, for the methods {@code woven} accepts ({@code name(descriptor)}): the ones a rule names and the weaver
     * weaves, so that no warning is printed for a method a glob leaves out (hashCode, a record's accessor, main: trial8).
     */
    public void learnParameterNames(String className, Map<String, String[]> byMethod, java.util.function.Predicate<String> woven) {
        for (Map.Entry<String, String[]> e : byMethod.entrySet()) {
            String method = e.getKey().substring(0, e.getKey().indexOf('('));
            if (method.startsWith("<")) continue;   // constructors and class initialisers are never woven, even by method "*"
            if (!woven.test(e.getKey())) continue;
            MethodRule rule = find(className, method);
            if (rule != null) {
                parameterNames.put(className + "." + e.getKey(), e.getValue());
                if (e.getKey().endsWith(SUSPEND_END) && e.getValue().length > 0) {
                    // a Kotlin suspend fun: its settings count the source's parameters, the trailing continuation left out
                    String problem = continuationProblem(rule, className + "#" + method, e.getValue());
                    if (problem != null && warned.add("continuation " + className + "#" + method)) {
                        AgentLog.error(problem + ". The agent could not check this when it started (a class glob, or a class not on"
                                + " the application's class path), so it says so now, as the class is woven, and reads the setting as the"
                                + " literal text it is for each call of the method: correct the entry and restart", null);
                    }
                    warnAboutParameters(rule, className + "#" + method, Arrays.copyOf(e.getValue(), e.getValue().length - 1), false, problem != null);
                } else {
                    warnAboutParameters(rule, className + "#" + method, e.getValue(), false);
                }
            }
        }
    }

    /** What each {@code *-param} and {@code tool-name} setting should hold, for the message that says it names no value. */
    private static String holds(String key) {
        return switch (key) {
            case "session" -> "the conversation id";
            case "subject" -> "the data subject";
            case "purpose" -> "the purpose";
            case "granted" -> "whether consent is granted";
            case "args" -> "the arguments";
            default -> "the tool's name";
        };
    }

    /**
     * For a Kotlin {@code suspend} method of entry {@code rule} ({@code names}: its JVM parameters' names, the trailing
     * {@code Continuation} last): the first {@code *-param} or {@code tool-name} setting that names that continuation (its
     * index, one past the source's parameters, or the start of a {@code session-param} field path), with which method, which
     * key, why and the fix; null when none does. Read as an index among the call's own parameters, such a setting would be
     * a literal text for every call (the session "2", a consent for the subject "3"), silently (trial33).
     */
    static String continuationProblem(MethodRule rule, String method, String[] names) {
        int own = names.length - 1;   // the source's parameters; names[own] is kotlinc's $completion
        Map<String, String> specs = byIndex(rule, names);
        for (String key : PARAMETER_SETTINGS) {
            String spec = specs.get(key);
            if (spec == null) continue;
            int at = index(spec);
            String[] path = at < 0 && key.equals("session") ? fieldPath(spec) : null;
            if (path != null) at = index(path[0]);
            if (at != own) continue;
            String setting = key.equals("name") ? "tool-name" : key + "-param";
            return "configured-methods entry " + rule.where + " (" + rule.kind.name().toLowerCase(Locale.ROOT) + ", class " + rule.classPattern
                    + ", method " + rule.methodPattern + "): " + setting + " '" + rule.field(key) + "' names parameter " + own + " of the Kotlin"
                    + " suspend fun " + method + ", and that parameter is Kotlin's Continuation (" + names[own] + ", which kotlinc adds after"
                    + " the function's own parameters: it holds the coroutine, never a value of the call); "
                    + (own == 0 ? "the function has no source-level parameters, so no parameter can hold " + holds(key)
                    : "the source-level parameters are 0.." + (own - 1) + " (" + String.join(", ", Arrays.copyOf(names, own)) + "): give "
                    + setting + " the index (or name) of the one that holds " + holds(key))
                    + " (CONFIG.md, \"Kotlin suspend functions\")";
        }
        return null;
    }

    /**
     * Start-up: an entry that names its class exactly, whose class file {@code loader} finds (the class path's classes;
     * nothing is loaded), and whose Kotlin {@code suspend} method has a {@code *-param} or {@code tool-name} naming its
     * trailing continuation ({@link #continuationProblem}) stops the start with that message, before any call is made. A
     * class found only later (a class glob, another loader) is said with an ERROR when it is woven.
     */
    public void checkSuspendParameters(ClassLoader loader) {
        if (loader == null) return;
        for (MethodRule rule : rules) {
            if (rule.classPattern.indexOf('*') >= 0) continue;
            byte[] classFile;
            try (java.io.InputStream in = loader.getResourceAsStream(rule.classPattern.replace('.', '/') + ".class")) {
                if (in == null) continue;
                classFile = in.readAllBytes();
            } catch (IOException | RuntimeException e) {
                continue;   // said, if at all, when the class is woven
            }
            Map<String, String[]> byMethod;
            try {
                byMethod = ParameterNames.read(classFile);
            } catch (RuntimeException e) {
                continue;
            }
            String receiverProblem = readsThis(rule) == null ? null : staticReceiverProblem(rule, classFile);
            if (receiverProblem != null) throw new IllegalArgumentException("tracegate: " + receiverProblem + ".");
            for (Map.Entry<String, String[]> e : new java.util.TreeMap<>(byMethod).entrySet()) {
                String method = e.getKey().substring(0, e.getKey().indexOf('('));
                if (!e.getKey().endsWith(SUSPEND_END) || e.getValue().length == 0 || find(rule.classPattern, method) != rule) continue;
                String problem = continuationProblem(rule, rule.classPattern + "#" + method, e.getValue());
                if (problem != null) throw new IllegalArgumentException("tracegate: " + problem + ".");
            }
        }
    }

    /** The first of a tool entry's settings (session-param for any kind) that reads {@code this}, as "key spec"; else null. */
    static String readsThis(MethodRule rule) {
        for (String key : new String[] {"session", "name", "args"}) {
            String spec = rule.kind == MethodRule.Kind.TOOL || key.equals("session") ? rule.field(key) : null;
            if (spec != null && (spec.equals("this") || spec.startsWith("this."))) return key;
        }
        return null;
    }

    /**
     * Start-up: an exact-class entry that reads {@code this} ({@link #readsThis}) where every method of the class it names is
     * static (there is no object any call is made on), as a message; null when one is an instance method, or none matches.
     */
    private String staticReceiverProblem(MethodRule rule, byte[] classFile) {
        List<String> statics = new ArrayList<>();
        boolean[] instance = {false};
        new net.bytebuddy.jar.asm.ClassReader(classFile).accept(new net.bytebuddy.jar.asm.ClassVisitor(net.bytebuddy.jar.asm.Opcodes.ASM9) {
            @Override
            public net.bytebuddy.jar.asm.MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                if (name.startsWith("<") || (access & (net.bytebuddy.jar.asm.Opcodes.ACC_ABSTRACT | net.bytebuddy.jar.asm.Opcodes.ACC_BRIDGE
                        | net.bytebuddy.jar.asm.Opcodes.ACC_SYNTHETIC)) != 0 || find(rule.classPattern, name) != rule) return null;
                if ((access & net.bytebuddy.jar.asm.Opcodes.ACC_STATIC) != 0) statics.add(name);
                else instance[0] = true;
                return null;
            }
        }, net.bytebuddy.jar.asm.ClassReader.SKIP_CODE | net.bytebuddy.jar.asm.ClassReader.SKIP_DEBUG | net.bytebuddy.jar.asm.ClassReader.SKIP_FRAMES);
        if (instance[0] || statics.isEmpty()) return null;
        String key = readsThis(rule);
        String setting = key.equals("name") ? "tool-name" : key + "-param";
        return "configured-methods entry " + rule.where + " (" + rule.kind.name().toLowerCase(Locale.ROOT) + ", class " + rule.classPattern
                + ", method " + rule.methodPattern + "): " + setting + " '" + rule.field(key) + "' reads this, the object the method is"
                + " called on, but " + rule.classPattern + "#" + statics.get(0) + " is static, so no call has one: name a parameter (its"
                + " 0-based index or name), or a field path from one (0.sessionId), instead (CONFIG.md, \"Configured methods\")";
    }

    /**
     * A configured method of a class whose class file the agent cannot read (a class generated at run time, named exactly):
     * the same warnings as for a class compiled without parameter names, said as what they are (trial25 01: silent).
     */
    void warnNoClassFile(String className, String method, int parameters) {
        MethodRule rule = find(className, method);
        if (rule != null) warnAboutParameters(rule, className + "#" + method, ParameterNames.positional(parameters), true);
    }

    /** class#method of each configured method already warned about (overloads share one warning). */
    private final java.util.Set<String> warned = ConcurrentHashMap.newKeySet();

    /**
     * Says once, when a configured method is woven, what will go wrong at its calls: a {@code *-param} index
     * beyond its parameters (read as a literal, so e.g. every call lands in one session named "7"), or a class
     * file without parameter names (arguments reported as arg0..argN, so contracts that read a named argument
     * find nothing; a {@code *-param} given as a parameter's name stays a literal, see {@link #unfoundNames}).
     * A warning, not an error: the parameter count is known only once the class loads, after the application
     * has started.
     */
    private void warnAboutParameters(MethodRule rule, String method, String[] names, boolean noClassFile) {
        warnAboutParameters(rule, method, names, noClassFile, false);
    }

    /**
     * As above; {@code names} of a Kotlin suspend method are its source's parameters (the continuation left out), and
     * {@code continuationSaid} leaves out a setting that names the continuation, said already with an ERROR.
     */
    private void warnAboutParameters(MethodRule rule, String method, String[] names, boolean noClassFile, boolean continuationSaid) {
        int count = names.length;
        StringBuilder problems = new StringBuilder();
        for (String key : new String[] {"session", "subject", "purpose", "granted", "args", "name"}) {
            String spec = rule.field(key);
            int index = spec == null ? -1 : index(spec);
            if (index >= count && !(continuationSaid && index == count)) {
                problems.append(problems.length() == 0 ? "" : "; ").append(key.equals("name") ? "tool-name" : key + "-param")
                        .append(' ').append(index).append(" is beyond its ").append(count).append(count == 1 ? " parameter" : " parameters")
                        .append(count == 0 ? "" : " (indexes 0 to " + (count - 1) + ")")
                        .append(", so the text '").append(spec).append("' is used as a literal: give the 0-based index of the parameter");
            }
        }
        String sessionSpec = rule.field("session");
        String[] path = sessionSpec == null ? null : fieldPath(sessionSpec);
        if (path != null && !path[0].equals("this") && !(continuationSaid && index(path[0]) == count)
                && (index(path[0]) >= count || (index(path[0]) < 0 && !Arrays.asList(names).contains(path[0])))) {
            boolean noNamesHere = count > 0 && Arrays.equals(names, ParameterNames.positional(count));
            problems.append(problems.length() == 0 ? "" : "; ").append("session-param '").append(sessionSpec).append("' reads as a field path,")
                    .append(index(path[0]) >= 0 ? " but the method has " + count + (count == 1 ? " parameter" : " parameters")
                            : noNamesHere ? " but its class file records no parameter names (compiled without -parameters or -g), so there is"
                            + " no parameter " + path[0] : " but the method has no parameter " + path[0] + " (its parameters are "
                            + String.join(", ", names) + ")")
                    .append(", so every call is in the literal session \"").append(sessionSpec).append("\": start the path with the 0-based")
                    .append(" index of the parameter that holds the conversation (session-param: 0.").append(sessionSpec.substring(path[0].length() + 1))
                    .append(" for its first parameter)");
        }
        // a class file without parameter names (no -parameters, no -g): a *-param that would be a parameter's name cannot be
        // found among arg0..argN, so it stays a literal; said with the fix (session 11: it was silent)
        boolean noNames = count > 0 && Arrays.equals(names, ParameterNames.positional(count));
        String unnamed = noNames ? unfoundNames(rule, names) : null;
        if (unnamed != null && noClassFile) unnamed = unnamed.replace("its class file records no parameter names (compiled without -parameters or -g)",
                "the agent finds no class file for its class (a class generated at run time, such as a proxy)");
        if (unnamed != null) {
            problems.append(problems.length() == 0 ? "" : "; ").append(unnamed);
        }
        String args = rule.field("args");
        for (String key : new String[] {"name", "args"}) {
            // a tool-name or args-param path from an index the method does not have: the literal, as for session-param above
            String spec = rule.kind == MethodRule.Kind.TOOL ? rule.field(key) : null;
            String[] p = spec == null ? null : fieldPath(spec);
            int root = p == null ? -1 : index(p[0]);
            if (root >= count && !(continuationSaid && root == count)) {
                problems.append(problems.length() == 0 ? "" : "; ").append(key.equals("name") ? "tool-name" : "args-param").append(" '")
                        .append(spec).append("' reads as a field path, but the method has ").append(count)
                        .append(count == 1 ? " parameter" : " parameters").append(", so ")
                        .append(key.equals("name") ? "every call is the literal tool '" + spec + "'" : "each call's arguments are {\"value\":\"" + spec + "\"}")
                        .append(": start the path with the 0-based index of a parameter the method has");
            }
        }
        String[] argsPath = args == null ? null : fieldPath(args);
        boolean argsReads = args != null && (args.equals("this") || (argsPath != null && (argsPath[0].equals("this")
                || index(argsPath[0]) >= 0 || Arrays.asList(names).contains(argsPath[0]))));
        if (args != null && !args.equals("*") && index(args) < 0 && !Arrays.asList(names).contains(args) && !argsReads
                && !(unnamed != null && mayBeName(args))) {
            problems.append(problems.length() == 0 ? "" : "; ").append("args-param '").append(args).append("' is neither a parameter's")
                    .append(" 0-based index nor its name (").append(String.join(", ", names)).append("), so each call's arguments are")
                    .append(" all its parameters by name, as without args-param: give the parameter that holds the arguments, or leave")
                    .append(" args-param out");
        }
        String exclude = rule.kind == MethodRule.Kind.TOOL ? rule.field("exclude") : null;
        if (exclude != null) {
            // exclude-params that names no parameter leaves nothing out: the value it meant stays among the arguments
            for (String one : exclude.split(",")) {
                int i = index(one);
                String what = null;
                if (i >= count) {
                    what = "exclude-params " + i + " is beyond its " + count + (count == 1 ? " parameter" : " parameters")
                            + (count == 0 ? "" : " (indexes 0 to " + (count - 1) + ")");
                } else if (i < 0 && !Arrays.asList(names).contains(one)) {
                    what = noNames ? "its class file records no parameter names (compiled without -parameters or -g), so exclude-params '"
                            + one + "' names no parameter" : "exclude-params '" + one + "' names no parameter of the method (its parameters"
                            + " are " + String.join(", ", names) + ")";
                }
                if (what != null) {
                    problems.append(problems.length() == 0 ? "" : "; ").append(what).append(", so it leaves nothing out of the arguments:"
                            + " give the 0-based index").append(noNames ? "" : " or the name").append(" of the parameter that is no tool data");
                }
            }
        }
        // a tool's arguments only: a consent or erasure event has none
        boolean allByName = noNames && rule.kind == MethodRule.Kind.TOOL && "*".equals(rule.fields.getOrDefault("args", "*"));
        if (allByName && unnamed != null) {
            problems.append("; for the same reason its arguments are reported as ").append(count == 1 ? "arg0" : "arg0.." + "arg" + (count - 1))
                    .append(" and a contract that reads an argument by name finds nothing");
        } else if (allByName && noClassFile) {
            problems.append(problems.length() == 0 ? "" : "; ").append("the agent finds no class file for its class (a class generated at run"
                            + " time, such as a proxy), so its arguments are reported as ").append(count == 1 ? "arg0" : "arg0.." + "arg" + (count - 1))
                    .append(" and a contract that reads an argument by name finds nothing: name the class it was generated from (a"
                            + " proxy's superclass, whose method has the names), or set args-param to the parameter that holds the arguments");
        } else if (allByName) {
            problems.append(problems.length() == 0 ? "" : "; ").append("its class file records no parameter names, so its arguments are reported as ")
                    .append(count == 1 ? "arg0" : "arg0.." + "arg" + (count - 1))
                    .append(" and a contract that reads an argument by name finds nothing: compile it with javac -parameters (or -g,"
                            + " Maven's and Gradle's default), or set args-param to the parameter that holds the arguments");
        }
        if (problems.length() > 0 && warned.add(method)) {
            AgentLog.warn("configured method " + method + " (" + rule.where + "): " + problems);
        }
    }

    /**
     * For a method whose class file records no parameter names: the {@code *-param} settings that read like a parameter's
     * name (a Java identifier that is not a 0-based index, nor {@code true}/{@code false} for granted-param) and so cannot be
     * found, each with what it becomes as a literal, and the fix; null when there is none. {@code tool-name} is left out:
     * a literal is what it is for. The agent cannot tell such a name from a literal meant as one ({@code session-param: web}),
     * so this is a warning and the literal is used, under {@code fail: closed} too.
     */
    private static String unfoundNames(MethodRule rule, String[] names) {
        StringBuilder found = new StringBuilder();
        StringBuilder becomes = new StringBuilder();
        String example = null;
        for (String key : new String[] {"session", "subject", "purpose", "granted", "args"}) {
            String spec = rule.field(key);
            if (spec == null || !mayBeName(spec) || Arrays.asList(names).contains(spec) || spec.equals("this")
                    || (key.equals("granted") && (spec.equalsIgnoreCase("true") || spec.equalsIgnoreCase("false")))) continue;
            found.append(found.length() == 0 ? "" : ", ").append(key).append("-param '").append(spec).append('\'');
            becomes.append(becomes.length() == 0 ? "" : "; ").append(switch (key) {
                case "session" -> "every call in the session \"" + spec + "\"";
                case "subject" -> "every " + (rule.kind == MethodRule.Kind.ERASURE ? "erasure" : "consent") + " for the subject \"" + spec + "\"";
                case "purpose" -> "every consent for the purpose \"" + spec + "\"";
                case "granted" -> "every call a withdrawal of consent";
                default -> "every call's arguments the literal {\"value\":\"" + spec + "\"}";
            });
            if (example == null) example = key + "-param: 0";
        }
        if (found.length() == 0) return null;
        return "its class file records no parameter names (compiled without -parameters or -g), so " + found
                + (found.indexOf(",") >= 0 ? " name no parameter and are read as literals (" : " names no parameter and is read as a literal (")
                + becomes + "): compile the class with javac -parameters (or -g, Maven's and Gradle's default), or give the"
                + " parameter's 0-based index instead of its name (" + example + " for its first parameter)";
    }

    /** A setting that reads like a parameter's name: a Java identifier, not a 0-based index. */
    private static boolean mayBeName(String spec) {
        if (spec.isEmpty() || !Character.isJavaIdentifierStart(spec.charAt(0))) return false;
        for (int i = 1; i < spec.length(); i++) {
            if (!Character.isJavaIdentifierPart(spec.charAt(i))) return false;
        }
        return true;
    }

    /**
     * Says once, when a configured method is woven, that its {@code subject-param} (consent, erasure) or {@code session-param}
     * names a parameter whose value does not read as a subject or a conversation id (trial17): an object of the application
     * as subject (its consents and erasures are dropped, see {@link #unusableSubject}), or as session an object whose
     * toString() is Object's, so that each call would be its own session and counting contracts would never act.
     */
    void warnAboutParameterTypes(String className, net.bytebuddy.description.method.MethodDescription m) {
        MethodRule rule = find(className, m.getName());
        if (rule == null) return;
        String method = className + "#" + m.getName();
        StringBuilder problems = new StringBuilder();
        try {
            Map<String, String> specs = byIndex(rule, parameterNames.get(className + "." + m.getInternalName() + m.getDescriptor()));
            // a suspend fun's continuation is no parameter a setting can name (said with an ERROR: continuationProblem)
            int count = m.getParameters().size() - (m.getDescriptor().endsWith(SUSPEND_END) ? 1 : 0);
            String subject = rule.kind == MethodRule.Kind.TOOL ? null : specs.get("subject");
            int s = subject == null ? -1 : index(subject);
            if (s >= 0 && s < count) {
                net.bytebuddy.description.type.TypeDescription t = m.getParameters().get(s).getType().asErasure();
                if (!readsAsText(t)) {
                    String what = rule.kind == MethodRule.Kind.ERASURE ? "erasure" : "consent";
                    problems.append("subject-param ").append(s).append(" is a ").append(t.getName())
                            .append(", not text, so each ").append(what).append(" through it is dropped with an ERROR (its toString() names no one"
                                    + " the contracts know): name a parameter that holds the subject's id as text (e.g. the e-mail address),"
                                    + " or configure a method that takes it");
                }
            }
            String name = rule.kind == MethodRule.Kind.TOOL ? specs.get("name") : null;
            int n = name == null ? -1 : index(name);
            if (n >= 0 && n < count) {
                net.bytebuddy.description.type.TypeDescription t = m.getParameters().get(n).getType().asErasure();
                if (!namesATool(t) && warned.add("tool-name " + className + "." + m.getName())) {
                    // an error, said once: no contract can ever name such a tool (trial30 08: Ctx@63b1d4fa escaped G !call(transfer))
                    AgentLog.error("configured method " + method + " (" + rule.where + "): tool-name " + n + " is a " + t.getName()
                            + ", not text or an enum, so it cannot name the tool (its toString() would, "
                            + t.getSimpleName() + "@<identity hash>: a different tool at each call, outside every contract, in clear in the"
                            + " audit log): its calls are recorded as the tool " + m.getName() + " (the method's name) instead. Give"
                            + " tool-name the 0-based index of the parameter that holds the tool's name (a String, CharSequence or enum),"
                            + " or the tool's name itself (tool-name: " + m.getName() + "); CONFIG.md, \"Configured methods\"", null);
                }
            }
            String session = specs.get("session");
            for (String key : new String[] {"session", "name", "args"}) {
                String spec = rule.kind == MethodRule.Kind.TOOL || key.equals("session") ? specs.get(key) : null;
                PathReader reader = spec == null || index(spec) >= 0 ? null : PathReader.of(spec);
                if (reader == null) continue;
                String setting = key.equals("name") ? "tool-name" : key + "-param";
                if (reader.root == RECEIVER && m.isStatic()) {
                    // a static method has no object it is called on: this would be null at every call
                    if (warned.add(setting + " this " + className + "." + m.getName())) {
                        AgentLog.error("configured method " + method + " (" + rule.where + "): " + setting + " '" + rule.field(key) + "' reads"
                                + " this, the object the method is called on, but " + method + " is static: there is none, so "
                                + (key.equals("session") ? "its calls are in the session default"
                                : key.equals("name") ? "its calls have no tool name (decided by fail: closed refuses them, open names them "
                                + m.getName() + ")" : "its calls' arguments are {\"value\":null}")
                                + ": name a parameter (or a field path from one) instead (CONFIG.md, \"Configured methods\")", null);
                    }
                    continue;
                }
                if (reader.root != RECEIVER && reader.root >= count) continue;   // said by warnAboutParameters
                net.bytebuddy.description.type.TypeDescription from = reader.root == RECEIVER ? m.getDeclaringType().asErasure()
                        : m.getParameters().get(reader.root).getType().asErasure();
                String[] path = new String[reader.path.length + 1];
                path[0] = reader.root == RECEIVER ? "this" : Integer.toString(reader.root);
                System.arraycopy(reader.path, 0, path, 1, reader.path.length);
                String missing = pathProblem(from, path);
                if (missing != null && warned.add(setting + " " + className + "." + m.getName())) {
                    AgentLog.error("configured method " + method + " (" + rule.where + "): " + setting + " '" + rule.field(key)
                            + "' cannot be read: " + missing + ", so " + (key.equals("session") ? "its calls are in the session default"
                            : key.equals("name") ? "its calls have no tool name (decided by fail: closed refuses them, open names them "
                            + m.getName() + ")" : "its calls' arguments cannot be read (decided by fail: closed refuses them)")
                            + ": name the field (or getter) that holds " + holds(key) + " (CONFIG.md, \"Configured methods\")", null);
                }
            }
            int c = session == null ? -1 : index(session);
            if (c >= 0 && c < count) {
                net.bytebuddy.description.type.TypeDescription t = m.getParameters().get(c).getType().asErasure();
                if (!readsAsText(t) && !declaresToString(t)) {
                    problems.append(problems.length() == 0 ? "" : "; ").append("session-param ").append(c).append(" is a ").append(t.getName())
                            .append(", whose toString() is Object's (class@hash), so each call would be its own session and contracts"
                                    + " that count or order calls would never act: name a parameter that holds the conversation id as text, or"
                                    + " the field of this one that does (session-param: \"" + c + ".sessionId\", a field path)");
                }
            }
        } catch (RuntimeException unresolved) {
            AgentLog.debug("cannot check the parameter types of " + method + ": " + unresolved);
            return;
        }
        if (problems.length() > 0 && warned.add(method + " types")) {
            AgentLog.warn("configured method " + method + " (" + rule.where + "): " + problems);
        }
    }

    /**
     * The configured methods ({@code class.method(descriptor)}, as the advice's origin) that declare a
     * {@code CompletableFuture}, {@code CompletionStage} or {@code Future} of a type a {@code String} is (its type argument
     * {@code String}, {@code CharSequence}, {@code Object}, {@code ?}, {@code ? super String}): a blocked call under
     * {@code block.style: substitute} returns a future completed with the refusal text ({@link Dispatcher#refusedFuture});
     * and the Kotlin {@code suspend fun ...: String} methods ({@link #suspendOfText}), whose refusal is the text itself.
     * Learnt when the method is woven, from its generic signature; bounded by the woven methods.
     */
    private final java.util.Set<String> textFutures = ConcurrentHashMap.newKeySet();

    /**
     * The configured methods (as {@link #textFutures}) whose declared result is a {@code Map} ({@link #MAP_TYPES}), or a
     * future, {@code Mono}, {@code Single} or {@code Maybe} of one: a refusal or a withheld value is then a map of the
     * refusal under {@link #REFUSAL_KEY} (trial46 02: ADK's tools return {@code Map}, and a thrown TracegateViolation
     * reached the model as "An internal error occurred"). Learnt when the method is woven.
     */
    private final java.util.Set<String> mapResults = ConcurrentHashMap.newKeySet();

    /** The declared result types a {@code LinkedHashMap} of the refusal can stand for. */
    static final List<String> MAP_TYPES = List.of("java.util.Map", "java.util.SequencedMap", "java.util.AbstractMap", "java.util.HashMap",
            "java.util.LinkedHashMap");

    /** The key of the refusal text in the map a {@code Map} tool gets instead of its value. */
    static final String REFUSAL_KEY = "error";

    /** The map a refused or withheld call of a {@code Map} tool returns: {@code {"error": text}}, mutable, as a tool's own map may be. */
    static Map<String, Object> refusalMap(String text) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(REFUSAL_KEY, text);
        return map;
    }

    /**
     * With {@code debug: true}, under which entry and as what a configured method is woven, beside the weaver's
     * {@code instrumenting class#method(types)} line, which says neither (trial30 07). Weave time only.
     */
    void debugWoven(String className, net.bytebuddy.description.method.MethodDescription m) {
        if (!AgentLog.debugging()) return;
        MethodRule rule = find(className, m.getName());
        if (rule == null) return;
        AgentLog.debug(dev.tracegate.agent.instrumentation.Weaver.describe(m) + " is woven as a " + rule.kind.name().toLowerCase(Locale.ROOT)
                + " under configured-methods entry " + rule.where + (rule.nested ? " (nested: true)" : ""));
    }

    /** Notes whether a woven configured method's future can hold text (see {@link #textFutures}). Weave time only. */
    /**
     * Says once, when a configured tool method that returns a Kotlin {@code Flow} (any type of kotlinx.coroutines.flow, by
     * name) is woven, that the flow's elements are not supervised: the call makes a cold flow and returns at once, so its
     * RETURN is the Flow object, and the elements its collector receives later reach no contract (trial33: silent).
     */
    void warnAboutFlow(String className, net.bytebuddy.description.method.MethodDescription m) {
        MethodRule rule = find(className, m.getName());
        if (rule == null || rule.kind != MethodRule.Kind.TOOL) return;
        String type;
        try {
            type = m.getReturnType().asErasure().getName();
        } catch (RuntimeException unresolved) {
            return;
        }
        if (Reactive.followed(type)) return;   // a Mono, Single or Maybe: its one value is followed and checked (session 23)
        if (reactive(type) && warned.add("reactive " + className + "#" + m.getName())) {
            // trial46 03: ADK's BaseTool#runAsync returns an RxJava Single; its RETURN was the Single's internals, silently.
            // Since session 23 a Mono, Single or Maybe is followed; what is left emits many values (or none, or is unknown)
            String simple = type.substring(type.lastIndexOf('.') + 1);
            AgentLog.warn("configured method " + className + "#" + m.getName() + " (" + rule.where + ") returns a " + type + ": a call makes"
                    + " the " + simple + " and returns it before its values exist (the work runs when it is subscribed), so its CALL is"
                    + " checked but its RETURN is recorded as \"[not read: CLASS]\", and the values it emits later are NOT supervised (no"
                    + " result contract and no gdpr.P4-erasure sees them, nothing withholds one); a blocked call throws TracegateViolation out"
                    + " of the method, before any subscriber. Only a one-value Reactor Mono or RxJava 3 Single or Maybe is followed."
                    + " Configure the synchronous method that computes the values (the one the " + simple + " calls) as a tool, or one"
                    + " returning a Mono, Single, Maybe or CompletableFuture (of the collected list), whose value is checked"
                    + " (CONFIG.md, \"Configured methods\")");
            return;
        }
        if (!type.startsWith("kotlinx.coroutines.flow.") || !warned.add("flow " + className + "#" + m.getName())) return;
        AgentLog.warn("configured method " + className + "#" + m.getName() + " (" + rule.where + ") returns a " + type + ": a call makes"
                + " the flow and returns it before any element exists, so its CALL is checked but its RETURN is the " + type.substring(type.lastIndexOf('.') + 1)
                + " object, and the elements its collector receives later are NOT supervised (no result contract and no gdpr.P4-erasure"
                + " sees them, nothing withholds one). Configure the suspend fun that produces each element (the one the flow's block"
                + " calls before each emit), or one that collects the flow and returns its elements (flow.toList()), as a tool"
                + " (CONFIG.md, \"Kotlin suspend functions\")");
    }

    /**
     * A reactive type whose value comes after the method returned, when it is subscribed: Reactive Streams' and the JDK's
     * Publisher, Reactor's Mono and Flux, RxJava 2 and 3's Single, Maybe, Completable, Observable and Flowable. By name:
     * none of them is on the agent's class path.
     */
    static boolean reactive(String type) {
        return type.equals("org.reactivestreams.Publisher") || type.equals("java.util.concurrent.Flow$Publisher")
                || type.equals("reactor.core.publisher.Mono") || type.equals("reactor.core.publisher.Flux")
                || ((type.startsWith("io.reactivex.rxjava3.core.") || type.startsWith("io.reactivex.")) && List.of("Single", "Maybe",
                "Completable", "Observable", "Flowable").contains(type.substring(type.lastIndexOf('.') + 1)));
    }

    /** Whether a class is, or extends or implements, a {@link #reactive} type (a result's class: a Single's subclass, a Mono's). */
    static final ClassValue<Boolean> REACTIVE = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>();
            todo.add(type);
            java.util.Set<Class<?>> seen = new java.util.HashSet<>();
            while (!todo.isEmpty()) {
                Class<?> c = todo.poll();
                if (c == Object.class || !seen.add(c)) continue;
                if (reactive(c.getName())) return true;
                if (c.getSuperclass() != null) todo.add(c.getSuperclass());
                todo.addAll(Arrays.asList(c.getInterfaces()));
            }
            return false;
        }
    };

    /**
     * A tool method with no parameters (a command object's {@code get()}, {@code call()} or {@code run()}, whose input sits in
     * the receiver's fields: the Anthropic SDK's {@code BetaToolRunner} calls {@code Supplier<String>#get()} on a tool object
     * it filled from the model's input): each call's arguments are {@code {}}, so no argument contract can act on it. Said
     * once per method when it is woven (trial46 06: {@code G !call(send_email, "evil")} let the mail to evil through, silently).
     */
    void warnAboutNoParameters(String className, net.bytebuddy.description.method.MethodDescription m) {
        MethodRule rule = find(className, m.getName());
        if (rule == null || rule.kind != MethodRule.Kind.TOOL) return;
        int count = m.getParameters().size();
        if (m.getDescriptor().endsWith(SUSPEND_END)) count--;
        // a glob's no-argument methods (listAccounts()) and a stateless or static one are tools without input, not said
        String args = rule.field("args");
        if (args != null && (args.equals("this") || args.startsWith("this."))) return;   // the receiver's fields are the arguments
        if (count != 0 || m.isStatic() || rule.methodPattern.indexOf('*') >= 0 || !hasMutableFields(m.getDeclaringType().asErasure())
                || !warned.add("no parameters " + className + "#" + m.getName())) return;
        AgentLog.warn("configured method " + className + "#" + m.getName() + " (" + rule.where + ") takes no parameters, so each call's"
                + " arguments are {}: its input (the fields of the object it is called on, as in a tool object a framework fills from"
                + " the model's input and then calls) is NOT seen, and no"
                + " contract on arguments acts on it (arg(T, f), call(T, \"text\"), gdpr's P2 and P3, redact): only that the tool is called"
                + " (count, order, call(T)) is checked. Add args-param: this to the entry to make the fields of the object it is"
                + " called on its arguments, or configure a method that receives the input as parameters (CONFIG.md,"
                + " \"Configured methods\")");
    }

    /** Whether the class (or a superclass of the application's) has an instance field that is not final: state set before a call. */
    private static boolean hasMutableFields(net.bytebuddy.description.type.TypeDescription type) {
        try {
            for (net.bytebuddy.description.type.TypeDefinition k = type; k != null && !k.represents(Object.class); k = k.getSuperClass()) {
                for (net.bytebuddy.description.field.FieldDescription f : k.getDeclaredFields()) {
                    if (!f.isStatic() && !f.isFinal() && !f.isSynthetic()) return true;
                }
            }
        } catch (RuntimeException unresolved) {
            return false;
        }
        return false;
    }

    void learnFutureValue(String className, net.bytebuddy.description.method.MethodDescription m) {
        try {
            if (futureOfText(m.getReturnType()) || suspendOfText(m)) textFutures.add(className + "." + m.getInternalName() + m.getDescriptor());
            if (mapValued(m.getReturnType())) mapResults.add(className + "." + m.getInternalName() + m.getDescriptor());
        } catch (RuntimeException unresolved) {
            AgentLog.debug("cannot read the result type of " + className + "#" + m.getName() + ": " + unresolved);
        }
    }

    /** Whether {@code raw} is a future or a followed reactive type ({@link Reactive#followed}): one value, delivered later. */
    private static boolean carriesOneValue(String raw) {
        return raw.equals("java.util.concurrent.CompletableFuture") || raw.equals("java.util.concurrent.CompletionStage")
                || raw.equals("java.util.concurrent.Future") || Reactive.followed(raw);
    }

    /**
     * Whether {@code type} is {@code CompletableFuture<V>}, {@code CompletionStage<V>} or {@code Future<V>} with a {@code V}
     * that a {@code String} is: a class or interface String extends or implements, {@code ?}, {@code ? extends} one, or
     * {@code ? super String}. Not a raw future (a class file without generic signatures) nor a type variable ({@code <T>
     * CompletableFuture<T>}: the caller may expect any type), whose refusal fails the future instead.
     */
    static boolean futureOfText(net.bytebuddy.description.type.TypeDescription.Generic type) {
        if (type.getSort() != net.bytebuddy.description.type.TypeDefinition.Sort.PARAMETERIZED) return false;
        String raw = type.asErasure().getName();
        if (!carriesOneValue(raw)) return false;
        net.bytebuddy.description.type.TypeDescription.Generic value = type.getTypeArguments().get(0);
        switch (value.getSort()) {
            case NON_GENERIC:
            case PARAMETERIZED:
                return value.asErasure().isAssignableFrom(String.class);
            case WILDCARD:
                if (!value.getLowerBounds().isEmpty()) return value.getLowerBounds().get(0).asErasure().represents(String.class);
                net.bytebuddy.description.type.TypeDescription.Generic upper = value.getUpperBounds().get(0);
                return upper.getSort() != net.bytebuddy.description.type.TypeDefinition.Sort.VARIABLE
                        && upper.asErasure().isAssignableFrom(String.class);
            default:
                return false;
        }
    }

    /**
     * Whether {@code type} is a {@code Map} ({@link #MAP_TYPES}), or a future ({@code CompletableFuture},
     * {@code CompletionStage}, {@code Future}), {@code Mono}, {@code Single} or {@code Maybe} of one ({@code ? extends} one
     * too): a {@code LinkedHashMap} of the refusal can then be its value (see {@link #mapResults}).
     */
    static boolean mapValued(net.bytebuddy.description.type.TypeDescription.Generic type) {
        String raw = type.asErasure().getName();
        if (MAP_TYPES.contains(raw)) return true;
        if (type.getSort() != net.bytebuddy.description.type.TypeDefinition.Sort.PARAMETERIZED) return false;
        if (!carriesOneValue(raw)) return false;
        net.bytebuddy.description.type.TypeDescription.Generic value = type.getTypeArguments().get(0);
        switch (value.getSort()) {
            case NON_GENERIC:
            case PARAMETERIZED:
                return MAP_TYPES.contains(value.asErasure().getName());
            case WILDCARD:
                return value.getLowerBounds().isEmpty() && MAP_TYPES.contains(value.getUpperBounds().get(0).asErasure().getName());
            default:
                return false;
        }
    }

    /**
     * What a refused call of the configured method at {@code origin} returns instead of throwing, where its declared result
     * has a place for the refusal ({@link dev.tracegate.agent.bootstrap.DispatchTarget#refusedValue}): a {@code Map} method
     * under substitution the {@link #refusalMap}; a future of a {@code Map} one completed with it; a {@code Mono},
     * {@code Single} or {@code Maybe} one that emits the refusal text (a value that can be text), the map (a {@code Map}
     * value) or else fails with {@code TracegateViolation} (also under {@code block.style: exception}, as a future fails).
     * Null: the advice throws.
     */
    public Object refusedValue(String origin, Class<?> owner, dev.tracegate.agent.bootstrap.Ruling refusal) {
        int paren = origin.indexOf(')');
        if (paren < 0) return null;
        String declared = origin.substring(paren + 1);
        boolean substitute = refusal.kind == dev.tracegate.agent.bootstrap.Ruling.SUBSTITUTE;
        boolean map = mapResults.contains(origin);
        if (owner == null) {   // a future's: only a future of a Map is answered here
            return substitute && map ? java.util.concurrent.CompletableFuture.completedFuture(refusalMap(refusal.text)) : null;
        }
        if (!declared.startsWith("L") || !declared.endsWith(";")) return null;
        String type = declared.substring(1, declared.length() - 1).replace('/', '.');
        if (MAP_TYPES.contains(type)) return substitute ? refusalMap(refusal.text) : null;
        if (!Reactive.followed(type)) return null;
        Class<?> base;
        try {
            base = Class.forName(type, false, owner.getClassLoader());
            Object value = !substitute ? null : map ? refusalMap(refusal.text) : textFutures.contains(origin) ? refusal.text : null;
            return Reactive.completed(base, value, refusal.violation());
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            AgentLog.debug("cannot make the refusal of " + method(origin) + " a " + type + ": " + e);
            return null;
        }
    }

    /**
     * Whether {@code m} is a Kotlin {@code suspend fun ...: String}: its last parameter is {@code Continuation<? super String>}
     * (how the compiler writes the function's result type), so that a refusal or a withheld value can be the function's
     * value, as for a method that returns String. Any other result type ({@code Any?}, a data class), and a class file
     * without generic signatures, is not.
     */
    static boolean suspendOfText(net.bytebuddy.description.method.MethodDescription m) {
        if (!m.getDescriptor().endsWith(SUSPEND_END) || m.getParameters().isEmpty()) return false;
        net.bytebuddy.description.type.TypeDescription.Generic k = m.getParameters().get(m.getParameters().size() - 1).getType();
        if (k.getSort() != net.bytebuddy.description.type.TypeDefinition.Sort.PARAMETERIZED) return false;
        net.bytebuddy.description.type.TypeDescription.Generic value = k.getTypeArguments().get(0);
        if (value.getSort() == net.bytebuddy.description.type.TypeDefinition.Sort.WILDCARD) {
            return !value.getLowerBounds().isEmpty() && value.getLowerBounds().get(0).asErasure().represents(String.class);
        }
        return value.getSort() == net.bytebuddy.description.type.TypeDefinition.Sort.NON_GENERIC && value.asErasure().represents(String.class);
    }

    /**
     * Whether a refused call of the configured method at {@code origin}, which declares a future, gets a future completed
     * with the refusal text (its future can hold text and its entry has no {@code block-style: exception}); else the
     * future fails with {@code TracegateViolation}.
     */
    public boolean futureTakesText(String origin) {
        Site site = site(origin);
        return site != null && site.textResult;
    }

    /** Whether a blocked call throws by default (block.style: exception, or onBlock=throw): set at start, before weaving. */
    private volatile boolean blocksThrow;

    /** The block style in force: with {@code exception} a cached method needs no warning ({@link #warnAboutCaching}). */
    public void blockStyleThrows(boolean throwing) {
        this.blocksThrow = throwing;
    }

    /** Annotations whose method's value a cache stores and hands to later calls without running the method. */
    private static final java.util.Set<String> CACHING = java.util.Set.of("org.springframework.cache.annotation.Cacheable",
            "org.springframework.cache.annotation.CachePut", "org.springframework.cache.annotation.Caching",
            "javax.cache.annotation.CacheResult", "jakarta.cache.annotation.CacheResult", "io.quarkus.cache.CacheResult",
            "io.micronaut.cache.annotation.Cacheable", "io.micronaut.cache.annotation.CachePut");

    /**
     * Says once, when a configured tool method that returns {@code String} is woven, that a cache annotation on it (or its
     * class) stores its value, when a block would return the refusal as that value ({@code block.style: substitute} and no
     * {@code block-style: exception} on the entry): the cache advice sits around the method in the proxy, so it stores the
     * refusal and serves it to later calls of every conversation, which never reach the method, so nothing is recorded
     * (trial25 03). Returns the warning, or null. Weave time only.
     */
    String warnAboutCaching(String className, net.bytebuddy.description.method.MethodDescription m,
                            net.bytebuddy.description.type.TypeDescription type) {
        MethodRule rule = find(className, m.getName());
        if (rule == null || rule.kind != MethodRule.Kind.TOOL || rule.blockThrows || blocksThrow || !m.getReturnType().represents(String.class)) return null;
        String cached = null;
        try {
            for (net.bytebuddy.description.annotation.AnnotationDescription a : m.getDeclaredAnnotations()) {
                if (CACHING.contains(a.getAnnotationType().getName())) cached = a.getAnnotationType().getSimpleName();
            }
            if (cached == null) {
                for (net.bytebuddy.description.annotation.AnnotationDescription a : type.getDeclaredAnnotations()) {
                    if (CACHING.contains(a.getAnnotationType().getName())) cached = a.getAnnotationType().getSimpleName() + " (on its class)";
                }
            }
        } catch (RuntimeException unreadable) {
            AgentLog.debug("cannot read the annotations of " + className + "#" + m.getName() + ": " + unreadable);
            return null;
        }
        String method = className + "#" + m.getName();
        if (cached == null || !warned.add(method + " cached")) return null;
        String warning = "configured method " + method + " (" + rule.where + ") is @" + cached + " and returns String, and a block returns the"
                + " refusal as its value (block.style: substitute), as a withheld result its notice: the cache around the method stores that text and serves it to later"
                + " calls, from any conversation, which never reach the method, so they are neither checked nor recorded. Add"
                + " block-style: exception to the entry (a refusal is then thrown, and an exception is not cached); CONFIG.md, \"A refusal"
                + " and a cache\"";
        AgentLog.warn(warning);
        return warning;
    }

    /** A type whose values read as a subject's id or a session id: text, a number, an enum, a UUID (Object: decided by the value). */
    private static boolean readsAsText(net.bytebuddy.description.type.TypeDescription t) {
        if (t.isPrimitive() || t.isEnum()) return true;
        switch (t.getName()) {
            case "java.lang.String": case "java.lang.CharSequence": case "java.lang.Object": case "java.lang.Number":
            case "java.lang.Integer": case "java.lang.Long": case "java.lang.Short": case "java.lang.Byte": case "java.lang.Character":
            case "java.math.BigInteger": case "java.util.UUID":
                return true;
            default:
                return false;
        }
    }

    /**
     * Why field path {@code path} (index, then field names) cannot be read from a parameter of declared type {@code t}, or
     * null: each step needs an instance field of the type (or a superclass) or a getter ({@code name()}, {@code getName()},
     * {@code isName()}). A step at an interface or Object is decided by the value's class at the call. Weave time only.
     */
    /** The path step that reads getter {@code name}: {@code getSessionId} and {@code isOpen} as {@code sessionId}, {@code open}. */
    static String stepOf(String name) {
        if (name.startsWith("get") && name.length() > 3 && Character.isUpperCase(name.charAt(3))) return Character.toLowerCase(name.charAt(3)) + name.substring(4);
        if (name.startsWith("is") && name.length() > 2 && Character.isUpperCase(name.charAt(2))) return Character.toLowerCase(name.charAt(2)) + name.substring(3);
        return name;
    }

    static String pathProblem(net.bytebuddy.description.type.TypeDescription t, String[] path) {
        for (int i = 1; i < path.length; i++) {
            if (t.isInterface() || t.represents(Object.class) || t.isPrimitive() || t.isArray()) return null;
            String name = path[i];
            net.bytebuddy.description.type.TypeDescription next = null;
            List<String> fields = new ArrayList<>();
            for (net.bytebuddy.description.type.TypeDefinition k = t; k != null && !k.represents(Object.class) && next == null;
                 k = k.getSuperClass()) {
                for (net.bytebuddy.description.field.FieldDescription f : k.getDeclaredFields()) {
                    if (f.isStatic() || f.isSynthetic()) continue;
                    if (f.getName().equals(name)) next = f.getType().asErasure();
                    fields.add(f.getName());
                }
            }
            if (next == null) {
                String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
                for (net.bytebuddy.description.type.TypeDefinition k = t; k != null && next == null; k = k.getSuperClass())
                for (net.bytebuddy.description.method.MethodDescription d : k.getDeclaredMethods()) {
                    if (d.isPublic() && !d.isStatic() && d.getParameters().isEmpty() && !d.getReturnType().represents(void.class)
                            && (d.getName().equals(name) || d.getName().equals("get" + cap) || d.getName().equals("is" + cap))) {
                        next = d.getReturnType().asErasure();
                        break;
                    }
                }
            }
            if (next == null) {
                // the getters too, by the step that reads them (trial46 08: ADK's ToolContext gives its id only by sessionId())
                java.util.Set<String> getters = new java.util.TreeSet<>();
                for (net.bytebuddy.description.type.TypeDefinition k = t; k != null && !k.represents(Object.class); k = k.getSuperClass()) {
                    for (net.bytebuddy.description.method.MethodDescription d : k.getDeclaredMethods()) {
                        if (!d.isPublic() || d.isStatic() || !d.getParameters().isEmpty() || d.getReturnType().represents(void.class)
                                || d.isBridge() || d.isSynthetic() || d.isConstructor() || d.isTypeInitializer()) continue;
                        String g = stepOf(d.getName());
                        if (!fields.contains(g) && !g.equals("hashCode") && !g.equals("toString") && !g.equals("class")) getters.add(g);
                    }
                }
                List<String> steps = new ArrayList<>(fields);
                steps.addAll(getters);
                List<String> some = new ArrayList<>(getters);
                String near = dev.tracegate.agent.config.AgentConfig.nearest(name, steps);
                return "a " + t.getName() + " has no field or getter " + name + (near != null ? " (did you mean '" + near + "'?)" : "")
                        + (fields.isEmpty() ? "" : "; its fields are " + String.join(", ", fields.subList(0, Math.min(fields.size(), 12))))
                        + (some.isEmpty() ? "" : "; its getters give " + String.join(", ", some.subList(0, Math.min(some.size(), 12))));
            }
            t = next;
        }
        return null;
    }

    /**
     * Whether a {@code tool-name} parameter of this declared type can hold a tool's name: text (any CharSequence), an enum
     * (by its name), or a type a String is (Object, Serializable, Comparable: decided by the value at each call).
     */
    private static boolean namesATool(net.bytebuddy.description.type.TypeDescription t) {
        return t.isEnum() || t.isAssignableTo(CharSequence.class) || t.isAssignableFrom(String.class);
    }

    /** Whether the type or a superclass below Object declares its own toString() (a record does). */
    private static boolean declaresToString(net.bytebuddy.description.type.TypeDescription t) {
        for (net.bytebuddy.description.type.TypeDefinition c = t; c != null && !c.represents(Object.class); c = c.getSuperClass()) {
            if (c.isInterface()) return true;   // an implementation's toString is unknown here: no warning
            for (net.bytebuddy.description.method.MethodDescription d : c.getDeclaredMethods()) {
                if (d.getName().equals("toString") && d.getParameters().isEmpty() && !d.isAbstract()) return true;
            }
        }
        return false;
    }

    /** The parameter names of the method an origin ({@code class.method(descriptor)}) names; arg0..argN if unknown. */
    String[] parameterNames(String origin, int count) {
        String[] names = parameterNames.get(origin);
        return names != null && names.length == count ? names : ParameterNames.positional(count);
    }

    /** {@code class.method} of an origin {@code class.method(descriptor)} (older origins have no descriptor). */
    private static String method(String origin) {
        int paren = origin.indexOf('(');
        return paren < 0 ? origin : origin.substring(0, paren);
    }

    /**
     * What the advice of a method with this descriptor can carry out (see {@link #rewrite}): never a redirect (a
     * configured method has no tool table); with {@code args=*} a redaction may remove any parameter but a primitive
     * one; with {@code args=N} it may rewrite parameter N only when it is JSON text or a map.
     */
    static dev.tracegate.agent.core.CallReach reach(String method, String argsField, String[] names, String descriptor) {
        String noRedirect = "a configured method (" + method + ") has no other tool to run instead";
        java.util.List<String> types = ParameterTypes.of(descriptor);
        if (types == null) return new dev.tracegate.agent.core.CallReach(noRedirect, null, Map.of());
        if (!argsField.equals("*")) {
            int i = index(argsField);
            String type = i >= 0 && i < types.size() ? types.get(i) : null;
            boolean rewritable = type != null && (type.equals("java.lang.String") || type.equals("java.lang.Object") || type.equals("java.util.Map")
                    || type.equals("java.util.HashMap") || type.equals("java.util.LinkedHashMap"));
            String from = i >= 0 ? "parameter " + argsField : argsField.equals("this") || argsField.startsWith("this.")
                    ? "read from " + argsField + " (the object the method is called on)" : "read from the path " + argsField;
            return new dev.tracegate.agent.core.CallReach(noRedirect, rewritable ? null
                    : "its arguments are " + from + " of " + method + (type == null ? "" : ", a " + type)
                    + ", neither JSON text nor a Map, so no field can be removed", Map.of());
        }
        String[] n = names != null && names.length == types.size() ? names : ParameterNames.positional(types.size());
        Map<String, String> fixed = new java.util.LinkedHashMap<>();
        Map<String, String> partsFixed = new java.util.LinkedHashMap<>();
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            if (ParameterTypes.primitive(type)) fixed.put(n[i], "a " + type + " parameter of " + method);
            // rewrite passes a String or Map parameter as rewritten; any other object is the host's own, passed whole or as null
            else if (!(type.equals("java.lang.String") || type.equals("java.util.Map") || type.equals("java.util.HashMap")
                    || type.equals("java.util.LinkedHashMap"))) partsFixed.put(n[i], "a " + type + " parameter of " + method);
        }
        return new dev.tracegate.agent.core.CallReach(noRedirect, null, fixed, partsFixed);
    }

    /** How the descriptor of a Kotlin {@code suspend} function ends: a trailing continuation, an Object result. */
    static final String SUSPEND_END = "Lkotlin/coroutines/Continuation;)Ljava/lang/Object;";

    /** A suspend function's descriptor without its trailing continuation (its parameters as the Kotlin source has them). */
    static String withoutContinuation(String descriptor) {
        return descriptor.substring(0, descriptor.length() - SUSPEND_END.length()) + ")Ljava/lang/Object;";
    }

    /**
     * What a configured method's origin resolves to, worked out on its first call so that later calls read
     * fields instead of parsing the rule's settings again: the rule, and for tool rules the parts of the event
     * that do not depend on the arguments. Immutable; shared by all threads.
     */
    static final class Site {
        static final Site NONE = new Site(null, null, null, null, -1, null, -1, null, null, false, null, Map.of(), null);

        final MethodRule rule;
        final String method;
        /** The tool name when the rule gives a literal or {@code $method}; null when it is read from parameter {@link #toolIndex}. */
        final String toolName;
        final String toolSpec;
        final int toolIndex;
        /** The session spec: parameter {@link #sessionIndex}, else this literal (null: "default"). */
        final String sessionSpec;
        final int sessionIndex;
        /** {@code *} or a parameter index. */
        final String argsField;
        /** The parameter names when {@code args=*} and the class file named them when the site was resolved; else null. */
        final String[] names;
        /** {@link #names} without the session parameter's, when both are known (the arguments' names); else null. */
        final String[] argNames;
        /**
         * Whether a blocked call's substitute text can be the method's value: it returns {@code String}, or a future that can
         * hold one ({@link #textFutures}: the future is completed with the text); else a block throws (a future fails).
         */
        final boolean textResult;
        /** What this method's advice can carry out: no redirect; a redaction removes only parameters that can be null. */
        final dev.tracegate.agent.core.CallReach reach;
        /** The rule's {@code *-param} and {@code tool-name} settings, a parameter's name replaced by its index (trial17). */
        final Map<String, String> specs;
        /**
         * Whether the method declares a {@code CompletableFuture}, {@code CompletionStage} or {@code Future} result, which a
         * checked {@code CompletableFuture} can stand for: its value is then checked when it completes.
         */
        final boolean futureResult;
        /**
         * Whether the method is a Kotlin {@code suspend} function ({@code name(params..., Continuation): Object}, the
         * compiler's shape): its arguments, names and types are its parameters without the trailing continuation.
         */
        final boolean suspend;

        /**
         * For {@code session-param: 0.sessionId} (or {@code this.conversation.id}, or {@code this}): what reads the session from a
         * parameter or the receiver; else null.
         */
        final PathReader sessionReader;
        /** For {@code tool-name: 0.name} (or {@code this.name}): what reads the tool's name at each call; else null. */
        final PathReader toolReader;
        /** For {@code args-param: this} (or a field path, {@code this.input}): what reads the arguments' value; else null. */
        final PathReader argsReader;
        /** The method's own name: the tool's name when its {@code tool-name} parameter holds no tool name. */
        final String methodName;
        /** What was said once (shared with the methods' warnings): a tool-name parameter that held no tool name. */
        private final java.util.Set<String> said;
        /** The origin string this site was resolved from (set before the map publishes it), for {@link #site}'s identity check. */
        String origin;
        /**
         * {@code exclude-params}: the 0-based indexes of the parameters that are no tool data (a framework's context), left out
         * of the arguments with the session parameter ({@link #kept}); null when the entry excludes none (or none it names is
         * a parameter of this method), so that such a site's calls take the path they took before exclusions existed. Set
         * before the map publishes the site.
         */
        int[] excluded;
        /** {@link #kept} for the last parameter count asked: calls of one method all have the same. */
        private volatile Kept keptCache;

        private record Kept(int count, int[] at) { }

        /**
         * The indexes of the parameters, of {@code count}, that are the call's arguments: all but the {@link #excluded} ones and
         * the session parameter. Only for a site with exclusions. The array is shared: not to be written.
         */
        int[] kept(int count) {
            Kept cached = keptCache;
            if (cached != null && cached.count == count) return cached.at;
            int[] out = new int[count];
            int n = 0;
            for (int i = 0; i < count; i++) {
                if (i == sessionIndex || Arrays.binarySearch(excluded, i) >= 0) continue;
                out[n++] = i;
            }
            cached = new Kept(count, Arrays.copyOf(out, n));
            keptCache = cached;
            return cached.at;
        }

        Site(MethodRule rule, String method, String toolName, String toolSpec, int toolIndex, String sessionSpec, int sessionIndex,
             String argsField, String[] names, boolean textResult, String descriptor, Map<String, String> specs, java.util.Set<String> said) {
            this.rule = rule;
            this.method = method;
            this.methodName = method == null ? null : method.substring(method.lastIndexOf('.') + 1).intern();
            this.sessionReader = sessionIndex < 0 && sessionSpec != null ? PathReader.of(sessionSpec) : null;
            this.toolReader = toolName == null && toolIndex < 0 && toolSpec != null ? PathReader.of(toolSpec) : null;
            this.argsReader = argsField != null && !argsField.equals("*") && index(argsField) < 0 ? PathReader.of(argsField) : null;
            this.said = said;
            this.toolName = toolName;
            this.toolSpec = toolSpec;
            this.toolIndex = toolIndex;
            this.sessionSpec = sessionSpec;
            this.sessionIndex = sessionIndex;
            this.argsField = argsField;
            this.names = names;
            this.argNames = names != null && sessionIndex >= 0 && sessionIndex < names.length ? JsonText.without(names, sessionIndex) : null;
            this.textResult = textResult;
            this.suspend = descriptor != null && descriptor.endsWith(SUSPEND_END);
            this.reach = rule == null ? null : reach(method, argsField, names, suspend ? withoutContinuation(descriptor) : descriptor);
            this.specs = specs;
            this.futureResult = descriptor != null && (descriptor.endsWith(")Ljava/util/concurrent/CompletableFuture;")
                    || descriptor.endsWith(")Ljava/util/concurrent/CompletionStage;") || descriptor.endsWith(")Ljava/util/concurrent/Future;"));
        }

        /** The setting {@code key} (session, subject, purpose, granted, args, name) with a parameter name read as its index. */
        String spec(String key) {
            return specs.get(key);
        }

        /**
         * The call's session, {@code default} when a field path's getter threw (the tool call itself decides that case by
         * {@code fail}: {@link #sessionOrThrow}); for the RETURN of a call that ran and for consents and erasures.
         */
        String session(Object[] arguments) {
            return session(null, arguments);
        }

        /** As {@link #session(Object[])}, of a call on {@code receiver} (what {@code this} reads; null for a static method). */
        String session(Object receiver, Object[] arguments) {
            try {
                return sessionOrThrow(receiver, arguments);
            } catch (UnreadableSession e) {
                // a tool call's own was decided and said at the call (unreadableSession); a consent's or erasure's is said here
                if (said != null && said.size() < 4096 && said.add("session-param threw " + method)) {
                    AgentLog.error("configured method " + method + " (" + rule.where + "): session-param '" + sessionSpec + "' could not be read: "
                            + e.getMessage() + " threw " + e.getCause() + ", so it is in the session default; further such calls are"
                            + " not logged. The path is right (the getter exists): make it return the conversation id at every call", null);
                }
                return "default";
            }
        }

        /** As {@link #session}, but a field path's getter (or field read) that threw throws {@link UnreadableSession}. */
        String sessionOrThrow(Object[] arguments) {
            return sessionOrThrow(null, arguments);
        }

        String sessionOrThrow(Object receiver, Object[] arguments) {
            if (sessionIndex >= 0 && sessionIndex < arguments.length) {
                String session = text(arguments[sessionIndex]);
                return session != null ? session : "default";   // a null conversation id: no conversation (trial7 finding 14)
            }
            if (sessionReader != null && sessionReader.reaches(arguments)) return pathSession(receiver, arguments);
            return sessionSpec == null ? "default" : sessionSpec;
        }

        /**
         * The session a field path ({@code session-param: 0.sessionId}) reads from parameter {@link #pathIndex}: each step an
         * instance field of the value's class (or a superclass), else its getter ({@code sessionId()}, {@code getSessionId()}),
         * looked up once per class and kept ({@link #steps}). A null on the way, or a step the value's class does not have
         * (said once with an ERROR), is the session {@code default} (trial30 01: the vendor's Ctx carries the conversation).
         */
        private String pathSession(Object receiver, Object[] arguments) {
            Object value;
            try {
                value = sessionReader.read(receiver, arguments);
            } catch (MissingStep e) {
                unreadable(e.getMessage());
                return "default";
            }
            String session = text(value);
            return session != null ? session : "default";
        }

        /**
         * A tool call whose field path threw: the failure policy decides (trial46 09: the call went to the shared session
         * {@code default} under {@code fail: closed} too). Counted as an internal error; said once per method with the
         * getter's own exception. Returns the refusal under {@code fail: closed}, else null (the call is in {@code default}).
         */
        Ruling unreadableSession(UnreadableSession e, SupervisorBridge bridge) {
            Throwable cause = e.getCause();
            Ruling refusal = bridge.onAdviceFailure("the session of " + method + " (session-param '" + sessionSpec + "')", cause, true);
            if (said != null && said.size() < 4096 && said.add("session-param threw " + method)) {
                AgentLog.error("configured method " + method + " (" + rule.where + "): session-param '" + sessionSpec + "' could not be read: "
                        + e.getMessage() + " threw " + cause + ", so the call's conversation is unknown; "
                        + (refusal != null ? "the call was refused (fail: closed)" : "the call is in the session default (fail: open)")
                        + ", counted as an internal error; further such calls are decided the same way and counted, not logged."
                        + " The path is right (the getter exists): make it return the conversation id at every call, or name a"
                        + " parameter or field that always holds it (CONFIG.md, \"Configured methods\")", null);
            }
            return refusal;
        }

        private void unreadable(String problem) {
            if (said != null && said.size() < 4096 && said.add("session-param " + method)) {
                AgentLog.error("configured method " + method + " (" + rule.where + "): session-param '" + sessionSpec + "' cannot be read: "
                        + problem + ", so its calls are in the session default: name the field (or getter) that holds the conversation id"
                        + " (CONFIG.md, \"Configured methods\")", null);
            }
        }

        String tool(Object[] arguments) {
            return tool(null, arguments);
        }

        /**
         * The call's tool name; a {@code tool-name} field path ({@link #toolReader}) that gives no name throws
         * {@link UnreadableTool}, which the CALL decides by {@code fail} ({@link #unreadableTool}).
         */
        String tool(Object receiver, Object[] arguments) {
            if (toolName != null) {
                return toolName;
            }
            if (toolReader != null) return toolReader.reaches(arguments) ? pathTool(receiver, arguments) : toolSpec;
            if (toolIndex >= arguments.length) return toolSpec;
            Object value = arguments[toolIndex];
            if (value instanceof String s) {
                char c = s.isEmpty() ? 'x' : s.charAt(0);
                if (c != '{' && c != '[' && !Character.isWhitespace(c)) return s;   // the usual case: a name, no allocation
            }
            return toolNameOf(value);
        }

        /**
         * The tool name for a RETURN (the CALL ran): as {@link #tool(Object, Object[])}, the method's name where a field path
         * gives none (the CALL went on under that name, fail: open).
         */
        String toolOrMethod(Object receiver, Object[] arguments) {
            try {
                return tool(receiver, arguments);
            } catch (UnreadableTool e) {
                return methodName;
            }
        }

        /**
         * The tool name a {@code tool-name} field path reads ({@code 0.name}, {@code tool.name}, {@code this.name}: Google ADK's
         * {@code Functions.callTool(BaseTool, Map, ToolContext)} names its tool only by the tool object's {@code name()},
         * trial46 07): text as it is, an enum by its name. A null, a value that is not text, JSON text, a step the value's
         * class lacks or a getter that throws gives no name: {@link UnreadableTool}.
         */
        private String pathTool(Object receiver, Object[] arguments) {
            Object value;
            try {
                value = toolReader.read(receiver, arguments);
            } catch (MissingStep e) {
                throw new UnreadableTool(e.getMessage(), null);
            } catch (UnreadableSession e) {
                throw new UnreadableTool(e.getMessage() + " threw " + e.getCause(), e.getCause());
            }
            if (value instanceof Enum<?> e) return e.name();
            if (value instanceof CharSequence) {
                String s = value.toString();
                String t = s.strip();
                if (!t.isEmpty() && t.charAt(0) != '{' && t.charAt(0) != '[') return s;
                throw new UnreadableTool(t.isEmpty() ? "it gave blank text" : "it gave JSON text (not shown: it may carry personal data),"
                        + " the arguments rather than a tool's name", null);
            }
            throw new UnreadableTool(value == null ? "it gave null" : "it gave a " + value.getClass().getName() + ", not text", null);
        }

        /**
         * A tool call whose {@code tool-name} field path gave no name: the failure policy decides (closed: refused; open: the
         * call is supervised as the method's name), counted as an internal error, said once per method with why.
         */
        Ruling unreadableTool(UnreadableTool e, SupervisorBridge bridge) {
            Throwable cause = e.getCause() != null ? e.getCause() : new IllegalStateException(e.getMessage());
            Ruling refusal = bridge.onAdviceFailure("the tool name of " + method + " (tool-name '" + rule.field("name") + "')", cause, true);
            if (said != null && said.size() < 4096 && said.add("tool-name path " + method)) {
                AgentLog.error("configured method " + method + " (" + rule.where + "): tool-name '" + rule.field("name") + "' gave no tool"
                        + " name: " + e.getMessage() + ", so " + (refusal != null ? "the call was refused (fail: closed)"
                        : "the call is supervised as the tool " + methodName + " (the method's name; fail: open)")
                        + ", counted as an internal error; further such calls are decided the same way and counted, not logged. Make the"
                        + " path end at the field or getter that holds the tool's name as text (a String or an enum) at every call"
                        + " (CONFIG.md, \"Configured methods\")", null);
            }
            return refusal;
        }

        /**
         * Whether this call's {@code tool-name} parameter held no tool name ({@link #toolNameOf} named the tool after the
         * method for it): an object that is neither text nor an enum, or JSON text. Asked only when the tool is the method's
         * name, so never on the usual path.
         */
        boolean heldNoToolName(Object[] arguments) {
            if (toolName != null || toolIndex < 0 || toolIndex >= arguments.length) return false;
            Object value = arguments[toolIndex];
            if (value == null || value instanceof Enum<?>) return false;
            if (!(value instanceof CharSequence)) return true;
            String t = value.toString().strip();
            return !t.isEmpty() && (t.charAt(0) == '{' || t.charAt(0) == '[');
        }

        /**
         * The tool name a {@code tool-name} parameter's value gives, off the usual path: an enum by its name, other text as it
         * is unless it is JSON (an object or array: the arguments, with a swapped index, trial30 08); anything else (an object
         * of the application, whose toString() is its identity, {@code Ctx@63b1d4fa}: a new tool each call, outside every
         * contract) and JSON give the method's name, said once with an ERROR that does not show the value. Null: the method's.
         */
        private String toolNameOf(Object value) {
            if (value == null) return methodName;
            if (value instanceof Enum<?> e) return e.name();
            String problem;
            if (value instanceof CharSequence) {
                String s = value.toString();
                String t = s.strip();
                if (t.isEmpty() || (t.charAt(0) != '{' && t.charAt(0) != '[')) return s;
                problem = "held JSON text (not shown: it may carry personal data), the arguments rather than a tool's name";
            } else {
                problem = "held a " + value.getClass().getName() + ", not text, whose toString() would name a tool no contract knows";
            }
            if (said != null && said.size() < 4096 && said.add("tool-name " + method)) {
                AgentLog.error("configured method " + method + " (" + rule.where + "): tool-name " + toolIndex + " " + problem
                        + ", so its calls are recorded as the tool " + methodName + " (the method's name) instead: give tool-name the"
                        + " 0-based index of the parameter that holds the tool's name as text (a String, CharSequence or enum), or the"
                        + " tool's name itself (tool-name: " + methodName + "); CONFIG.md, \"Configured methods\"", null);
            }
            return methodName;
        }
    }

    /**
     * A field path ({@code 0.sessionId}, {@code ctx.sessionId}, {@code 0.request.session}): a parameter's 0-based index or name,
     * then one or more field names, split at each '.'; null for anything else (an index, a name, a literal such as
     * {@code web-1} or {@code web.1}).
     */
    static String[] fieldPath(String spec) {
        if (spec.indexOf('.') <= 0) return null;
        String[] parts = spec.split("\\.", -1);
        if (!(index(parts[0]) >= 0 || mayBeName(parts[0]))) return null;
        for (int i = 1; i < parts.length; i++) if (!mayBeName(parts[i])) return null;
        return parts;
    }

    /** A field path's step that threw at a call ({@link PathReader#read}): its getter's own exception is the cause. */
    static final class UnreadableSession extends RuntimeException {
        UnreadableSession(String step, Throwable cause) {
            super(step, cause, false, false);
        }
    }

    /** A field path's step that the value's class lacks (the message says which, with its fields and getters). */
    static final class MissingStep extends RuntimeException {
        MissingStep(String problem) {
            super(problem, null, false, false);
        }
    }

    /** A {@code tool-name} field path that gave no tool name at a call ({@link Site#pathTool}): why, and the getter's exception. */
    static final class UnreadableTool extends RuntimeException {
        UnreadableTool(String why, Throwable cause) {
            super(why, cause, false, false);
        }
    }

    /** Where a setting reads from {@code this}, the object the method is called on (no parameter's index). */
    static final int RECEIVER = -2;

    /**
     * What reads a value from a call: {@code this} (the object the method is called on), or a field path from a parameter
     * ({@code 0.sessionId}, a name already replaced by its index, {@link #byIndex}) or from {@code this}
     * ({@code this.conversation.id}). Each step is an instance field of the value's class (or a superclass, private too,
     * read directly), else its public getter ({@code id()}, {@code getId()}, {@code isId()}), looked up once per class and
     * kept in a {@code ClassValue}, whose value the class holds, not the agent, so that an undeployed web app's loader is
     * collected (review18). Immutable.
     */
    static final class PathReader {
        /** The parameter the path starts at, or {@link #RECEIVER}. */
        final int root;
        final String[] path;
        private final ClassValue<PathStep>[] steps;

        private PathReader(int root, String[] path) {
            this.root = root;
            this.path = path;
            this.steps = PathStep.perClass(path);
        }

        /**
         * The reader of a setting ({@code this}, or a field path from an index or {@code this}), or null for anything else: an
         * index, a literal, a path from a name no parameter has ({@code github.create_issue}, a literal tool name).
         */
        static PathReader of(String spec) {
            if (spec.equals("this")) return new PathReader(RECEIVER, new String[0]);
            String[] parts = fieldPath(spec);
            if (parts == null) return null;
            int root = parts[0].equals("this") ? RECEIVER : index(parts[0]);
            return root == -1 ? null : new PathReader(root, Arrays.copyOfRange(parts, 1, parts.length));
        }

        /** Whether the path starts at a value of the call: this, or a parameter the method has. */
        boolean reaches(Object[] arguments) {
            return root == RECEIVER || root < arguments.length;
        }

        /**
         * The value at the path's end, null when a value on the way is null; a step the value's class lacks throws
         * {@link MissingStep}, a getter (or field read) that throws {@link UnreadableSession} with its own exception.
         */
        Object read(Object receiver, Object[] arguments) {
            Object value = root == RECEIVER ? receiver : arguments[root];
            for (int i = 0; i < path.length && value != null; i++) {
                Class<?> c = value.getClass();
                PathStep step = steps[i].get(c);
                if (step.problem != null) throw new MissingStep(step.problem);
                try {
                    value = step.read(value);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    // the getter's own exception, not the reflection's wrapper (trial46 09: the ERROR showed only
                    // InvocationTargetException and advised naming a getter that existed)
                    throw new UnreadableSession(step.getter.getName() + "() of a " + c.getName(), e.getCause() != null ? e.getCause() : e);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    throw new UnreadableSession("reading " + path[i] + " of a " + c.getName(), e);
                }
            }
            return value;
        }
    }

    /** One step of a field path, for one class: an instance field, else a getter; or why neither can be read. Immutable. */

    static final class PathStep {
        final Class<?> owner;
        final java.lang.reflect.Field field;
        final java.lang.reflect.Method getter;
        final String problem;

        private PathStep(Class<?> owner, java.lang.reflect.Field field, java.lang.reflect.Method getter, String problem) {
            this.owner = owner;
            this.field = field;
            this.getter = getter;
            this.problem = problem;
        }

        Object read(Object value) throws ReflectiveOperationException {
            return field != null ? field.get(value) : getter.invoke(value, (Object[]) null);
        }

        /** Each step of {@code path}, looked up once per class it is read from ({@link #of}). */
        @SuppressWarnings("unchecked")
        static ClassValue<PathStep>[] perClass(String[] path) {
            ClassValue<PathStep>[] steps = new ClassValue[path.length];
            for (int i = 0; i < path.length; i++) {
                String name = path[i];
                steps[i] = new ClassValue<PathStep>() {
                    @Override
                    protected PathStep computeValue(Class<?> c) {
                        return of(c, name);
                    }
                };
            }
            return steps;
        }

        /** How to read {@code name} from a {@code c}: its (or a superclass's) instance field, else name(), getName(), isName(). */
        static PathStep of(Class<?> c, String name) {
            String denied = null;
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                try {
                    java.lang.reflect.Field f = k.getDeclaredField(name);
                    if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) break;
                    try {
                        f.setAccessible(true);
                        return new PathStep(c, f, null, null);
                    } catch (RuntimeException e) {
                        denied = "its field " + name + " cannot be read (" + e.getMessage() + ")";
                        break;
                    }
                } catch (NoSuchFieldException | SecurityException e) {
                    // a superclass's, or a getter
                }
            }
            String cap = name.isEmpty() ? name : Character.toUpperCase(name.charAt(0)) + name.substring(1);
            for (String g : new String[] {name, "get" + cap, "is" + cap}) {
                try {
                    java.lang.reflect.Method m = c.getMethod(g);
                    if (m.getReturnType() == void.class || java.lang.reflect.Modifier.isStatic(m.getModifiers())) continue;
                    try {
                        m.setAccessible(true);   // a public method of a class that is not public (a nested class)
                    } catch (RuntimeException e) {
                        // invoked as it is
                    }
                    return new PathStep(c, null, m, null);
                } catch (NoSuchMethodException | SecurityException e) {
                    // the next spelling
                }
            }
            if (denied != null) return new PathStep(c, null, null, "a " + c.getName() + ": " + denied + ", and it has no public getter for it");
            List<String> fields = new ArrayList<>();
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                for (java.lang.reflect.Field f : k.getDeclaredFields()) {
                    if (!java.lang.reflect.Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) fields.add(f.getName());
                }
            }
            // the getters too, by the step that reads them (sessionId() and getSessionId() as sessionId): a misspelt step on
            // a class whose id only a getter gives (Google ADK's ToolContext) had no suggestion (trial46 08)
            java.util.Set<String> getters = new java.util.TreeSet<>();
            try {
                for (java.lang.reflect.Method m : c.getMethods()) {
                    if (m.getParameterCount() != 0 || m.getReturnType() == void.class || java.lang.reflect.Modifier.isStatic(m.getModifiers())
                            || m.getDeclaringClass() == Object.class || m.isBridge() || m.isSynthetic()) continue;
                    String g = stepOf(m.getName());
                    if (!fields.contains(g) && !g.equals("hashCode") && !g.equals("toString")) getters.add(g);
                }
            } catch (RuntimeException | LinkageError e) {
                // a getter whose types cannot be resolved: the fields are said
            }
            List<String> steps = new ArrayList<>(fields);
            steps.addAll(getters);
            String near = dev.tracegate.agent.config.AgentConfig.nearest(name, steps);
            List<String> some = new ArrayList<>(getters);
            return new PathStep(c, null, null, "a " + c.getName() + " has no field or getter " + name
                    + (near != null ? " (did you mean '" + near + "'?)" : "")
                    + (fields.isEmpty() ? "" : "; its fields are " + String.join(", ", fields.subList(0, Math.min(fields.size(), 12))))
                    + (some.isEmpty() ? "" : "; its getters give " + String.join(", ", some.subList(0, Math.min(some.size(), 12)))));
        }
    }

    /**
     * The two sites {@link #site} found last, each compared by the identity of the origin it was resolved from: the advice
     * passes its own string constant, so a repeated call reads these fields and the site it needs, not the origin's text
     * and the map's table and node, each on a page of its own that a cold call walks to (session 18). Written only when a
     * lookup misses them; a stale or racing read is a miss that goes to the map.
     */
    private Site last, previous;

    private Site site(String origin) {
        Site s = last;
        if (s == null || s.origin != origin) {
            s = previous;
            if (s == null || s.origin != origin) {
                s = byOrigin.get(origin);
                if (s == null) {
                    s = byOrigin.computeIfAbsent(origin, this::resolve);
                }
                if (s.origin == origin) {
                    previous = last;
                    last = s;
                }
            }
        }
        return s.rule == null ? null : s;
    }

    private Site resolve(String origin) {
        String m = method(origin);
        int dot = m.lastIndexOf('.');
        MethodRule rule = dot < 0 ? null : find(m.substring(0, dot), m.substring(dot + 1));
        if (rule == null) {
            return Site.NONE;
        }
        if (!rule.ran) rule.ran = true;
        Map<String, String> specs = byIndex(rule, parameterNames.get(origin));
        String toolSpec = specs.getOrDefault("name", "$method");
        int toolIndex = index(toolSpec);
        String toolName = toolSpec.equals("$method") ? m.substring(dot + 1) : toolSpec.equals("$class") ? simpleName(m.substring(0, dot))
                : toolIndex >= 0 || PathReader.of(toolSpec) != null ? null : toolSpec;   // a path (0.name, this.name): read per call
        if (toolName != null) toolName = toolName.intern();   // contracts' tool names are interned: found by reference
        String sessionSpec = specs.get("session");
        int sessionIndex = sessionSpec == null ? -1 : index(sessionSpec);
        String argsField = specs.getOrDefault("args", "*");
        // a name this method's recorded parameters do not have (a glob's entry over methods of which only some have it): all
        // parameters by name, as without args-param, never the literal {"value":"args"} (trial46 12; said when woven)
        String[] recorded = parameterNames.get(origin);
        if (!argsField.equals("*") && index(argsField) < 0 && PathReader.of(argsField) == null && recorded != null && recorded.length > 0
                && !Arrays.equals(recorded, ParameterNames.positional(recorded.length))) argsField = "*";   // not a class without names
        String[] names = argsField.equals("*") ? parameterNames.get(origin) : null;
        if (names != null && names.length > 0 && origin.endsWith(SUSPEND_END)) {
            names = Arrays.copyOf(names, names.length - 1);   // a suspend function's $completion is no argument
        }
        int paren = origin.indexOf('(');
        // the origin ends with the method's descriptor; a future that can hold text takes a substitute text too (trial30 03)
        Site site = new Site(rule, m, toolName, toolSpec, toolIndex, sessionSpec, sessionIndex, argsField, names,
                (origin.endsWith(")Ljava/lang/String;") || textFutures.contains(origin) || mapResults.contains(origin)) && !rule.blockThrows,
                paren < 0 ? null : origin.substring(paren), specs, warned);
        site.origin = origin;   // before the map publishes it
        site.excluded = excluded(rule, parameterNames.get(origin), origin.endsWith(SUSPEND_END));
        return site;
    }

    /**
     * The parameters a tool entry's {@code exclude-params} names on one method ({@code names}: its parameters' names as the
     * class file records them, or null), as sorted 0-based indexes; null when it names none of them (the WARN at weave time
     * says which setting names no parameter, {@link #warnAboutParameters}).
     */
    static int[] excluded(MethodRule rule, String[] names, boolean suspend) {
        String spec = rule.field("exclude");
        if (spec == null || rule.kind != MethodRule.Kind.TOOL) return null;
        if (names != null && suspend && names.length > 0) names = Arrays.copyOf(names, names.length - 1);
        java.util.TreeSet<Integer> at = new java.util.TreeSet<>();
        for (String one : spec.split(",")) {
            int i = index(one);
            if (i < 0 && names != null) i = Arrays.asList(names).indexOf(one);
            if (i >= 0 && (names == null || i < names.length)) at.add(i);
        }
        if (at.isEmpty()) return null;
        int[] out = new int[at.size()];
        int n = 0;
        for (int i : at) out[n++] = i;
        return out;
    }

    /**
     * {@code tool-name: $class}: the simple name of a class, from its binary name (com.acme.tools.WeatherTool: WeatherTool; a
     * nested r.App$Bank: Bank; an anonymous r.App$1: App$1).
     */
    static String simpleName(String className) {
        String simple = className.substring(className.lastIndexOf('.') + 1);
        String inner = simple.substring(simple.lastIndexOf('$') + 1);
        return inner.isEmpty() || inner.chars().allMatch(Character::isDigit) ? simple : inner;
    }

    /** The settings a {@code *-param} or {@code tool-name} can give, with each that is the name of a parameter as its index. */
    private static final String[] PARAMETER_SETTINGS = {"session", "subject", "purpose", "granted", "args", "name"};

    /**
     * The rule's settings for one method, a value that names one of its parameters ({@code session-param: session}, as
     * the class file records the names) replaced by that parameter's index: the natural spelling, which was read as a
     * literal (every call in the one session "session", the arguments {"value":"email"}: trial17). A literal that is no
     * parameter's name stays a literal.
     */
    static Map<String, String> byIndex(MethodRule rule, String[] names) {
        Map<String, String> specs = new java.util.HashMap<>(rule.fields);
        if (names == null) return specs;
        for (String key : PARAMETER_SETTINGS) {
            String spec = specs.get(key);
            if (spec == null || index(spec) >= 0) continue;
            String[] path = key.equals("session") || key.equals("name") || key.equals("args") ? fieldPath(spec) : null;
            if (path != null && index(path[0]) < 0) {
                // ctx.sessionId: the parameter named ctx (this.x stays: the receiver); a name no parameter has stays a literal
                int at = Arrays.asList(names).indexOf(path[0]);
                if (at >= 0) specs.put(key, at + spec.substring(path[0].length()));
                continue;
            }
            for (int i = 0; i < names.length; i++) {
                if (spec.equals(names[i])) {
                    specs.put(key, Integer.toString(i));
                    break;
                }
            }
        }
        return specs;
    }

    /** A configured method is called: report the event and say what the advice must do (a call without an id). */
    public Ruling onCall(String origin, Object[] arguments, SupervisorBridge bridge) {
        return onCall(origin, null, arguments, null, bridge);
    }

    /**
     * A configured method is called: report the event and say what the advice must do. A tool call's CALL carries
     * {@code callId} (the invocation's own, generated by the advice), and so does its RETURN ({@link #onResult}, {@link #onThrown}).
     */
    public Ruling onCall(String origin, Object[] arguments, String callId, SupervisorBridge bridge) {
        return onCall(origin, null, arguments, callId, bridge);
    }

    /**
     * As above, of a call on {@code receiver}, the object the method is called on (null for a static method): what an entry's
     * {@code this} reads ({@code args-param: this}, {@code session-param: this.conversation.id}, {@code tool-name: this.name}).
     */
    public Ruling onCall(String origin, Object receiver, Object[] arguments, String callId, SupervisorBridge bridge) {
        return onCall(origin, receiver, arguments, callId, 0, bridge);
    }

    /**
     * As above, for the call {@code tg-callNumber} whose id the advice generated as a number ({@link Dispatcher#newCallNumber}):
     * a tool call's CALL and RETURN keep the number, and its text is made only where it is read.
     */
    public Ruling onCall(String origin, Object receiver, Object[] arguments, long callNumber, SupervisorBridge bridge) {
        return onCall(origin, receiver, arguments, null, callNumber, bridge);
    }

    /** The call's id as text: {@code callId}, or {@code tg-callNumber} when {@code callNumber > 0} (made here: a rare path). */
    private static String idText(String callId, long callNumber) {
        return callNumber > 0 ? Dispatcher.callId(callNumber) : callId;
    }

    private Ruling onCall(String origin, Object receiver, Object[] arguments, String callId, long callNumber, SupervisorBridge bridge) {
        Site site = site(origin);
        if (site == null) {
            return null;
        }
        MethodRule rule = site.rule;
        // reference comparisons, not a switch on the kind: a switch reads the constant's ordinal and the class's switch
        // table, two objects on pages of their own that a cold call would walk to (session 18)
        if (rule.kind == MethodRule.Kind.CONSENT) {
            String unusable = unusableSubject(site, arguments);
            if (unusable != null) return dropEvent(origin, site, arguments, unusable);
            if (granted(site, arguments)) {
                // a grant counts once the method returned normally (onResult): a method that throws stored no consent
                return Ruling.AT_RETURN;
            }
            // a withdrawal counts at once, whatever the method does: processing stops when the person asked
            bridge.supervisor().onConsent(consent(site, receiver, arguments, false, bridge, 1));
            AgentLog.debug("CONSENT (withdrawn) at " + method(origin));
            return null;
        }
        if (rule.kind == MethodRule.Kind.ERASURE) {
            String unusable = unusableSubject(site, arguments);
            if (unusable != null) return dropEvent(origin, site, arguments, unusable);
            // an erasure counts at once, whatever the method does (a method that throws errs on the safe side)
            bridge.supervisor().onErasure(new Erasure(conversationOf(site, receiver, arguments, bridge, 1),
                    subjectText(read(site.spec("subject"), arguments, null))));
            AgentLog.debug("ERASURE at " + method(origin));
            return null;
        }
        return onToolCall(site, origin, receiver, arguments, callId, callNumber, bridge);
    }

    private Ruling onToolCall(Site site, String origin, Object receiver, Object[] arguments, String callId, long callNumber,
                              SupervisorBridge bridge) {
        String session;
        try {
            session = site.sessionOrThrow(receiver, arguments);
        } catch (UnreadableSession e) {
            Ruling refusal = site.unreadableSession(e, bridge);
            if (refusal != null) return refusal;
            session = "default";
        }
        if (sessionless) Dispatcher.noteCallSession(session);   // the conversation of a consent or erasure the call makes
        String tool;
        try {
            tool = site.tool(receiver, arguments);
        } catch (UnreadableTool e) {
            // a tool-name field path that gave no name (null, not text): decided by fail, as a session path that threw
            Ruling refusal = site.unreadableTool(e, bridge);
            if (refusal != null) return refusal;
            tool = site.methodName;
        }
        if (tool == site.methodName && site.heldNoToolName(arguments)) {
            // named after the method as the ERROR said (once per method): each such call counts as an internal error
            bridge.countHandledError("the tool-name parameter of " + site.method);
        }
        if (anyNested) {
            int[] cell = Dispatcher.depthCell();
            int toolHash = tool.hashCode();
            if (site.rule.nested && cell[0] > 1 && cell[2] == site.rule.entry && cell[3] == toolHash) {
                // the same entry's own delegation inside its running call (an overload calling another): one call, which
                // the outer call's CALL and RETURN record; this one runs unsupervised (nested: true is for other tools' calls)
                return Ruling.LET_THROUGH;
            }
            cell[2] = site.rule.entry;
            cell[3] = toolHash;
        }
        String argsField = site.argsField;
        String[] names = null;
        Ruling ruling;
        Args args = null;
        Object[] values = arguments;
        int skip = -1;
        int[] kept = null;
        if (argsField.equals("*") && site.excluded != null) {
            // exclude-params (a framework's context object beside the tool's data, trial46 01): the arguments are the other
            // parameters, copied here; a site without exclusions never comes this way
            String[] all = site.names != null && site.names.length == arguments.length ? site.names : parameterNames(origin, arguments.length);
            kept = site.kept(arguments.length);
            names = new String[kept.length];
            values = new Object[kept.length];
            for (int i = 0; i < kept.length; i++) {
                names[i] = all[kept[i]];
                values[i] = arguments[kept[i]];
            }
            args = JsonText.args(names, values, -1);
        } else if (argsField.equals("*")) {
            names = site.names != null && site.names.length == arguments.length ? site.names : parameterNames(origin, arguments.length);
            if (site.sessionIndex >= 0 && site.sessionIndex < arguments.length) {
                // the session parameter is the conversation's key, not tool data: no contract judges it and no redaction
                // removes it (an e-mail as conversation id was redacted to null and made every call carry personal data, trial17)
                skip = site.sessionIndex;
                names = names == site.names && site.argNames != null ? site.argNames : JsonText.without(names, skip);
            }
            // the common shapes become the arguments straight from the values, as reading their JSON text would (the
            // session value skipped in place: the copy without it is made only on the two rarer paths below)
            args = JsonText.args(names, arguments, skip);
        }
        if (args != null) {
            ruling = callNumber > 0 ? bridge.onToolCall(FRAMEWORK, session, tool, args, callNumber, site.textResult, site.reach)
                    : bridge.onToolCall(FRAMEWORK, session, tool, args, callId, site.textResult, site.reach);
        } else {
            if (skip >= 0) values = JsonText.without(arguments, skip);
            ValueText.Written written;
            if (site.argsReader != null) {
                // args-param: this (the receiver's fields: a command object's input, the Anthropic SDK's BetaToolRunner tool,
                // trial46 06), or a field path: the value there is the arguments, read as a parameter's value is
                Object value;
                try {
                    value = site.argsReader.reaches(arguments) ? site.argsReader.read(receiver, arguments) : null;
                } catch (MissingStep | UnreadableSession e) {
                    String why = "args-param '" + site.rule.field("args") + "' could not be read: " + e.getMessage()
                            + (e.getCause() != null ? " threw " + e.getCause() : "");
                    Ruling refusal = bridge.unreadValue(method(origin), "the arguments", why);
                    if (refusal != null) return refusal;
                    value = Collections.emptyMap();   // fail: open: no arguments, as the contracts then see
                }
                written = valueJson(value, bridge);
            } else {
                written = argumentsJson(argsField, names, values, bridge);
            }
            if (written.cut() != null) {
                String cut = argsField.equals("*") ? written.cut() + cutParameter(site, names, values, kept, skip, bridge) : written.cut();
                Ruling refusal = bridge.unreadValue(method(origin), "the arguments", cut);
                if (refusal != null) return refusal;
            }
            ruling = bridge.onToolCall(FRAMEWORK, session, tool, written.json(), idText(callId, callNumber), site.textResult, site.reach);
        }
        boolean thrown = bridge.throwOnBlock() || !site.textResult;
        if (ruling == null) {
            return null;
        }
        if (ruling.kind == Ruling.REWRITE) {
            if (skip >= 0 && values == arguments) values = JsonText.without(arguments, skip);
            Object[] rewritten = rewrite(argsField, names, values, ruling.arguments, bridge, site.reach::removable);
            if (rewritten != null && skip >= 0) rewritten = with(rewritten, skip, arguments[skip]);
            if (rewritten != null && kept != null) {
                // the excluded parameters (and the session's) go back unchanged, each in its place
                Object[] whole = arguments.clone();
                for (int i = 0; i < kept.length; i++) whole[kept[i]] = rewritten[i];
                rewritten = whole;
            }
            if (rewritten == null) {
                return new Ruling(thrown ? Ruling.THROW : Ruling.SUBSTITUTE,
                        "tracegate: arguments of " + method(origin) + " must be redacted but are not JSON text or a Map; the call did not run", null, null, null);
            }
            return new Ruling(Ruling.REWRITE, null, null, ruling.arguments, rewritten);
        }
        if (ruling.kind == Ruling.REDIRECT) {
            // a configured method has no tool table to redirect into: refuse with the redirect's message, and report the
            // target as failed, so the log (which holds the redirected CALL) and later contracts (failed(target)) know it did not run
            bridge.onToolResult(FRAMEWORK, session, ruling.tool, idText(callId, callNumber), ruling.text, true);
            return new Ruling(thrown ? Ruling.THROW : Ruling.SUBSTITUTE, ruling.text, null, null, null);
        }
        return ruling;
    }

    /**
     * The first entry of a configured Kotlin {@code suspend} method ({@link Site#suspend}) of class {@code owner}: one call
     * for the whole function, whichever threads it suspends and resumes on. The event is that of its parameters without
     * the trailing continuation ({@link #onCall}). A tool call or a consent's grant that goes on runs with a continuation
     * of the agent's in place of the caller's ({@link Continuations}): the function's value reaches the caller through it,
     * so the RETURN (or a grant) is reported and checked when the value arrives, an exception is an error RETURN (and no
     * grant), and the caller gets the value, its notice, or TracegateViolation. The session and arguments are those of this
     * entry for the whole call. An erasure and a withdrawal count at once, as from any method; a re-entry of the function's
     * state machine at a resume is no call at all (the advice asks {@link Dispatcher#resumed} first).
     */
    public Ruling onSuspendCall(String origin, Class<?> owner, Object[] arguments, String callId, SupervisorBridge bridge) {
        return onSuspendCall(origin, owner, null, arguments, callId, bridge);
    }

    /** As above, of a call on {@code receiver} (null: a static function). */
    public Ruling onSuspendCall(String origin, Class<?> owner, Object receiver, Object[] arguments, String callId, SupervisorBridge bridge) {
        Site site = site(origin);
        if (site == null) {
            return null;
        }
        int n = arguments.length;
        if (!site.suspend || n == 0) return onCall(origin, receiver, arguments, callId, bridge);
        Continuations.Maker maker = site.rule.kind == MethodRule.Kind.ERASURE ? null : Continuations.of(owner);   // before any event
        Object[] own = Arrays.copyOf(arguments, n - 1);
        Ruling ruling = onCall(origin, receiver, own, callId, bridge);
        if (maker == null) return ruling;
        if (site.rule.kind == MethodRule.Kind.CONSENT && ruling != Ruling.AT_RETURN) return ruling;   // a withdrawal, a dropped one
        if (ruling != null && ruling.kind != Ruling.REWRITE) return ruling;   // refused, or unsupervised
        Object[] values = ruling != null && ruling.values != null ? ruling.values : own;
        Consent grant = site.rule.kind == MethodRule.Kind.CONSENT ? consent(site, receiver, own, true, bridge, 1) : null;   // this entry's conversation
        Object check;
        try {
            check = maker.wrap(arguments[n - 1], new SuspendCheck(this, origin, receiver, values, callId, bridge, maker, grant));
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap the continuation of " + method(origin), e);
        }
        Object[] run = Arrays.copyOf(values, n);
        run[n - 1] = check;
        return new Ruling(Ruling.REWRITE, null, null, ruling == null ? null : ruling.arguments, run);
    }

    /**
     * What the caller of a configured suspend method gets for its value {@code result} (returned at once, or handed to its
     * continuation later): the RETURN is reported and checked ({@link #onResult}); a withheld value becomes the notice when
     * the function returns String ({@link Site#textResult}: {@code Continuation<? super String>}), else the caller gets a
     * {@code TracegateViolation} (returned, for the advice or the continuation to throw), as from a plain method.
     */
    public Object suspendOutcome(String origin, Object[] arguments, Object result, String callId, SupervisorBridge bridge) {
        return suspendOutcome(origin, null, arguments, result, callId, bridge);
    }

    /** As above, of a call on {@code receiver} (null: a static function). */
    public Object suspendOutcome(String origin, Object receiver, Object[] arguments, Object result, String callId, SupervisorBridge bridge) {
        Object out = onResult(origin, receiver, arguments, result, callId, bridge);
        if (out == null) return result;
        if (out instanceof Throwable) return out;
        if (out instanceof String notice) {
            Site site = site(origin);
            return site != null && site.textResult && (result == null || result instanceof String) ? notice
                    : new dev.tracegate.agent.bootstrap.TracegateViolation(notice);
        }
        return out;
    }

    /**
     * The check a configured suspend call's continuation ({@link Continuations}) runs when the call's outcome arrives, on
     * the thread that resumes the caller: a failure is the call's error RETURN (and no grant) and goes on to the caller; a
     * value is the RETURN, checked ({@link #suspendOutcome}), or a consent's grant (in the conversation of the call's
     * entry). The agent's own failure here follows the fail policy: closed gives the caller TracegateViolation, open the
     * outcome as it was.
     */
    static final class SuspendCheck implements java.util.function.Function<Object, Object> {
        private final ConfiguredMethods methods;
        private final String origin;
        private final Object receiver;
        private final Object[] arguments;
        private final String callId;
        private final SupervisorBridge bridge;
        private final Continuations.Maker maker;
        private final Consent grant;

        SuspendCheck(ConfiguredMethods methods, String origin, Object receiver, Object[] arguments, String callId, SupervisorBridge bridge,
                     Continuations.Maker maker, Consent grant) {
            this.methods = methods;
            this.origin = origin;
            this.receiver = receiver;
            this.arguments = arguments;
            this.callId = callId;
            this.bridge = bridge;
            this.maker = maker;
            this.grant = grant;
        }

        @Override
        public Object apply(Object outcome) {
            Throwable failure;
            Object out;
            try {
                failure = maker.failureOf(outcome);
                if (failure != null) {
                    methods.onThrown(origin, receiver, arguments, failure, callId, bridge);
                    out = null;
                } else if (grant != null) {
                    bridge.supervisor().onConsent(grant);   // the function completed normally: the host stored the consent
                    AgentLog.debug("CONSENT at " + method(origin));
                    out = outcome;
                } else {
                    out = methods.suspendOutcome(origin, receiver, arguments, outcome, callId, bridge);
                }
            } catch (Throwable e) {
                Ruling refusal = bridge.onInternalError("the result of " + method(origin), e);
                if (refusal != null) throw refusal.violation();
                failure = null;
                try {
                    failure = maker.failureOf(outcome);
                } catch (Throwable ignored) {
                    // passed on as it is
                }
                if (failure == null) return outcome;
                out = null;
            }
            if (failure != null) throw Continuations.rethrow(failure);
            if (out instanceof dev.tracegate.agent.bootstrap.TracegateViolation v) throw v;
            return out;
        }
    }

    /** The method returned: report the RETURN (of a call without an id); see {@link #onResult(String, Object[], Object, String, SupervisorBridge)}. */
    public Object onResult(String origin, Object[] arguments, Object result, SupervisorBridge bridge) {
        return onResult(origin, arguments, result, null, bridge);
    }

    /**
     * The method returned: report the RETURN of the call with {@code callId}; the notice that withholds it, or null (the
     * advice throws it for a result that is not text).
     */
    public Object onResult(String origin, Object[] arguments, Object result, String callId, SupervisorBridge bridge) {
        return onResult(origin, null, arguments, result, callId, bridge);
    }

    /** As above, of a call on {@code receiver} (null: a static method), which an entry's {@code this} reads. */
    public Object onResult(String origin, Object receiver, Object[] arguments, Object result, String callId, SupervisorBridge bridge) {
        return onResult(origin, receiver, arguments, result, callId, 0, bridge);
    }

    /** As above, for the call {@code tg-callNumber} ({@link #onCall(String, Object, Object[], long, SupervisorBridge)}). */
    public Object onResult(String origin, Object receiver, Object[] arguments, Object result, long callNumber, SupervisorBridge bridge) {
        return onResult(origin, receiver, arguments, result, null, callNumber, bridge);
    }

    private Object onResult(String origin, Object receiver, Object[] arguments, Object result, String callId, long callNumber,
                            SupervisorBridge bridge) {
        Object out = result(origin, receiver, arguments, result, callId, callNumber, bridge);
        if (out instanceof String && (result == null || result instanceof String)) {
            Site site = site(origin);
            // block-style: exception: the notice is thrown, never returned as the value a cache around the method would store
            if (site != null && site.rule.blockThrows) return new dev.tracegate.agent.bootstrap.TracegateViolation((String) out);
        } else if (out instanceof String notice && result instanceof Map && mapResults.contains(origin) && directMap(origin)) {
            // a Map tool's withheld value: the notice under "error", as its refusal (trial46 02), unless block-style: exception
            Site site = site(origin);
            if (site != null && !site.rule.blockThrows && !bridge.throwOnBlock()) return refusalMap(notice);
        }
        return out;
    }

    /** Whether the method at {@code origin} itself declares a {@link #MAP_TYPES} result (not a future or a Mono of one). */
    private static boolean directMap(String origin) {
        int paren = origin.lastIndexOf(')');
        return paren >= 0 && origin.startsWith("Ljava/util/", paren + 1) && MAP_TYPES.contains(origin.substring(paren + 2, origin.length() - 1).replace('/', '.'));
    }

    /**
     * A value that a future or a reactive pipeline of the method at {@code origin} delivers, checked as the method's RETURN
     * ({@link #onResult}): the value the host gets (the value, or the notice for a text value, or the {@link #refusalMap}
     * for a {@code Map} value of a method whose value type is one), or the {@code TracegateViolation} that withholds it
     * (returned, for the caller to fail its future or pipeline with).
     */
    private Object checkedValue(String origin, Object receiver, Object[] arguments, Object value, String callId, SupervisorBridge bridge) {
        Object out = onResult(origin, receiver, arguments, value, callId, bridge);
        if (out instanceof Throwable) return out;
        if (out instanceof String notice && !(value == null || value instanceof String)) {
            Site site = site(origin);
            if (value instanceof Map && mapResults.contains(origin) && site != null && !site.rule.blockThrows && !bridge.throwOnBlock()) {
                return refusalMap(notice);
            }
            return new dev.tracegate.agent.bootstrap.TracegateViolation(notice);
        }
        return out != null ? out : value;
    }

    private Object result(String origin, Object receiver, Object[] arguments, Object result, String callId, long callNumber,
                          SupervisorBridge bridge) {
        Site site = site(origin);
        if (site == null) {
            return null;
        }
        if (site.rule.kind == MethodRule.Kind.CONSENT) {
            // the grant onCall deferred (Ruling.AT_RETURN): the method returned normally, so the host stored the consent
            if (granted(site, arguments) && unusableSubject(site, arguments) == null) {
                bridge.supervisor().onConsent(consent(site, receiver, arguments, true, bridge, 0));
                AgentLog.debug("CONSENT at " + method(origin));
            }
            return null;
        }
        if (site.rule.kind != MethodRule.Kind.TOOL) {
            return null;
        }
        if (result instanceof java.util.concurrent.Future<?>) {
            if (site.futureResult && result instanceof java.util.concurrent.CompletableFuture<?> future) {
                return checkedWhenDone(origin, receiver, arguments, future, idText(callId, callNumber), bridge);
            }
            if (warned.add("future " + site.method)) {
                AgentLog.warn("configured method " + site.method + " returned a " + result.getClass().getName() + ", whose value the agent"
                        + " cannot wait for: its RETURN is recorded now as \"[not read: " + result.getClass().getName() + "]\", result"
                        + " contracts never see the value and a failure is no error RETURN. Declare the method's result as"
                        + " CompletableFuture (or CompletionStage, Future) and return a CompletableFuture, or configure the"
                        + " method that computes the value (see CONFIG.md, \"Configured methods\")");
            }
        }
        if (result != null && !(result instanceof String) && REACTIVE.get(result.getClass())) {
            Object followed = followed(origin, site, receiver, arguments, result, idText(callId, callNumber), bridge);
            if (followed != null) return followed;
        }
        if (result != null && !(result instanceof String) && REACTIVE.get(result.getClass())) {
            // a Flux, Flowable, Publisher (or a Mono a method's declared subclass cannot hold): its values come when it is
            // subscribed, after this RETURN; the RETURN says so instead of recording the pipeline's internals as the result
            // (trial46 03: a Single's callable and scheduler)
            String type = result.getClass().getName();
            int dot = site.method.lastIndexOf('.');
            String named = site.method.substring(0, dot) + "#" + site.method.substring(dot + 1);
            if (!warned.contains("reactive " + named) && warned.add("reactive return " + named)) {
                AgentLog.warn("configured method " + named + " (" + site.rule.where + ") returned a " + type + ", whose value comes"
                        + " when it is subscribed, after the call returned: its RETURN is recorded as \"[not read: " + type + "]\", and"
                        + " the value it emits is NOT supervised (no result contract and no gdpr.P4-erasure sees it). Configure the"
                        + " synchronous method that computes the value as a tool, or one returning a CompletableFuture (CONFIG.md,"
                        + " \"Configured methods\")");
            }
            return bridge.onToolResult(FRAMEWORK, site.session(receiver, arguments), site.toolOrMethod(receiver, arguments), idText(callId, callNumber), "\"[not read: " + type + "]\"", false);
        }
        // a text result is replaced by the notice; the advice withholds any other by throwing the notice instead
        boolean text = result == null || result instanceof String;
        ValueText.Written written = text ? null : bridge.written(result);
        // fail: closed withholds a result no contract could see whole; the RETURN is recorded with what could be read,
        // as withheld (open: as the contracts decide)
        Ruling refusal = written != null && written.cut() != null ? bridge.unreadValue(method(origin), "the result", written.cut()) : null;
        if (refusal == null) {
            String resultText = text ? (String) result : written.json();
            return callNumber > 0
                    ? bridge.onToolResult(FRAMEWORK, site.session(receiver, arguments), site.toolOrMethod(receiver, arguments), callNumber, resultText, false)
                    : bridge.onToolResult(FRAMEWORK, site.session(receiver, arguments), site.toolOrMethod(receiver, arguments), callId, resultText, false);
        }
        String notice = bridge.onWithheldToolResult(FRAMEWORK, site.session(receiver, arguments), site.toolOrMethod(receiver, arguments), idText(callId, callNumber), written.json(),
                "the result could not be read whole (" + written.cut() + "), so it was withheld (fail: closed). The host got: " + refusal.text);
        return notice != null ? notice : refusal.text;   // a contract that withholds it too: its notice
    }

    /**
     * The pipeline the host gets instead of a configured tool's Reactor {@code Mono} or RxJava 3 {@code Single} or
     * {@code Maybe} ({@link Reactive}): the same work, subscribed when the host subscribes, whose value is recorded as the
     * RETURN and checked ({@link #checkedValue}) before any subscriber sees it, as a {@code CompletableFuture}'s is; a
     * failure is an error RETURN and reaches the subscriber unchanged; an empty completion is a RETURN of null. Each
     * subscription runs the work again (a cold pipeline), so each is checked and recorded. Null when the result is no such
     * type, or the method's declared result could not hold the wrapped pipeline (a subclass of it): the RETURN is then
     * "[not read]" as for other reactive types.
     */
    private Object followed(String origin, Site site, Object receiver, Object[] arguments, Object source, String callId, SupervisorBridge bridge) {
        Reactive.Shape shape = Reactive.shape(source.getClass());
        if (shape == null || !holds(origin, shape.base())) return null;
        try {
            return Reactive.follow(source, new Reactive.Hooks() {
                @Override
                public Object value(Object value) {
                    Object out;
                    try {
                        out = checkedValue(origin, receiver, arguments, value, callId, bridge);
                    } catch (Throwable e) {
                        Ruling refusal = bridge.onInternalError("the result of " + method(origin), e);
                        if (refusal != null) throw refusal.violation();
                        return value;   // fail: open lets it through
                    }
                    if (out instanceof RuntimeException withheld) throw withheld;
                    return out;
                }

                @Override
                public void error(Throwable failure) {
                    try {
                        onThrown(origin, receiver, arguments, failure, callId, bridge);
                    } catch (Throwable e) {
                        bridge.onInternalError("the result of " + method(origin), e);   // the host's failure goes on unchanged
                    }
                }

                @Override
                public void empty() {
                    Object out;
                    try {
                        out = checkedValue(origin, receiver, arguments, null, callId, bridge);
                    } catch (Throwable e) {
                        Ruling refusal = bridge.onInternalError("the result of " + method(origin), e);
                        if (refusal != null) throw refusal.violation();
                        return;
                    }
                    // an empty completion has no value to replace: a withheld one fails the pipeline
                    if (out instanceof RuntimeException withheld) throw withheld;
                    if (out instanceof String notice) throw new dev.tracegate.agent.bootstrap.TracegateViolation(notice);
                }
            });
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            AgentLog.debug("cannot follow the " + source.getClass().getName() + " of " + method(origin) + ": " + e);
            return null;
        }
    }

    /** Whether the declared result of the method at {@code origin} can hold a pipeline of class {@code base}: it is base or a supertype. */
    private static boolean holds(String origin, Class<?> base) {
        int paren = origin.lastIndexOf(')');
        if (paren < 0 || origin.charAt(paren + 1) != 'L') return false;
        String declared = origin.substring(paren + 2, origin.length() - 1).replace('/', '.');
        java.util.ArrayDeque<Class<?>> todo = new java.util.ArrayDeque<>();
        todo.add(base);
        while (!todo.isEmpty()) {
            Class<?> c = todo.poll();
            if (c.getName().equals(declared)) return true;
            if (c.getSuperclass() != null) todo.add(c.getSuperclass());
            todo.addAll(Arrays.asList(c.getInterfaces()));
        }
        return false;
    }

    /**
     * The future the host gets instead of a configured tool's {@code CompletableFuture}: it completes when the method's
     * own does, after the RETURN is reported with the value (or, for a failed future, as an error RETURN with the
     * exception) and checked as a returned value is: a withheld text value becomes the notice, any other withheld value
     * fails the future with {@code TracegateViolation}. So result contracts see an async tool's value before any of the
     * host's dependants do (trial17: P4 never saw it). Cancelling the host's future cancels the method's.
     */
    private Object checkedWhenDone(String origin, Object receiver, Object[] arguments, java.util.concurrent.CompletableFuture<?> future, String callId,
                                   SupervisorBridge bridge) {
        java.util.concurrent.CompletableFuture<Object> checked = new java.util.concurrent.CompletableFuture<>();
        future.whenComplete((value, failure) -> {
            try {
                if (failure != null) {
                    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                    onThrown(origin, receiver, arguments, cause, callId, bridge);
                    checked.completeExceptionally(failure);
                    return;
                }
                Object out = checkedValue(origin, receiver, arguments, value, callId, bridge);
                if (out instanceof Throwable withheld) {
                    checked.completeExceptionally(withheld);
                } else {
                    checked.complete(out);
                }
            } catch (Throwable e) {
                // as the advice's own failure: fail: closed withholds the value, open lets it (or the host's failure) through
                Ruling refusal = bridge.onInternalError("the result of " + method(origin), e);
                if (refusal != null) checked.completeExceptionally(refusal.violation());
                else if (failure != null) checked.completeExceptionally(failure);
                else checked.complete(value);
            }
        });
        checked.whenComplete((value, failure) -> {
            if (failure instanceof java.util.concurrent.CancellationException) future.cancel(true);
        });
        return checked;
    }

    /**
     * A configured tool method threw: its RETURN is reported with {@code error} set and the exception's
     * class and message as the result text (not {@code toString()}, which a host may override).
     */
    public void onThrown(String origin, Object[] arguments, Throwable thrown, SupervisorBridge bridge) {
        onThrown(origin, arguments, thrown, null, bridge);
    }

    /** As {@link #onThrown(String, Object[], Throwable, SupervisorBridge)}, for the call with {@code callId}. */
    public void onThrown(String origin, Object[] arguments, Throwable thrown, String callId, SupervisorBridge bridge) {
        onThrown(origin, null, arguments, thrown, callId, bridge);
    }

    /** As above, of a call on {@code receiver} (null: a static method). */
    public void onThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, String callId, SupervisorBridge bridge) {
        Site site = site(origin);
        if (site == null || site.rule.kind != MethodRule.Kind.TOOL) {
            if (site != null && site.rule.kind == MethodRule.Kind.CONSENT && granted(site, arguments)) {
                AgentLog.debug("no CONSENT at " + method(origin) + ": the method threw " + thrown.getClass().getName());
            }
            return;
        }
        String message = thrown.getMessage();
        String text = message == null ? thrown.getClass().getName() : thrown.getClass().getName() + ": " + message;
        bridge.onToolThrown(FRAMEWORK, site.session(receiver, arguments), site.toolOrMethod(receiver, arguments), callId, text);
    }

    /**
     * For the ERROR of arguments (all parameters by name) that could not be read whole: which parameter's value was cut, and
     * the fix: {@code exclude-params} when it is no tool data (a framework's context object, which holds a cycle through its
     * services: trial46 01), else {@code args-param}. Each parameter is written again on its own: the failure path only.
     * {@code names} and {@code values} are the arguments; {@code kept} maps them to the method's parameters (exclusions), else
     * {@code skip} is the session parameter left out (or -1).
     */
    private static String cutParameter(Site site, String[] names, Object[] values, int[] kept, int skip, SupervisorBridge bridge) {
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            if (value == null) continue;
            ValueText.Written one;
            try {
                one = bridge.written(value);
            } catch (RuntimeException e) {
                continue;
            }
            if (one.cut() == null) continue;
            int parameter = kept != null ? kept[i] : skip >= 0 && i >= skip ? i + 1 : i;
            String name = names[i];
            boolean yaml = site.rule.where != null && site.rule.where.matches(".*:\\d+:\\d+");
            String fix = yaml ? "exclude-params: [" + name + "]" : "exclude=" + name;
            return ", in parameter " + parameter + " (" + name + ", a " + value.getClass().getName() + "). If " + name + " is no tool data"
                    + " (a framework's context, a callback, a stream), add " + fix + " to the configured-methods entry " + site.rule.where
                    + ": it is then left out of the arguments (a session-param field path still reads it); else name the parameter"
                    + " that holds the tool's data with args-param (CONFIG.md, \"Configured methods\")";
        }
        return "";
    }

    private static ValueText.Written argumentsJson(String argsField, String[] names, Object[] arguments, SupervisorBridge bridge) {
        if (argsField.equals("*")) {
            Map<String, Object> all = new LinkedHashMap<>();
            for (int i = 0; i < arguments.length; i++) {
                all.put(names[i], arguments[i]);
            }
            return bridge.written(all);
        }
        return valueJson(read(argsField, arguments, null), bridge);
    }

    /** The arguments an {@code args-param} value gives: JSON object text, a Map's keys, an object's fields; else {"value":...}. */
    private static ValueText.Written valueJson(Object value, SupervisorBridge bridge) {
        if (value instanceof String && ((String) value).strip().startsWith("{")) {
            return new ValueText.Written((String) value, null);
        }
        if (value instanceof Map) return bridge.written(value);
        if (value != null && !(value instanceof CharSequence) && !(value instanceof Number) && !(value instanceof Boolean)
                && !(value instanceof Character) && !(value instanceof Enum<?>) && !value.getClass().isArray()
                && (!(value instanceof Iterable<?>) || ValueText.jsonTree(value))) {
            // a record, a bean, or a library's JSON object (Jackson's ObjectNode, Gson's JsonObject, the Anthropic SDK's
            // JsonValue: written as its JSON, trial46 05), whose fields are the arguments
            // a record or bean (any object the writer writes as a JSON object): its fields are the arguments, as a Map's keys
            // are (trial30 02: they were under "value", so arg(transfer, amount) found nothing and every transfer was refused)
            ValueText.Written written = bridge.written(value);
            if (written.json().startsWith("{")) return written;
        }
        // a value that is no JSON object (plain text, a number, a list, a date): the one argument "value"
        return bridge.written(Collections.singletonMap("value", value));
    }

    private static Object[] rewrite(String argsField, String[] names, Object[] arguments, String json, SupervisorBridge bridge,
                                    java.util.function.Predicate<String> removable) {
        Object parsed = bridge.fromJson(json);
        if (!(parsed instanceof Map)) {
            return null;
        }
        Map<?, ?> map = (Map<?, ?>) parsed;
        Object[] copy = arguments.clone();
        if (argsField.equals("*")) {
            for (int i = 0; i < copy.length; i++) {
                Object replacement = map.get(names[i]);
                if (copy[i] == null || copy[i] instanceof String || copy[i] instanceof Map) {
                    copy[i] = replacement instanceof String || replacement instanceof Map || replacement == null ? replacement : copy[i];
                } else if (!map.containsKey(names[i])) {
                    if (!removable.test(names[i])) return null;   // a primitive: the supervisor asked CallReach first, so not reached
                    copy[i] = absent(copy[i]);   // a removed parameter of a reference type (a boxed number, an object; an Optional empty)
                }
            }
            return copy;
        }
        int index = index(argsField);
        if (index < 0 || index >= copy.length) {
            return null;
        }
        if (copy[index] instanceof String) {
            copy[index] = json;
        } else if (copy[index] instanceof Map) {
            copy[index] = rewritten((Map<?, ?>) copy[index], map, bridge);
        } else {
            return null;
        }
        return copy;
    }

    /**
     * What a removed parameter of a reference type is passed as: an {@code Optional} (and its int, long and double
     * kinds) as its empty value, which is how Java says "absent" (a null made the host's {@code memo.orElse(..)} throw,
     * trial17); any other value as null.
     */
    static Object absent(Object removed) {
        if (removed instanceof java.util.Optional<?>) return java.util.Optional.empty();
        if (removed instanceof java.util.OptionalInt) return java.util.OptionalInt.empty();
        if (removed instanceof java.util.OptionalLong) return java.util.OptionalLong.empty();
        if (removed instanceof java.util.OptionalDouble) return java.util.OptionalDouble.empty();
        return null;
    }

    /** The array with {@code value} put back at {@code at} (the inverse of {@link JsonText#without}). */
    private static Object[] with(Object[] some, int at, Object value) {
        Object[] out = new Object[some.length + 1];
        System.arraycopy(some, 0, out, 0, at);
        out[at] = value;
        System.arraycopy(some, at, out, at + 1, some.length - at);
        return out;
    }

    /**
     * The host's argument map after a redaction: the keys the redaction left, in the host's order; a value that is JSON
     * already (text, a map, a list, null) as rewritten, a map inside it by the same rule; any other value (a number, a
     * date, the host's own object) as the host passed it when the redaction left it alone, and gone when a part of it
     * was removed, since the host's object cannot be rebuilt without that part. So the tool never gets a parsed copy
     * (a Double for its BigDecimal, a map for its object) of a value nothing was removed from.
     */
    private static Map<Object, Object> rewritten(Map<?, ?> host, Map<?, ?> redacted, SupervisorBridge bridge) {
        Map<Object, Object> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<?, ?> e : host.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!redacted.containsKey(key)) continue;
            Object was = e.getValue();
            Object now = redacted.get(key);
            if (was instanceof Map && now instanceof Map) {
                out.put(e.getKey(), rewritten((Map<?, ?>) was, (Map<?, ?>) now, bridge));
            } else if (was == null || was instanceof String || was instanceof List) {
                out.put(e.getKey(), now);
            } else if (java.util.Objects.equals(bridge.fromJson(bridge.toJson(was)), now)) {   // read back as the redaction was
                out.put(e.getKey(), was);
            }
        }
        return out;
    }

    private static Object read(String spec, Object[] arguments, Object fallback) {
        if (spec == null) {
            return fallback;
        }
        int index = index(spec);
        if (index >= 0 && index < arguments.length) {
            return arguments[index];
        }
        return spec;
    }

    private static int index(String spec) {
        if (spec.isEmpty() || spec.length() > 3) {
            return -1;
        }
        for (int i = 0; i < spec.length(); i++) {
            if (!Character.isDigit(spec.charAt(i))) {
                return -1;
            }
        }
        return Integer.parseInt(spec);
    }

    /**
     * The conversation a consent or erasure belongs to: its {@code session-param}'s ("default" for a null value, as a
     * tool call's). Without one (agent/CONFIG.md's own examples), the conversation the thread is in: the one a framework's
     * invocation further up the stack names (an AI service, a chat client), else that of the MCP server tool call whose
     * handler runs on this thread (McpHooks), else that of the configured tool call running
     * on this thread (the tool called the method; not after a suspend tool's resume, Dispatcher#forgetCallSession), never
     * the thread's between calls (a coroutine dispatcher's or a pool's thread runs several conversations' work in turn:
     * c2's erasure went to c1, trial33 06), else a session named
     * {@code default} if one is open (a framework's conversation without an id). Otherwise null: the event belongs to no
     * conversation. It then reaches only the GDPR register (scope: global), no session's trace, so no {@code default}
     * session is made that its end would judge for obligations no conversation had (trial21 07 and 11); a WARN says so
     * once per method when a contract reads {@code erasure} or {@code consent} as a session's event. {@code ownLevels}:
     * the nesting levels the method's own advice holds now (1 during the call, 0 at its return).
     */
    private String conversationOf(Site site, Object receiver, Object[] arguments, SupervisorBridge bridge, int ownLevels) {
        // every id below is the application's own (a memory id, a session-param value); the supervisor's are
        // Applications.session of it, as for the tool calls of that application (trial35, review18 of 8d66249)
        String spec = site.spec("session");
        if (spec != null) {
            // a parameter (a field path in it too) or a literal; a null value: "default"
            return Applications.session(site.session(receiver, arguments));
        }
        String session = Dispatcher.session(null);
        if (session == null) {
            // an MCP server tool handler running on this thread: that tool call's conversation (trial26 01)
            session = Dispatcher.handlerSession();
        }
        if (session == null && Dispatcher.depthCell()[0] > ownLevels) {
            // a configured tool call running further up this thread's stack: the method's own advice counts one level
            // while it runs ({@code ownLevels} 1), none once its exit put the nesting back (a grant reported at return).
            // Between calls, none: the thread says nothing about whose coroutine or pooled task runs on it now (trial33 06)
            session = Dispatcher.callSession();
        }
        if (session == null && bridge.supervisor().sessionOpen(Applications.session("default"))) session = "default";
        if (session == null) noSession(site, bridge);
        return Applications.session(session);
    }

    /** The methods whose consent or erasure found no conversation and that were warned about (once each). */
    private final java.util.Set<String> noSessionWarned = ConcurrentHashMap.newKeySet();

    private void noSession(Site site, SupervisorBridge bridge) {
        boolean erasure = site.rule.kind == MethodRule.Kind.ERASURE;
        if (noSessionWarned.contains(site.method)) return;
        List<String> readers = bridge.supervisor().sessionEventReaders(erasure);
        if (readers.isEmpty() || !noSessionWarned.add(site.method)) return;
        String what = erasure ? "erasure" : "consent";
        AgentLog.warn("configured " + what + " method " + site.method + " (" + site.rule.where + ") has no session-param, and"
                + " this call belongs to no conversation the agent can tell (no supervised call of one is running on its thread:"
                + " between calls a thread says nothing about the conversation, since a coroutine dispatcher's or a pool's thread runs"
                + " several conversations' work in turn; an MCP async server's tool handler counts only"
                + " on its subscribing thread and Reactor's schedulers): its " + what + " reaches the GDPR"
                + " register (scope: global) but no session's trace, so " + String.join(", ", readers) + (readers.size() == 1 ? " reads" : " read")
                + " `" + what + "` as an event of the session and never " + (readers.size() == 1 ? "sees" : "see") + " it. Add session-param (the parameter holding the"
                + " conversation id) to the entry, or write the contract over the register (" + (erasure ? "mentions_erased" : "consent(p)")
                + "; docs/FORMULAS.md, Patterns)");
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    /** Whether a consent method's call grants (its {@code granted} parameter or literal; true by default). */
    private static boolean granted(Site site, Object[] arguments) {
        Object granted = read(site.spec("granted"), arguments, "true");
        return granted instanceof Boolean ? (Boolean) granted : Boolean.parseBoolean(text(granted));
    }

    private Consent consent(Site site, Object receiver, Object[] arguments, boolean granted, SupervisorBridge bridge, int ownLevels) {
        return new Consent(conversationOf(site, receiver, arguments, bridge, ownLevels),
                subjectText(read(site.spec("subject"), arguments, null)), purposes(read(site.spec("purpose"), arguments, null)), granted);
    }

    /**
     * The data subject a consent or erasure names: text as it is, a number or a JDK value (a UUID) as its text, an enum
     * as its name. Other values are dropped before ({@link #unusableSubject}).
     */
    static String subjectText(Object value) {
        if (value instanceof Enum<?>) return ((Enum<?>) value).name();
        return value == null ? null : value.toString();
    }

    /**
     * Why the subject a consent or erasure method's call names cannot be used, or null: a null or blank value (from a
     * parameter: a host's null made a consent of the whole session, so for every subject, trial17), or an object of the
     * application's (its toString() names no one: an erasure that erased nobody).
     */
    private static String unusableSubject(Site site, Object[] arguments) {
        String spec = site.spec("subject");
        int index = spec == null ? -1 : index(spec);
        if (index < 0 || index >= arguments.length) return null;   // a literal
        Object value = arguments[index];
        String where = "subject-param " + index;
        if (value == null) return where + " was null";
        if (value instanceof CharSequence) return value.toString().isBlank() ? where + " was blank" : null;
        if (value instanceof Number || value instanceof Enum<?> || value instanceof Character || value instanceof java.util.UUID) return null;
        return where + " is a " + value.getClass().getName() + ", not text, and its toString() names no one the contracts know:"
                + " name a parameter that holds the subject's id as text (e.g. the e-mail address), or configure a method that takes it";
    }

    /** class#method and problem of each consent or erasure already logged as dropped (logged once, then only dropped). */
    private final java.util.Set<String> dropsLogged = ConcurrentHashMap.newKeySet();

    /**
     * A consent or erasure whose subject cannot be used: no event (a consent for no one would count for the whole
     * session; an erasure of an object's toString() erases no one). The method runs all the same: refusing it would
     * only keep the host from doing what it does (a person's erasure). An ERROR line names the method, once per
     * method and problem.
     */
    private Ruling dropEvent(String origin, Site site, Object[] arguments, String why) {
        MethodRule rule = site.rule;
        String what = rule.kind == MethodRule.Kind.ERASURE ? "erasure" : granted(site, arguments) ? "consent" : "withdrawal of consent";
        String m = method(origin);
        int dot = m.lastIndexOf('.');
        String name = dot < 0 ? m : m.substring(0, dot) + "#" + m.substring(dot + 1);
        int cut = why.indexOf(',');
        if (dropsLogged.size() < 256 && dropsLogged.add(name + " " + (cut < 0 ? why : why.substring(0, cut)))) {
            AgentLog.error("configured " + rule.kind.name().toLowerCase(Locale.ROOT) + " method " + name + " (" + rule.where + "): " + why
                    + "; no " + what + " was recorded for this call (further calls with this problem are not logged)", null);
        }
        return null;
    }

    /**
     * The purposes a consent method's purpose parameter gives: one per element of a collection or an array (as a consent
     * tool's list and a trace's {@code purposes} array give them), else the value's text (null for none).
     */
    static List<String> purposes(Object value) {
        if (value instanceof Iterable<?> || value instanceof Object[]) {
            List<String> out = new ArrayList<>();
            for (Object p : value instanceof Object[] ? Arrays.asList((Object[]) value) : (Iterable<?>) value) {
                if (p != null) out.add(purposeText(p));
            }
            return out;
        }
        return Collections.singletonList(value == null ? null : purposeText(value));
    }

    /** A purpose as text: an enum constant by its name ({@code MARKETING} counts as {@code marketing}), never its toString(). */
    private static String purposeText(Object value) {
        return value instanceof Enum<?> ? ((Enum<?>) value).name() : value.toString();
    }
}
