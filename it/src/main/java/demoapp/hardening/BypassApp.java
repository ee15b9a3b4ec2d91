package demoapp.hardening;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Tries to reach a {@code @Tool} method around a supervisor: directly from application code (by
 * reflection, a MethodHandle, a dynamic proxy, a subclass override) and through LangChain4j (an
 * overriding subclass as the tool object, parallel execution on virtual threads, the whole service
 * on a virtual thread). Prints {@code TOOL ... ran} whenever a tool body runs and
 * {@code RESULT <scenario>: <text>} with what the caller got back.
 * Usage: {@code BypassApp <scenario>...}; scenarios are listed in {@link #main}.
 */
public final class BypassApp {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** The tool class the configuration names. */
    public static class MailTools {
        @Tool("Send an email")
        public String sendEmail(String to, String body) {
            Console.line("TOOL sendEmail ran to=" + to + " class=" + getClass().getSimpleName() + " virtual=" + virtual());
            return "email sent to " + to;
        }

        @Tool("Look up a customer")
        public String lookupCustomer(String name) {
            Console.line("TOOL lookupCustomer ran name=" + name + " virtual=" + virtual());
            return "customer " + name;
        }
    }

    /** A subclass that overrides the tool (and so is a different method the configuration did not name). */
    public static final class LoudMailTools extends MailTools {
        @Override
        @Tool("Send an email")
        public String sendEmail(String to, String body) {
            Console.line("TOOL override sendEmail ran to=" + to + " virtual=" + virtual());
            return "loudly sent to " + to;
        }
    }

    /** An interface a dynamic proxy implements to forward to the tool object. */
    public interface Mailer {
        String sendEmail(String to, String body);
    }

    /** The model asks for the given tools (all at once), then reports what it saw. */
    static final class ScriptedModel implements ChatModel {
        private final List<String> tools;

        ScriptedModel(List<String> tools) { this.tools = tools; }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            if (messages.get(messages.size() - 1) instanceof ToolExecutionResultMessage) {
                StringBuilder seen = new StringBuilder();
                for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage; i--) {
                    ToolExecutionResultMessage r = (ToolExecutionResultMessage) messages.get(i);
                    Console.line("MODEL SAW TOOL RESULT " + r.toolName() + ": " + r.text());
                    seen.append(r.text()).append(' ');
                }
                return ChatResponse.builder().aiMessage(AiMessage.from("done: " + seen)).build();
            }
            List<ToolExecutionRequest> calls = new ArrayList<>();
            for (String t : tools) {
                String args = t.equals("sendEmail") ? "{\"to\":\"bob@example.com\",\"body\":\"hi\"}" : "{\"name\":\"Alice\"}";
                calls.add(ToolExecutionRequest.builder().id("call-" + t + "-" + calls.size()).name(t).arguments(args).build());
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
        }
    }

    public static void main(String[] args) throws Exception {
        for (String scenario : args) {
            try {
                Console.line("RESULT " + scenario + ": " + run(scenario));
            } catch (Throwable e) {
                Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                Console.line("RESULT " + scenario + ": EXCEPTION " + cause);
            }
        }
        Console.line("JAVA " + Runtime.version().feature());
    }

    static Object run(String scenario) throws Throwable {
        MailTools target = new MailTools();
        switch (scenario) {
            case "direct-call":
                return target.sendEmail("bob@example.com", "hi");
            case "direct-reflection": {
                Method m = MailTools.class.getMethod("sendEmail", String.class, String.class);
                return m.invoke(target, "bob@example.com", "hi");
            }
            case "direct-methodhandle": {
                MethodHandle h = MethodHandles.publicLookup().findVirtual(MailTools.class, "sendEmail",
                        MethodType.methodType(String.class, String.class, String.class));
                return (String) h.invokeExact(target, "bob@example.com", "hi");
            }
            case "direct-proxy": {
                Mailer m = (Mailer) Proxy.newProxyInstance(BypassApp.class.getClassLoader(), new Class<?>[] {Mailer.class},
                        (proxy, method, a) -> MailTools.class.getMethod(method.getName(), method.getParameterTypes()).invoke(target, a));
                return m.sendEmail("bob@example.com", "hi");
            }
            case "direct-subclass":
                return new LoudMailTools().sendEmail("bob@example.com", "hi");
            case "framework":
                return service(new MailTools(), List.of("sendEmail"), null).chat("alice", "mail bob");
            case "framework-subclass":
                return service(new LoudMailTools(), List.of("sendEmail"), null).chat("alice", "mail bob");
            case "framework-parallel": {
                ExecutorService pool = Executors.newFixedThreadPool(4);
                try {
                    return service(new MailTools(), List.of("sendEmail", "lookupCustomer", "sendEmail"), pool).chat("alice", "mail bob");
                } finally {
                    pool.shutdown();
                }
            }
            case "framework-virtual-parallel": {
                ExecutorService pool = virtualThreads();
                try {
                    return service(new MailTools(), List.of("sendEmail", "lookupCustomer", "sendEmail"), pool).chat("alice", "mail bob");
                } finally {
                    pool.shutdown();
                }
            }
            case "framework-on-virtual-thread": {
                ExecutorService pool = virtualThreads();
                try {
                    Assistant a = service(new MailTools(), List.of("sendEmail"), null);
                    Future<String> f = pool.submit((Callable<String>) () -> a.chat("alice", "mail bob"));
                    return f.get();
                } finally {
                    pool.shutdown();
                }
            }
            default:
                throw new IllegalArgumentException("unknown scenario " + scenario);
        }
    }

    private static Assistant service(MailTools tools, List<String> calls, ExecutorService pool) {
        AiServices<Assistant> b = AiServices.builder(Assistant.class)
                .chatModel(new ScriptedModel(calls))
                .tools(tools)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20));
        if (pool != null) b.executeToolsConcurrently(pool);
        return b.build();
    }

    /** Java 21+'s virtual-thread executor, looked up reflectively because this code compiles for Java 17. */
    private static ExecutorService virtualThreads() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    private static boolean virtual() {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
