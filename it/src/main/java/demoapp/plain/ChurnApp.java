package demoapp.plain;

import java.io.IOException;
import java.io.InputStream;

/**
 * {@link ShopApp} {@code wait} in a JVM that defines classes all the time, as one with a script engine, or proxies or
 * lambdas made per request, does: two daemon threads define a small class again and again, each time in a new class
 * loader (so each is a new class; unreferenced, they are unloaded as the collector likes). Prints {@code CHURNING} once
 * each thread has defined its first class, before ShopApp's {@code READY}. Knows nothing of tracegate.
 */
public final class ChurnApp {

    /** The class defined again and again: a script's compiled class, say. */
    public static final class Scripted {
        public int run(int x) {
            return x + 1;
        }
    }

    private static final class OneClass extends ClassLoader {
        OneClass(ClassLoader parent) {
            super(parent);
        }

        Class<?> define(String name, byte[] bytes) {
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    public static void main(String[] args) throws Exception {
        String name = Scripted.class.getName();
        byte[] bytes;
        try (InputStream in = ChurnApp.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            if (in == null) throw new IOException("no class file for " + name);
            bytes = in.readAllBytes();
        }
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> {
                long defined = 0;
                while (true) {
                    new OneClass(ChurnApp.class.getClassLoader()).define(name, bytes);
                    if (++defined == 1) started.countDown();
                }
            }, "churn-" + i);
            t.setDaemon(true);
            t.start();
        }
        started.await();
        System.out.println("CHURNING");
        System.out.flush();
        ShopApp.main(new String[] {"wait"});
    }
}
