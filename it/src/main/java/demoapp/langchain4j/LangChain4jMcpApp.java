package demoapp.langchain4j;

import demoapp.Console;
import demoapp.Patience;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolExecutionResult;

import java.util.Arrays;

/**
 * MCP tools inside a LangChain4j AI service through langchain4j-mcp's own client (stdio transport to
 * {@code demoapp.mcp.McpApp server}), driven by the scripted model of {@link LangChain4jApp}; chat memory id "alice".
 * Usage: {@code LangChain4jMcpApp [--no-exit] <service|direct> <email|lookup> <server command...>}: {@code service} runs the
 * AI service, {@code direct} calls {@code McpClient#executeTool} itself (no AI service); {@code --no-exit}: main returns
 * instead of ending the JVM, for a run that is not a JVM's last.
 */
public final class LangChain4jMcpApp {

    public static void main(String[] argv) throws Exception {
        boolean exit = argv.length == 0 || !argv[0].equals("--no-exit");
        String[] args = exit ? argv : Arrays.copyOfRange(argv, 1, argv.length);
        if (args.length < 3) {
            throw new IllegalArgumentException("usage: LangChain4jMcpApp <service|direct> <email|lookup> <server command...>");
        }
        McpClient client = new DefaultMcpClient.Builder()
                .transport(new StdioMcpTransport.Builder().command(Arrays.asList(Arrays.copyOfRange(args, 2, args.length))).build())
                .initializationTimeout(Patience.PEER)
                .toolExecutionTimeout(Patience.PEER)
                .build();
        try {
            if (args[0].equals("direct")) {
                ToolExecutionRequest request = ToolExecutionRequest.builder().id("direct-1").name("sendEmail")
                        .arguments("{\"to\":\"carol@example.com\",\"body\":\"hello\"}").build();
                ToolExecutionResult result = client.executeTool(request);
                Console.line("DIRECT RESULT isError=" + result.isError() + ": " + result.resultText());
            } else {
                LangChain4jApp.Assistant assistant = AiServices.builder(LangChain4jApp.Assistant.class)
                        .chatModel(new LangChain4jApp.ScriptedModel(args[1]))
                        .toolProvider(McpToolProvider.builder().mcpClients(client).build())
                        .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                        .build();
                Console.line("ANSWER: " + assistant.chat("alice", "please handle my request"));
            }
        } catch (RuntimeException e) {
            Console.exception(e);
        } finally {
            client.close();
        }
        if (exit) {
            System.exit(0);
        }
    }
}
