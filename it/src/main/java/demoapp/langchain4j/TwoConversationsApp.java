package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;

/**
 * Two conversations of one LangChain4j AI service in one JVM, one after the other: {@code alice} asks for a customer
 * (the model calls {@code lookupCustomer}), then {@code bob} asks for an e-mail (the model calls {@code sendEmail}).
 * The tools and the scripted model are {@link LangChain4jApp}'s. Usage: {@code TwoConversationsApp}.
 */
public final class TwoConversationsApp {
    private TwoConversationsApp() {
    }

    public static void main(String[] args) {
        converse("alice", "lookup", "who is Alice?");
        converse("bob", "email", "send bob the numbers");
        Console.line("DONE");
    }

    private static void converse(String user, String scenario, String message) {
        LangChain4jApp.Assistant assistant = AiServices.builder(LangChain4jApp.Assistant.class)
                .chatModel(new LangChain4jApp.ScriptedModel(scenario))
                .tools(new LangChain4jApp.ShopTools())
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                .build();
        try {
            Console.line("ANSWER " + user + ": " + assistant.chat(user, message));
        } catch (RuntimeException e) {
            Console.line("CONVERSATION " + user + " ENDED");
            Console.exception(e);
        }
    }

    /** The application's erasure job: a person asked conversation {@code user}'s service to forget them (a configured erasure method). */
    static void forget(String user, String subject) {
        Console.line("FORGOT " + subject + " in " + user);
    }
}
