package demoquarkus;

import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Reads commands from standard input, one a line, and answers each on standard output:
 * {@code chat USER MESSAGE} -> {@code ANSWER text} (or {@code ERROR class: message});
 * {@code stream USER MESSAGE} -> {@code STREAM the items joined} (or {@code ERROR ...});
 * {@code together USER1 MESSAGE1 | USER2 MESSAGE2} -> both chats at once, {@code ANSWER} for each in that order;
 * {@code ownloop USER MESSAGE} -> the application's own tool loop: it calls the model itself and runs the tools it asks
 * for ({@code OWN tool -> result}, then {@code ANSWER text});
 * {@code runs} -> {@code RUNS {tool=times}}; {@code quit} ends. Starts with {@code READY pid=PID}.
 */
@QuarkusMain
public class Main implements QuarkusApplication {
    @Inject Assistant assistant;
    @Inject StreamAssistant streamAssistant;
    @Inject ShopTools tools;

    @Override
    public int run(String... args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY pid=" + ProcessHandle.current().pid());
        System.out.flush();
        for (String line; (line = in.readLine()) != null; ) {
            line = line.trim();
            if (line.equals("quit")) {
                break;
            }
            if (line.equals("runs")) {
                System.out.println("RUNS " + ShopTools.runs());
            } else if (line.startsWith("chat ")) {
                String[] p = line.substring(5).split(" ", 2);
                System.out.println(chat(p[0], p[1]));
            } else if (line.startsWith("ownloop ")) {
                String[] p = line.substring(8).split(" ", 2);
                ownLoop(p[1]);
            } else if (line.startsWith("stream ")) {
                String[] p = line.substring(7).split(" ", 2);
                try {
                    System.out.println("STREAM " + String.join("", streamAssistant.chat(p[0], p[1]).collect().asList().await().indefinitely()));
                } catch (RuntimeException e) {
                    System.out.println("ERROR " + e.getClass().getName() + ": " + e.getMessage());
                }
            } else if (line.startsWith("together ")) {
                List<CompletableFuture<String>> all = new ArrayList<>();
                ExecutorService threads = Executors.newCachedThreadPool();   // each chat on a thread of its own, at once
                for (String one : line.substring(9).split("\\|")) {
                    String[] p = one.trim().split(" ", 2);
                    all.add(CompletableFuture.supplyAsync(() -> chat(p[0], p[1]), threads));
                }
                for (CompletableFuture<String> f : all) {
                    System.out.println(f.get());
                }
                threads.shutdown();
            } else {
                System.out.println("UNKNOWN " + line);
            }
            System.out.flush();
        }
        return 0;
    }

    private String chat(String user, String message) {
        try {
            return "ANSWER " + assistant.chat(user, message);
        } catch (RuntimeException e) {
            return "ERROR " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    /** One round of a tool loop the application runs itself around a model it calls directly (no AI service). */
    private void ownLoop(String message) {
        List<dev.langchain4j.data.message.ChatMessage> messages = new ArrayList<>();
        messages.add(dev.langchain4j.data.message.UserMessage.from(message));
        dev.langchain4j.data.message.AiMessage ai = ScriptedModel.INSTANCE.chat(
                dev.langchain4j.model.chat.request.ChatRequest.builder().messages(messages).build()).aiMessage();
        messages.add(ai);
        if (ai.hasToolExecutionRequests()) {
            for (dev.langchain4j.agent.tool.ToolExecutionRequest r : ai.toolExecutionRequests()) {
                String user = r.arguments().replaceAll(".*\"user\":\"([^\"]*)\".*", "$1");
                String result = r.name().equals("deleteAccount") ? tools.deleteAccount(user) : "no such tool";
                System.out.println("OWN " + r.name() + " -> " + result);
                messages.add(dev.langchain4j.data.message.ToolExecutionResultMessage.from(r, result));
            }
            ai = ScriptedModel.INSTANCE.chat(dev.langchain4j.model.chat.request.ChatRequest.builder().messages(messages).build()).aiMessage();
        }
        System.out.println("ANSWER " + ai.text());
    }
}
