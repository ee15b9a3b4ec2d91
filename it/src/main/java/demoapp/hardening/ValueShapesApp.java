package demoapp.hardening;

import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A host whose configured tools ({@code class: demoapp.hardening.ValueShapesApp$Tools, method: "*"}) take and return
 * values of awkward shapes: a recursion that overflows the stack, and what the agent's JSON writer must not choke on
 * or change. Each argument is a command; each prints one line.
 */
public final class ValueShapesApp {
    private ValueShapesApp() {
    }

    /** The configured methods. */
    public static final class Tools {
        public int rec(String session, int n) {
            return rec(session, n + 1) + 1;
        }

        public String forbidden(String session) {
            return "FORBIDDEN RAN";
        }

        public Object fetch(String session, int depth) {
            Object o = "the secret is 42";
            for (int i = 0; i < depth; i++) o = List.of(o);
            return o;
        }

        public Map<String, Object> fetchCyclic(String session) {
            Map<String, Object> m = new HashMap<>();
            m.put("note", "the secret is 42");
            m.put("self", m);
            return m;
        }

        public String sumIt(String session, Iterator<Integer> it) {
            int s = 0;
            while (it.hasNext()) s += it.next();
            return "sum=" + s;
        }

        public String iter(String session, Iterable<Integer> it) {
            int s = 0;
            for (int i : it) s += i;
            return "sum=" + s;
        }

        public String count(String session, Counter c) {
            return "getNext calls=" + c.peek();
        }

        public Iterator<Integer> items(String session) {
            return List.of(1, 2, 3).iterator();
        }

        public String firstTen(String session, Iterator<Integer> it) {
            int s = 0;
            for (int i = 0; i < 10; i++) s += it.next();
            return "first ten=" + s;
        }

        public String size(String session, List<String> l) {
            return "size=" + l.size();
        }
    }

    /** A bean whose getter has a side effect. */
    public static final class Counter {
        private int reads;
        private final String owner = "ada";

        public int getNext() {
            return ++reads;
        }

        public int peek() {
            return reads;
        }

        public String getOwner() {
            return owner;
        }
    }

    private static String call(java.util.function.Supplier<Object> call) {
        try {
            Object r = call.get();
            // a Map tool's refusal is a map {error: text} since session 23: printed with its text; any other value by its class
            if (r instanceof Map<?, ?> m && m.size() == 1 && m.get("error") instanceof String text) return "HOST GOT {error=" + text + "}";
            return "HOST GOT " + (r instanceof String ? r : r.getClass().getSimpleName());
        } catch (RuntimeException refused) {
            return "refused: " + refused.getMessage();
        }
    }

    static int pad(int frames, Tools tools) {
        if (frames == 0) {
            try {
                tools.rec("s1", 0);
            } catch (StackOverflowError expected) {
                // the host's own recovery
            }
            return 0;
        }
        return pad(frames - 1, tools) + 1;
    }

    public static void main(String[] args) {
        Tools tools = new Tools();
        for (String command : args) {
            switch (command) {
                case "overflow" -> {
                    // the overflow starts from 60 stack depths, so that it strikes every part of the woven advice
                    int blocked = 0, ran = 0;
                    for (int frames = 0; frames < 60; frames++) {
                        pad(frames, tools);
                        String r;
                        try {
                            r = tools.forbidden("s1");
                        } catch (RuntimeException refused) {
                            r = "refused: " + refused.getMessage();
                        }
                        if (r.contains("FORBIDDEN RAN")) ran++;
                        else blocked++;
                    }
                    System.out.println("overflow: blocked=" + blocked + " ran=" + ran);
                }
                case "deep-result" -> {
                    System.out.println("deep 1: " + call(() -> tools.fetch("s1", 1)));
                    System.out.println("deep 5000: " + call(() -> tools.fetch("s1", 5000)));
                }
                case "cyclic-result" -> System.out.println("cyclic: " + call(() -> tools.fetchCyclic("s1")));
                case "iterators" -> {
                    System.out.println("iterator: " + tools.sumIt("s1", List.of(1, 2, 3).iterator()));
                    Iterable<Integer> once = new Iterable<>() {
                        boolean used;

                        @Override
                        public Iterator<Integer> iterator() {
                            if (used) return Collections.emptyIterator();
                            used = true;
                            return List.of(1, 2, 3).iterator();
                        }
                    };
                    System.out.println("one-shot iterable: " + tools.iter("s1", once));
                    Iterator<Integer> r = tools.items("s1");
                    int s = 0;
                    while (r.hasNext()) s += r.next();
                    System.out.println("iterator result: sum=" + s);
                    System.out.println("bean: " + tools.count("s1", new Counter()));
                    System.out.println("endless: " + tools.firstTen("s1", Stream.iterate(1, i -> i + 1).iterator()));
                }
                case "huge-list" -> System.out.println("huge list: " + call(() -> tools.size("s1", Collections.nCopies(2_000_000_000, "x"))));
                default -> throw new IllegalArgumentException("unknown command " + command);
            }
        }
    }
}
