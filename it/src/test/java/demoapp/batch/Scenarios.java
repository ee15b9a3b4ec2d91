package demoapp.batch;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs an application's {@code main} several times in this JVM, one scenario after the other:
 * {@code Scenarios MAIN_CLASS ARGS... [--- ARGS...]...}. Each scenario is framed on standard output by
 * {@code === scenario N begins: ARGS} and {@code === scenario N ends} (or {@code === scenario N threw: E}, after the
 * exception's stack trace on standard error); the JVM exits 1 if any scenario threw. A scenario whose application ends
 * the JVM itself ({@code System.exit}) is framed by {@code === scenario N exits the JVM} instead, and no scenario runs
 * after it. Used by the tests that run
 * several scenarios of one app under the same agent options in one fork (dev.tracegate.it.ScenarioBatch): the
 * application under test is unchanged and this class, like it, imports nothing of tracegate. One class, no nested
 * classes: the harness copies its class file alone to a directory of its own.
 */
public final class Scenarios {
    public static final String SEPARATOR = "---";
    /** The scenario whose {@code main} runs now (0: none). */
    private static volatile int running;

    private Scenarios() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        List<List<String>> scenarios = new ArrayList<>();
        List<String> current = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals(SEPARATOR)) {
                scenarios.add(current);
                current = new ArrayList<>();
            } else {
                current.add(args[i]);
            }
        }
        scenarios.add(current);
        // an application that ends its JVM itself (System.exit once its work is done) ends the batch: said on the way out
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            int n = running;
            if (n > 0) mark("=== scenario " + n + " exits the JVM");
        }));
        boolean threw = false;
        for (int n = 1; n <= scenarios.size(); n++) {
            List<String> scenario = scenarios.get(n - 1);
            mark("=== scenario " + n + " begins: " + String.join(" ", scenario));
            running = n;
            try {
                main.invoke(null, (Object) scenario.toArray(new String[0]));
                running = 0;
                mark("=== scenario " + n + " ends");
            } catch (InvocationTargetException e) {
                running = 0;
                threw = true;
                System.out.flush();
                e.getCause().printStackTrace();
                mark("=== scenario " + n + " threw: " + e.getCause());
            }
        }
        if (threw) {
            System.exit(1);
        }
    }

    private static void mark(String line) {
        System.out.flush();
        System.out.println(line);
        System.out.flush();
        System.err.println(line);
        System.err.flush();
    }
}
