package dev.tracegate.agent.instrumentation;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * One place an instrumentation hooks: which types, which of their methods, and the advice class
 * (named by string and read from the agent jar's bytes, never loaded by the agent); optionally a
 * transformer that runs first on each matched type (to read what only the class file knows), and a
 * role: what the instrumentation loses when a type of the point is loaded but none of the methods the
 * points of that role name is found there (a framework version that moved them).
 */
public record HookPoint(ElementMatcher<? super TypeDescription> types,
                        ElementMatcher<? super MethodDescription> methods,
                        String advice,
                        AgentBuilder.Transformer prelude,
                        String role) {

    public HookPoint(ElementMatcher<? super TypeDescription> types, ElementMatcher<? super MethodDescription> methods, String advice) {
        this(types, methods, advice, null, null);
    }

    public HookPoint(ElementMatcher<? super TypeDescription> types, ElementMatcher<? super MethodDescription> methods, String advice,
                     AgentBuilder.Transformer prelude) {
        this(types, methods, advice, prelude, null);
    }

    /**
     * This point with a role: when one of its types is loaded, some point of the same role must find its method there
     * (one of several versions' signatures), else the agent warns that {@code role} is missing. Give a role only where
     * every matched type declares the method in the versions supported (a named class, not "any implementation of").
     */
    public HookPoint role(String role) {
        return new HookPoint(types, methods, advice, prelude, role);
    }
}
