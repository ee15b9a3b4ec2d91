package demoapp.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.json.JsonMapper;

import java.util.Map;

/**
 * A stdio MCP server (sync) with a consent tool {@code grant_consent(email, purpose, fail?, refuse?)} and
 * {@code sendNewsletter(email)}. {@code fail}: the handler throws before it stores anything (the consent store is down;
 * the client gets an McpError); {@code refuse}: it answers an error result ({@code isError: true}, the form was not
 * signed). Run it under {@code McpApp calls}. Its own lines go to standard error.
 */
public final class McpConsentApp {

    private static final McpJsonMapper JSON = new JacksonMcpJsonMapper(JsonMapper.builder().build());
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"email\":{\"type\":\"string\"},"
            + "\"purpose\":{\"type\":\"string\"},\"fail\":{\"type\":\"boolean\"},\"refuse\":{\"type\":\"boolean\"}}}";

    static McpSchema.CallToolResult run(String tool, Map<String, Object> arguments) {
        String email = String.valueOf(arguments.get("email"));
        if (tool.equals("grant_consent")) {
            if (Boolean.TRUE.equals(arguments.get("fail"))) throw new IllegalStateException("consent store unavailable");
            if (Boolean.TRUE.equals(arguments.get("refuse"))) {
                return McpSchema.CallToolResult.builder().addTextContent("not recorded: the consent form was not signed").isError(true).build();
            }
            System.err.println("CONSENT STORED " + email + " " + arguments.get("purpose"));
            return McpSchema.CallToolResult.builder().addTextContent("consent recorded").isError(false).build();
        }
        System.err.println("TOOL sendNewsletter ran for " + email);
        return McpSchema.CallToolResult.builder().addTextContent("newsletter sent").isError(false).build();
    }

    private static McpServerFeatures.SyncToolSpecification tool(String name) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder().name(name).description(name).inputSchema(JSON, SCHEMA).build())
                .callHandler((exchange, request) -> run(name, request.arguments())).build();
    }

    public static void main(String[] args) throws Exception {
        StdioServerTransportProvider transport = new StdioServerTransportProvider(JSON);
        McpServer.sync(transport).serverInfo("consent-sync", "1").jsonMapper(JSON)
                .tools(tool("grant_consent"), tool("sendNewsletter")).build();
        System.err.println("SERVER READY");
        Thread.sleep(Long.MAX_VALUE); // the client ends this process when it closes the transport
    }
}
