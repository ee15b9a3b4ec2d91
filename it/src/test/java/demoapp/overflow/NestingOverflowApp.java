package demoapp.overflow;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolService;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * A host that overflows its stack through a framework's tool path, catches the StackOverflowError as hosts do, and
 * then calls a tool named {@code forbidden} on the same thread, 60 times from 60 different stack depths (so that the
 * overflow strikes every part of the code woven into the framework). Prints {@code <framework> overflow: blocked=B ran=R}.
 * It knows nothing of any agent: "ran" means the forbidden tool's body ran (or, for the MCP client, its request went
 * out to the transport).
 */
public final class NestingOverflowApp {
    private NestingOverflowApp() {
    }

    private static final int ROUNDS = 60;
    private static final java.util.concurrent.atomic.AtomicInteger RAN = new java.util.concurrent.atomic.AtomicInteger();

    // ---- LangChain4j: tool executors run through ToolService, the AI services' choke point ----

    private static final InvocationContext CONTEXT = InvocationContext.builder().chatMemoryId("s1").build();
    private static final ToolExecutionRequest DIG = ToolExecutionRequest.builder().id("dig").name("dig").arguments("{}").build();
    private static final ToolExecutionRequest FORBIDDEN = ToolExecutionRequest.builder().id("f").name("forbidden").arguments("{}").build();

    private static final ToolExecutionRequest LOOK = ToolExecutionRequest.builder().id("look").name("look").arguments("{}").build();
    private static final ToolExecutor LOOKER = (request, memoryId) -> "nothing";

    /** A tool whose body, at every level of its recursion, runs another tool and then itself, both through ToolService. */
    private static final ToolExecutor DIGGER = new ToolExecutor() {
        @Override
        public String execute(ToolExecutionRequest request, Object memoryId) {
            ToolService.executeWithErrorHandling(LOOK, LOOKER, CONTEXT, null, null);
            return ToolService.executeWithErrorHandling(request, this, CONTEXT, null, null).resultText();
        }
    };

    private static final ToolExecutor FORBIDDEN_TOOL = (request, memoryId) -> {
        RAN.incrementAndGet();
        return "FORBIDDEN RAN";
    };

    // ---- Spring AI: tool callbacks called directly, as a host's own tool loop does ----

    /** A tool callback whose call, at every level of its recursion, calls another callback and then itself. */
    static final class DigCallback implements ToolCallback {
        private final ToolDefinition definition = ToolDefinition.builder().name("dig").description("digs").inputSchema("{}").build();
        private final ToolCallback look = new LookCallback();

        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String input) {
            look.call(input);
            return call(input) + ".";
        }
    }

    static final class LookCallback implements ToolCallback {
        private final ToolDefinition definition = ToolDefinition.builder().name("look").description("looks").inputSchema("{}").build();

        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String input) {
            return "nothing";
        }
    }

    static final class ForbiddenCallback implements ToolCallback {
        private final ToolDefinition definition = ToolDefinition.builder().name("forbidden").description("never").inputSchema("{}").build();

        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String input) {
            RAN.incrementAndGet();
            return "FORBIDDEN RAN";
        }
    }

    // ---- MCP client: no server; a request that gets past the client goes to this transport, which refuses it ----

    static final class NoServer implements McpClientTransport {
        @Override
        public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
            return Mono.empty();
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            RAN.incrementAndGet();   // a request got past the client
            return Mono.error(new IOException("no server here"));
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.empty();
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
            return null;
        }
    }

    private static final McpSchema.CallToolRequest PROBE = new McpSchema.CallToolRequest("probe", Map.of());
    private static int deepest;

    /** Below {@code from}, only recursion; from there on, a tool call at every level until the stack runs out. */
    static int callAtEveryLevel(int level, int from, Runnable call) {
        deepest = level;
        if (level >= from) {
            call.run();
        }
        return callAtEveryLevel(level + 1, from, call) + 1;
    }

    /** How deep this thread's stack goes now, then {@code call} at every level from a little above that depth down. */
    static void overflowWith(int round, Runnable call) {
        pad(round, () -> callAtEveryLevel(0, Integer.MAX_VALUE, call));
        int from = Math.max(0, deepest - 300);
        pad(round, () -> callAtEveryLevel(0, from, call));
    }

    static int pad(int frames, Runnable overflow) {
        if (frames == 0) {
            try {
                overflow.run();
            } catch (StackOverflowError expected) {
                // the host's own recovery
            }
            return 0;
        }
        return pad(frames - 1, overflow) + 1;
    }

    public static void main(String[] args) {
        String framework = args[0];
        int blocked = 0;
        McpAsyncClient client = framework.equals("mcp")
                ? McpClient.async(new NoServer()).requestTimeout(Duration.ofSeconds(5)).initializationTimeout(Duration.ofSeconds(5)).build() : null;
        for (int round = 0; round < ROUNDS; round++) {
            int before = RAN.get();
            switch (framework) {
                case "langchain4j" -> {
                    pad(round, () -> ToolService.executeWithErrorHandling(DIG, DIGGER, CONTEXT, null, null));
                    overflowWith(round, () -> ToolService.executeWithErrorHandling(LOOK, LOOKER, CONTEXT, null, null));
                    try {
                        ToolExecutionResult r = ToolService.executeWithErrorHandling(FORBIDDEN, FORBIDDEN_TOOL, CONTEXT, null, null);
                        if (round == 0) System.out.println("first answer: " + r.resultText());
                    } catch (RuntimeException refused) {
                        if (round == 0) System.out.println("first answer: " + refused.getMessage());
                    }
                }
                case "springai" -> {
                    DigCallback dig = new DigCallback();
                    pad(round, () -> dig.call("{}"));
                    LookCallback look = new LookCallback();
                    overflowWith(round, () -> look.call("{}"));
                    try {
                        String r = new ForbiddenCallback().call("{}");
                        if (round == 0) System.out.println("first answer: " + r);
                    } catch (RuntimeException refused) {
                        if (round == 0) System.out.println("first answer: " + refused.getMessage());
                    }
                }
                case "mcp" -> {
                    overflowWith(round, () -> client.callTool(PROBE));   // only assembles each call: nothing is sent unless subscribed
                    try {
                        McpSchema.CallToolResult r = client.callTool(new McpSchema.CallToolRequest("forbidden", Map.of())).block(Duration.ofSeconds(10));
                        if (round == 0) System.out.println("first answer: " + r);
                    } catch (RuntimeException failed) {
                        if (round == 0) System.out.println("first answer: " + failed);
                    }
                }
                default -> throw new IllegalArgumentException("framework: langchain4j, springai or mcp, not " + framework);
            }
            if (RAN.get() == before) blocked++;
        }
        System.out.println(framework + " overflow: blocked=" + blocked + " ran=" + RAN.get());
        System.exit(0);
    }
}
