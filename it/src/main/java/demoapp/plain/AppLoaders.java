package demoapp.plain;

import java.io.File;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * What an application server does with its web apps, without the server: each "app" is a {@link URLClassLoader}
 * (parent: the platform loader, as a web app that bundles its own framework copy in WEB-INF/lib) named like the
 * app, holding the app classes and its own LangChain4j jars. The launcher's own class path has no framework.
 * <ul>
 * <li>{@code AppLoaders drop <app classes> <jars dir or class path> [wait]}: (with {@code wait}: prints
 * {@code READY pid=<pid>} and waits for a line on standard input, time to attach the agent) deploys one app, runs one supervised conversation in it
 * (user alice, a lookupCustomer tool call), undeploys it (closes and drops the loader) and asks the GC for it,
 * holding only a weak reference; prints {@code LOADER COLLECTED: true|false}.</li>
 * <li>{@code AppLoaders drop-main <main class> <app classes> <jars dir or class path> [args]}: the same with
 * another app's {@code main} (one that does not exit the JVM).</li>
 * <li>{@code AppLoaders two <app classes> <jars dir A> <jars dir B>}: deploys apps {@code appa} and {@code appb},
 * each with its own framework copy; alice talks once to appb, then twice to appa, each time a lookupCustomer
 * call; prints each conversation's answer or exception.</li>
 * <li>{@code AppLoaders two-forget <app classes> <jars dir A> <jars dir B>}: the same two apps; alice talks to appa,
 * then appb's erasure job forgets alice's subject in appb's conversation alice, then alice talks to appa again and to
 * appb, each time a lookupCustomer call.</li>
 * </ul>
 * The app code it runs is {@code demoapp.langchain4j.TwoConversationsApp#converse}, through reflection, with the
 * thread's context class loader set to the app's loader (as a servlet container does during a request).
 */
public final class AppLoaders {
    private AppLoaders() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "drop" -> {
                if (args.length > 3 && args[3].equals("wait")) {
                    // for an attach: says its pid, then waits for a line on standard input before it deploys
                    System.out.println("READY pid=" + ProcessHandle.current().pid());
                    System.out.flush();
                    new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
                }
                WeakReference<ClassLoader> ref = deployRunUndeploy("appb", urls(args[1], args[2]));
                // bounded, no timing: a loader only the weak reference holds is cleared by the first full GC or so
                for (int i = 0; i < 40 && ref.get() != null; i++) {
                    System.gc();
                    Thread.sleep(50);
                }
                System.out.println("LOADER COLLECTED: " + (ref.get() == null));
            }
            case "drop-main" -> {
                // another app's main (args[1]) in its own loader, with its arguments (args[4..]): Spring AI's, say
                WeakReference<ClassLoader> ref = deployMainUndeploy(args[1], urls(args[2], args[3]),
                        java.util.Arrays.copyOfRange(args, 4, args.length));
                for (int i = 0; i < 40 && ref.get() != null; i++) {
                    System.gc();
                    Thread.sleep(50);
                }
                System.out.println("LOADER COLLECTED: " + (ref.get() == null));
            }
            case "two" -> {
                try (URLClassLoader a = new URLClassLoader("appa", urls(args[1], args[2]), ClassLoader.getPlatformClassLoader());
                     URLClassLoader b = new URLClassLoader("appb", urls(args[1], args[3]), ClassLoader.getPlatformClassLoader())) {
                    converse(b, "alice");
                    converse(a, "alice");
                    converse(a, "alice");
                }
                System.out.println("DONE");
            }
            case "two-forget" -> {
                try (URLClassLoader a = new URLClassLoader("appa", urls(args[1], args[2]), ClassLoader.getPlatformClassLoader());
                     URLClassLoader b = new URLClassLoader("appb", urls(args[1], args[3]), ClassLoader.getPlatformClassLoader())) {
                    converse(a, "alice");
                    forget(b, "alice", "alice@example.com");
                    converse(a, "alice");
                    converse(b, "alice");
                }
                System.out.println("DONE");
            }
            default -> throw new IllegalArgumentException("usage: AppLoaders drop|two|two-forget ...");
        }
        System.exit(0);
    }

    private static WeakReference<ClassLoader> deployRunUndeploy(String name, URL[] urls) throws Exception {
        URLClassLoader app = new URLClassLoader(name, urls, ClassLoader.getPlatformClassLoader());
        converse(app, "alice");
        app.close();
        return new WeakReference<>(app);
    }

    private static WeakReference<ClassLoader> deployMainUndeploy(String main, URL[] urls, String[] args) throws Exception {
        URLClassLoader app = new URLClassLoader("appm", urls, ClassLoader.getPlatformClassLoader());
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(app);
        try {
            Class.forName(main, true, app).getMethod("main", String[].class).invoke(null, (Object) args);
        } finally {
            thread.setContextClassLoader(before);
        }
        app.close();
        return new WeakReference<>(app);
    }

    private static void converse(ClassLoader app, String user) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(app);
        try {
            Class<?> c = Class.forName("demoapp.langchain4j.TwoConversationsApp", true, app);
            Method converse = c.getDeclaredMethod("converse", String.class, String.class, String.class);
            converse.setAccessible(true);
            System.out.println("APP " + app.getName() + " USER " + user);
            converse.invoke(null, user, "lookup", "who is Alice?");
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    /** App {@code app}'s erasure job (as a request of that web app: its loader as the thread's context loader). */
    private static void forget(ClassLoader app, String user, String subject) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader before = thread.getContextClassLoader();
        thread.setContextClassLoader(app);
        try {
            Class<?> c = Class.forName("demoapp.langchain4j.TwoConversationsApp", true, app);
            Method forget = c.getDeclaredMethod("forget", String.class, String.class);
            forget.setAccessible(true);
            forget.invoke(null, user, subject);
        } finally {
            thread.setContextClassLoader(before);
        }
    }

    private static URL[] urls(String classes, String jarsDir) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(new File(classes).toURI().toURL());
        // a directory of jars, or a class path (as Maven resolved it)
        File[] jars = new File(jarsDir).isDirectory() ? new File(jarsDir).listFiles((d, n) -> n.endsWith(".jar"))
                : java.util.Arrays.stream(jarsDir.split(File.pathSeparator)).map(File::new).toArray(File[]::new);
        if (jars == null || jars.length == 0) {
            throw new IllegalArgumentException("no jars in " + jarsDir);
        }
        java.util.Arrays.sort(jars);
        for (File j : jars) {
            urls.add(j.toURI().toURL());
        }
        return urls.toArray(new URL[0]);
    }
}
