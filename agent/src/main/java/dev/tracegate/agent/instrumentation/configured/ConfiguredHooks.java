package dev.tracegate.agent.instrumentation.configured;

import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.instrumentation.HookPoint;
import dev.tracegate.agent.instrumentation.Hooks;
import dev.tracegate.agent.core.AgentLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

import java.io.IOException;
import java.security.ProtectionDomain;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isTypeInitializer;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

/** Methods named in the configuration ({@code methods=FILE}): tool calls, CONSENT and ERASURE events. */
public final class ConfiguredHooks implements Hooks {

    private final ConfiguredMethods methods;

    public ConfiguredHooks(ConfiguredMethods methods) {
        this.methods = methods;
    }

    @Override
    public String name() {
        return "configured";
    }

    @Override
    public String marker() {
        return "java.lang.Object";
    }

    /** One warning per entry that no woven method matched (trial9: a nested class written r.App.Bank stayed silent). */
    @Override
    public List<String> unmatchedParts() {
        return methods.unmatchedWarnings(false);
    }

    /** As above; right after an attach they say that classes loaded later are woven when they load (trial17). */
    @Override
    public List<String> unmatchedParts(boolean classesMayLoadLater) {
        return methods.unmatchedWarnings(classesMayLoadLater);
    }

    @Override
    public List<HookPoint> points() {
        if (methods.isEmpty()) {
            return List.of();
        }
        // an interface too: its default (and static) methods have bodies to weave (trial7 finding 17); abstract ones are left out below
        ElementMatcher.Junction<TypeDescription> types = new NamedClass(methods);
        ElementMatcher.Junction<MethodDescription> named = not(isAbstract()).and(not(isConstructor())).and(not(isTypeInitializer()))
                .and(new NamedMethod(methods));
        String self = ConfiguredHooks.class.getName();
        ElementMatcher.Junction<MethodDescription> suspend = new SuspendShape();
        return List.of(
                new HookPoint(types, named.and(returns(void.class)), self + "$VoidAdvice", new ParameterNamesPrelude(methods)),
                new HookPoint(types, named.and(not(returns(void.class))).and(not(suspend)), self + "$ValueAdvice"),
                new HookPoint(types, named.and(suspend), self + "$SuspendAdvice"));
    }

    /**
     * A Kotlin {@code suspend} function as the JVM sees it: a last parameter of type {@code kotlin.coroutines.Continuation}
     * and an {@code Object} result (the value, or the marker {@code COROUTINE_SUSPENDED}). By name: the agent has no
     * Kotlin types.
     */
    static final class SuspendShape extends ElementMatcher.Junction.AbstractBase<MethodDescription> {
        @Override
        public boolean matches(MethodDescription m) {
            return m.getDescriptor().endsWith(ConfiguredMethods.SUSPEND_END);
        }
    }

    /** Reads the woven class's file once for the parameter names that {@code args=*} reports. */
    static final class ParameterNamesPrelude implements AgentBuilder.Transformer {
        private final ConfiguredMethods methods;

        ParameterNamesPrelude(ConfiguredMethods methods) {
            this.methods = methods;
        }

        @Override
        public DynamicType.Builder<?> transform(DynamicType.Builder<?> builder, TypeDescription type, ClassLoader loader,
                                                JavaModule module, ProtectionDomain domain) {
            String name = type.getName();
            try (ClassFileLocator locator = ClassFileLocator.ForClassLoader.of(loader)) {
                ClassFileLocator.Resolution resolution = locator.locate(name);
                if (resolution.isResolved()) {
                    // the methods the weaver weaves here (what NamedMethod and the point's other conditions accept)
                    java.util.Set<String> woven = new java.util.HashSet<>();
                    java.util.Set<MethodRule> applied = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
                    NamedMethod named = new NamedMethod(methods);
                    for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                        if (!m.isAbstract() && !m.isConstructor() && !m.isTypeInitializer() && named.matches(m)) {
                            woven.add(m.getInternalName() + m.getDescriptor());
                            MethodRule rule = methods.findToWeave(name, m.getName(), NamedMethod.notMeantByGlob(m));
                            applied.add(rule);
                            noteShadowed(rule, name, m);
                        }
                    }
                    noteMisses(type, applied, loader, domain, locator);
                    methods.learnParameterNames(name, ParameterNames.read(resolution.resolve()), woven::contains);
                } else {
                    AgentLog.debug("no class file for " + name + ": args=* names its parameters arg0..argN");
                    // an exact name of a class generated at run time (a glob leaves those out): said once per method (trial25 01)
                    NamedMethod named = new NamedMethod(methods);
                    for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                        if (!m.isAbstract() && !m.isConstructor() && !m.isTypeInitializer() && named.matches(m)) {
                            methods.warnNoClassFile(name, m.getName(), m.getParameters().size());
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                AgentLog.warn("cannot read the parameter names of " + name + " (" + e + "): args=* names them arg0..argN");
            }
            // after the names: a subject-param or session-param may name its parameter
            NamedMethod meant = new NamedMethod(methods);
            for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                if (!m.isAbstract() && !m.isConstructor() && !m.isTypeInitializer() && meant.matches(m)) {
                    methods.warnAboutParameterTypes(name, m);
                    methods.warnAboutCaching(name, m, type);
                    methods.learnFutureValue(name, m);
                    methods.warnAboutFlow(name, m);
                    methods.warnAboutNoParameters(name, m);
                    methods.debugWoven(name, m);
                }
            }
            return builder;
        }

        /**
         * The other entries that name a method the weaver gives to {@code rule}: each learns which entry took it, so that
         * its warning says so instead of "matched no method"; a consent or erasure entry that loses its method to another
         * entry is said at once, since the consent or erasure will never be recorded (trial17: a tool glob listed first).
         */
        private void noteShadowed(MethodRule rule, String className, MethodDescription m) {
            boolean glob = NamedMethod.notMeantByGlob(m);
            for (MethodRule other : methods.rules()) {
                if (other == rule || other.shadowedBy != null || (glob && other.methodPattern.indexOf('*') >= 0)
                        || !other.matchesClass(className) || !other.matchesMethod(m.getName())) continue;
                other.shadowedBy = "entry " + rule.where + " (" + rule.kind.name().toLowerCase(java.util.Locale.ROOT) + ", class "
                        + rule.classPattern + ", method " + rule.methodPattern + ") took " + className + "#" + m.getName() + " first";
                // once: the warnings at exit leave it out (MethodRule.shadowWarned)
                if (other.kind != MethodRule.Kind.TOOL && !other.woven && other.shadowWarned.compareAndSet(false, true)) {
                    AgentLog.warn(other.unmatchedWarning());
                }
            }
        }

        /**
         * For each entry naming this class that no method declared here fits: where the class has the method all the same
         * (a body inherited from a base class or an interface's default method, or an abstract method), so that the entry's
         * warning names the class to write instead (trial17). Weave time only.
         */
        private void noteMisses(TypeDescription type, java.util.Set<MethodRule> applied, ClassLoader loader, ProtectionDomain domain,
                                ClassFileLocator locator) {
            java.util.List<String> declared = null;
            for (MethodRule rule : methods.rules()) {
                if (rule.woven || applied.contains(rule) || !rule.matchesClass(type.getName())) continue;
                String hint = null;
                try {
                    if (rule.missHint == null) rule.missHint = hint = missHint(rule, type);
                    else if (rule.classPattern.indexOf('*') < 0) hint = rule.missHint;   // the one class it names, seen before
                } catch (RuntimeException e) {
                    AgentLog.debug("cannot read the super types of " + type.getName() + ": " + e);
                }
                // said at once when the entry can never match this class (trial19: an erasure entry's typo was said only at exit)
                if (declared == null) declared = declaredNames(type);
                boolean glob = rule.methodPattern.indexOf('*') >= 0;
                boolean fits = false, leftOut = false;
                boolean machinery = NamedMethod.isSuspendMachinery(type);   // never woven: said at once (missHint)
                for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                    if (m.isConstructor() || m.isTypeInitializer() || m.isBridge() || !rule.matchesMethod(m.getName())) continue;
                    if (glob && NamedMethod.notMeantByGlob(m)) leftOut = true;
                    else if (!m.isAbstract() && (!machinery || NamedMethod.isSuspendLambdaInvoke(m))) fits = true;
                }
                methods.noteNeverMatches(rule, type.getName(), declared, fits, leftOut, hint,
                        () -> elsewhere(rule, type.getName(), loader, domain, locator));
            }
        }

        /** Class files listed at most, looking for the classes a class glob matches: past it, they are not all known. */
        private static final int MOST_LISTED = 20_000;

        /**
         * Whether a class other than {@code woven} that the class glob of {@code rule} matches declares a method the entry
         * would weave, or may: the classes its pattern matches are listed from the class path of {@code loader} (the
         * directories and jars that hold the pattern's package, and the woven class's own code source) and read without
         * loading them. When they cannot all be listed (a glob over packages, such as {@code *Tools}; a location that is
         * neither a directory nor a jar file; more than {@link #MOST_LISTED} class files), true: the entry may still match,
         * so it is said at exit if it never does. Weave time only, and only when the entry would be said to never match.
         */
        static boolean elsewhere(MethodRule rule, String woven, ClassLoader loader, ProtectionDomain domain, ClassFileLocator locator) {
            String pattern = rule.classPattern;
            int star = pattern.indexOf('*');
            int dot = star < 0 ? -1 : pattern.lastIndexOf('.', star);
            if (dot <= 0 || loader == null) return true;
            String dir = pattern.substring(0, dot).replace('.', '/') + "/";
            java.util.Set<String> names = new java.util.TreeSet<>();
            try {
                java.util.List<java.net.URL> roots = new java.util.ArrayList<>(java.util.Collections.list(loader.getResources(dir)));
                java.net.URL own = domain == null || domain.getCodeSource() == null ? null : domain.getCodeSource().getLocation();
                if (own != null) roots.add(own.getPath().endsWith("/") ? new java.net.URL(own, dir) : new java.net.URL("jar:" + own + "!/" + dir));
                for (java.net.URL root : roots) {
                    if (!listClasses(root, dir, names)) return true;
                }
            } catch (IOException | RuntimeException e) {
                return true;
            }
            boolean methodGlob = rule.methodPattern.indexOf('*') >= 0;
            net.bytebuddy.pool.TypePool pool = net.bytebuddy.pool.TypePool.Default.of(locator);
            for (String name : names) {
                if (name.equals(woven) || !rule.matchesClass(name)) continue;
                net.bytebuddy.pool.TypePool.Resolution r = pool.describe(name);
                if (!r.isResolved()) return true;
                try {
                    for (MethodDescription.InDefinedShape m : r.resolve().getDeclaredMethods()) {
                        if (m.isConstructor() || m.isTypeInitializer() || m.isBridge() || m.isAbstract() || !rule.matchesMethod(m.getName())
                                || (methodGlob && NamedMethod.notMeantByGlob(m))) continue;
                        return true;
                    }
                } catch (RuntimeException e) {
                    return true;   // a class file it cannot read: it may have the method
                }
            }
            return false;
        }

        /**
         * Adds the binary names of the class files under {@code root} (a directory, or a jar's folder, that holds package
         * folder {@code dir}) to {@code names}; false when it cannot list them all (another kind of location, too many).
         */
        private static boolean listClasses(java.net.URL root, String dir, java.util.Set<String> names) throws IOException {
            if ("file".equals(root.getProtocol())) {
                java.nio.file.Path base;
                try {
                    base = java.nio.file.Path.of(root.toURI());
                } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                    return false;
                }
                if (!java.nio.file.Files.isDirectory(base)) return true;   // the own code source without this package
                try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(base)) {
                    for (java.util.Iterator<java.nio.file.Path> it = files.iterator(); it.hasNext(); ) {
                        String rel = base.relativize(it.next()).toString().replace(java.io.File.separatorChar, '/');
                        if (!rel.endsWith(".class")) continue;
                        if (names.size() >= MOST_LISTED) return false;
                        names.add((dir + rel).substring(0, dir.length() + rel.length() - 6).replace('/', '.'));
                    }
                }
                return true;
            }
            if ("jar".equals(root.getProtocol())) {
                String spec = root.getPath();
                int bang = spec.indexOf("!/");
                if (bang < 0 || spec.indexOf("!/", bang + 2) >= 0 || !spec.startsWith("file:")) return false;   // a jar inside a jar
                java.nio.file.Path jar;
                try {
                    jar = java.nio.file.Path.of(new java.net.URI(spec.substring(0, bang)));
                } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                    return false;
                }
                if (!java.nio.file.Files.isRegularFile(jar)) return false;
                try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile(), false)) {
                    for (java.util.Enumeration<java.util.jar.JarEntry> e = file.entries(); e.hasMoreElements(); ) {
                        String n = e.nextElement().getName();
                        if (!n.startsWith(dir) || !n.endsWith(".class") || n.startsWith("META-INF/")) continue;
                        if (names.size() >= MOST_LISTED) return false;
                        names.add(n.substring(0, n.length() - 6).replace('/', '.'));
                    }
                }
                return true;
            }
            return false;
        }

        /** The names of the methods a class declares, as its source has them (no constructors, bridges, lambda bodies). */
        private static java.util.List<String> declaredNames(TypeDescription type) {
            java.util.List<String> out = new java.util.ArrayList<>();
            for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                if (m.isConstructor() || m.isTypeInitializer() || m.isSynthetic() || m.isBridge() || m.getName().startsWith("lambda$")
                        || out.contains(m.getName())) continue;
                out.add(m.getName());
            }
            return out;
        }

        static String missHint(MethodRule rule, TypeDescription type) {
            if (NamedMethod.isSuspendMachinery(type)) {
                String base = type.getSuperClass().asErasure().getName();
                boolean lambda = base.endsWith("SuspendLambda");
                return type.getName() + " is a class kotlinc generates for " + (lambda ? "a suspend lambda" : "a suspend function's continuation")
                        + " (a subclass of " + base + "): its invokeSuspend" + (lambda ? " and create run" : " runs") + " the coroutine's state"
                        + " machine, which the runtime enters again at each resume, so the agent never weaves " + (lambda ? "them" : "it")
                        + " (woven before, each resume was a call in the session default whose result was COROUTINE_SUSPENDED). "
                        + (lambda ? "Name method: invoke, one call of the lambda (its parameters named p1, p2, ... as kotlinc names them), or"
                        + " better make the lambda's body a named suspend fun and configure that (a lambda's class name changes when"
                        + " lambdas are added before it)" : "Configure the suspend fun itself (its class, method: its name)")
                        + " (CONFIG.md, \"Kotlin suspend functions\")";
            }
            for (MethodDescription.InDefinedShape m : type.getDeclaredMethods()) {
                if (m.isAbstract() && rule.matchesMethod(m.getName())) {
                    return type.getName() + "#" + m.getName() + " is abstract" + (type.isInterface() ? " (an interface method)" : "")
                            + ", so there is no body to weave: name the classes that implement it (an anonymous class by its binary name,"
                            + " e.g. r.App$1); a lambda cannot be woven, so supervise the method that calls it (the dispatcher)";
                }
            }
            java.util.ArrayDeque<TypeDescription> next = new java.util.ArrayDeque<>();
            java.util.Set<String> seen = new java.util.HashSet<>();
            addSupertypes(type, next);
            while (!next.isEmpty()) {
                TypeDescription t = next.removeFirst();
                if (!seen.add(t.getName()) || t.represents(Object.class)) continue;
                for (MethodDescription.InDefinedShape m : t.getDeclaredMethods()) {
                    if (!m.isAbstract() && !m.isConstructor() && !m.isTypeInitializer() && !m.isBridge() && rule.matchesMethod(m.getName())
                            && !(rule.methodPattern.indexOf('*') >= 0 && NamedMethod.notMeantByGlob(m))) {
                        return type.getName() + " inherits " + m.getName() + " from " + t.getName()
                                + (t.isInterface() ? " (a default method)" : "") + ", which declares its body: name that class (class: \""
                                + t.getName() + "\")";
                    }
                }
                addSupertypes(t, next);
            }
            return null;
        }

        private static void addSupertypes(TypeDescription type, java.util.ArrayDeque<TypeDescription> into) {
            if (type.getSuperClass() != null) into.addLast(type.getSuperClass().asErasure());
            for (TypeDescription.Generic i : type.getInterfaces()) into.addLast(i.asErasure());
        }
    }

    static final class NamedClass extends ElementMatcher.Junction.AbstractBase<TypeDescription> {
        private final ConfiguredMethods methods;

        NamedClass(ConfiguredMethods methods) {
            this.methods = methods;
        }

        @Override
        public boolean matches(TypeDescription target) {
            return methods.namesClass(target.getName());
        }
    }

    static final class NamedMethod extends ElementMatcher.Junction.AbstractBase<MethodDescription> {
        private final ConfiguredMethods methods;

        NamedMethod(ConfiguredMethods methods) {
            this.methods = methods;
        }

        @Override
        public boolean matches(MethodDescription target) {
            // a bridge only calls the method it bridges, which is woven in its place: woven too, it would be the supervised
            // call with parameters the class file does not name (trial17: a spurious "no parameter names" warning)
            if (target.isBridge()) return false;
            // a suspend lambda's (or a continuation's) state machine: never woven, even when named (said: missHint)
            if (isSuspendMachinery(target.getDeclaringType().asErasure()) && !isSuspendLambdaInvoke(target)) return false;
            return methods.findToWeave(target.getDeclaringType().asErasure().getName(), target.getName(), notMeantByGlob(target)) != null;
        }

        /**
         * A method a glob such as {@code method: "*"} never means, only a rule that names it: an entry point (any
         * static main), the object plumbing (equals, hashCode, toString), a record's accessors, and what the compiler
         * generated (bridges, lambda bodies). A glob over them made HashSet.add a tool call (trial7 finding 16).
         */
        static boolean notMeantByGlob(MethodDescription m) {
            if (isEntryPoint(m) || m.isSynthetic() || m.isBridge() || m.getName().startsWith("lambda$")) return true;
            if (isKotlinLambdaOrContinuation(m.getDeclaringType().asErasure())) return true;
            int params = m.getParameters().size();
            String name = m.getName();
            // an enum's values() and valueOf(String): generated by the compiler, but "mandated", not flagged synthetic (trial17)
            if (m.isStatic() && m.getDeclaringType().asErasure().isEnum()
                    && ((params == 0 && name.equals("values"))
                        || (params == 1 && name.equals("valueOf") && m.getParameters().get(0).getType().represents(String.class)))) return true;
            if (!m.isStatic() && ((params == 0 && (name.equals("hashCode") || name.equals("toString")))
                    || (params == 1 && name.equals("equals") && m.getParameters().get(0).getType().represents(Object.class)))) return true;
            if (params == 0 && !m.isStatic()) {
                TypeDescription owner = m.getDeclaringType().asErasure();
                if (owner.isRecord()) {
                    for (net.bytebuddy.description.type.RecordComponentDescription c : owner.getRecordComponents()) {
                        if (c.getActualName().equals(name)) return true;
                    }
                }
            }
            return isKotlinGenerated(m);
        }

        /**
         * What kotlinc generates for a Kotlin class (one annotated {@code kotlin.Metadata}): a data class's
         * {@code componentN()} and {@code copy(...)} (a data class is recognised by the {@code copy$default} kotlinc always
         * writes beside its {@code copy}, static and returning the class: a Kotlin class can declare neither by hand), and a
         * property's accessors, {@code getX()}/{@code isX()} and {@code setX(v)}, for a property with a backing field of
         * that name and type in the class (or, for a companion object's property, in the class around it). In Kotlin's
         * source these are no functions: {@code req.customer} reads a property, {@code val (who, amount) = req}
         * destructures; woven by a glob, every such read was a tool call in the session of its first argument (trial33
         * 08), as a record's accessors would be. A property with a getter of its own and no backing field (a computed
         * {@code val total get() = ...}) is code the source writes, and stays woven. Weave time only.
         */
        static boolean isKotlinGenerated(MethodDescription m) {
            String name = m.getName();
            int params = m.getParameters().size();
            boolean getter = params == 0 && !m.getReturnType().represents(void.class)
                    && (accessorOf(name, "get") != null || accessorOf(name, "is") != null);
            boolean setter = params == 1 && m.getReturnType().represents(void.class) && accessorOf(name, "set") != null;
            boolean dataMember = !m.isStatic() && (name.equals("copy") || (params == 0 && name.startsWith("component")
                    && name.length() > 9 && name.chars().skip(9).allMatch(c -> c >= '0' && c <= '9')));
            if (!getter && !setter && !dataMember) return false;
            try {
                TypeDescription owner = m.getDeclaringType().asErasure();
                if (!isKotlinClass(owner)) return false;
                if (dataMember && isDataClass(owner)
                        && (!name.equals("copy") || m.getReturnType().asErasure().equals(owner))) return true;
                if (!getter && !setter) return false;
                TypeDescription type = (getter ? m.getReturnType() : m.getParameters().get(0).getType()).asErasure();
                String rest = name.startsWith("is") ? null : accessorOf(name, name.startsWith("get") ? "get" : "set");
                // getX(): field x (or X: `val URL` is getURL()); isX(): field isX; setX(v): field x or isX
                List<String> fields = new java.util.ArrayList<>(3);
                if (rest == null) fields.add(name);
                else {
                    fields.add(Character.toLowerCase(rest.charAt(0)) + rest.substring(1));
                    fields.add(rest);
                    if (name.startsWith("set")) fields.add("is" + rest);
                }
                if (hasField(owner, fields, type)) return true;
                // a companion object's property: its backing field is a static field of the class around it
                TypeDescription outer = owner.getDeclaringType();
                if (outer != null) {
                    for (net.bytebuddy.description.field.FieldDescription.InDefinedShape f : outer.getDeclaredFields()) {
                        if (f.isStatic() && f.getType().asErasure().equals(owner)) return isKotlinClass(outer) && hasField(outer, fields, type);
                    }
                }
                return false;
            } catch (RuntimeException e) {
                return false;   // a type the pool cannot describe: woven as before
            }
        }

        /** The part of {@code name} after an accessor prefix ({@code get}, {@code is}, {@code set}) that starts a capital, or null. */
        private static String accessorOf(String name, String prefix) {
            return name.length() > prefix.length() && name.startsWith(prefix) && Character.isUpperCase(name.charAt(prefix.length()))
                    ? name.substring(prefix.length()) : null;
        }

        private static boolean hasField(TypeDescription owner, List<String> names, TypeDescription type) {
            for (net.bytebuddy.description.field.FieldDescription.InDefinedShape f : owner.getDeclaredFields()) {
                if (names.contains(f.getName()) && f.getType().asErasure().equals(type)) return true;
            }
            return false;
        }

        /** A class kotlinc compiled: annotated {@code kotlin.Metadata} (read by name; no Kotlin class is loaded). */
        static boolean isKotlinClass(TypeDescription type) {
            for (net.bytebuddy.description.annotation.AnnotationDescription a : type.getDeclaredAnnotations()) {
                if (a.getAnnotationType().getName().equals("kotlin.Metadata")) return true;
            }
            return false;
        }

        /** A Kotlin data class: it declares the static {@code copy$default(Owner, ..., int, Object)} kotlinc writes for {@code copy}. */
        private static boolean isDataClass(TypeDescription owner) {
            for (MethodDescription.InDefinedShape d : owner.getDeclaredMethods()) {
                if (d.isStatic() && d.getName().equals("copy$default") && d.getReturnType().asErasure().equals(owner)) return true;
            }
            return false;
        }

        /** The classes kotlinc derives a lambda's or a suspend function's state machine from (kotlin-stdlib's names). */
        private static final java.util.Set<String> KOTLIN_GENERATED_BASES = java.util.Set.of(
                "kotlin.coroutines.jvm.internal.ContinuationImpl", "kotlin.coroutines.jvm.internal.RestrictedContinuationImpl",
                "kotlin.coroutines.jvm.internal.BaseContinuationImpl", "kotlin.coroutines.jvm.internal.SuspendLambda",
                "kotlin.coroutines.jvm.internal.RestrictedSuspendLambda", "kotlin.jvm.internal.Lambda");

        /**
         * A class kotlinc generates for a lambda (a {@code kotlin.jvm.internal.Lambda}) or a suspend function's or suspend
         * lambda's continuation ({@code Owner$f$1}, a {@code ContinuationImpl} or {@code SuspendLambda}): its
         * {@code invoke}, {@code create} and {@code invokeSuspend} run the source's lambda body or resume the function,
         * as a Java lambda's {@code lambda$} body does. Woven by a package glob, a coroutine's body became one tool call
         * with every tool call in it nested, so unsupervised ({@code suspend fun main()}: the refund over the cap ran,
         * trial33 07). Recognised by the superclass's name, which needs no Kotlin class loaded.
         */
        /**
         * A class kotlinc generates for a suspend lambda or a suspend function's state machine (a subclass of kotlin-stdlib's
         * {@code SuspendLambda}, {@code ContinuationImpl} or their bases): its {@code invokeSuspend} (and {@code create}) are
         * not one call each (the runtime re-enters {@code invokeSuspend} at every resume: a CALL per resume in the session
         * default with COROUTINE_SUSPENDED as its result, before), so they are never woven, even under an entry that names
         * the class; a suspend lambda's typed {@code invoke} is ({@link #isSuspendLambdaInvoke}). A plain (non-suspend)
         * lambda's {@code kotlin.jvm.internal.Lambda} class is not one.
         */
        static boolean isSuspendMachinery(TypeDescription owner) {
            try {
                TypeDescription.Generic sup = owner.getSuperClass();
                return sup != null && SUSPEND_BASES.contains(sup.asErasure().getName());
            } catch (RuntimeException e) {
                return false;
            }
        }

        /**
         * A suspend lambda's typed {@code invoke(p1, ..., Continuation): Object}: one call of the lambda (it makes the lambda's
         * state machine with the caller's continuation and runs it), woven as a suspend function.
         */
        static boolean isSuspendLambdaInvoke(MethodDescription m) {
            if (!m.getName().equals("invoke") || !m.getDescriptor().endsWith(ConfiguredMethods.SUSPEND_END)) return false;
            try {
                TypeDescription.Generic sup = m.getDeclaringType().asErasure().getSuperClass();
                return sup != null && sup.asErasure().getName().endsWith("SuspendLambda");
            } catch (RuntimeException e) {
                return false;
            }
        }

        private static final java.util.Set<String> SUSPEND_BASES = java.util.Set.of(
                "kotlin.coroutines.jvm.internal.ContinuationImpl", "kotlin.coroutines.jvm.internal.RestrictedContinuationImpl",
                "kotlin.coroutines.jvm.internal.BaseContinuationImpl", "kotlin.coroutines.jvm.internal.SuspendLambda",
                "kotlin.coroutines.jvm.internal.RestrictedSuspendLambda");

        static boolean isKotlinLambdaOrContinuation(TypeDescription owner) {
            try {
                TypeDescription.Generic sup = owner.getSuperClass();
                return sup != null && KOTLIN_GENERATED_BASES.contains(sup.asErasure().getName());
            } catch (RuntimeException e) {
                return false;   // a superclass the pool cannot describe: not one of kotlin-stdlib's
            }
        }

        /**
         * A program's entry point, which a glob such as {@code method: "*"} never means: every static method named
         * {@code main}, whatever its parameters and result (Java's {@code main(String[])}; Kotlin's {@code fun main()},
         * compiled to a static {@code main()} beside a synthetic {@code main(String[])} that calls it, and
         * {@code suspend fun main()}, a static {@code main(Continuation)} returning Object: woven, the whole program was one
         * tool call and every tool call under it nested, so unsupervised, trial33 07), and Java 25's instance
         * {@code void main()} or {@code void main(String[])}.
         */
        static boolean isEntryPoint(MethodDescription m) {
            if (!m.getName().equals("main")) return false;
            if (m.isStatic()) return true;
            int params = m.getParameters().size();
            return m.getReturnType().represents(void.class)
                    && (params == 0 || (params == 1 && m.getParameters().get(0).getType().represents(String[].class)));
        }
    }

    /**
     * A configured method that returns a value: block (throw, or the message when it returns String), redact, suppress;
     * an exception from the method is reported as an error RETURN and reaches the host unchanged.
     */
    public static final class ValueAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Ruling enter(@Advice.Origin("#t.#m#d") String origin,
                            @Advice.AllArguments(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object[] args,
                            @Advice.This(optional = true) Object self,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgArgs") Object[] called,
                            @Advice.Local("tgId") long id,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgSavedCall") int savedCall,
                            @Advice.Local("tgSavedTool") int savedTool) {
            // the nesting guard is this thread's cell; the exit puts back the value saved here, so a guard an inner
            // call left set (a StackOverflowError unwinding through it) is reset by the outermost call's exit.
            // A StackOverflowError before the increment changes nothing: it reaches the host and the method does not run.
            depth = Dispatcher.depthCell();
            saved = depth[0];
            savedCall = depth[2];   // the running configured call's entry and tool (nested: true), put back at exit
            savedTool = depth[3];
            depth[0] = saved + 1;
            try {
                outer = saved == 0 || Dispatcher.supervisesNested(origin);   // nested: only if its rule asks (see MethodRule)
                if (!outer) {
                    return null;
                }
                // the exit reports the RETURN with the arguments of the call as it ran: one array per call, read here once
                // (each read of an @AllArguments parameter in inlined advice builds a new array: 32 B more, session 24)
                called = args;
                // this invocation's id tg-N, kept as N: its CALL and its RETURN carry it (overlapping calls stay apart), and its
                // text is made only where it is read (the audit line, a refusal), not per call (88 B, session 24)
                id = Dispatcher.newCallNumber();
                Ruling ruling = Dispatcher.onMethodCall(origin, self, called, id);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.UNSUPERVISED) {
                    outer = false;   // no contract saw the call: its result is not reported (it would count a call never checked)
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    if (ruling.values != null) {
                        try {
                            args = ruling.values;   // casts each value to its parameter's type
                        } catch (Throwable failed) {
                            // a redaction this advice cannot apply never runs the call with the original arguments
                            return Dispatcher.adviceFailed("configured", origin, failed, ruling);
                        }
                        called = ruling.values;
                    }
                    return null;
                }
                return ruling;
            } catch (Throwable failed) {
                // the advice's own failure (a StackOverflowError in a deep recursion): counted and decided by the fail
                // policy. The guard is put back first, with no call, so that a second overflow here leaves nothing set.
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("configured", origin, failed, null);
                depth[0] = saved + 1;
                outer = refusal != null;   // closed: the exit carries out the refusal; open: the call runs unsupervised
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.This(optional = true) Object self,
                         @Advice.Origin("#t.#m#d") String origin,
                         @Advice.Origin("#r") String returnType,
                         @Advice.Origin Class<?> owner,
                         @Advice.Local("tgArgs") Object[] args,
                         @Advice.Local("tgId") long id,
                         @Advice.Thrown Throwable thrown,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgSavedCall") int savedCall,
                         @Advice.Local("tgSavedTool") int savedTool) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: this cannot overflow the stack, whatever unwinds the method
                depth[2] = savedCall;
                depth[3] = savedTool;
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if ("java.util.concurrent.CompletableFuture".equals(returnType) || "java.util.concurrent.CompletionStage".equals(returnType)
                        || "java.util.concurrent.Future".equals(returnType)) {
                    result = Dispatcher.refusedFuture(origin, skipped);   // the refusal inside the future, as a withheld value is
                    return;
                }
                if (skipped.kind != Ruling.THROW && "java.lang.String".equals(returnType)) {
                    result = skipped.text;
                    return;
                }
                // a Map holding the refusal, or a Mono/Single/Maybe that emits it or fails with it; else thrown
                Object instead = "java.lang.String".equals(returnType) ? null : Dispatcher.refusedValue(origin, owner, skipped);
                if (instead == null) {
                    throw skipped.violation();
                }
                result = instead;
                return;
            }
            if (thrown != null) {
                // the RETURN carries the exception; the host's own exception is rethrown after this advice, unchanged
                Dispatcher.onMethodThrown(origin, self, args, thrown, id);
                return;
            }
            Object replacement = Dispatcher.onMethodResult(origin, self, args, result, id);
            if (replacement instanceof dev.tracegate.agent.bootstrap.TracegateViolation) {
                throw (dev.tracegate.agent.bootstrap.TracegateViolation) replacement;   // block-style: exception withholds by throwing
            }
            if (replacement instanceof String) {
                if ("java.lang.String".equals(returnType)) {
                    result = replacement;
                } else {
                    // an object result cannot carry the notice: it is withheld by throwing, as a block of such a method is
                    throw new dev.tracegate.agent.bootstrap.TracegateViolation((String) replacement);
                }
            } else if (replacement != null) {
                result = replacement;   // a future whose value is checked when it completes, of a type the method declares
            }
        }
    }

    /**
     * A configured Kotlin {@code suspend} method ({@link SuspendShape}): one call however often it suspends. Its first entry
     * is the call ({@link Dispatcher#onSuspendCall}: the event without the trailing continuation; a call that goes on runs
     * with the agent's continuation in place of the caller's, which checks the value when it arrives); a re-entry of its
     * state machine at a resume ({@link Dispatcher#resumed}) is no call and reports nothing. A value returned without
     * suspending is checked at exit; {@code COROUTINE_SUSPENDED} is never a result. A refusal is the refusal text for a
     * {@code suspend fun ...: String} under substitute, else TracegateViolation thrown into the coroutine.
     */
    public static final class SuspendAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Ruling enter(@Advice.Origin("#t.#m#d") String origin,
                            @Advice.Origin Class<?> owner,
                            @Advice.AllArguments(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object[] args,
                            @Advice.This(optional = true) Object self,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgArgs") Object[] called,
                            @Advice.Local("tgId") String id,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgSavedCall") int savedCall,
                            @Advice.Local("tgSavedTool") int savedTool) {
            depth = Dispatcher.depthCell();
            saved = depth[0];
            savedCall = depth[2];
            savedTool = depth[3];
            depth[0] = saved + 1;   // a resume holds the level too: what the function calls after it is nested as before it
            try {
                Object[] all = args;   // read once: each read of an @AllArguments parameter builds a new array
                if (Dispatcher.resumed(all[all.length - 1])) {
                    // the state machine resumes a call that began before: no call (its value is checked on arrival); the
                    // conversation last noted on this thread may be another coroutine's, so its body's consent finds none
                    Dispatcher.forgetCallSession();
                    return null;
                }
                outer = saved == 0 || Dispatcher.supervisesNested(origin);
                if (!outer) {
                    return null;
                }
                called = all;
                id = Dispatcher.newCallId();
                Ruling ruling = Dispatcher.onSuspendCall(origin, owner, self, called, id);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.UNSUPERVISED) {
                    outer = false;
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    if (ruling.values != null) {
                        try {
                            args = ruling.values;   // the arguments (redacted or not) and the agent's continuation
                        } catch (Throwable failed) {
                            return Dispatcher.adviceFailed("configured", origin, failed, ruling);
                        }
                        called = ruling.values;
                    }
                    return null;
                }
                return ruling;
            } catch (Throwable failed) {
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("configured", origin, failed, null);
                depth[0] = saved + 1;
                outer = refusal != null;
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.This(optional = true) Object self,
                         @Advice.Origin("#t.#m#d") String origin,
                         @Advice.Local("tgArgs") Object[] args,
                         @Advice.Local("tgId") String id,
                         @Advice.Thrown Throwable thrown,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgSavedCall") int savedCall,
                         @Advice.Local("tgSavedTool") int savedTool) {
            if (depth != null) {
                depth[0] = saved;
                depth[2] = savedCall;
                depth[3] = savedTool;
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                Object refusal = Dispatcher.refusedSuspend(origin, skipped);
                if (refusal instanceof dev.tracegate.agent.bootstrap.TracegateViolation) {
                    throw (dev.tracegate.agent.bootstrap.TracegateViolation) refusal;
                }
                result = refusal;
                return;
            }
            if (thrown != null) {
                Dispatcher.onMethodThrown(origin, self, args, thrown, id);   // thrown before it suspended: its continuation is never resumed
                return;
            }
            if (Dispatcher.suspended(result)) {
                return;   // the value comes later, to the agent's continuation, which checks it
            }
            Object out = Dispatcher.onSuspendResult(origin, self, args, result, id);
            if (out instanceof dev.tracegate.agent.bootstrap.TracegateViolation) {
                throw (dev.tracegate.agent.bootstrap.TracegateViolation) out;
            }
            result = out;
        }
    }

    /**
     * A configured void method: CONSENT / ERASURE events, or a tool call that can be blocked (throw) or redacted;
     * an exception from a tool method is reported as an error RETURN and reaches the host unchanged.
     */
    public static final class VoidAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Ruling enter(@Advice.Origin("#t.#m#d") String origin,
                            @Advice.AllArguments(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object[] args,
                            @Advice.This(optional = true) Object self,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgArgs") Object[] called,
                            @Advice.Local("tgId") String id,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgSavedCall") int savedCall,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgAtReturn") boolean atReturn) {
            // the nesting guard is this thread's cell; the exit puts back the value saved here, so a guard an inner
            // call left set (a StackOverflowError unwinding through it) is reset by the outermost call's exit.
            // A StackOverflowError before the increment changes nothing: it reaches the host and the method does not run.
            depth = Dispatcher.depthCell();
            saved = depth[0];
            savedCall = depth[2];   // the running configured call's entry and tool (nested: true), put back at exit
            savedTool = depth[3];
            depth[0] = saved + 1;
            try {
                outer = saved == 0 || Dispatcher.supervisesNested(origin);   // nested: only if its rule asks (see MethodRule)
                if (!outer) {
                    return null;
                }
                // the exit reports the RETURN with the arguments of the call as it ran: one array per call, read here once
                // (each read of an @AllArguments parameter in inlined advice builds a new array: 32 B more, session 24)
                called = args;
                id = Dispatcher.newCallId();   // this invocation's: its CALL and its RETURN carry it (overlapping calls stay apart)
                Ruling ruling = Dispatcher.onMethodCall(origin, self, called, id);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.UNSUPERVISED) {
                    outer = false;   // no contract saw the call: its result is not reported (it would count a call never checked)
                    return null;
                }
                if (ruling == Ruling.AT_RETURN) {
                    atReturn = true;   // a consent's grant: reported when the method returns normally
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    if (ruling.values != null) {
                        try {
                            args = ruling.values;   // casts each value to its parameter's type
                        } catch (Throwable failed) {
                            // a redaction this advice cannot apply never runs the call with the original arguments
                            return Dispatcher.adviceFailed("configured", origin, failed, ruling);
                        }
                        called = ruling.values;
                    }
                    return null;
                }
                return ruling;
            } catch (Throwable failed) {
                // the advice's own failure (a StackOverflowError in a deep recursion): counted and decided by the fail
                // policy. The guard is put back first, with no call, so that a second overflow here leaves nothing set.
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("configured", origin, failed, null);
                depth[0] = saved + 1;
                outer = refusal != null;   // closed: the exit carries out the refusal; open: the call runs unsupervised
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.This(optional = true) Object self,
                         @Advice.Origin("#t.#m#d") String origin,
                         @Advice.Local("tgArgs") Object[] args,
                         @Advice.Local("tgId") String id,
                         @Advice.Thrown Throwable thrown,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgSavedCall") int savedCall,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgAtReturn") boolean atReturn) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: this cannot overflow the stack, whatever unwinds the method
                depth[2] = savedCall;
                depth[3] = savedTool;
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                throw skipped.violation();
            }
            if (thrown != null) {
                // the RETURN carries the exception; the host's own exception is rethrown after this advice, unchanged
                Dispatcher.onMethodThrown(origin, self, args, thrown, id);
            } else if (atReturn) {
                Dispatcher.onMethodResult(origin, self, args, null, id);   // a consent's grant counts: the method stored it
            }
        }
    }
}
