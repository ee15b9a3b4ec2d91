package demoapp.shutdown;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * Another Java agent (no tracegate import) that, like tracegate, runs its own exit work after the application's shutdown
 * hooks, in the JVM's last system hook slot (9) through {@code JavaLangAccess.registerShutdownHook}. Started before
 * tracegate ({@code -javaagent:other.jar -javaagent:tracegate-agent.jar}) it holds the slot tracegate prefers. Its
 * {@code Premain-Class} is this class, found on the application's class path.
 */
public final class LateHookAgent {
    private LateHookAgent() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) throws Exception {
        Module base = Object.class.getModule();
        instrumentation.redefineModule(base, Set.of(), Map.of("jdk.internal.access", Set.of(LateHookAgent.class.getModule())),
                Map.of(), Set.of(), Map.of());
        Object access = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess").invoke(null);
        Method register = Class.forName("jdk.internal.access.JavaLangAccess")
                .getMethod("registerShutdownHook", int.class, boolean.class, Runnable.class);
        register.invoke(access, 9, false, (Runnable) () -> {
            System.out.println("OTHER AGENT: its late hook ran");
            System.out.flush();
        });
        System.out.println("OTHER AGENT: holds hook slot 9");
        System.out.flush();
    }
}
