package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.bootstrap.WeakIdentityMap;
import dev.tracegate.agent.core.AgentLog;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.isDefaultFinalizer;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;

/**
 * Installs every instrumentation in one Byte Buddy agent builder: advice inlined without class format
 * changes (so already loaded classes are retransformed on attach), types described from bytes, our own
 * and JDK packages ignored, every transformation error reported, and a count of matched methods per
 * instrumentation so that one that matched nothing says so. At JVM start Byte Buddy is only built once
 * a class loader that can see a framework appears (see {@link #install}).
 */
public final class Weaver {

    /** The packages the weaver never touches (Byte Buddy's ignore matcher and, in binary form, the start-up gate). */
    private static final String[] IGNORED = {"dev.tracegate.", "net.bytebuddy.", "java.", "javax.", "jdk.", "sun.", "com.sun."};
    /**
     * Packages of libraries that no framework hook point can match (none of them holds, or implements for an application,
     * a tool, model or MCP type of LangChain4j, Spring AI or the MCP SDK): a Spring Boot service loads thousands of their
     * classes after the first framework class, and Byte Buddy would read each one's class file and walk its super types
     * for every hook point ("implements ToolCallback?"); skipping them by name took trial25's Spring Boot + Spring AI
     * start from +3.5 s of CPU to about +1 s. Spring AI itself ({@code org.springframework.ai.}) is not among them, and a
     * configured method whose pattern names a class here is still woven ({@link #passedOver}).
     */
    private static final String[] INFRASTRUCTURE = {"org.springframework.", "tools.jackson.", "com.fasterxml.", "reactor.",
        "org.reactivestreams.", "io.netty.", "io.micrometer.", "ch.qos.logback.", "org.slf4j.", "org.apache.logging.",
        "org.apache.catalina.", "org.apache.coyote.", "org.apache.tomcat.", "org.apache.commons.", "org.apache.hc.",
        "org.hibernate.", "org.jboss.", "org.eclipse.jetty.", "io.undertow.", "org.glassfish.", "jakarta.", "kotlin.",
        "kotlinx.", "scala.", "groovy.", "org.codehaus.groovy.", "com.google.common.", "com.google.protobuf.",
        "com.google.gson.", "org.yaml.snakeyaml.", "com.github.victools.", "org.aspectj.", "org.objectweb.asm.",
        "com.zaxxer.hikari.", "io.grpc.", "okhttp3.", "okio.", "io.opentelemetry.", "org.junit.", "org.assertj."};
    /** The one package under {@link #INFRASTRUCTURE} that framework hook points match: Spring AI's. */
    private static final String FRAMEWORK_UNDER_INFRASTRUCTURE = "org.springframework.ai.";
    /** The marker of hooks that depend on no framework: every class loader can see it. */
    private static final String ANY_LOADER = "java.lang.Object";
    private static final String ANY_LOADER_RESOURCE = "java/lang/Object.class";

    private final List<Hooks> hooks;
    private final Map<String, AtomicLong> matched = new java.util.LinkedHashMap<>();
    private final Map<String, FrameworkPresence> presence = new java.util.LinkedHashMap<>();
    /**
     * Points read before Byte Buddy is built: those of hooks that every loader can see and no class name
     * narrows (empty when nothing is configured, and then they never wake Byte Buddy).
     */
    private final Map<String, List<HookPoint>> earlyPoints = new java.util.LinkedHashMap<>();
    private final AtomicLong errors = new AtomicLong();
    /** How the retransformation sweep finds the loaded classes (on attach, or at premain when a hooked class is loaded). */
    private final BoundedSweep sweep = new BoundedSweep(SWEEP_PASSES);
    /**
     * Passes over the loaded classes at most in one retransformation sweep: the first goes over all, each next one over
     * those loaded since (quarkus-langchain4j's needs two; a chain of verifications that loads classes for more passes
     * than this is not known).
     */
    static final int SWEEP_PASSES = 10;
    /** Set once Byte Buddy's transformer exists (at install, or when the start-up gate first needs it). */
    private volatile boolean built;
    /**
     * Every hook point with its type matcher, read once when first needed (reading a framework's points loads
     * Byte Buddy's matchers); shared by the start-up gate's matching and the agent builder.
     */
    private volatile List<Target> targets;
    /** Type descriptions per class loader, shared by the gate and the agent builder; created with the targets. */
    private volatile LoaderTypeCache types;
    /** The framework types the points' {@link TypeMatch}es name as super types, found from class files; created with the targets. */
    private volatile SuperTypeNames superTypes;
    /** Classes {@link #mayMatch} let through to Byte Buddy's type matching, and those it passed over (for tests and debug lines). */
    final AtomicLong mayMatchPassed = new AtomicLong();
    final AtomicLong mayMatchRefused = new AtomicLong();

    /** Relocated (shaded) copies of the frameworks, which no hook point matches: warned about when they load. */
    private final RelocatedFrameworks relocations;
    /**
     * Whether some instrumentation has a choke point for {@link #relocations} to watch: then the weaver's own transformer
     * (the start-up gate, or Byte Buddy's behind {@link QuickRejection}) shows it every class being defined.
     */
    private final boolean watchRelocations;

    public Weaver(List<Hooks> hooks) {
        this.hooks = hooks;
        this.relocations = new RelocatedFrameworks(hooks);
        this.watchRelocations = relocations.watches();
        for (Hooks h : hooks) {
            matched.put(h.name(), new AtomicLong());
            presence.put(h.name(), new FrameworkPresence(h.marker()));
            if (h.marker().equals(ANY_LOADER) && h.classNames() == null) {
                earlyPoints.put(h.name(), h.points()); // hooks every loader sees and no name narrows: empty ones must not wake
            }
        }
    }

    /**
     * Installs the instrumentations. On attach (and at premain if a class that a hook could match is
     * already loaded) Byte Buddy is built at once and retransforms what is loaded. Otherwise only classes
     * defined from now on can be woven, through the start-up gate: a class of a loader that can see one of
     * the frameworks (or a class a configured method names) is described from its bytes and matched against
     * every hook point, and Byte Buddy's agent builder (whose transformer generates a class with Byte Buddy
     * itself at creation: most of the 800-odd Byte Buddy classes the agent loads) is built only when the
     * first class matches. A host without the frameworks never describes a class; one with them on its class
     * path but not yet in use (a main class, its start-up code) pays for descriptions only. Either way every
     * class a hook matches is woven before it is first used.
     */
    public void install(Instrumentation instrumentation, ClassLoader agentLoader, boolean attached) {
        // the relocated-copy watch has no transformer of its own: the weaver's one shows it every class being defined
        // ({@link #noteDefined}). A second transformer, not retransformation-capable, put the JVM's second JPLIS
        // environment to work: every class loaded in the JVM crossed into Java twice, each time with its own copy of the
        // class file (4.3 KB of allocation a class for Spring's; bench/boot loads about 8,600 classes)
        try {
            installTransformer(instrumentation, agentLoader, attached);
        } finally {
            // on attach, after the transformer is in place: a copy loaded meanwhile is among the loaded classes it reads
            if (attached && watchRelocations) relocations.scanAtAttach(instrumentation);
        }
    }

    private void installTransformer(Instrumentation instrumentation, ClassLoader agentLoader, boolean attached) {
        if (attached || loadedClassCouldMatch(instrumentation, agentLoader)) {
            long started = System.nanoTime();
            try {
                builder(agentLoader).with(new QuickRejection.Decorator(agentLoader, this::passedOverByName, sweep, this)).installOn(instrumentation);
            } finally {
                sweep.ended();
            }
            built = true;
            AgentLog.debug("start-up: agent builder installed in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            String swept = sweep.summary();
            if (swept != null && (attached || sweep.stopped())) {
                AgentLog.info(swept);
            } else if (swept != null) {
                AgentLog.debug(swept);
            }
        } else {
            StartupGate gate = new StartupGate(this, agentLoader);
            if (wakes(ClassLoader.getSystemClassLoader(), null)) {
                // the application's own loader sees a framework: its classes will be matched from the first one on,
                // so read the hook points and load what matching needs now, while the supervisor is built on the other thread
                long started = System.nanoTime();
                targets(); // a failure here stops the start, as on attach
                matchOnce(agentLoader);
                AgentLog.debug("start-up: hook points read in " + (System.nanoTime() - started) / 1_000_000
                        + " ms; the agent builder waits for the first class that one matches");
            } else {
                AgentLog.debug("start-up: weaver waits for the first class loader that can see " + wakingMarkers());
            }
            instrumentation.addTransformer(gate, true);
        }
    }

    /** The agent builder with every hook point; building it loads most of the Byte Buddy classes the agent uses. */
    private AgentBuilder builder(ClassLoader agentLoader) {
        List<Target> all = targets();
        // advice goes into declared methods only: the method graph of the whole hierarchy (every super type's methods with
        // their generic signatures resolved) that a redefinition computes is not needed, and a decoration rewrites the class
        // file's declared methods in place (bench/boot: 10 woven classes, 17 ms of the loading thread each, much of it
        // describing super types)
        AgentBuilder builder = withoutNexus(() -> new AgentBuilder.Default(new ByteBuddy().ignore(isDefaultFinalizer())
                        .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE)))
                // inlined advice leaves no initializer to run: no Nexus class in the host's loaders is ever needed
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                // after an attach's sweep, again over the classes the sweep itself loaded (a retransformed class's
                // verification loads the types it names: quarkus-langchain4j's AiServiceMethodImplementationSupport
                // loaded ChatModel, which then stayed unwoven, and the next turn's answer went unchecked), until none is
                // new or for SWEEP_PASSES passes at most: an application that defines classes all the time would keep it
                // going for ever (Byte Buddy's Reiterating), and the attach with it
                .with(sweep)
                // classes being defined are described from bytes (no class loading); classes already loaded
                // (the retransformation sweep at install) by reflection: reading thousands of class files
                // again there cost seconds of start-up (POOL_FIRST: 2-3 s, HYBRID: 0.1-0.3 s on a loaded 2-core box)
                .with(AgentBuilder.DescriptionStrategy.Default.HYBRID)
                .with(types)
                // the class file locator ends up in every cached type description (through its type pool): a strong
                // one would make the cache's values hold their own weak key, the loader, so no web app's loader
                // would ever be collected after undeploy (trial35)
                .with(AgentBuilder.LocationStrategy.ForClassLoader.WEAK)
                .with(new ErrorListener(errors))
                // by name before isSynthetic, which reads the class file; a synthetic class is ignored unless a configured
                // method's entry names it (Quarkus ArC's and quarkus-langchain4j's generated classes are ACC_SYNTHETIC:
                // an entry naming one exactly was never woven, and a glob over one never said it left it out)
                .ignore(ignoredNames().or(new ElementMatcher.Junction.AbstractBase<TypeDescription>() {
                    @Override
                    public boolean matches(TypeDescription type) {
                        return passedOver(type.getName());
                    }
                }).or(isSynthetic().and(new ElementMatcher.Junction.AbstractBase<TypeDescription>() {
                    @Override
                    public boolean matches(TypeDescription type) {
                        return !namedByConfiguration(type.getName());
                    }
                })));
        for (Target t : all) {
            // a type that declares none of the point's methods is not rewritten for nothing (Spring AI's StreamAdvisor
            // interface, whose adviseStream is abstract: one of bench/boot's 10 woven classes); advice only ever goes into
            // declared methods, so no method is woven less. A prelude reads the class for itself, so its point keeps the type.
            ElementMatcher.Junction<TypeDescription> types = t.point().prelude() == null
                    ? t.types().and(declaresMethod(t.point().methods())) : t.types();
            AgentBuilder.Identified.Narrowable typed = builder.type(types, t.presence());
            builder = t.point().prelude() == null
                    ? typed.transform(advice(t.point(), t.count(), t.seen(), agentLoader))
                    : typed.transform(t.point().prelude()).transform(advice(t.point(), t.count(), t.seen(), agentLoader));
        }
        return builder;
    }

    /** One hook point as the weaver matches it: the loaders that can see its framework, and its types (noting the marker). */
    private record Target(HookPoint point, FrameworkPresence presence, Predicate<String> names, MarkerWatch types, AtomicLong count,
                          PointSeen seen, String hook, TypeMatch byName, long superBits) {
    }

    /** What one hook point met: the first type its type matcher accepted, and how many methods it wove. */
    static final class PointSeen {
        volatile String type;
        final AtomicLong methods = new AtomicLong();
    }

    /** The hook points of every hook, read once. */
    private List<Target> targets() {
        List<Target> read = targets;
        if (read != null) {
            return read;
        }
        synchronized (this) {
            if (targets == null) {
                List<Target> all = new ArrayList<>();
                List<String> watched = new ArrayList<>();
                for (Hooks h : hooks) {
                    for (HookPoint point : pointsOf(h)) {
                        if (point.types() instanceof TypeMatch m) {
                            for (String s : m.supers) {
                                if (!watched.contains(s)) watched.add(s);
                            }
                        }
                    }
                }
                SuperTypeNames index = new SuperTypeNames(watched);
                for (Hooks h : hooks) {
                    FrameworkPresence present = presence.get(h.name());
                    for (HookPoint point : pointsOf(h)) {
                        PointSeen seen = new PointSeen();
                        TypeMatch byName = point.types() instanceof TypeMatch m ? m : null;
                        long bits = 0;
                        if (byName != null) {
                            for (String s : byName.supers) bits |= index.bit(s);
                        }
                        all.add(new Target(point, present, h.classNames(), new MarkerWatch(point.types(), h.marker(), present, seen),
                                matched.get(h.name()), seen, h.name(), byName, bits));
                    }
                }
                superTypes = index;
                types = new LoaderTypeCache();
                targets = List.copyOf(all);
            }
            return targets;
        }
    }

    /**
     * Matches one class of the agent's own (which no hook point matches) against every hook point, as the gate
     * will match the application's first class: the type pool, the class file reader and the matchers are then
     * loaded while premain waits for the supervisor, not when the application's main class is defined.
     */
    private void matchOnce(ClassLoader agentLoader) {
        String name = Hooks.class.getName();
        try {
            TypeDescription type = types.typePool(ClassFileLocator.ForClassLoader.of(agentLoader), agentLoader, name).describe(name).resolve();
            for (Target t : targets()) {
                t.types().matches(type);
            }
        } catch (RuntimeException | LinkageError e) {
            AgentLog.debug("start-up: matching ahead of the first class failed (" + e + "); the gate will match it then");
        }
    }

    /**
     * Whether Byte Buddy's agent builder would weave the class being defined: some hook point sees this
     * loader and matches the class, described from its bytes with the builder's own type cache. A class that
     * cannot be described is let through to Byte Buddy, which reports why.
     */
    boolean mayWeave(ClassLoader loader, String className, byte[] bytes) {
        if (passedOver(className) || !mayMatch(loader, className, bytes)) {
            return false;
        }
        List<Target> all = targets();
        try {
            TypeDescription type = null;
            for (Target t : all) {
                if ((t.names() != null && !t.names().test(className)) || !t.presence().matches(loader)) {
                    continue;
                }
                if (type == null) {
                    // weakly: the cached descriptions keep the locator (see LoaderTypeCache)
                    ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(className, bytes),
                            ClassFileLocator.ForClassLoader.WeaklyReferenced.of(loader));
                    type = types.typePool(locator, loader, className).describe(className).resolve();
                }
                if (t.types().matches(type)) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException | LinkageError e) {
            return true;
        }
    }

    /**
     * Whether some hook point may match the class being defined, judged by names alone: false only when every point that
     * sees this loader (and whose class names allow it) is a {@link TypeMatch} that neither the class's own name nor any of
     * its super types' names (read from class files, {@link SuperTypeNames}) satisfies. Byte Buddy's type matching, which
     * describes the class and walks its generic hierarchy once per point, is then not needed: in bench/boot's Spring Boot
     * start about 170 classes reached it, and its type pool was the largest part of the Byte Buddy code the JIT compiled.
     * A marker class, and a class whose hierarchy cannot be read, always go on to Byte Buddy.
     */
    boolean mayMatch(ClassLoader loader, String className, byte[] bytes) {
        long needed = 0;
        for (Target t : targets()) {
            if ((t.names() != null && !t.names().test(className)) || !t.presence().matches(loader)) {
                continue;
            }
            TypeMatch byName = t.byName();
            if (byName == null || byName.mayAcceptName(className) || className.equals(t.presence().marker)) {
                mayMatchPassed.incrementAndGet();
                return true;
            }
            needed |= t.superBits();
        }
        boolean may = needed != 0 && (bytes == null || (superTypes.reach(loader, bytes) & (needed | SuperTypeNames.UNKNOWN)) != 0);
        (may ? mayMatchPassed : mayMatchRefused).incrementAndGet();
        return may;
    }

    /**
     * Whether a class (binary name) is in a library package no framework hook point matches ({@link #INFRASTRUCTURE})
     * and no configured method's pattern names it: then it is passed over without reading its class file.
     */
    boolean passedOver(String className) {
        if (!infrastructure(className)) {
            return false;
        }
        for (Hooks h : hooks) {
            Predicate<String> names = h.classNames();
            if (names != null && names.test(className)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a hook that matches classes by name (configured methods) names this class (binary name); asking also lets
     * it say that an entry leaves the class out ({@code ConfiguredMethods#namesClass}). Weave time only.
     */
    boolean namedByConfiguration(String className) {
        for (Hooks h : hooks) {
            Predicate<String> names = h.classNames();
            if (names != null && names.test(className)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Shows the relocated-copy watch a class being defined (internal name; a retransformed class is not being defined).
     * Called first by the weaver's transformer for every class, whatever it does with the class afterwards.
     */
    void noteDefined(ClassLoader loader, String name, Class<?> redefined) {
        if (watchRelocations && name != null && redefined == null) {
            relocations.noteLoaded(name, loader);
        }
    }

    /** Classes the start-up gate handed to Byte Buddy's transformer once it was in use (none of those {@link #passedOverByName} refuses). */
    final AtomicLong handedToByteBuddy = new AtomicLong();

    /**
     * Whether a class (internal name, with slashes, or binary) is one Byte Buddy's ignore matcher refuses by its name alone:
     * an ignored package, or a library package {@link #passedOver} (the rest of that matcher, synthetic classes, needs the
     * class file, and is left to Byte Buddy).
     */
    boolean passedOverByName(String name) {
        return ignored(name) || passedOver(name.replace('/', '.'));
    }

    /** Whether a binary class name is in one of the {@link #INFRASTRUCTURE} packages (Spring AI's excepted). */
    static boolean infrastructure(String className) {
        if (className.startsWith(FRAMEWORK_UNDER_INFRASTRUCTURE)) {
            return false;
        }
        for (String prefix : INFRASTRUCTURE) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static ElementMatcher.Junction<TypeDescription> ignoredNames() {
        ElementMatcher.Junction<TypeDescription> ignored = nameStartsWith(IGNORED[0]);
        for (int i = 1; i < IGNORED.length; i++) {
            ignored = ignored.or(nameStartsWith(IGNORED[i]));
        }
        return ignored;
    }

    private List<HookPoint> pointsOf(Hooks h) {
        List<HookPoint> early = earlyPoints.get(h.name());
        return early != null ? early : h.points();
    }

    /**
     * Whether a hook with points can see this loader's classes and could match a class of this binary
     * name; with a null name, whether one could match whatever class comes (hooks that match by name
     * only do not count). The gate's test, cached per loader by each presence.
     */
    private boolean wakes(ClassLoader loader, String className) {
        for (Hooks h : hooks) {
            List<HookPoint> early = earlyPoints.get(h.name());
            if (early != null && early.isEmpty()) {
                continue;
            }
            Predicate<String> names = h.classNames();
            if (names != null && (className == null || !names.test(className))) {
                continue;
            }
            if (presence.get(h.name()).matches(loader)) {
                return true;
            }
        }
        return false;
    }

    private List<String> wakingMarkers() {
        List<String> markers = new ArrayList<>();
        for (Hooks h : hooks) {
            List<HookPoint> early = earlyPoints.get(h.name());
            if (early == null || !early.isEmpty()) markers.add(h.marker());
        }
        return markers;
    }

    /**
     * Whether a class loaded before premain (by another agent, say) is one a hook could match: then the
     * retransformation sweep is needed, and Byte Buddy is built at once.
     */
    private boolean loadedClassCouldMatch(Instrumentation instrumentation, ClassLoader agentLoader) {
        for (Class<?> c : instrumentation.getAllLoadedClasses()) {
            ClassLoader loader = c.getClassLoader();
            if (loader == null || loader == agentLoader || !instrumentation.isModifiableClass(c) || ignored(c.getName())) {
                continue;
            }
            if (wakes(loader, c.getName())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a class name (binary with dots, or internal with slashes) is in a package the weaver never touches. */
    static boolean ignored(String name) {
        for (String prefix : IGNORED) {
            if (startsWith(name, prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(String name, String dottedPrefix) {
        int n = dottedPrefix.length();
        if (name.length() <= n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            char p = dottedPrefix.charAt(i);
            if (c != p && !(p == '.' && c == '/')) {
                return false;
            }
        }
        return true;
    }

    /**
     * The transformer installed at premain until Byte Buddy is needed: classes of the bootstrap and the
     * agent's loader, of the ignored packages, and of loaders that no hook can see pass untouched (Byte
     * Buddy would match nothing there either); the first other class builds Byte Buddy's transformer,
     * which from then on sees every class the old quick rejection let through. Thread-safe: one thread
     * builds while the others wait; classes the build itself loads (JDK, agent loader) never wait.
     *
     * <p>The build (about 800 Byte Buddy classes, a tenth of a second of one core) starts on a daemon thread of its
     * own as soon as a loader that can see a framework appears ({@link #prepareInBackground}): a Spring Boot service
     * creates that loader at once and loads its first hooked class a second or more later, so the class that needs
     * the builder finds it ready (or waits only for the rest) instead of building it on the application's thread.
     * Until that first class matches, the gate keeps passing every other class over as before: a builder prepared is
     * not yet in use.
     */
    static final class StartupGate implements ClassFileTransformer {
        private final Weaver weaver;
        private final ClassLoader agentLoader;
        private volatile ClassFileTransformer woven;
        /** Byte Buddy's transformer once built, in use only from the first class a hook point matches ({@link #woven}). */
        private ClassFileTransformer ready;
        /** The build failed: it was reported once, and classes pass unwoven from then on. */
        private volatile boolean failed;
        private Thread building;
        /** Whether the background build was started (once per gate). */
        private final java.util.concurrent.atomic.AtomicBoolean preparing = new java.util.concurrent.atomic.AtomicBoolean();

        StartupGate(Weaver weaver, ClassLoader agentLoader) {
            this.weaver = weaver;
            this.agentLoader = agentLoader;
        }

        @Override
        public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes)
                throws IllegalClassFormatException {
            weaver.noteDefined(loader, name, redefined);
            ClassFileTransformer w = wovenFor(loader, name, bytes);
            return w == null ? null : w.transform(loader, name, redefined, domain, bytes);
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes)
                throws IllegalClassFormatException {
            weaver.noteDefined(loader, name, redefined);
            ClassFileTransformer w = wovenFor(loader, name, bytes);
            return w == null ? null : w.transform(module, loader, name, redefined, domain, bytes);
        }

        /** Byte Buddy's transformer if this class must go through it (building it if a hook point matches it), else null. */
        private ClassFileTransformer wovenFor(ClassLoader loader, String name, byte[] bytes) {
            if (loader == null || loader == agentLoader) {
                return null;
            }
            ClassFileTransformer w = woven;
            if (w != null) {
                // by name, as Byte Buddy's ignore matcher would, but before its transformer: a Spring Boot service loads
                // about 3,000 Spring, Jackson, Reactor... classes after its first woven one, and Byte Buddy spent about
                // 25 us of the loading thread's CPU on each (a module lookup, a lock, a type pool, a lazy description) only
                // to ignore it by name, about 70 ms of the application's main thread in all
                if (name != null && weaver.passedOverByName(name)) {
                    return null;
                }
                // and, from the names of its super types, a class no hook point can match (most of the application's
                // and the framework's own): Byte Buddy would describe it and walk its hierarchy once per point to say so
                if (name != null && bytes != null && !weaver.mayMatch(loader, name.replace('/', '.'), bytes)) {
                    return null;
                }
                weaver.handedToByteBuddy.incrementAndGet();
                return w;
            }
            if (failed || name == null || ignored(name)) {
                return null;
            }
            String className = name.replace('/', '.');
            if (!weaver.wakes(loader, className)) {
                return null;
            }
            // a loader that can see a framework: its hooked classes will come, so the builder is made ready beside it
            prepareInBackground();
            if (bytes != null && !weaver.mayWeave(loader, className, bytes)) {
                return null;
            }
            return build(className);
        }

        /**
         * Starts building Byte Buddy's transformer on a daemon thread, once; the first class a hook point matches then
         * takes it ({@link #build}), waiting for the rest of the build if it is still under way.
         */
        void prepareInBackground() {
            if (ready != null || failed || !preparing.compareAndSet(false, true)) {
                return;
            }
            Thread t = new Thread(() -> prepare("ahead of the first hooked class, on a background thread"), "tracegate-weaver");
            t.setDaemon(true);
            try {
                t.start();
            } catch (RuntimeException | OutOfMemoryError e) {
                // no thread to spare: the first hooked class builds it, as without this
                AgentLog.debug("start-up: the weaver's background build could not start (" + e + ")");
            }
        }

        /** Whether Byte Buddy's transformer is built (in use or not yet). */
        synchronized boolean prepared() {
            return ready != null;
        }

        /** Builds Byte Buddy's transformer if no thread has; false after a failure (reported once). */
        private synchronized boolean prepare(String when) {
            if (ready != null) return true;
            if (failed || building == Thread.currentThread()) return false;
            building = Thread.currentThread();
            long started = System.nanoTime();
            try {
                ready = weaver.builder(agentLoader).makeRaw();
                AgentLog.debug("start-up: agent builder built in " + (System.nanoTime() - started) / 1_000_000 + " ms, " + when);
                return true;
            } catch (RuntimeException | LinkageError e) {
                failed = true;
                weaver.errors.incrementAndGet();
                AgentLog.error("the weaver could not be built, so no class is instrumented and tool calls are NOT supervised", e);
                return false;
            } finally {
                building = null;
            }
        }

        /**
         * Byte Buddy's transformer, in use from now on, for the class named {@code first} (built here if the background
         * build has not run; waited for if it is running); null while this thread builds it, or after a failure.
         */
        private synchronized ClassFileTransformer build(String first) {
            if (woven != null) return woven;
            if (!prepare("for " + first)) return null;
            woven = ready;
            weaver.built = true;
            AgentLog.debug("start-up: weaving from " + first + " on");
            return woven;
        }
    }

    /**
     * Creates the agent builder with Byte Buddy's Nexus switched off while its accessor initialises: by
     * default that first use injects a class ({@code ...bytebuddy.dynamic.Nexus}) into the host's system
     * class loader, for a feature inlined advice never uses, and loads about 130 classes of Byte Buddy's
     * injection machinery that nothing else needs at start-up. The property is the relocated Byte Buddy's
     * own (so a host's own Byte Buddy is unaffected), read once when the accessor initialises, and removed
     * again afterwards.
     */
    static <T> T withoutNexus(Supplier<T> creation) {
        String property = ByteBuddy.class.getPackageName() + ".nexus.disabled";
        if (System.getProperty(property) != null) {
            return creation.get();
        }
        System.setProperty(property, "true");
        try {
            return creation.get();
        } finally {
            System.clearProperty(property);
        }
    }

    private static AgentBuilder.Transformer advice(HookPoint point, AtomicLong count, PointSeen seen, ClassLoader agentLoader) {
        return new AgentBuilder.Transformer.ForAdvice()
                .include(agentLoader)
                .withExceptionHandler(Advice.ExceptionHandler.Default.PRINTING)
                .advice(new Counting(point.methods(), count, seen), point.advice());
    }

    /** Instrumentations whose framework was not loaded yet when an attach reported: said once, then judged at exit. */
    private final java.util.Set<String> notedNotYet = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Instrumentations already warned about: an attach reports right away and again at shutdown, but says each once. */
    private final java.util.Set<String> warnedUnmatched = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Logs one warning for each instrumentation that matched nothing (call at shutdown), once each. */
    public void reportUnmatched() {
        reportUnmatched(false);
    }

    /**
     * As {@link #reportUnmatched()}; {@code classesMayLoadLater} right after an attach, when the parts' warnings say what
     * is true so far (a part still unmatched at shutdown is then warned about again, with what is true at the end).
     */
    public void reportUnmatched(boolean classesMayLoadLater) {
        for (Hooks h : hooks) {
            if (matched.get(h.name()).get() > 0 || warnedUnmatched.contains(h.name())) {
                continue;
            }
            // nothing configured, nothing to match; a framework's points are not built just to ask (Byte Buddy may never have been)
            List<HookPoint> early = earlyPoints.get(h.name());
            if (early != null ? early.isEmpty() : built && h.points().isEmpty()) {
                continue;
            }
            if (h.marker().equals(ANY_LOADER)) {
                AgentLog.warn("instrumentation " + h.name() + " matched nothing: no loaded class has a method that fits its patterns");
            } else if (presence.get(h.name()).loaded) {
                AgentLog.warn("instrumentation " + h.name() + " matched nothing although " + h.marker()
                        + " was loaded: the framework version may have moved its methods; its calls were NOT supervised"
                        + " (" + h.marker() + " from " + presence.get(h.name()).source + ")");
            } else if (classesMayLoadLater && relocations.relocated(h.name()) != null) {
                // a relocated copy was found (its WARN is above): promising to weave the framework when it loads would be false
                continue;
            } else if (classesMayLoadLater) {
                // right after an attach the application may not have loaded the framework yet (Quarkus, a service whose
                // first AI request comes later): it is woven when it loads, so no warning yet (trial34 03: attach said
                // "langchain4j matched nothing", and the next turn was supervised); the exit judges it with the run known
                if (notedNotYet.add(h.name())) {
                    AgentLog.info("instrumentation " + h.name() + " has matched nothing yet (" + h.marker() + " is not loaded so far):"
                            + " it weaves the framework's classes when the application loads them; a WARN at exit if it never did");
                }
                continue;
            } else {
                String copy = relocations.relocated(h.name());
                AgentLog.warn("instrumentation " + h.name() + " matched nothing (" + h.marker() + " was never loaded"
                        + (copy == null ? ")" : "; the relocated copy " + copy + " was, and its calls were NOT supervised: see the WARN about it)"));
            }
            warnedUnmatched.add(h.name());
        }
        for (Hooks h : hooks) {
            for (String part : h.unmatchedParts(classesMayLoadLater)) {
                if (warnedUnmatched.add(h.name() + ": " + part)) {
                    AgentLog.warn(part);
                }
            }
        }
        reportMissingRoles();
    }

    /**
     * For an instrumentation that matched something: each role whose points met a type but wove no method there (the
     * version moved the method the role needs, e.g. where LangChain4j reads the conversation id) is warned about once.
     */
    private void reportMissingRoles() {
        List<Target> all = targets;
        if (all == null) return;
        Map<String, List<Target>> byRole = new java.util.LinkedHashMap<>();
        for (Target t : all) {
            if (t.point().role() != null) byRole.computeIfAbsent(t.hook() + "\u0000" + t.point().role(), k -> new ArrayList<>()).add(t);
        }
        for (Map.Entry<String, List<Target>> e : byRole.entrySet()) {
            List<Target> group = e.getValue();
            String hook = group.get(0).hook();
            if (matched.get(hook).get() == 0 || warnedUnmatched.contains(e.getKey())) continue;
            String type = null;
            long woven = 0;
            for (Target t : group) {
                if (type == null) type = t.seen().type;
                woven += t.seen().methods.get();
            }
            if (type == null || woven > 0) continue;
            warnedUnmatched.add(e.getKey());
            String source = presence.get(hook).source;
            AgentLog.warn("instrumentation " + hook + " found " + type + " but none of the methods it reads "
                    + group.get(0).point().role() + " from: the framework version may have moved them, so that is missing"
                    + (source == null ? "" : " (" + source + ")"));
        }
    }

    /**
     * The instrumentations that found only a relocated copy of their framework (the copy's class by instrumentation): they
     * matched nothing and their framework's own marker was not loaded.
     */
    public Map<String, String> relocatedOnly() {
        Map<String, String> only = new java.util.LinkedHashMap<>();
        relocations.relocated().forEach((hook, copy) -> {
            if (matched.get(hook).get() == 0 && !presence.get(hook).loaded) only.put(hook, copy);
        });
        return only;
    }

    /** Whether configured methods were woven and no framework's hook point matched anything (so no model call was seen). */
    public boolean onlyConfiguredMatched() {
        boolean configured = false;
        for (Hooks h : hooks) {
            long n = matched.get(h.name()).get();
            if (h.marker().equals(ANY_LOADER)) configured |= n > 0;
            else if (n > 0) return false;
        }
        return configured;
    }

    /** Whether Byte Buddy's transformer has been built (at install, or by the start-up gate). */
    boolean built() {
        return built;
    }

    public long matchedMethods(String name) {
        AtomicLong count = matched.get(name);
        return count == null ? 0 : count.get();
    }

    public long errors() {
        return errors.get();
    }

    /** Matches class loaders that can see the framework's marker class; cached per loader. */
    static final class FrameworkPresence implements ElementMatcher<ClassLoader> {
        final String marker;
        private final String resource;
        /** Per loader, whether it sees the marker; read on every class a loader defines, so without a lock. */
        private final WeakIdentityMap<ClassLoader, Boolean> cache = new WeakIdentityMap<>();
        /** The marker class itself went past the type matchers (it was loaded, or retransformed on attach). */
        volatile boolean loaded;
        /** Where the first loader that sees the marker finds it: the jar (its name carries the framework version), else the URL. */
        volatile String source;

        FrameworkPresence(String markerClass) {
            this.marker = markerClass;
            this.resource = markerClass.replace('.', '/') + ".class";
        }

        @Override
        public boolean matches(ClassLoader loader) {
            if (loader == null) {
                return false;
            }
            Boolean known = cache.get(loader);
            if (known != null) {
                return known;
            }
            boolean sees;
            if (source != null && seenThroughParent(loader)) {
                // the parent's copy: no look-up, and not an application of its own (Applications would ask the parent again)
                sees = true;
            } else {
                java.net.URL url = loader.getResource(resource);
                sees = url != null;
                if (sees && source == null) {
                    source = sourceOf(url.toString());
                }
                if (sees && !resource.equals(ANY_LOADER_RESOURCE)) {
                    dev.tracegate.agent.core.Applications.noteFrameworkLoader(loader, resource); // sessions per application
                }
            }
            cache.putIfAbsent(loader, sees);
            return sees;
        }

        /**
         * Whether {@code loader} sees the marker because its parent does, as already found: a loader whose class keeps
         * {@code ClassLoader}'s own {@code getResource} asks its parent first and answers with the parent's resource, so
         * the answer is the parent's, without a look-up (a host that makes a loader per script or per class paid five
         * class path look-ups, and four more in {@link dev.tracegate.agent.core.Applications}, for each). A loader that
         * overrides {@code getResource} (child-first, filtering) is asked itself.
         */
        private boolean seenThroughParent(ClassLoader loader) {
            try {
                ClassLoader parent = loader.getParent();
                if (parent == null || !PARENT_FIRST_RESOURCES.get(loader.getClass())) {
                    return false;
                }
                Boolean parentSees = cache.get(parent);
                return parentSees != null && parentSees;
            } catch (SecurityException e) {
                return false;
            }
        }
    }

    /** Whether a loader class keeps {@code ClassLoader#getResource} (its parent first), by class. */
    private static final ClassValue<Boolean> PARENT_FIRST_RESOURCES = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("getResource", String.class).getDeclaringClass() == ClassLoader.class;
            } catch (NoSuchMethodException | SecurityException e) {
                return false;
            }
        }
    };

    /** The jar a class resource URL points into ("langchain4j-1.11.0.jar", the innermost of nested jars), else the URL. */
    static String sourceOf(String url) {
        int bang = url.lastIndexOf(".jar!/");
        if (bang < 0) {
            return url;
        }
        int start = Math.max(url.lastIndexOf('/', bang), url.lastIndexOf('!', bang)) + 1;
        return url.substring(start, bang + 4);
    }

    /**
     * Type descriptions cached per class loader (weakly held), so that matching a class against
     * "implements ToolCallback / ChatModel" does not re-read the class files of all its super types
     * each time a class loads. Thread-safe. A cached description keeps the type pool that made it and so its
     * class file locator: every locator handed to {@code typePool} must hold the loader weakly
     * ({@code ClassFileLocator.ForClassLoader.WeaklyReferenced}, {@code LocationStrategy.ForClassLoader.WEAK}), or the
     * value reaches its own key and the loader of an undeployed web app is never collected (trial35).
     */
    static final class LoaderTypeCache extends AgentBuilder.PoolStrategy.WithTypePoolCache {
        private final Map<ClassLoader, TypePool.CacheProvider> caches = Collections.synchronizedMap(new WeakHashMap<>());
        // java.lang.Object, every hierarchy's root, is described from the loaded class, not read from the JDK image per loader
        private final TypePool.CacheProvider bootstrap = TypePool.CacheProvider.Simple.withObjectType();

        LoaderTypeCache() {
            super(TypePool.Default.ReaderMode.FAST);
        }

        @Override
        protected TypePool.CacheProvider locate(ClassLoader loader) {
            if (loader == null) {
                return bootstrap;
            }
            return caches.computeIfAbsent(loader, l -> TypePool.CacheProvider.Simple.withObjectType());
        }
    }

    /**
     * The retransformation sweep's discovery of loaded classes: first all of them, then those new since, then, pass after
     * pass, the classes the sweep's own thread loaded since (a retransformed class's verification loads the types it names, and Byte Buddy's
     * transformer passes over what is defined on the thread that holds its lock for the sweep: quarkus-langchain4j's
     * {@code AiServiceMethodImplementationSupport} loaded {@code ChatModel} so, d8c0e00), until a pass finds none or
     * {@code maxPasses} passes have run. Classes the application's other threads define meanwhile went through the
     * installed transformer as they were defined, as every class defined after the sweep does, so they are not gone over
     * again: Byte Buddy's {@code Reiterating}, which went over every class new since its last pass until a pass found none,
     * never ended in an application that defines classes all the time (a script engine, proxies or lambdas made per
     * request), and the attach with it. {@link QuickRejection} notes the definitions it sees ({@link #noteDefined}). One
     * sweep per instance; {@link #summary} is read after it, on the same thread.
     */
    static final class BoundedSweep implements AgentBuilder.RedefinitionStrategy.DiscoveryStrategy {
        private final int maxPasses;
        /** The thread running the sweep, while it runs; null before and after. */
        private volatile Thread sweeping;
        /** Binary names of the classes defined on the sweeping thread during the sweep (its passes' retransformations loaded them). */
        private final java.util.Set<String> definedBySweep = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private int passes;
        private long firstPass;
        private long later;
        /** Classes the sweep loaded during its last pass, not gone over; -1 while none was left (it settled, or never ran). */
        private int leftOver = -1;

        BoundedSweep(int maxPasses) {
            this.maxPasses = maxPasses;
        }

        @Override
        public Iterable<Iterable<Class<?>>> resolve(Instrumentation instrumentation) {
            return () -> new Passes(instrumentation);
        }

        /** A class being defined (internal or binary name): noted if the sweep's own thread defines it while the sweep runs. */
        void noteDefined(String name) {
            if (sweeping == Thread.currentThread() && name != null) {
                definedBySweep.add(name.replace('/', '.'));
            }
        }

        /** The sweep is over (also when it failed): definitions are no longer noted. */
        void ended() {
            sweeping = null;
            definedBySweep.clear();
        }

        /** Whether the bound stopped the sweep with classes it loaded during its last pass not gone over. */
        boolean stopped() {
            return leftOver >= 0;
        }

        int passes() {
            return passes;
        }

        /** What the sweep did, for the log; null if it never ran. */
        String summary() {
            if (passes == 0) {
                return null;
            }
            String done = "retransformation sweep: " + passes + (passes == 1 ? " pass" : " passes") + " over " + firstPass
                    + " loaded classes" + (passes == 1 ? "" : " and " + later + " loaded during the sweep");
            if (!stopped()) {
                return done + " (classes the application loads meanwhile and later are woven as they load)";
            }
            return done + ", then stopped with " + leftOver + " more that its last pass loaded not gone over: a chain of"
                    + " retransformations that loads classes for more than " + maxPasses + " passes is not expected; those classes"
                    + " are not woven";
        }

        /** The passes of one sweep. */
        private final class Passes implements java.util.Iterator<Iterable<Class<?>>> {
            private final Instrumentation instrumentation;
            private final java.util.Set<Class<?>> seen = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            private List<Class<?>> next;
            private boolean over;

            Passes(Instrumentation instrumentation) {
                this.instrumentation = instrumentation;
            }

            @Override
            public boolean hasNext() {
                if (next != null) {
                    return true;
                }
                if (over) {
                    return false;
                }
                if (passes == 0) {
                    sweeping = Thread.currentThread();
                }
                List<Class<?>> fresh = new ArrayList<>();
                for (Class<?> type : instrumentation.getAllLoadedClasses()) {
                    // the second pass goes over every class new since the first (however the first's retransformations
                    // loaded theirs: with only the noted ones, quarkus-langchain4j's ChatModel stayed unwoven); the later
                    // ones over what the sweep's own thread defined
                    if (type != null && (passes <= 1 || definedBySweep.contains(type.getName())) && seen.add(type)) {
                        fresh.add(type);
                    }
                }
                if (fresh.isEmpty() || passes >= maxPasses) {
                    over = true;
                    leftOver = fresh.isEmpty() ? -1 : fresh.size();
                    ended();
                    return false;
                }
                if (passes++ == 0) {
                    firstPass = fresh.size();
                } else {
                    later += fresh.size();
                }
                next = fresh;
                return true;
            }

            @Override
            public Iterable<Class<?>> next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                List<Class<?>> pass = next;
                next = null;
                return pass;
            }
        }
    }

    /**
     * Hands Byte Buddy only the classes a hook could match: a class defined by the bootstrap loader (every
     * hook's loader matcher refuses it) or by the agent's own loader (all in the ignored {@code dev.tracegate.}
     * packages), or one Byte Buddy's ignore matcher refuses by its name ({@link #passedOverByName}), is passed over
     * before Byte Buddy describes it. Most classes loaded while the agent starts are one of these.
     */
    static final class QuickRejection extends ResettableClassFileTransformer.WithDelegation {
        private final ClassLoader agentLoader;
        private final Predicate<String> passedOverByName;
        /** The install's retransformation sweep, told of each class defined, which it notes while its own thread defines it. */
        private final BoundedSweep sweep;
        private final Weaver weaver;

        QuickRejection(ResettableClassFileTransformer delegate, ClassLoader agentLoader, Predicate<String> passedOverByName, BoundedSweep sweep,
                       Weaver weaver) {
            super(delegate);
            this.agentLoader = agentLoader;
            this.passedOverByName = passedOverByName;
            this.sweep = sweep;
            this.weaver = weaver;
        }

        /**
         * Whether the class is passed over: by its loader or name, or (a class being defined, not one retransformed: the
         * sweep has matched those already) because no hook point can match it by the names of its super types.
         */
        private boolean passedOver(ClassLoader loader, String name, Class<?> redefined, byte[] bytes) {
            if (weaver != null) weaver.noteDefined(loader, name, redefined);
            if (loader == null || loader == agentLoader || (name != null && passedOverByName.test(name))) {
                return true;
            }
            sweep.noteDefined(name);   // one volatile read, but on the sweep's own thread while it runs
            return redefined == null && name != null && bytes != null && weaver != null
                    && !weaver.mayMatch(loader, name.replace('/', '.'), bytes);
        }

        @Override
        public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes)
                throws IllegalClassFormatException {
            return passedOver(loader, name, redefined, bytes) ? null : classFileTransformer.transform(loader, name, redefined, domain, bytes);
        }

        @Override
        public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes)
                throws IllegalClassFormatException {
            return passedOver(loader, name, redefined, bytes) ? null
                    : classFileTransformer.transform(module, loader, name, redefined, domain, bytes);
        }

        /** Wraps the agent builder's transformer. */
        record Decorator(ClassLoader agentLoader, Predicate<String> passedOverByName, BoundedSweep sweep, Weaver weaver)
                implements AgentBuilder.TransformerDecorator {
            @Override
            public ResettableClassFileTransformer decorate(ResettableClassFileTransformer transformer) {
                return new QuickRejection(transformer, agentLoader, passedOverByName, sweep, weaver);
            }
        }
    }

    /** A type matcher that notes when the framework's marker class itself is loaded. */
    static final class MarkerWatch extends ElementMatcher.Junction.AbstractBase<TypeDescription> {
        private final ElementMatcher<? super TypeDescription> delegate;
        private final String marker;
        private final FrameworkPresence presence;

        private final PointSeen seen;

        MarkerWatch(ElementMatcher<? super TypeDescription> delegate, String marker, FrameworkPresence presence, PointSeen seen) {
            this.delegate = delegate;
            this.marker = marker;
            this.presence = presence;
            this.seen = seen;
        }

        @Override
        public boolean matches(TypeDescription target) {
            if (!presence.loaded && target.getName().equals(marker)) {
                presence.loaded = true;
            }
            boolean hit = delegate.matches(target);
            if (hit && seen.type == null) seen.type = target.getName();
            return hit;
        }
    }

    /** A method matcher that counts its hits, so an instrumentation that matched nothing is visible. */
    static final class Counting extends ElementMatcher.Junction.AbstractBase<MethodDescription> {
        private final ElementMatcher<? super MethodDescription> delegate;
        private final AtomicLong count;

        private final PointSeen seen;

        Counting(ElementMatcher<? super MethodDescription> delegate, AtomicLong count, PointSeen seen) {
            this.delegate = delegate;
            this.count = count;
            this.seen = seen;
        }

        @Override
        public boolean matches(MethodDescription target) {
            boolean hit = delegate.matches(target);
            if (hit) {
                count.incrementAndGet();
                seen.methods.incrementAndGet();
                AgentLog.debug("instrumenting " + describe(target));
            }
            return hit;
        }
    }

    /**
     * {@code class#method(String, Map)}: the method with its parameter types' simple names (generics erased), so that the
     * debug lines of overloads differ (trial30 07: {@code instrumenting X#invoke} twice, identical). Weave time only.
     */
    public static String describe(MethodDescription m) {
        StringBuilder b = new StringBuilder(m.getDeclaringType().getTypeName()).append('#').append(m.getName()).append('(');
        net.bytebuddy.description.type.TypeList types = m.getParameters().asTypeList().asErasures();
        for (int i = 0; i < types.size(); i++) b.append(i == 0 ? "" : ", ").append(types.get(i).getSimpleName());
        return b.append(')').toString();
    }

    /** Reports every transformation error: nothing fails silently. */
    static final class ErrorListener extends AgentBuilder.Listener.Adapter {
        private final AtomicLong errors;

        ErrorListener(AtomicLong errors) {
            this.errors = errors;
        }

        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded, Throwable throwable) {
            errors.incrementAndGet();
            AgentLog.error("could not instrument " + typeName + (loaded ? " (retransformation)" : ""), throwable);
        }

        @Override
        public void onTransformation(TypeDescription type, ClassLoader classLoader, JavaModule module, boolean loaded, DynamicType dynamicType) {
            AgentLog.debug("transformed " + type.getName() + (loaded ? " (retransformed)" : "") + " in loader "
                    + dev.tracegate.agent.core.Applications.describe(classLoader));
        }
    }

    /** For logs: the names of the instrumentations. */
    public List<String> names() {
        List<String> names = new ArrayList<>();
        for (Hooks h : hooks) {
            names.add(h.name());
        }
        return names;
    }
}
