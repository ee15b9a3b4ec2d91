package dev.tracegate.agent.bootstrap;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a message that tracegate replaces (a blocked answer's notice, a redacted or refused user message, a checked
 * {@code returnDirect} result) keeps of the original's metadata: everything that identifies or classifies it (a message
 * id, the role and message type, the index and finish reason, the application's own keys, a conversation id), but not
 * what carries the replaced text or what the model said about it, which would be wrong now or show what was withheld:
 * the keys in {@link #CONTENT_KEYS} (compared case-insensitively and without {@code _} and {@code -}, so LangChain4j's
 * {@code thinking_signature} and {@code redacted_thinking} are among them: a provider's copy of its reasoning, a refusal, the
 * annotations and citations of spans of the old text, log probabilities of its tokens) and any text value that contains
 * a replaced text whole. JDK types only: the frameworks' advice calls it from their own class loaders.
 */
public final class ReplacedMessage {
    private ReplacedMessage() {}

    /**
     * Metadata keys (lower case, no {@code _} or {@code -}) whose value is the replaced text, or said about it, in the
     * frameworks' providers ({@code thinkingsignature}: LangChain4j's Anthropic and Gemini signature of the thinking,
     * which a provider refuses without the thinking it signs).
     */
    public static final Set<String> CONTENT_KEYS = Set.of("reasoningcontent", "reasoning", "thinking", "redactedthinking",
            "signature", "thinkingsignature", "refusal", "annotations", "citations", "logprobs");

    /**
     * A new map of {@code original}'s entries less the content ones (see the class); null keys and values are left out,
     * as the frameworks' message builders refuse them. {@code replaced}: the texts the replacement stands for.
     */
    public static Map<String, Object> metadata(Map<String, Object> original, List<String> replaced) {
        Map<String, Object> kept = new LinkedHashMap<String, Object>();
        if (original == null) {
            return kept;
        }
        for (Map.Entry<String, Object> e : original.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            if (key == null || value == null || CONTENT_KEYS.contains(key.toLowerCase(Locale.ROOT).replace("_", "").replace("-", ""))) {
                continue;
            }
            if (value instanceof CharSequence && holdsAny(value.toString(), replaced)) {
                continue;   // a copy of the replaced text, under a key of its own
            }
            kept.put(key, value);
        }
        return kept;
    }

    /** As {@link #metadata(Map, List)} for one replaced text. */
    public static Map<String, Object> metadata(Map<String, Object> original, String replaced) {
        return metadata(original, replaced == null ? List.<String>of() : List.of(replaced));
    }

    private static boolean holdsAny(String value, List<String> replaced) {
        if (replaced == null) {
            return false;
        }
        for (String text : replaced) {
            if (text != null && !text.isEmpty() && value.contains(text)) {
                return true;
            }
        }
        return false;
    }
}
