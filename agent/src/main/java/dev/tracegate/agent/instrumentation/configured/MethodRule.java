package dev.tracegate.agent.instrumentation.configured;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * One configured method: which classes and methods it names (glob patterns, '*' for any run of
 * characters) and how to read the event from the arguments.
 *
 * <p>Kinds: {@code tool} (a CALL and its RETURN: {@code name=literal|$method|<index>}, {@code args=<index>|*},
 * {@code session=<index>|literal}), {@code consent} ({@code subject}, {@code purpose}, {@code granted}:
 * an index or a literal) and {@code erasure} ({@code subject}, {@code session}).
 *
 * <p>Nesting: a tool method that runs inside another supervised call on the same thread (a tool calling another
 * tool, a wrapper delegating to an overload) is not supervised again unless its rule says {@code nested=true};
 * consent and erasure methods are always supervised, nested or not (a tool that records a consent or performs an
 * erasure is the common case, and a second consent or erasure of the same subject changes nothing).
 */
public final class MethodRule {

    /** What a matching call becomes. */
    public enum Kind { TOOL, CONSENT, ERASURE }

    final Kind kind;
    final String classPattern;
    final String methodPattern;
    final Pattern classRegex;
    final Pattern methodRegex;
    final Map<String, String> fields;
    final String where;
    /** Supervised also when it runs inside another supervised call (always for consent and erasure). */
    final boolean nested;
    /**
     * This entry's 1-based place in the configuration's list (set by {@link ConfiguredMethods}): what a call of a
     * {@code nested} entry notes on its thread, so that the same entry's own delegation is not a second call.
     */
    int entry;
    /** {@code block-style: exception}: a block or a withheld result throws, whatever the method returns and block.style says. */
    final boolean blockThrows;
    /** A method of a class being woven matched this entry (the first that fits it): set once, read for the warning. */
    volatile boolean woven;
    /**
     * A method woven under this entry was called (set when its call site is first resolved, so once per method, not per
     * call): an exact-class tool entry that wove a base class's method none of whose calls came is checked at exit for
     * subclasses that override it (trial46 11).
     */
    volatile boolean ran;
    /**
     * Why a method this entry names went to another entry ({@code entry WHERE (KIND) took CLASS#METHOD first}), or null:
     * set when the weaver meets such a method, read for the warning of an entry that never wove anything.
     */
    volatile String shadowedBy;
    /**
     * The warning of a consent or erasure entry that lost its method was printed when the class was woven: it is not
     * printed again among the unmatched entries' warnings at exit (it was printed twice, in the same words).
     */
    final java.util.concurrent.atomic.AtomicBoolean shadowWarned = new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * The entry was said at weave time to never match a class it names that was loaded without the method (a typo in the
     * method, trial19): not said again among the unmatched entries' warnings at exit.
     */
    final java.util.concurrent.atomic.AtomicBoolean missWarned = new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * Where a class this entry names has the method although the class does not declare a body for it (inherited from
     * a base class or an interface's default, or abstract), with the class to name instead; null when not seen.
     */
    volatile String missHint;
    /**
     * For an exact class name that matched no class so far: the loaded class whose name is nearest (a typo, a package's
     * case, a nested class written with '.'), and how near; null when none was close (trial30 05, 09). Class-load time only.
     */
    volatile String nearClass;
    private volatile int nearDistance = Integer.MAX_VALUE;

    MethodRule(Kind kind, String classPattern, String methodPattern, Map<String, String> fields, String where) {
        this.kind = kind;
        this.classPattern = classPattern;
        this.methodPattern = methodPattern;
        this.classRegex = glob(classPattern);
        this.methodRegex = glob(methodPattern);
        this.fields = fields;
        this.where = where;
        this.nested = kind != Kind.TOOL || "true".equals(fields.get("nested"));
        this.blockThrows = "exception".equalsIgnoreCase(fields.get("block-style"));
    }

    public Kind kind() {
        return kind;
    }

    /**
     * Whether this entry names the class: its pattern matches the binary name, and, for a class glob, the class is not one a
     * library generated at run time around another class ({@link #generatedBy}) unless the glob itself names the generator's
     * mark ({@code demo.Shop$$SpringCGLIB$$*}). A glob means the classes the application's source declares: a Spring proxy
     * {@code demo.AccountService$$SpringCGLIB$$0} woven under {@code demo.Account*} made the proxy's method the outermost
     * call, with no parameter names ({@code arg1}) and a cache hit counted as a call (trial25 01). An exact name is taken as
     * written.
     */
    public boolean matchesClass(String className) {
        return classRegex.matcher(className).matches() && !leftOutAsGenerated(className);
    }

    /** The class pattern matches the name, but as a glob it leaves out the class, a generated one ({@link #generatedBy}). */
    boolean leavesOut(String className) {
        return classRegex.matcher(className).matches() && leftOutAsGenerated(className);
    }

    private boolean leftOutAsGenerated(String className) {
        if (classPattern.indexOf('*') < 0) return false;
        String[] by = generatedBy(className);
        return by != null && !classPattern.contains(by[0]);
    }

    /**
     * For a class whose binary name says that a library generated it at run time around another class (a proxy or an
     * enhanced subclass), the mark in the name and what made it; else null. {@code $$}: the JLS keeps {@code $} for
     * generated code, and javac writes no {@code $$} into a class it compiles, while CGLIB (Spring's
     * {@code $$SpringCGLIB$$}, {@code $$EnhancerBySpringCGLIB$$}, Guice's {@code $$EnhancerByGuice$$}), Javassist
     * ({@code _$$_jvst}) and Weld do; Byte Buddy's default names ({@code $ByteBuddy$}), Hibernate's and Mockito's
     * ({@code $HibernateProxy$}, {@code $MockitoMock$}); a JDK dynamic proxy ({@code $Proxy12}). Also what a framework
     * generates before the run, which javac compiles from no source of the application: Quarkus ArC's
     * {@code AccountService_Subclass} (interceptors, decorators) and {@code AccountService_ClientProxy} (normal scopes),
     * Micronaut's {@code $AccountService$Definition$Intercepted} (AOP; an introduction {@code Repo$Intercepted}) and its
     * bean definitions {@code $AccountService$Definition}, {@code ...$Definition$Exec}: with a glob, a configured method
     * on such a bean was seen twice, at the proxy and at the bean (session 16). A third element, when present, says
     * when it is generated (else at run time). Weave time only.
     */
    static String[] generatedBy(String className) {
        if (className.contains("$$")) {
            String by = className.contains("$$SpringCGLIB$$") || className.contains("$$EnhancerBySpringCGLIB$$")
                    || className.contains("$$FastClassBySpringCGLIB$$") ? "Spring's CGLIB (the proxy of a bean with @Cacheable, @Transactional, @Async, ...)"
                    : className.contains("$$EnhancerByGuice$$") ? "Guice"
                    : className.contains("$$EnhancerByCGLIB$$") || className.contains("$$FastClassByCGLIB$$") ? "CGLIB"
                    : className.contains("_$$_jvst") || className.contains("$$_javassist") ? "Javassist"
                    : className.contains("$$_Weld") ? "Weld"
                    : "a code generator (javac writes no $$ into a class name)";
            return new String[] {"$$", by};
        }
        if (className.contains("$HibernateProxy$")) return new String[] {"$HibernateProxy$", "Hibernate"};
        if (className.contains("$MockitoMock$")) return new String[] {"$MockitoMock$", "Mockito"};
        if (className.contains("$ByteBuddy$")) return new String[] {"$ByteBuddy$", "Byte Buddy"};
        if (className.endsWith("_Subclass")) {
            return new String[] {"_Subclass", "Quarkus ArC (the subclass of a bean with an interceptor or decorator: @Transactional,"
                    + " @CacheResult, @Retry, ...)", "at build time"};
        }
        if (className.endsWith("_ClientProxy")) {
            return new String[] {"_ClientProxy", "Quarkus ArC (the client proxy of a normal-scoped bean: @ApplicationScoped,"
                    + " @RequestScoped, ...)", "at build time"};
        }
        int dot = className.lastIndexOf('.');
        String simple = className.substring(dot + 1);
        if (className.endsWith("$Intercepted")) {
            return new String[] {"$Intercepted", "Micronaut (the AOP proxy of a bean with around or introduction advice:"
                    + " @Transactional, @Cacheable, @Retryable, @Client, ...)", "at compile time"};
        }
        if (simple.startsWith("$") && simple.contains("$Definition")) {
            return new String[] {"$Definition", "Micronaut (a bean definition, $...$Definition, $Definition$Exec,"
                    + " $Definition$Reference)", "at compile time"};
        }
        if (simple.startsWith("$Proxy") && simple.length() > 6) {
            for (int i = 6; i < simple.length(); i++) if (!Character.isDigit(simple.charAt(i))) return null;
            return new String[] {"$Proxy", "the JDK (a dynamic proxy)"};
        }
        return null;
    }

    /**
     * The class a generated class was made from (where a class glob sees the call), from its name and {@code mark}
     * ({@link #generatedBy}); null when the name does not say (a JDK proxy). Weave time only.
     */
    static String generatedFrom(String className, String mark) {
        if (mark.equals("$Proxy")) return null;
        int dot = className.lastIndexOf('.');
        String pkg = className.substring(0, dot + 1);
        String simple = className.substring(dot + 1);
        if (mark.equals("$Intercepted") || mark.equals("$Definition")) {
            // Micronaut: $AccountService$Definition$Intercepted, $AccountService$Definition, an introduction Repo$Intercepted
            String s = simple.endsWith("$Intercepted") ? simple.substring(0, simple.length() - "$Intercepted".length()) : simple;
            if (s.startsWith("$")) {
                s = s.substring(1);
                int d = s.indexOf("$Definition");
                if (d >= 0) s = s.substring(0, d);
                else if (s.endsWith("Definition")) s = s.substring(0, s.length() - "Definition".length());
            }
            return s.isEmpty() ? null : pkg + s;
        }
        int at = className.indexOf(mark);
        if (at <= 0) return null;
        return className.substring(0, className.startsWith("_", at - 1) && !mark.startsWith("_") ? at - 1 : at);
    }

    /**
     * Notes a loaded class that this entry's exact class name does not match but likely means: the same package but for
     * case, or the same simple name, and at most 2 edits away in all (a '$' read as '.', so {@code r.App.Bank} finds
     * {@code r.App$Bank}). Called at class load for a class no entry names; cheap for a class that is not near.
     */
    void noteNear(String className) {
        if (woven || classPattern.indexOf('*') >= 0 || nearDistance == 0) return;
        int len = classPattern.length();
        if (Math.abs(className.length() - len) > 2) return;
        String dotted = className.replace('$', '.');
        int pd = classPattern.lastIndexOf('.');
        int cd = dotted.lastIndexOf('.');
        if (pd < 0 || cd < 0) return;
        boolean samePackage = pd == cd && classPattern.regionMatches(true, 0, dotted, 0, pd);
        boolean sameSimple = len - pd == dotted.length() - cd && classPattern.regionMatches(true, pd, dotted, cd, len - pd);
        if (!samePackage && !sameSimple) return;
        int d = dev.tracegate.contracts.library.Spelling.distance(classPattern, className);   // r.App.Bank for r.App$Bank: 1
        if (d <= 2 && d < nearDistance) {
            nearDistance = d;
            nearClass = className;
        }
    }

    public boolean matchesMethod(String methodName) {
        return methodRegex.matcher(methodName).matches();
    }

    String field(String key) {
        return fields.get(key);
    }

    /**
     * The warning for an entry that no woven method matched: where it is written, what it names, and, for a class
     * pattern that reads like a nested class in its source spelling ({@code r.App.Bank}), the binary name with {@code $}.
     */
    String unmatchedWarning() {
        return unmatchedWarning(false);
    }

    /**
     * As above; {@code classesMayLoadLater} (right after an attach) says what is true then: no class loaded so far has
     * the method, and a class that loads later (a plugin) is woven when it loads.
     */
    String unmatchedWarning(boolean classesMayLoadLater) {
        String hint = "";
        int dot = classPattern.lastIndexOf('.');
        String near = nearClass;
        if (near != null) {
            hint = near.replace('$', '.').equals(classPattern)
                    ? "; a nested class is named with $ (its binary name): did you mean " + near + "? (a class of that name was loaded)"
                    : "; did you mean " + near + "? (a class of that name was loaded)";
        } else if (dot > 0 && classPattern.indexOf('$') < 0 && dot + 1 < classPattern.length()
                && Character.isUpperCase(classPattern.charAt(dot + 1))) {
            int outer = classPattern.lastIndexOf('.', dot - 1) + 1;
            String nested = classPattern.substring(0, dot) + "$" + classPattern.substring(dot + 1);
            // only a nested class that exists (trial30 09: a package's case typo got "did you mean com.vendor.agent.Internal$Bank?")
            if (Character.isUpperCase(classPattern.charAt(outer)) && onClassPath(nested)) {
                hint = "; a nested class is named with $ (its binary name): did you mean " + nested + "?";
            }
        }
        String entry = "configured-methods entry " + where + " (class "
                + classPattern + ", method " + methodPattern + ")";
        String shadow = shadowedBy;
        if (shadow != null) {
            // the class was loaded and has the method, and its calls are supervised: under the other entry's kind
            return entry + " never applied: " + shadow + ", so its calls were supervised as that entry says, not as this one"
                    + (kind == Kind.TOOL ? "" : " (no " + kind.name().toLowerCase(java.util.Locale.ROOT) + " was recorded)")
                    + ". An entry whose method has no * wins over one whose method is a glob, and of two alike the first listed wins:"
                    + " list this entry before that one, or narrow that one's class or method";
        }
        String miss = missHint;
        if (classesMayLoadLater) {
            return entry + " matches no method of the classes loaded so far; a class loaded later (a plugin) is woven when it"
                    + " loads, and the entry is checked again at exit" + (miss != null ? "; " + miss : hint);
        }
        return entry + " matched no method of any loaded class, so its calls were NOT supervised" + (miss != null ? "; " + miss : hint);
    }

    /** Whether the application's class loader (or this thread's) finds a class file of that binary name. Exit time only. */
    static boolean onClassPath(String binaryName) {
        String file = binaryName.replace('.', '/') + ".class";
        try {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            if (context != null && context.getResource(file) != null) return true;
            return ClassLoader.getSystemClassLoader().getResource(file) != null;
        } catch (RuntimeException e) {
            return true;   // cannot tell: the hint may help
        }
    }

    private static Pattern glob(String glob) {
        StringBuilder regex = new StringBuilder();
        String[] parts = glob.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(regex.toString());
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + classPattern + "#" + methodPattern + " " + fields + " (" + where + ")";
    }
}
