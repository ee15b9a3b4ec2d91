package demoapp.mcp;

import demoapp.Console;
import demoapp.Patience;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import java.io.File;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An aggregating MCP server: a tool handler that calls another MCP server with the SDK's client.
 * {@code McpRelayApp server}: a stdio server with {@code sendEmail {to}} and {@code askPartner {topic}}, whose sync
 * handler calls {@code echoMeta} on a partner server it starts as a subprocess of its own (without any agent) and
 * answers with what the partner says. {@code McpRelayApp partner}: the partner, whose {@code echoMeta} answers with the
 * {@code _meta} of the request it got. {@code McpRelayApp replay -- <server command...>}: a client (the remote peer)
 * that calls {@code askPartner}, takes from the answer the value the partner saw under {@code dev.tracegate/supervised}
 * and sends it back to the server in the {@code _meta} of two {@code sendEmail} calls. Servers write their lines to
 * standard error; the client echoes the server's as "SERVER: ...".
 *
 * <p>{@code McpRelayApp async-server}: an async stdio server whose tools take {@code {tool, topic}} and call that tool
 * (with {@code {topic}}) on the partner: {@code relayAsync} returns the SDK async client's {@code callTool} Mono made in
 * the handler's own body ({@code return client.callTool(request).map(...)}, the obvious relay), {@code relaySync} calls
 * the sync client in its own body before it returns its Mono, {@code relayOnExecutor} makes the sync client call on the
 * application's own executor ({@code Mono.fromFuture(CompletableFuture.supplyAsync(..., executor))}, threads Reactor does
 * not schedule), {@code relayOnScheduler} makes it on the same executor through a Reactor scheduler
 * ({@code Mono.fromCallable(...).subscribeOn(Schedulers.fromExecutor(executor))}). The partner's {@code wipe} answers {@code wiped} and says so on standard error. Drive it with
 * {@code McpAsyncApp calls ... -- <this server's command>}.
 */
public final class McpRelayApp {

    private static final McpJsonMapper JSON = new JacksonMcpJsonMapper(JsonMapper.builder().build());
    private static final String TO_SCHEMA = "{\"type\":\"object\",\"properties\":{\"to\":{\"type\":\"string\"}}}";
    private static final String TOPIC_SCHEMA = "{\"type\":\"object\",\"properties\":{\"topic\":{\"type\":\"string\"}}}";
    private static final String MARK_KEY = "dev.tracegate/supervised";

    private static McpSyncClient partner;
    private static McpAsyncClient asyncPartner;

    /** The application's own executor {@code relayOnExecutor} makes its client call on (threads "relay-worker-N"). */
    private static final ExecutorService APP_EXECUTOR = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "relay-worker-" + System.nanoTime());
        t.setDaemon(true);
        return t;
    });

    private McpRelayApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            serve(relay());
        } else if (args.length == 1 && args[0].equals("async-server")) {
            asyncRelay();
        } else if (args.length == 1 && args[0].equals("partner")) {
            // ends with the relay server that started it (its stdin closing does not end the JVM)
            ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> System.exit(0)));
            serve(McpServer.sync(new StdioServerTransportProvider(JSON)).serverInfo("partner", "1.0")
                    .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                    .tools(tool("echoMeta", TOPIC_SCHEMA, (exchange, request) -> "partner saw meta=" + JSON.writeValueAsString(
                            request.meta() == null ? Map.of() : request.meta())),
                            tool("wipe", TOPIC_SCHEMA, (exchange, request) -> {
                                System.err.println("TOOL wipe ran topic=" + request.arguments().get("topic"));
                                return "wiped " + request.arguments().get("topic");
                            }))
                    .build());
        } else if (args.length > 2 && args[0].equals("replay") && args[1].equals("--")) {
            replay(Arrays.copyOfRange(args, 2, args.length));
        } else {
            throw new IllegalArgumentException("usage: McpRelayApp server | McpRelayApp async-server | McpRelayApp partner | McpRelayApp replay -- <server command...>");
        }
    }

    interface Body {
        String run(io.modelcontextprotocol.server.McpSyncServerExchange exchange, McpSchema.CallToolRequest request) throws Exception;
    }

    private static McpServerFeatures.SyncToolSpecification tool(String name, String schema, Body body) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name(name).description(name).inputSchema(JSON, schema).build())
                .callHandler((exchange, request) -> {
                    try {
                        return McpSchema.CallToolResult.builder().addTextContent(body.run(exchange, request)).isError(false).build();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .build();
    }

    private static McpSyncServer relay() {
        return McpServer.sync(new StdioServerTransportProvider(JSON)).serverInfo("relay", "1.0")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(tool("sendEmail", TO_SCHEMA, (exchange, request) -> {
                            System.err.println("TOOL sendEmail ran to=" + request.arguments().get("to"));
                            return "email sent to " + request.arguments().get("to");
                        }),
                        tool("askPartner", TOPIC_SCHEMA, (exchange, request) -> {
                            System.err.println("HANDLER askPartner session=" + exchange.sessionId());
                            McpSchema.CallToolResult answer = partner().callTool(
                                    new McpSchema.CallToolRequest("echoMeta", Map.of("topic", String.valueOf(request.arguments().get("topic")))));
                            return text(answer);
                        }))
                .build();
    }

    private static McpServerFeatures.AsyncToolSpecification asyncTool(String name,
            BiFunction<McpAsyncServerExchange, McpSchema.CallToolRequest, Mono<McpSchema.CallToolResult>> handler) {
        return McpServerFeatures.AsyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name(name).description(name).inputSchema(JSON, RELAY_SCHEMA).build())
                .callHandler((exchange, request) -> {
                    System.err.println("HANDLER " + name + " session=" + exchange.sessionId() + " on " + Thread.currentThread().getName());
                    return handler.apply(exchange, request);
                })
                .build();
    }

    private static final String RELAY_SCHEMA = "{\"type\":\"object\",\"properties\":{\"tool\":{\"type\":\"string\"},\"topic\":{\"type\":\"string\"}}}";

    /** The partner's tool a relay call names, with its topic. */
    private static McpSchema.CallToolRequest onward(McpSchema.CallToolRequest request) {
        return new McpSchema.CallToolRequest(String.valueOf(request.arguments().get("tool")),
                Map.of("topic", String.valueOf(request.arguments().get("topic"))));
    }

    private static McpSchema.CallToolResult says(McpSchema.CallToolResult answer) {
        return McpSchema.CallToolResult.builder().addTextContent("partner says: " + text(answer)).isError(false).build();
    }

    private static void asyncRelay() throws InterruptedException {
        McpAsyncServer server = McpServer.async(new StdioServerTransportProvider(JSON)).serverInfo("relay-async", "1.0")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(asyncTool("relayAsync", (exchange, request) -> asyncPartner().callTool(onward(request)).map(McpRelayApp::says)),
                        asyncTool("relaySync", (exchange, request) -> Mono.just(says(partner().callTool(onward(request))))),
                        asyncTool("relayOnExecutor", (exchange, request) -> Mono.fromFuture(CompletableFuture.supplyAsync(() -> {
                            System.err.println("RELAY on " + Thread.currentThread().getName());
                            return says(partner().callTool(onward(request)));
                        }, APP_EXECUTOR))),
                        // the same on the same executor, through a Reactor scheduler (the fix the agent's WARN names)
                        asyncTool("relayOnScheduler", (exchange, request) -> Mono.fromCallable(() -> {
                            System.err.println("RELAY on " + Thread.currentThread().getName());
                            return says(partner().callTool(onward(request)));
                        }).subscribeOn(reactor.core.scheduler.Schedulers.fromExecutor(APP_EXECUTOR))))
                .build();
        System.err.println("SERVER READY " + server.getServerInfo().name());
        Thread.sleep(Long.MAX_VALUE);   // the client ends this process when it closes the transport
    }

    /** The async client of a partner server of its own, started on first use (as {@link #partner()}). */
    private static synchronized McpAsyncClient asyncPartner() {
        if (asyncPartner == null) {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java)
                    .args("-cp", System.getProperty("java.class.path"), McpRelayApp.class.getName(), "partner").build(), JSON);
            transport.setStdErrorHandler(line -> System.err.println("PARTNER: " + line));
            asyncPartner = McpClient.async(transport).requestTimeout(Patience.PEER).initializationTimeout(Patience.PEER).build();
            asyncPartner.initialize().block();
        }
        return asyncPartner;
    }

    /** The client of the partner server, started on first use (a subprocess of this JVM, without this JVM's options). */
    private static synchronized McpSyncClient partner() {
        if (partner == null) {
            String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
            StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(java)
                    .args("-cp", System.getProperty("java.class.path"), McpRelayApp.class.getName(), "partner").build(), JSON);
            transport.setStdErrorHandler(line -> System.err.println("PARTNER: " + line));
            partner = McpClient.sync(transport).requestTimeout(Patience.PEER).initializationTimeout(Patience.PEER).build();
            partner.initialize();
        }
        return partner;
    }

    private static void serve(McpSyncServer server) throws InterruptedException {
        System.err.println("SERVER READY " + server.getServerInfo().name());
        Thread.sleep(Long.MAX_VALUE);   // the client ends this process when it closes the transport
    }

    private static String text(McpSchema.CallToolResult result) {
        StringBuilder text = new StringBuilder();
        for (McpSchema.Content content : result.content()) {
            if (content instanceof McpSchema.TextContent) {
                text.append(((McpSchema.TextContent) content).text());
            }
        }
        return text.toString();
    }

    /** The remote peer: learns the value the server's client sent the partner, and sends it back with two e-mails. */
    private static void replay(String[] serverCommand) throws Exception {
        StdioClientTransport transport = new StdioClientTransport(ServerParameters.builder(serverCommand[0])
                .args(Arrays.copyOfRange(serverCommand, 1, serverCommand.length)).build(), JSON);
        transport.setStdErrorHandler(line -> System.out.println("SERVER: " + line));
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Patience.PEER.multipliedBy(2))
                .initializationTimeout(Patience.PEER).build();
        try {
            client.initialize();
            String answer = text(client.callTool(new McpSchema.CallToolRequest("askPartner", Map.of("topic", "prices"))));
            Console.line("ASKED " + answer);
            Matcher m = Pattern.compile(Pattern.quote(MARK_KEY) + "\"\\s*:\\s*\"([^\"]+)\"").matcher(answer);
            String mark = m.find() ? m.group(1) : null;
            Console.line("MARK " + mark);
            if (mark != null) {
                for (int i = 1; i <= 2; i++) {
                    Map<String, Object> meta = new LinkedHashMap<>();
                    meta.put(MARK_KEY, mark);
                    McpSchema.CallToolResult result = client.callTool(
                            new McpSchema.CallToolRequest("sendEmail", Map.of("to", "eve@evil.example"), meta));
                    Console.line("REPLAY " + i + " isError=" + result.isError() + ": " + text(result));
                }
            }
        } catch (RuntimeException e) {
            Console.exception(e);
        } finally {
            StdioServerEnd.stopAndDrain(transport);   // every line the server wrote, then close
            client.closeGracefully();
        }
        System.exit(0);
    }
}
