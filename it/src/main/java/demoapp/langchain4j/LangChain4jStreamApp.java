package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A streaming LangChain4j AI service ({@code TokenStream}) with the {@code @Tool} methods of {@link LangChain4jApp} and a
 * scripted streaming model that answers on its own thread and calls the handler as LangChain4j's provider modules do:
 * the answer arrives in chunks, then the complete response. Usage: {@code LangChain4jStreamApp [--no-exit] <chat|email|email-direct|direct> [memoryId] [user message]}
 * ({@code --no-exit}: main returns instead of ending the JVM, for a run that is not a JVM's last): {@code chat} streams
 * "the secret code is 1234" in three chunks; {@code email} first asks for sendEmail (no text), then streams an answer
 * quoting the tool result; {@code email-direct} the same, with the first response handed to the handler directly
 * rather than through LangChain4j's handler utilities (a provider that does not catch what the handler throws). Prints each chunk, the complete response (or the stream's error) and what the chat memory
 * kept as the last AI message.
 */
public final class LangChain4jStreamApp {

    interface Assistant {
        TokenStream chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** Streams fixed replies from a thread of its own. */
    static final class ScriptedStreamingModel implements StreamingChatModel {
        private final String scenario;

        ScriptedStreamingModel(String scenario) {
            this.scenario = scenario;
        }

        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            Thread provider = new Thread(() -> reply(request, handler), "provider-stream");
            provider.start();
        }

        private void reply(ChatRequest request, StreamingChatResponseHandler handler) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage result = (ToolExecutionResultMessage) last;
                Console.line("MODEL SAW TOOL RESULT " + result.toolName() + ": " + result.text());
                stream(handler, "done: ", result.text());
                return;
            }
            Console.line("MODEL SAW USER: " + ((UserMessage) last).singleText());
            if (scenario.equals("email") || scenario.equals("email-direct")) {
                ToolExecutionRequest call = ToolExecutionRequest.builder().id("call-sendEmail").name("sendEmail")
                        .arguments("{\"to\":\"bob@example.com\",\"body\":\"the quarterly numbers\"}").build();
                ChatResponse asksForTool = ChatResponse.builder().aiMessage(AiMessage.from(List.of(call))).build();
                if (scenario.equals("email")) {
                    InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler, asksForTool);
                } else {
                    // a provider that calls the handler itself: what the handler throws leaves on this thread
                    handler.onCompleteResponse(asksForTool);
                }
            } else if (scenario.equals("chat")) {
                stream(handler, "the secret ", "code is ", "1234");
            } else {
                handler.onError(new IllegalArgumentException("unknown scenario " + scenario));
            }
        }

        /** Through LangChain4j's handler utilities, as its provider modules call handlers: an exception of a handler goes to its onError. */
        private static void stream(StreamingChatResponseHandler handler, String... chunks) {
            StringBuilder text = new StringBuilder();
            for (String chunk : chunks) {
                InternalStreamingChatResponseHandlerUtils.onPartialResponse(handler, chunk);
                text.append(chunk);
            }
            InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler, ChatResponse.builder().aiMessage(AiMessage.from(text.toString())).build());
        }
    }

    /** The streaming model called directly, without an AI service, with a handler of the application's own. */
    private static void direct(String message, boolean exit) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        new ScriptedStreamingModel("chat").chat(ChatRequest.builder().messages(UserMessage.from(message)).build(),
                new StreamingChatResponseHandler() {
                    @Override
                    public void onPartialResponse(String chunk) {
                        Console.line("CHUNK: " + chunk);
                    }

                    @Override
                    public void onCompleteResponse(ChatResponse response) {
                        Console.line("COMPLETE: " + response.aiMessage().text());
                        done.countDown();
                    }

                    @Override
                    public void onError(Throwable error) {
                        Console.exception(error);
                        done.countDown();
                    }
                });
        if (!done.await(60, TimeUnit.SECONDS)) {
            Console.line("TIMEOUT: the stream neither completed nor failed");
        }
        if (exit) {
            System.exit(0);
        }
    }

    public static void main(String[] argv) throws InterruptedException {
        boolean exit = argv.length == 0 || !argv[0].equals("--no-exit");
        String[] args = exit ? argv : java.util.Arrays.copyOfRange(argv, 1, argv.length);
        String scenario = args.length > 0 ? args[0] : "chat";
        if (scenario.equals("direct")) {
            direct(args.length > 1 ? args[1] : "please handle my request", exit);
            return;
        }
        String user = args.length > 1 ? args[1] : "alice";
        String message = args.length > 2 ? args[2] : "please handle my request";
        Map<Object, ChatMemory> memories = new ConcurrentHashMap<>();
        Assistant assistant = AiServices.builder(Assistant.class)
                .streamingChatModel(new ScriptedStreamingModel(scenario))
                .tools(new LangChain4jApp.ShopTools())
                .chatMemoryProvider(id -> memories.computeIfAbsent(id, key -> MessageWindowChatMemory.withMaxMessages(20)))
                .build();
        CountDownLatch done = new CountDownLatch(1);
        assistant.chat(user, message)
                .onPartialResponse(chunk -> Console.line("CHUNK: " + chunk))
                .onCompleteResponse(response -> {
                    Console.line("COMPLETE: " + response.aiMessage().text());
                    done.countDown();
                })
                .onError(error -> {
                    Console.exception(error);
                    done.countDown();
                })
                .start();
        if (!done.await(60, TimeUnit.SECONDS)) {
            Console.line("TIMEOUT: the stream neither completed nor failed");
        }
        ChatMemory memory = memories.get(user);
        List<ChatMessage> kept = memory == null ? List.of() : memory.messages();
        String lastAi = null;
        for (ChatMessage m : kept) {
            if (m instanceof AiMessage && ((AiMessage) m).text() != null) {
                lastAi = ((AiMessage) m).text();
            }
        }
        Console.line("MEMORY LAST AI: " + lastAi);
        if (exit) {
            System.exit(0);
        }
    }
}
