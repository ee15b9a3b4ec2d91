package dev.tracegate.agent.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.agent.core.AgentArguments;
import dev.tracegate.agent.core.JsonCodec;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.Supervisor;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A fixed-rule supervisor for tests and demos, NOT the contract engine: it acts on tool names and
 * words given as agent options, so that every enforcement path can be exercised end to end.
 *
 * <p>Options (lists separated by ';'): {@code block=toolA;toolB}, {@code redirect=from:to},
 * {@code suppress=tool} (withhold its result), {@code suppressUser=word} (withhold user messages
 * containing it), {@code redact=field;field} (drop these argument fields before any tool runs),
 * {@code blockOutput=word} (block model output containing it), {@code failOn=tool} (throw an internal
 * error when it is called: exercises the failure policy). Stateless, hence thread-safe.
 */
public final class RuleSupervisor implements Supervisor {

    private final Set<String> blocked;
    private final Map<String, String> redirects;
    private final Set<String> suppressed;
    private final Set<String> userWords;
    private final Set<String> redactedFields;
    private final Set<String> outputWords;
    private final Set<String> failing;
    private final JsonCodec json;

    public RuleSupervisor(AgentArguments options, JsonCodec json) {
        this.blocked = names(options.get("block"));
        this.suppressed = names(options.get("suppress"));
        this.userWords = words(options.get("suppressUser"));
        this.redactedFields = words(options.get("redact"));
        this.outputWords = words(options.get("blockOutput"));
        this.failing = names(options.get("failOn"));
        this.redirects = new HashMap<>();
        for (String pair : list(options.get("redirect"))) {
            int colon = pair.indexOf(':');
            if (colon <= 0 || colon == pair.length() - 1) {
                throw new IllegalArgumentException("tracegate: option redirect=" + options.get("redirect")
                        + " has '" + pair + "', expected from:to, e.g. redirect=sendEmail:draftEmail");
            }
            redirects.put(fold(pair.substring(0, colon)), pair.substring(colon + 1).trim());
        }
        this.json = json;
        if (supervisesNothing()) {
            // what a user gets who forgot `libraries`: say it once, or they believe they are protected
            AgentLog.warn("no contract libraries configured: nothing is supervised. Name them with"
                    + " libraries: [gdpr, injection, my-policy.yaml] (see agent/CONFIG.md)");
        }
    }

    /** Whether no rule is given, so that every event passes unchanged. */
    public boolean supervisesNothing() {
        return blocked.isEmpty() && suppressed.isEmpty() && userWords.isEmpty() && redactedFields.isEmpty()
                && outputWords.isEmpty() && failing.isEmpty() && redirects.isEmpty();
    }

    @Override
    public ToolDecision onToolCall(ToolCall call) {
        String tool = fold(call.tool());
        if (failing.contains(tool)) {
            throw new IllegalStateException("rule supervisor told to fail on " + call.tool() + " (failOn)");
        }
        if (blocked.contains(tool)) {
            return ToolDecision.block("rule.block", "tool " + call.tool() + " is blocked by the configured rules",
                    "answer without calling " + call.tool());
        }
        String target = redirects.get(tool);
        if (target != null) {
            return ToolDecision.redirect("rule.redirect", "calls of " + call.tool() + " go to " + target, target, call.argumentsJson());
        }
        if (!redactedFields.isEmpty()) {
            String redacted = redact(call.argumentsJson());
            if (redacted != null) {
                return ToolDecision.redact("rule.redact", "fields " + redactedFields + " are not needed for this purpose", redacted);
            }
        }
        return ToolDecision.proceed();
    }

    @Override
    public ResultDecision onToolResult(ToolResult result) {
        if (suppressed.contains(fold(result.tool()))) {
            return ResultDecision.suppress("rule.suppress", "[withheld by tracegate: the result of " + result.tool()
                    + " breaks an assumption of contract rule.suppress]");
        }
        return ResultDecision.keep();
    }

    @Override
    public MessageDecision onUserMessage(Message message) {
        if (containsAny(message.text(), userWords)) {
            return MessageDecision.replace("rule.suppressUser", "[withheld by tracegate: this user message breaks an assumption of contract rule.suppressUser]");
        }
        return MessageDecision.keep();
    }

    @Override
    public MessageDecision onAssistantMessage(Message message) {
        if (containsAny(message.text(), outputWords)) {
            return MessageDecision.block("rule.blockOutput", "tracegate blocked model output (contract rule.blockOutput): it contains a forbidden word");
        }
        return MessageDecision.keep();
    }

    /** No session ends here (the rules keep no history), so any conversation a call named is open. */
    @Override
    public boolean sessionOpen(String sessionId) {
        return true;
    }

    @Override
    public void onConsent(Consent consent) {
        AgentLog.info("CONSENT session=" + (consent.session() == null ? "(none)" : AgentLog.field(consent.session())) + " subject=" + AgentLog.field(consent.subject()) + " purpose=" + String.join(",", consent.purposes())
                + " granted=" + consent.granted());
    }

    @Override
    public void onErasure(Erasure erasure) {
        AgentLog.info("ERASURE session=" + (erasure.session() == null ? "(none)" : AgentLog.field(erasure.session())) + " subject=" + AgentLog.field(erasure.subject()));
    }

    @Override
    public void endSession(String sessionId) {
    }

    /** The arguments without the redacted fields (at any depth), or null if none was present. */
    private String redact(String argumentsJson) {
        JsonNode root;
        try {
            root = json.mapper().readTree(argumentsJson);
        } catch (Exception e) {
            return null;
        }
        return strip(root) ? root.toString() : null;
    }

    private boolean strip(JsonNode node) {
        boolean changed = false;
        if (node instanceof ObjectNode) {
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (redactedFields.contains(fold(field.getKey()))) {
                    fields.remove();
                    changed = true;
                } else {
                    changed |= strip(field.getValue());
                }
            }
        } else if (node != null && node.isArray()) {
            for (JsonNode element : node) {
                changed |= strip(element);
            }
        }
        return changed;
    }

    private static boolean containsAny(String text, Set<String> words) {
        if (text == null || words.isEmpty()) {
            return false;
        }
        String folded = fold(text);
        for (String word : words) {
            if (folded.contains(word)) {
                return true;
            }
        }
        return false;
    }

    private static Set<String> names(String value) {
        return words(value);
    }

    private static Set<String> words(String value) {
        Set<String> set = new HashSet<>();
        for (String item : list(value)) {
            set.add(fold(item));
        }
        return set;
    }

    private static Iterable<String> list(String value) {
        if (value == null || value.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(value.split(";")).map(String::trim).filter(s -> !s.isEmpty())::iterator;
    }

    private static String fold(String s) {
        return s.trim().toLowerCase(Locale.ROOT);
    }
}
