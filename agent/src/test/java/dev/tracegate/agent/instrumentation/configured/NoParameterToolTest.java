package dev.tracegate.agent.instrumentation.configured;

import net.bytebuddy.description.method.MethodDescription;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 06: the Anthropic SDK's BetaToolRunner calls {@code Supplier<String>#get()} on a tool object whose fields it
 * filled from the model's input. Configured as a tool, each call's arguments were {@code {}} and
 * {@code G !call(send_email, "evil")} let the mail to evil through, silently. Such a method is said when it is woven.
 */
class NoParameterToolTest {

    /** A command-pattern tool: its input sits in its fields. */
    public static final class SendEmail implements Supplier<String> {
        public String to;
        public String body;

        @Override
        public String get() {
            return "sent to " + to;
        }

        public String send(String to, String body) {
            return "sent to " + to;
        }
    }

    /** A stateless tool without input: nothing to say. */
    public static final class Clock {
        private final String zone = "UTC";

        public String now() {
            return zone;
        }
    }

    @Test
    void aToolMethodWithNoParametersIsSaidOnceWhenWoven() throws Exception {
        String name = SendEmail.class.getName();
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + name + "#get name=send_email", "tool " + name + "#send"));
        MethodDescription get = new MethodDescription.ForLoadedMethod(SendEmail.class.getDeclaredMethod("get"));
        MethodDescription send = new MethodDescription.ForLoadedMethod(SendEmail.class.getDeclaredMethod("send", String.class, String.class));
        String log = SubjectParametersTest.captured(() -> {
            m.warnAboutNoParameters(name, get);
            m.warnAboutNoParameters(name, get);
            m.warnAboutNoParameters(name, send);
        });
        assertThat(log).startsWith("[tracegate] WARN configured method " + name + "#get (m.txt:1) takes no parameters, so each call's"
                        + " arguments are {}: its input (the fields of the object it is called on")
                .contains("no contract on arguments acts on it (arg(T, f), call(T, \"text\")")
                .contains("Add args-param: this to the entry to make the fields of the object it is called on its arguments");
        assertThat(log.split("WARN", -1)).as("once per method, and not for a method with parameters").hasSize(2);
        ConfiguredMethods glob = ConfiguredMethods.parse("m.txt", List.of("tool " + name + "#*", "tool " + Clock.class.getName() + "#now"));
        MethodDescription now = new MethodDescription.ForLoadedMethod(Clock.class.getDeclaredMethod("now"));
        assertThat(SubjectParametersTest.captured(() -> {
            glob.warnAboutNoParameters(name, get);
            glob.warnAboutNoParameters(Clock.class.getName(), now);
        })).as("a glob's no-argument methods and a tool with no state set before the call are tools without input").isEmpty();
    }
}
