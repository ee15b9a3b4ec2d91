package dev.tracegate.agent.instrumentation;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One place an instrumentation hooks: which types, which of their methods, and the advice class
 * (named by string and read from the agent jar's bytes, never loaded by the agent); optionally a
 * transformer that runs first on each matched type (to read what only the class file knows).
 */
public record HookPoint(ElementMatcher<? super TypeDescription> types,
                        ElementMatcher<? super MethodDescription> methods,
                        String advice,
                        AgentBuilder.Transformer prelude) {

    public HookPoint(ElementMatcher<? super TypeDescription> types, ElementMatcher<? super MethodDescription> methods, String advice) {
        this(types, methods, advice, null);
    }
}
