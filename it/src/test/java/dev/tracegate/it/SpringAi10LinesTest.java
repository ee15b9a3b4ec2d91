package dev.tracegate.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AI 1.0.3 (the first GA line) under the built agent jar in forked JVMs, on the resolved closure the build copied
 * to target/springai-1.0.3. 1.0.x has neither {@code ToolCallAdvisor} nor {@code AssistantMessage.builder()}, which the
 * shared apps use, and its tool loop runs inside the provider's {@code ChatModel}: the app here is compiled against the
 * 1.0.3 jars by the test itself, and its scripted model runs the tools through {@code ToolCallingManager} inside
 * {@code call(Prompt)}, as 1.0.x provider models do. It imports nothing of tracegate.
 */
class SpringAi10LinesTest {

    private static final String APP = "demoapp.springai10.SpringAi10App";

    private static final String APP_SOURCE = """
            package demoapp.springai10;

            import org.springframework.ai.chat.client.ChatClient;
            import org.springframework.ai.chat.memory.ChatMemory;
            import org.springframework.ai.chat.messages.AssistantMessage;
            import org.springframework.ai.chat.messages.Message;
            import org.springframework.ai.chat.messages.ToolResponseMessage;
            import org.springframework.ai.chat.messages.UserMessage;
            import org.springframework.ai.chat.model.ChatModel;
            import org.springframework.ai.chat.model.ChatResponse;
            import org.springframework.ai.chat.model.Generation;
            import org.springframework.ai.chat.prompt.ChatOptions;
            import org.springframework.ai.chat.prompt.Prompt;
            import org.springframework.ai.model.tool.ToolCallingChatOptions;
            import org.springframework.ai.model.tool.ToolCallingManager;
            import org.springframework.ai.model.tool.ToolExecutionResult;
            import org.springframework.ai.tool.annotation.Tool;
            import reactor.core.publisher.Flux;
            import reactor.core.scheduler.Schedulers;

            import java.util.List;
            import java.util.Map;

            /** A Spring AI 1.0.x ChatClient with @Tool methods; the scripted model runs the tool loop in call(Prompt). */
            public final class SpringAi10App {

                public static final class OfficeTools {
                    @Tool(description = "Send an email")
                    public String sendEmail(String to, String body) {
                        System.out.println("TOOL sendEmail ran to=" + to + " thread=" + Thread.currentThread().getName());
                        return "email sent to " + to;
                    }

                    @Tool(description = "Save an email as a draft")
                    public String draftEmail(String to, String body) {
                        System.out.println("TOOL draftEmail ran to=" + to);
                        return "draft saved for " + to;
                    }

                    @Tool(description = "Archive an email (the archive service is down: it always fails)")
                    public String archiveEmail(String to, String body) {
                        System.out.println("TOOL archiveEmail ran to=" + to);
                        throw new IllegalStateException("the archive service is offline");
                    }
                }

                static final class ScriptedModel implements ChatModel {
                    private final String scenario;

                    ScriptedModel(String scenario) {
                        this.scenario = scenario;
                    }

                    @Override
                    public ChatOptions getDefaultOptions() {
                        return ToolCallingChatOptions.builder().build();
                    }

                    @Override
                    public ChatResponse call(Prompt prompt) {
                        ChatResponse response = reply(prompt);
                        if (!response.hasToolCalls()) {
                            return response;
                        }
                        // what a 1.0.x provider model does with the tools the ChatClient put in the options
                        ToolExecutionResult result = ToolCallingManager.builder().build().executeToolCalls(prompt, response);
                        return call(new Prompt(result.conversationHistory(), prompt.getOptions()));
                    }

                    @Override
                    public Flux<ChatResponse> stream(Prompt prompt) {
                        return internalStream(prompt);
                    }

                    /** As 1.0.x provider models stream: the tools run on a worker, and the next round recurses here, not through stream(). */
                    private Flux<ChatResponse> internalStream(Prompt prompt) {
                        return Flux.defer(() -> {
                            ChatResponse response = reply(prompt);
                            if (response.hasToolCalls()) {
                                return Flux.defer(() -> {
                                    ToolExecutionResult result = ToolCallingManager.builder().build().executeToolCalls(prompt, response);
                                    return internalStream(new Prompt(result.conversationHistory(), prompt.getOptions()));
                                }).subscribeOn(Schedulers.boundedElastic());
                            }
                            String text = response.getResult().getOutput().getText();
                            return Flux.fromArray(text.split("(?<= )"))
                                    .map(word -> new ChatResponse(List.of(new Generation(new AssistantMessage(word)))));
                        });
                    }

                    private ChatResponse reply(Prompt prompt) {
                        List<Message> messages = prompt.getInstructions();
                        Message last = messages.get(messages.size() - 1);
                        if (last instanceof ToolResponseMessage) {
                            StringBuilder seen = new StringBuilder();
                            for (ToolResponseMessage.ToolResponse r : ((ToolResponseMessage) last).getResponses()) {
                                System.out.println("MODEL SAW TOOL RESULT " + r.name() + ": " + r.responseData());
                                seen.append(r.responseData());
                            }
                            return new ChatResponse(List.of(new Generation(new AssistantMessage("done: " + seen))));
                        }
                        System.out.println("MODEL SAW USER: " + ((UserMessage) last).getText());
                        String arguments = "{\\"to\\":\\"bob@example.com\\",\\"body\\":\\"the quarterly numbers\\"}";
                        switch (scenario) {
                            case "chat":
                                return new ChatResponse(List.of(new Generation(new AssistantMessage("the secret code is 1234"))));
                            case "email":
                                return toolCall("sendEmail", arguments);
                            case "archive":
                                return toolCall("archiveEmail", arguments);
                            default:
                                throw new IllegalArgumentException("unknown scenario " + scenario);
                        }
                    }

                    private static ChatResponse toolCall(String tool, String arguments) {
                        AssistantMessage.ToolCall call = new AssistantMessage.ToolCall("call-1", "function", tool, arguments);
                        return new ChatResponse(List.of(new Generation(new AssistantMessage("", Map.of(), List.of(call)))));
                    }
                }

                public static void main(String[] args) {
                    String scenario = args.length > 0 ? args[0] : "email";
                    boolean stream = args.length > 1 && args[1].startsWith("--stream");
                    // 1.0.x hands no Reactor context to the tool thread: the application passes the conversation id itself
                    boolean toolContext = args.length > 1 && args[1].equals("--stream-tool-context");
                    System.out.println("SPRING AI " + ChatClient.class.getProtectionDomain().getCodeSource().getLocation());
                    try {
                        ChatClient.ChatClientRequestSpec request = ChatClient.builder(new ScriptedModel(scenario)).build().prompt()
                                .user("please handle my request").tools(new OfficeTools())
                                        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "conv-10"));
                        if (toolContext) {
                            request = request.toolContext(Map.of(ChatMemory.CONVERSATION_ID, "conv-10"));
                        }
                        String answer;
                        if (stream) {
                            List<String> chunks = request.stream().content().doOnNext(c -> System.out.println("CHUNK: " + c)).collectList().block();
                            answer = chunks == null ? null : String.join("", chunks);
                        } else {
                            answer = request.call().content();
                        }
                        System.out.println("ANSWER: " + answer);
                    } catch (RuntimeException e) {
                        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                            System.out.println("EXCEPTION: " + t.getClass().getName() + ": " + t.getMessage());
                        }
                    }
                }
            }
            """;

    @TempDir
    static Path work;

    private static String classpath;

    /** Compiles the app against the 1.0.3 jars (with -parameters: Spring AI names tool parameters after them). */
    @BeforeAll
    static void compileTheAppAgainstSpringAi103() throws IOException {
        Path appClasses = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        Path jars = appClasses.resolveSibling("springai-1.0.3");
        String jarPath;
        try (Stream<Path> files = Files.list(jars)) {
            jarPath = files.sorted().map(f -> f.toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
        } catch (IOException e) {
            throw new IllegalStateException("Spring AI 1.0.3 jars missing in " + jars + " (the it module's generate-test-resources phase copies them)", e);
        }
        Path source = work.resolve("src/demoapp/springai10/SpringAi10App.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, APP_SOURCE);
        Path classes = work.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the tests need a JDK").isNotNull();
        int status = javac.run(null, null, null, "--release", "17", "-parameters", "-proc:none", "-cp", jarPath, "-d", classes.toString(), source.toString());
        assertThat(status).as("javac of the Spring AI 1.0.3 app").isZero();
        classpath = classes + File.pathSeparator + jarPath;
    }

    private static ForkedJvm.Result run10(String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), classpath, APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.0\\.3\\.jar");
        return r;
    }

    private static int count(String text, String needle) {
        return ForkedJvm.count(text, needle);
    }

    @Test
    void aToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run10("trace=true", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com thread=main")
                .contains("MODEL SAW TOOL RESULT sendEmail: \"email sent to bob@example.com\"")
                .contains("ANSWER: done: \"email sent to bob@example.com\"");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-10 tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("USER springai session=conv-10 -> KEEP")
                .contains("ASSISTANT springai session=conv-10 -> KEEP")
                .doesNotContain("session=default")
                .doesNotContain("instrumentation springai matched nothing");
    }

    @Test
    void blockWithSubstitutionAndWithException() {
        ForkedJvm.Result substituted = run10("block=sendEmail", "email");
        assertThat(substituted.stdout()).as(substituted.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        ForkedJvm.Result thrown = run10("block=sendEmail,onBlock=throw", "email");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void aToolThatThrowsIsItsErrorReturnAndTheModelGetsTheFailure() {
        ForkedJvm.Result r = run10("trace=true", "archive");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT archiveEmail: ")
                .contains("the archive service is offline");
        assertThat(r.stderr()).as(r.toString()).contains("RETURN springai session=conv-10 tool=archiveEmail");
        ForkedJvm.Result redirected = run10("redirect=sendEmail:draftEmail", "email");
        assertThat(redirected.stdout()).as(redirected.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com");
    }

    /**
     * 1.0.x provider models run streamed tool calls on a worker thread and, unlike 1.1.x, hand it no Reactor context
     * ({@code ToolCallReactiveContextHolder} does not exist): the conversation id reaches the tool only in the
     * {@code ToolContext} the application passes; without it such calls are in session "default".
     */
    @Test
    void aStreamedToolCallIsInTheConversationTheApplicationPutInTheToolContext() {
        ForkedJvm.Result r = run10("trace=true", "email", "--stream-tool-context");
        assertThat(r.stdout()).as(r.toString())
                .containsPattern("TOOL sendEmail ran to=bob@example.com thread=boundedElastic-\\d+")
                .contains("ANSWER: done: \"email sent to bob@example.com\"");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-10 tool=sendEmail")
                .contains("RETURN springai session=conv-10 tool=sendEmail")
                .contains("ASSISTANT springai-stream session=conv-10 -> KEEP")
                .doesNotContain("session=default");
        ForkedJvm.Result blocked = run10("block=sendEmail", "email", "--stream-tool-context");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK springai session=conv-10 tool=sendEmail");
    }

    @Test
    void blockedModelOutputIsReplacedOrThrownAlsoWhenStreamed() {
        ForkedJvm.Result substituted = run10("blockOutput=secret code", "chat");
        assertThat(substituted.stdout()).as(substituted.toString())
                .contains("ANSWER: tracegate blocked model output (contract rule.blockOutput)");
        assertThat(substituted.stderr()).as(substituted.toString()).contains("BLOCK ASSISTANT springai session=conv-10 contract=rule.blockOutput");
        ForkedJvm.Result thrown = run10("blockOutput=secret code,onBlock=throw", "chat");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
        ForkedJvm.Result streamed = run10("trace=true", "chat", "--stream");
        assertThat(streamed.stdout()).as(streamed.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(streamed.stderr()).as(streamed.toString())
                .contains("USER springai session=conv-10 -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-10 -> KEEP");
        assertThat(count(streamed.stderr(), "ASSISTANT ")).as(streamed.toString()).isEqualTo(1);
    }
}
