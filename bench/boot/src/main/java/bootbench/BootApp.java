package bootbench;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot service with a Spring AI agent, for measuring the JVM start-up the agent adds: the context starts, one
 * chat turn runs (the model asks for one tool, the tool runs, the model answers), and the JVM exits.
 */
@SpringBootApplication
public class BootApp {

    public static void main(String[] args) {
        SpringApplication.run(BootApp.class, args).close();
    }

    @Bean
    ChatModel chatModel() {
        return new ScriptedModel();
    }

    @Bean
    CommandLineRunner oneTurn(ChatModel model, CatalogueTools tools) {
        return args -> {
            String answer = ChatClient.builder(model).defaultTools(tools).build()
                    .prompt().user("search lamps").call().content();
            System.out.println("ANSWER " + answer);
        };
    }
}
