package dev.tracegate.agent.supervision;

import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.ConfiguredMethod;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.matchers.event.ToolName;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Redirect contracts that the loaded configuration can only block: a configured method's advice can run or refuse the
 * method it sits on, never run another tool in its place, so a {@code redirect} contract whose calls only configured
 * methods see blocks them every time (agent/CONFIG.md, configured methods). Before, nothing said so beforehand: the
 * first sign was a {@code block} record where a redirect was written. Said at start, one WARN per contract, and after
 * each hot reload that puts a new version in force, once per contract of that version.
 *
 * <p>What the start can know: which instrumentations are on, the configured tool methods and the tool names they give
 * (a literal {@code tool-name}, or the method's own name, a glob included), and the tools a contract names (the tool
 * argument of {@code call(T)}, {@code arg(T, f)}, {@code count(T)} and the other forms that name a CALL's tool). Not
 * what the application registers with its frameworks (that happens later, in its own code): so a contract is named
 * when no framework instrumentation is on, or when every tool it names is a configured method's literal tool. A
 * contract that names no tool (only {@code side_effect}, {@code category(c)}, ...) is named only in the first case; a
 * dispatcher ({@code tool-name} a parameter) gives no tool name at start and counts for none. {@code check} of the agent
 * configuration file notes the same lines.
 */
public final class RedirectReach {
    private RedirectReach() {}

    /** The instrumentations of frameworks, which can run a redirect's target from their tool tables. */
    private static final List<String> FRAMEWORKS = List.of("langchain4j", "springai", "mcp-server", "mcp-client");

    /** The atom forms whose first argument is the tool of a CALL, with the arity of that form. */
    private static final Map<String, Integer> TOOL_FIRST = Map.ofEntries(
            Map.entry("call", -1),   // call(T) and call(T, "re")
            Map.entry("arg", 2), Map.entry("arg_matches", 3), Map.entry("arg_in", 3), Map.entry("path_within", 3),
            Map.entry("arg_eq_ctx", 3), Map.entry("flow", 2), Map.entry("untrusted", 2), Map.entry("count", 1),
            Map.entry("run", 1), Map.entry("sum", 2));

    /** One WARN line per redirect contract of {@code lib} whose calls this configuration can only block. */
    public static List<String> onlyBlocked(Library lib, AgentConfig config, Map<String, String> redirect) {
        List<String> lines = new ArrayList<>();
        if (!config.instrumentationEnabled("configured")) return lines;
        List<ConfiguredMethod> tools = new ArrayList<>();
        for (ConfiguredMethod m : config.configuredMethods()) if (m.kind() == ConfiguredMethod.Kind.TOOL) tools.add(m);
        if (tools.isEmpty()) return lines;
        boolean framework = false;
        for (String f : FRAMEWORKS) framework |= config.instrumentationEnabled(f);
        Map<String, Library.ContractInfo> info = new LinkedHashMap<>();
        for (Library.ContractInfo ci : lib.info()) info.put(ci.id(), ci);
        for (Contract c : lib.contracts().contracts()) {
            if (!"redirect".equals(c.strategy())) continue;
            Library.ContractInfo ci = info.get(c.id());
            if (ci == null) continue;
            Set<String> named = toolsNamed(c);
            String why;
            if (!framework) {
                why = "no framework instrumentation is on (instrumentations " + String.join(", ", FRAMEWORKS) + " are disabled),"
                        + " so only configured methods see its calls";
            } else {
                if (named.isEmpty()) continue;
                List<String> methods = new ArrayList<>();
                for (String tool : named) {
                    ConfiguredMethod m = configuredTool(tools, tool);
                    if (m == null) {
                        methods = null;
                        break;
                    }
                    String where = m.className() + "#" + m.method() + (m.where() == null ? "" : " at " + m.where());
                    if (!methods.contains(where)) methods.add(where);
                }
                if (methods == null) continue;
                why = "every tool it names (" + String.join(", ", named) + ") is a configured method (" + String.join("; ", methods)
                        + "), and the framework instrumentations see only the tools the application registers with them";
            }
            String target = ContractSupervisor.redirectTarget(redirect, ci, named.isEmpty() ? null : named.iterator().next());
            String at = ci.file() == null ? "" : " (" + ci.file() + (ci.line() > 0 ? ":" + ci.line() : "") + ")";
            lines.add("contract " + c.id() + at + " redirects to " + (target == null ? "its redirect-to" : target)
                    + ", but its calls will be blocked, not redirected: " + why + ", and a configured method can only run or"
                    + " refuse the method it sits on, never run another tool in its place. Each such call is a block record"
                    + " whose reason says it could not be redirected. Where only configured methods see the call, write"
                    + " strategy: block with a next that names the safe tool instead");
        }
        return lines;
    }

    /** The folded tool names {@code c}'s formulas name as a CALL's tool, in order of first occurrence. */
    static Set<String> toolsNamed(Contract c) {
        Set<String> out = new LinkedHashSet<>();
        for (Formula f : new Formula[] {c.assume(), c.guarantee()}) {
            if (f == null) continue;
            for (Atom a : Formulas.atoms(f)) collect(a.name(), a.args(), out);
        }
        return out;
    }

    private static void collect(String name, List<Term> args, Set<String> out) {
        Integer arity = TOOL_FIRST.get(name);
        if (arity != null && !args.isEmpty() && (arity < 0 || arity == args.size())) {
            Term t = args.get(0);
            if (t instanceof Term.Name n) out.add(ToolName.fold(n.value()));
            else if (t instanceof Term.Str s) out.add(ToolName.fold(s.value()));
        }
        for (Term t : args) if (t instanceof Term.Call call) collect(call.name(), call.args(), out);   // since(call(T)), len(arg(T, f))
    }

    /** The configured tool method that gives the tool {@code folded}, by a literal tool-name or its own (glob) name; else null. */
    private static ConfiguredMethod configuredTool(List<ConfiguredMethod> tools, String folded) {
        for (ConfiguredMethod m : tools) {
            String t = m.toolName();
            if (t == null || t.equals("$method")) {
                if (glob(m.method().toLowerCase(Locale.ROOT), folded)) return m;
            } else if (t.equals("$class")) {
                String c = m.className();
                String simple = c.substring(Math.max(c.lastIndexOf('.'), c.lastIndexOf('$')) + 1);
                if (glob(simple.toLowerCase(Locale.ROOT), folded)) return m;
            } else if (!t.chars().allMatch(Character::isDigit) && !t.equals("this") && !t.startsWith("this.")
                    && !(t.indexOf('.') > 0 && t.substring(0, t.indexOf('.')).chars().allMatch(Character::isDigit))
                    && ToolName.fold(t).equals(folded)) {   // a path (0.name, this.name) gives no tool name at start
                return m;
            }
        }
        return null;
    }

    private static boolean glob(String pattern, String s) {
        List<String> parts = new ArrayList<>();
        for (String part : pattern.split("\\*", -1)) parts.add(java.util.regex.Pattern.quote(part));
        return s.matches(String.join(".*", parts));
    }
}
