package dev.tracegate.agent.bootstrap;

import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one-shot marks by which an MCP server in this JVM recognises a tool call that this JVM's own MCP client has just
 * supervised, so that the call is not supervised twice (trial41 01).
 *
 * <p>The client's call advice {@linkplain #issue issues} a mark for each supervised call: 128 random bits from a
 * {@link SecureRandom}, remembered here with the tool and the arguments the request carries, and sent in the request's
 * {@code _meta}. The server's call advice {@linkplain #take takes} it: only a mark that is live (issued, not yet taken,
 * its client call not yet over) and whose tool and arguments are those of the request it arrives with spares the call;
 * a mark is taken once. The client's call {@linkplain #expiry ends} the mark when it completes, fails or is cancelled.
 *
 * <p>So nothing a remote peer sends can switch supervision off: a made-up mark is not live, a mark seen before (in a
 * log, replayed by the server the client called) has been taken or has ended, and a server that receives a live mark
 * while the client waits for its answer can spend it only on the very call (same tool, same arguments) that this JVM's
 * client has already supervised, once. JDK types only: the advice is inlined into the SDK's classes.
 */
public final class McpMarks {

    /** A mark the server took: kept until the client's call ends, so the handler advice can tell a spared call. */
    private static final String TAKEN = "\u0000taken";

    /** Marks live or taken: value = the tool and arguments they were issued for, or {@link #TAKEN}. */
    private static final ConcurrentHashMap<String, String> MARKS = new ConcurrentHashMap<>();

    /**
     * More marks than this at once (client calls whose {@code Mono} is never subscribed, so never ends): no new one is
     * issued, and a server in this JVM then supervises such calls a second time rather than the map growing.
     */
    static final int LIMIT = 100_000;

    private static final SecureRandom RANDOM = new SecureRandom();

    private McpMarks() {
    }

    /** A new live mark for a client call of {@code tool} with {@code arguments} (JSON), or null when too many are live. */
    public static String issue(String tool, String arguments) {
        if (MARKS.size() >= LIMIT) {
            return null;
        }
        byte[] bits = new byte[16];
        RANDOM.nextBytes(bits);
        StringBuilder mark = new StringBuilder(32);
        for (byte b : bits) {
            mark.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        }
        String m = mark.toString();
        MARKS.put(m, key(tool, arguments));
        return m;
    }

    /**
     * Whether {@code mark} (the request's {@code _meta} value, any type) is live and was issued for {@code tool} with
     * {@code arguments}; if so it is taken, and no later request can use it.
     */
    public static boolean take(Object mark, String tool, String arguments) {
        if (!(mark instanceof String)) {
            return false;
        }
        return MARKS.replace((String) mark, key(tool, arguments), TAKEN);
    }

    /** Whether a server's call advice took {@code mark} (a call it spared) and the client call has not ended yet. */
    public static boolean taken(Object mark) {
        return mark instanceof String && TAKEN.equals(MARKS.get(mark));
    }

    /** Ends {@code mark}, live or taken: run when the client's call completes, fails or is cancelled. */
    public static java.util.function.Consumer<Object> expiry(String mark) {
        return signal -> MARKS.remove(mark);
    }

    /** How many marks are live or taken now (tests, diagnostics). */
    public static int outstanding() {
        return MARKS.size();
    }

    private static String key(String tool, String arguments) {
        return tool + '\u0000' + arguments;
    }
}
