package dev.tracegate.agent.instrumentation.configured;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The exit warning for an exact-class tool entry whose woven methods never ran while loaded subclasses override them
 * (trial46 11: an entry on Google ADK's {@code BaseTool#runAsync} wove the base body, which every tool overrides, and
 * supervised nothing, silently). An entry weaves the class it names, not the overriding methods of its subclasses, as it
 * weaves no inherited body and no abstract method (CONFIG.md): the warning names the subclasses to write instead.
 * Exit time only: it walks the JVM's loaded classes once per such entry.
 */
final class Overrides {

    /** Overriding methods named at most; the count says how many more. */
    private static final int MOST_NAMED = 5;

    private Overrides() {
    }

    /** The warning for {@code rule}, or null when it is no exact-class tool entry or no loaded subclass overrides its methods. */
    static String warning(MethodRule rule, java.util.function.Supplier<Class<?>[]> loaded) {
        if (rule.kind != MethodRule.Kind.TOOL || rule.classPattern.indexOf('*') >= 0) return null;
        Class<?>[] all = loaded.get();
        if (all == null) return null;
        TreeSet<String> overriders = new TreeSet<>();
        TreeSet<String> woven = new TreeSet<>();
        for (Class<?> base : all) {
            if (!base.getName().equals(rule.classPattern) || base.isInterface()) continue;
            List<Method> targets = new ArrayList<>();
            try {
                for (Method m : base.getDeclaredMethods()) {
                    int mod = m.getModifiers();
                    if (m.isBridge() || m.isSynthetic() || Modifier.isAbstract(mod) || Modifier.isStatic(mod) || Modifier.isPrivate(mod)
                            || Modifier.isFinal(mod) || !rule.matchesMethod(m.getName())) continue;
                    targets.add(m);
                }
            } catch (LinkageError | RuntimeException e) {
                continue;
            }
            if (targets.isEmpty()) continue;
            for (Method m : targets) woven.add(base.getName() + "#" + m.getName());
            for (Class<?> sub : all) {
                if (sub == base || sub.isInterface() || !base.isAssignableFrom(sub)) continue;
                try {
                    for (Method m : sub.getDeclaredMethods()) {
                        if (m.isBridge() || Modifier.isStatic(m.getModifiers())) continue;
                        for (Method t : targets) {
                            if (t.getName().equals(m.getName()) && Arrays.equals(t.getParameterTypes(), m.getParameterTypes())) {
                                overriders.add(sub.getName() + "#" + m.getName());
                                break;
                            }
                        }
                    }
                } catch (LinkageError | RuntimeException e) {
                    // a class whose methods cannot be listed (a missing type in a signature): not named
                }
            }
        }
        if (overriders.isEmpty()) return null;
        List<String> named = new ArrayList<>(overriders);
        String list = String.join(", ", named.subList(0, Math.min(MOST_NAMED, named.size())))
                + (named.size() > MOST_NAMED ? " and " + (named.size() - MOST_NAMED) + " more" : "");
        String first = named.get(0).substring(0, named.get(0).indexOf('#'));
        return "configured-methods entry " + rule.where + " (tool, class " + rule.classPattern + ", method " + rule.methodPattern
                + ") wove " + String.join(", ", woven) + ", which was never called, while loaded subclasses override it: " + list
                + ". Their calls ran their own bodies and were NOT supervised: an entry weaves only the methods of the class it"
                + " names, not the overriding methods of its subclasses. Name the subclass instead (class: " + first
                + "; one entry per class), or a class glob that matches the subclasses (with tool-name: \"$class\" to tell them apart)";
    }
}
