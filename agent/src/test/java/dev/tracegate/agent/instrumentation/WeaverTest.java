package dev.tracegate.agent.instrumentation;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** The weaver's start-up gate: Byte Buddy's agent builder is built only for a class a hook point matches, and such a class is still woven. */
class WeaverTest {

    private static final String FRAMEWORK_MARKER = "org.example.framework.Marker";
    private static final String TARGET = "org.example.app.Target";
    /** A framework interface: applications implement it, and a hook matches every implementation. */
    private static final String API = "org.example.framework.Api";
    private static final String IMPLEMENTATION = "org.example.app.Implementation";

    /** A framework instrumentation: replaces {@code Target#call}'s result. */
    private static final Hooks FRAMEWORK = hooks("framework", FRAMEWORK_MARKER,
            List.of(new HookPoint(named(TARGET), named("call"), WeaverTest.class.getName() + "$Woven")));
    /** Configured methods with nothing configured: its marker is in every loader, its points are empty. */
    private static final Hooks NOTHING_CONFIGURED = hooks("configured", "java.lang.Object", List.of());

    /** Advice for the test hook: the method returns "woven" instead of its own result. */
    static final class Woven {
        @Advice.OnMethodExit
        static void exit(@Advice.Return(readOnly = false) String result) {
            result = "woven";
        }
    }

    @Test
    void classesOfLoadersThatSeeNoFrameworkPassWithoutBuildingByteBuddy() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());

        assertThat(gate.transform(new AppLoader(false), internal(TARGET), null, null, target())).isNull();
        assertThat(gate.transform(null, internal(TARGET), null, null, target())).as("bootstrap class").isNull();

        assertThat(weaver.built()).isFalse();
        assertThat(weaver.matchedMethods("framework")).isZero();
    }

    @Test
    void ignoredPackagesAndTheAgentsOwnLoaderNeverBuildByteBuddyEvenWhereAFrameworkIsVisible() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK));
        ClassLoader agent = new AppLoader(true);
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agent);

        assertThat(gate.transform(new AppLoader(true), "java/sql/Anything", null, null, target())).isNull();
        assertThat(gate.transform(new AppLoader(true), "dev/tracegate/agent/core/Anything", null, null, target())).isNull();
        assertThat(gate.transform(agent, internal(TARGET), null, null, target())).as("the agent's own loader").isNull();

        assertThat(weaver.built()).isFalse();
    }

    @Test
    void theFirstClassOfALoaderThatSeesAFrameworkBuildsByteBuddyAndIsWoven() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);

        byte[] woven = gate.transform(app, internal(TARGET), null, null, target());

        assertThat(weaver.built()).isTrue();
        assertThat(woven).isNotNull();
        assertThat(call(app.define(TARGET, woven))).isEqualTo("woven");
        assertThat(call(new AppLoader(true).define(TARGET, target()))).as("the class as written").isEqualTo("plain");
        assertThat(weaver.matchedMethods("framework")).isEqualTo(1);
        // once built, a loader that sees no framework is handed to Byte Buddy, which matches nothing there
        assertThat(gate.transform(new AppLoader(false), internal(TARGET), null, null, target())).isNull();
    }

    @Test
    void aClassOfALoaderThatSeesAFrameworkButThatNoHookMatchesPassesWithoutBuildingTheAgentBuilder() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);

        assertThat(gate.transform(app, "org/example/app/Main", null, null, plain("org.example.app.Main"))).isNull();
        assertThat(weaver.built()).as("a main class the hook does not match").isFalse();

        byte[] woven = gate.transform(app, internal(TARGET), null, null, target());
        assertThat(weaver.built()).isTrue();
        assertThat(call(app.define(TARGET, woven))).isEqualTo("woven");
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)   // only stops a hung build; nothing here is timed
    void theAgentBuilderIsBuiltInTheBackgroundOnceALoaderThatSeesAFrameworkAppearsAndUsedFromTheFirstHookedClass() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);

        // a Spring Boot service: its launcher's loader sees the framework long before the first hooked class loads
        assertThat(gate.transform(app, "org/example/app/Main", null, null, plain("org.example.app.Main"))).isNull();
        while (!gate.prepared()) Thread.sleep(10);
        assertThat(weaver.built()).as("ready, but not in use before a hook point matches").isFalse();
        assertThat(gate.transform(app, "org/example/app/Other", null, null, plain("org.example.app.Other"))).isNull();
        assertThat(gate.transform(new AppLoader(false), internal(TARGET), null, null, target())).isNull();
        assertThat(weaver.matchedMethods("framework")).isZero();

        byte[] woven = gate.transform(app, internal(TARGET), null, null, target());
        assertThat(weaver.built()).isTrue();
        assertThat(call(app.define(TARGET, woven))).isEqualTo("woven");
        assertThat(weaver.matchedMethods("framework")).isEqualTo(1);
    }

    @Test
    void aLoaderThatSeesNoFrameworkStartsNoBackgroundBuild() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());

        assertThat(gate.transform(new AppLoader(false), "org/example/app/Main", null, null, plain("org.example.app.Main"))).isNull();
        Thread.sleep(200);   // a build started by mistake would be under way or done by now; its absence is what is checked
        assertThat(gate.prepared()).isFalse();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("tracegate-weaver"));
    }

    @Test
    void aClassThatImplementsAFrameworkTypeIsMatchedThroughItsSuperTypesBeforeTheAgentBuilderExists() throws Exception {
        Hooks framework = hooks("framework", FRAMEWORK_MARKER,
                List.of(new HookPoint(hasSuperType(named(API)), named("call"), WeaverTest.class.getName() + "$Woven")));
        Weaver weaver = new Weaver(List.of(framework));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);
        app.serve(API, api()); // the interface is read through the loader, as a class path would give it

        assertThat(gate.transform(app, "org/example/app/Main", null, null, plain("org.example.app.Main"))).isNull();
        assertThat(weaver.built()).isFalse();

        byte[] woven = gate.transform(app, internal(IMPLEMENTATION), null, null, implementation(IMPLEMENTATION));
        assertThat(weaver.built()).as("a class whose interface the hook names").isTrue();
        app.define(API, api());
        assertThat(call(app.define(IMPLEMENTATION, woven))).isEqualTo("woven");
        assertThat(weaver.matchedMethods("framework")).isEqualTo(1);
    }

    /**
     * A class whose interface has no class file where its loader looks: the gate cannot tell whether it is an Api, so Byte
     * Buddy decides; its name is in the class file, and a decoration reads no super type's methods, so it is woven (perf19a;
     * before, a redefinition's method graph needed the interface, Byte Buddy reported an error and the class ran unwoven).
     */
    @Test
    void aClassWhoseInterfaceCannotBeReadIsStillWoven() throws Exception {
        Hooks framework = hooks("framework", FRAMEWORK_MARKER,
                List.of(new HookPoint(hasSuperType(named(API)), named("call"), WeaverTest.class.getName() + "$Woven")));
        Weaver weaver = new Weaver(List.of(framework));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);

        byte[] woven = gate.transform(app, internal(IMPLEMENTATION), null, null, implementation(IMPLEMENTATION));

        assertThat(weaver.built()).isTrue();
        assertThat(weaver.errors()).isZero();
        assertThat(woven).isNotNull();
        app.define(API, api());
        assertThat(call(app.define(IMPLEMENTATION, woven))).isEqualTo("woven");
    }

    @Test
    void hooksThatMatchByNameBuildByteBuddyOnlyForAClassTheyName() throws Exception {
        Hooks configured = Hooks.matchingNames(hooks("configured", "java.lang.Object",
                List.of(new HookPoint(named(TARGET), named("call"), WeaverTest.class.getName() + "$Woven"))), TARGET::equals);
        Weaver weaver = new Weaver(List.of(FRAMEWORK, configured));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());

        assertThat(gate.transform(new AppLoader(false), "org/example/app/Other", null, null, target())).isNull();
        assertThat(weaver.built()).as("a class no configured method names").isFalse();

        AppLoader app = new AppLoader(false);
        byte[] woven = gate.transform(app, internal(TARGET), null, null, target());

        assertThat(weaver.built()).isTrue();
        assertThat(call(app.define(TARGET, woven))).isEqualTo("woven");
        assertThat(weaver.matchedMethods("configured")).isEqualTo(1);
    }

    /**
     * trial25: a Spring Boot service loads thousands of classes of Spring, Jackson, Reactor, Logback... after its first
     * framework class; Byte Buddy read each one's class file and walked its super types for every hook point, +3.5 s of
     * CPU at start. Those packages are passed over by name: such a class is neither described nor woven, even when it
     * implements a type a hook matches; Spring AI's own package is still matched.
     */
    @Test
    void classesOfLibraryPackagesArePassedOverUnreadWhileSpringAiIsStillWoven() throws Exception {
        Hooks framework = hooks("framework", FRAMEWORK_MARKER,
                List.of(new HookPoint(hasSuperType(named(API)), named("call"), WeaverTest.class.getName() + "$Woven")));
        Weaver weaver = new Weaver(List.of(framework));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);
        app.serve(API, api());

        String library = "org.springframework.beans.factory.support.Implementation";
        assertThat(gate.transform(app, internal(library), null, null, implementation(library))).isNull();
        assertThat(weaver.built()).as("a library class does not build Byte Buddy").isFalse();

        String springAi = "org.springframework.ai.tool.Implementation";
        byte[] woven = gate.transform(app, internal(springAi), null, null, implementation(springAi));
        assertThat(weaver.built()).isTrue();
        app.define(API, api());
        assertThat(call(app.define(springAi, woven))).isEqualTo("woven");

        // once built: a library class that implements the hooked type is not woven ...
        String jackson = "tools.jackson.databind.Implementation";
        assertThat(gate.transform(app, internal(jackson), null, null, implementation(jackson))).isNull();
        // ... and not even read: one whose interface cannot be found would make Byte Buddy report an error
        String reactor = "reactor.core.publisher.Implementation";
        assertThat(catchThrowable(() -> gate.transform(new AppLoader(true), internal(reactor), null, null, implementation(reactor))))
                .isNull();
        assertThat(weaver.errors()).as("no class file of a library package was described").isZero();
        assertThat(weaver.matchedMethods("framework")).isEqualTo(1);
    }

    /**
     * perf18b: once Byte Buddy's transformer is in use, a class Byte Buddy's ignore matcher would refuse by its name (a library
     * package, an ignored package) is passed over before it is handed to Byte Buddy, which spent about 25 us of the loading
     * thread's CPU on each only to ignore it (about 3,000 in bench/boot's Spring Boot start, about 70 ms of its main thread).
     */
    @Test
    void onceWeavingHasBegunLibraryClassesAreNotHandedToByteBuddy() throws Exception {
        Weaver weaver = new Weaver(List.of(FRAMEWORK, NOTHING_CONFIGURED));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);
        assertThat(gate.transform(app, internal(TARGET), null, null, target())).isNotNull();
        long handed = weaver.handedToByteBuddy.get();

        for (String library : List.of("org.springframework.beans.factory.Bean", "tools.jackson.databind.Mapper",
                "reactor.core.publisher.Flux2", "ch.qos.logback.classic.Logger2", "javax.sql.Anything")) {
            assertThat(gate.transform(app, internal(library), null, null, plain(library))).as(library).isNull();
        }
        assertThat(weaver.handedToByteBuddy.get()).as("library classes are passed over by name").isEqualTo(handed);

        // an application class and a Spring AI class still go to Byte Buddy (which matches no point here)
        assertThat(gate.transform(app, "org/example/app/Other", null, null, plain("org.example.app.Other"))).isNull();
        assertThat(gate.transform(app, "org/springframework/ai/Other", null, null, plain("org.springframework.ai.Other"))).isNull();
        assertThat(weaver.handedToByteBuddy.get()).isEqualTo(handed + 2);
        // and the hooked class is still woven in another loader
        AppLoader other = new AppLoader(true);
        assertThat(call(other.define(TARGET, gate.transform(other, internal(TARGET), null, null, target())))).isEqualTo("woven");
    }

    /**
     * perf19a: a class is handed to Byte Buddy's type matching only if its name, or the name of one of its super types read
     * from class files, is one a framework point names ({@link TypeMatch}); in bench/boot's Spring Boot start Byte Buddy
     * described about 170 classes to weave 10, and its type pool was the largest part of the Byte Buddy code the JIT compiled.
     * A class whose super type cannot be read still goes to Byte Buddy.
     */
    @Test
    void onlyClassesUnderAFrameworkTypeByTheirSuperTypesNamesAreHandedToByteBuddy() throws Exception {
        Hooks framework = hooks("framework", FRAMEWORK_MARKER,
                List.of(new HookPoint(TypeMatch.subTypeOf(API), named("call"), WeaverTest.class.getName() + "$Woven")));
        Weaver weaver = new Weaver(List.of(framework));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(true);
        app.serve(API, api());
        String middle = "org.example.app.Middle";
        String leaf = "org.example.app.Leaf";
        app.serve(middle, implementation(middle)); // on the class path, not defined yet: its subclass is defined first

        assertThat(gate.transform(app, "org/example/app/Main", null, null, plain("org.example.app.Main"))).isNull();
        assertThat(weaver.mayMatchRefused.get()).as("judged by names before the agent builder exists").isEqualTo(1);
        assertThat(weaver.built()).isFalse();

        byte[] woven = gate.transform(app, internal(leaf), null, null, subclassOf(middle, leaf));
        assertThat(weaver.built()).as("an Api through its super class, whose class file says so").isTrue();
        app.define(API, api());
        app.define(middle, implementation(middle));
        assertThat(call(app.define(leaf, woven))).isEqualTo("woven");

        long handed = weaver.handedToByteBuddy.get();
        assertThat(gate.transform(app, "org/example/app/Other", null, null, plain("org.example.app.Other"))).isNull();
        assertThat(gate.transform(app, "org/example/app/Sibling", null, null, subclassOf(middle, "org.example.app.Sibling"))).isNotNull();
        assertThat(weaver.handedToByteBuddy.get()).as("Other is no Api: not handed to Byte Buddy; Sibling is").isEqualTo(handed + 1);

        // a class whose super class has no class file: whether it is an Api cannot be told by names, so Byte Buddy decides
        String orphan = "org.example.app.Orphan";
        catchThrowable(() -> gate.transform(app, internal(orphan), null, null, subclassOf("org.example.app.Missing", orphan)));
        assertThat(weaver.handedToByteBuddy.get()).isEqualTo(handed + 2);
    }

    /** A type matcher by names keeps them through a conjunction, and a disjunction of two keeps both; it matches as Byte Buddy's. */
    @Test
    void aTypeMatchKeepsItsNamesThroughConjunctionsAndDisjunctions() {
        TypeMatch named = TypeMatch.typeNamed(TARGET);
        assertThat(named.and(net.bytebuddy.matcher.ElementMatchers.isInterface())).isInstanceOf(TypeMatch.class);
        ElementMatcher<?> either = TypeMatch.typeNamed(TARGET).or(TypeMatch.subTypeOf(API));
        assertThat(either).isInstanceOf(TypeMatch.class);
        assertThat(((TypeMatch) either).mayAcceptName(TARGET)).isTrue();
        assertThat(((TypeMatch) either).mayAcceptName(API)).isTrue();
        assertThat(((TypeMatch) either).supers).containsExactly(API);
        assertThat(TypeMatch.typeNamed(TARGET).or(named(API))).as("the other part says nothing by names").isNotInstanceOf(TypeMatch.class);
        assertThat(TypeMatch.typeNameStartsWith("org.example.").mayAcceptName(TARGET)).isTrue();
        assertThat(catchThrowable(() -> TypeMatch.subTypeOf("java.lang.Runnable"))).isInstanceOf(IllegalArgumentException.class);

        TypeDescription target = TypeDescription.ForLoadedType.of(String.class);
        assertThat(TypeMatch.typeNamed("java.lang.String").matches(target)).isTrue();
        assertThat(TypeMatch.typeNamed("java.lang.String").and(net.bytebuddy.matcher.ElementMatchers.isInterface()).matches(target)).isFalse();
    }

    /** A configured method whose pattern names a class in one of those packages is woven there as written. */
    @Test
    void aConfiguredMethodInALibraryPackageIsStillWoven() throws Exception {
        String library = "org.springframework.web.Target";
        Hooks configured = Hooks.matchingNames(hooks("configured", "java.lang.Object",
                List.of(new HookPoint(named(library), named("call"), WeaverTest.class.getName() + "$Woven"))), library::equals);
        Weaver weaver = new Weaver(List.of(configured));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        AppLoader app = new AppLoader(false);

        byte[] woven = gate.transform(app, internal(library), null, null, target(library));

        assertThat(woven).isNotNull();
        assertThat(call(app.define(library, woven))).isEqualTo("woven");
        assertThat(Weaver.infrastructure(library)).isTrue();
        assertThat(weaver.passedOver(library)).as("named by a configured method").isFalse();
        assertThat(weaver.passedOver("org.springframework.web.Other")).isTrue();
    }

    @Test
    void libraryPackagesAreNamedByTheirPrefixOnly() {
        assertThat(Weaver.infrastructure("org.springframework.boot.SpringApplication")).isTrue();
        assertThat(Weaver.infrastructure("com.fasterxml.jackson.databind.ObjectMapper")).isTrue();
        assertThat(Weaver.infrastructure("ch.qos.logback.classic.Logger")).isTrue();
        assertThat(Weaver.infrastructure("org.springframework.ai.tool.method.MethodToolCallback")).isFalse();
        assertThat(Weaver.infrastructure("org.springframeworkx.Tools")).isFalse();
        assertThat(Weaver.infrastructure("com.example.reactor.Tools")).isFalse();
        assertThat(Weaver.infrastructure("dev.langchain4j.service.tool.ToolService")).isFalse();
        assertThat(Weaver.infrastructure("io.modelcontextprotocol.server.McpAsyncServer")).isFalse();
    }

    @Test
    void packagesAreIgnoredInBinaryAndInternalForm() {
        assertThat(Weaver.ignored("java.lang.String")).isTrue();
        assertThat(Weaver.ignored("java/lang/String")).isTrue();
        assertThat(Weaver.ignored("javax/management/ObjectName")).isTrue();
        assertThat(Weaver.ignored("com/sun/jmx/mbeanserver/Introspector")).isTrue();
        assertThat(Weaver.ignored("dev/tracegate/agent/core/AgentCore")).isTrue();
        assertThat(Weaver.ignored("jdk.internal.misc.Unsafe")).isTrue();

        assertThat(Weaver.ignored("javafx/scene/Node")).isFalse();
        assertThat(Weaver.ignored("com/sunrise/Billing")).isFalse();
        assertThat(Weaver.ignored("dev/tracegateway/Tool")).isFalse();
        assertThat(Weaver.ignored("sunny/Day")).isFalse();
        assertThat(Weaver.ignored("java")).isFalse();
        assertThat(Weaver.ignored(TARGET)).isFalse();
    }

    // ---------------------------------------------------------------- fixtures

    private static Hooks hooks(String name, String marker, List<HookPoint> points) {
        return new Hooks() {
            @Override public String name() { return name; }
            @Override public String marker() { return marker; }
            @Override public List<HookPoint> points() { return points; }
        };
    }

    /** Where the advice's bytes are read from (the agent's loader in the agent jar; the test's here). */
    private static ClassLoader agentLoader() {
        return WeaverTest.class.getClassLoader();
    }

    private static String internal(String name) {
        return name.replace('.', '/');
    }

    /** {@code org.example.app.Target} with {@code public String call()} returning "plain". */
    private static byte[] target() {
        return target(TARGET);
    }

    /** A class of that name with {@code public String call()} returning "plain". */
    private static byte[] target(String name) {
        return new ByteBuddy().subclass(Object.class).name(name)
                .defineMethod("call", String.class, Visibility.PUBLIC).intercept(FixedValue.value("plain"))
                .make().getBytes();
    }

    /** A class with nothing a hook looks for. */
    private static byte[] plain(String name) {
        return new ByteBuddy().subclass(Object.class).name(name).make().getBytes();
    }

    /** {@code public interface org.example.framework.Api { String call(); }}. */
    private static byte[] api() {
        return new ByteBuddy().makeInterface().name(API)
                .defineMethod("call", String.class, Visibility.PUBLIC).withoutCode()
                .make().getBytes();
    }

    /** A class implementing {@code Api} whose {@code call()} returns "plain". */
    private static byte[] implementation(String name) {
        TypeDescription api = TypePool.Default.of(new ClassFileLocator.Compound(ClassFileLocator.Simple.of(API, api()),
                ClassFileLocator.ForClassLoader.ofSystemLoader())).describe(API).resolve();
        return new ByteBuddy().subclass(Object.class).name(name).implement(api)
                .defineMethod("call", String.class, Visibility.PUBLIC).intercept(FixedValue.value("plain"))
                .make().getBytes();
    }

    /** A class extending {@code superName} (an {@link #implementation} of that name) whose {@code call()} returns "plain". */
    private static byte[] subclassOf(String superName, String name) {
        TypeDescription type = TypePool.Default.of(new ClassFileLocator.Compound(ClassFileLocator.Simple.of(API, api()),
                ClassFileLocator.Simple.of(superName, implementation(superName)), ClassFileLocator.ForClassLoader.ofSystemLoader()))
                .describe(superName).resolve();
        return new ByteBuddy().subclass(type).name(name)
                .defineMethod("call", String.class, Visibility.PUBLIC).intercept(FixedValue.value("plain"))
                .make().getBytes();
    }

    private static Object call(Class<?> type) throws ReflectiveOperationException {
        return type.getMethod("call").invoke(type.getConstructor().newInstance());
    }

    /** A host loader that can or cannot see the framework's marker class; JDK classes from the bootstrap loader. */
    private static final class AppLoader extends ClassLoader {
        private final boolean seesFramework;
        private final java.util.Map<String, byte[]> served = new java.util.HashMap<>();

        AppLoader(boolean seesFramework) {
            super(null);
            this.seesFramework = seesFramework;
        }

        @Override
        public URL getResource(String name) {
            if (name.equals(internal(FRAMEWORK_MARKER) + ".class")) {
                try {
                    return seesFramework ? new URL("file:/framework/" + name) : null;
                } catch (MalformedURLException e) {
                    throw new IllegalStateException(e);
                }
            }
            return super.getResource(name);
        }

        /** Makes a class file readable as a resource (not defined), as a jar on the class path would. */
        void serve(String name, byte[] bytes) {
            served.put(internal(name) + ".class", bytes);
        }

        @Override
        public java.io.InputStream getResourceAsStream(String name) {
            byte[] bytes = served.get(name);
            return bytes != null ? new java.io.ByteArrayInputStream(bytes) : super.getResourceAsStream(name);
        }

        Class<?> define(String name, byte[] bytes) {
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    /** The "matched nothing" warning names the jar the framework's marker class came from: its name carries the version. */
    @Test
    void theMarkersSourceIsItsJar() {
        assertThat(Weaver.sourceOf("jar:file:/m2/dev/langchain4j/langchain4j/1.11.0/langchain4j-1.11.0.jar!/dev/langchain4j/service/tool/ToolService.class"))
                .isEqualTo("langchain4j-1.11.0.jar");
        assertThat(Weaver.sourceOf("jar:nested:/app/app.jar/!BOOT-INF/lib/spring-ai-model-1.0.3.jar!/org/springframework/ai/tool/ToolCallback.class"))
                .isEqualTo("spring-ai-model-1.0.3.jar");
        assertThat(Weaver.sourceOf("file:/work/classes/demo/Tools.class")).isEqualTo("file:/work/classes/demo/Tools.class");
    }

    /** What {@code reportUnmatched} prints when called twice (an attach reports at once, the shutdown again). */
    private static String reportedTwice(Weaver weaver) {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        dev.tracegate.agent.core.AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            weaver.reportUnmatched();
            weaver.reportUnmatched();
        } finally {
            dev.tracegate.agent.core.AgentLog.captureForTest(null);
        }
        return err.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** An attach reports unmatched instrumentations right away and the shutdown again: each warning is printed once (hooks7). */
    @Test
    void anUnmatchedInstrumentationIsReportedOnce() {
        Weaver weaver = new Weaver(List.of(FRAMEWORK));
        String out = reportedTwice(weaver);
        assertThat(out).contains("instrumentation framework matched nothing");
        assertThat(out.indexOf("matched nothing")).as(out).isEqualTo(out.lastIndexOf("matched nothing"));
    }

    /**
     * Right after an attach, an instrumentation whose framework is not loaded yet is no "matched nothing" WARN (trial34 03:
     * a Quarkus service attached before its first AI request was told langchain4j matched nothing, and the next turn was
     * supervised): a note says it has matched nothing yet; the exit warns if it still matched nothing, once.
     */
    @Test
    void afterAnAttachAFrameworkNotLoadedYetIsANoteAndTheExitWarns() {
        Weaver weaver = new Weaver(List.of(FRAMEWORK));
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        dev.tracegate.agent.core.AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        String atAttach;
        try {
            weaver.reportUnmatched(true);
            weaver.reportUnmatched(true);
            atAttach = err.toString(java.nio.charset.StandardCharsets.UTF_8);
            weaver.reportUnmatched();
            weaver.reportUnmatched();
        } finally {
            dev.tracegate.agent.core.AgentLog.captureForTest(null);
        }
        String out = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(atAttach).doesNotContain("matched nothing (")
                .contains("instrumentation framework has matched nothing yet (" + FRAMEWORK_MARKER + " is not loaded so far)");
        assertThat(atAttach.indexOf("matched nothing yet")).as(atAttach).isEqualTo(atAttach.lastIndexOf("matched nothing yet"));
        String atExit = out.substring(atAttach.length());
        assertThat(atExit).contains("WARN instrumentation framework matched nothing (" + FRAMEWORK_MARKER + " was never loaded)");
        assertThat(atExit.indexOf("matched nothing (")).as(atExit).isEqualTo(atExit.lastIndexOf("matched nothing ("));
    }

    /**
     * A point with a role whose class is woven but whose method is not there (a version that moved it) is warned about by
     * its role once the instrumentation matched something else (lc4j7: on LangChain4j 1.11.0 the session point missed
     * silently and model events fell into session default).
     */
    @Test
    void aRoleWhoseClassIsWovenButWhoseMethodIsMissingIsWarnedAbout() throws Exception {
        Hooks withRole = hooks("framework", FRAMEWORK_MARKER, List.of(
                new HookPoint(named(TARGET), named("call"), WeaverTest.class.getName() + "$Woven"),
                new HookPoint(named(TARGET), named("sessionOf"), WeaverTest.class.getName() + "$Woven").role("the session of calls")));
        Weaver weaver = new Weaver(List.of(withRole));
        Weaver.StartupGate gate = new Weaver.StartupGate(weaver, agentLoader());
        assertThat(gate.transform(new AppLoader(true), internal(TARGET), null, null, target())).isNotNull();
        String out = reportedTwice(weaver);
        assertThat(out).contains("instrumentation framework found " + TARGET + " but none of the methods it reads the session of calls from")
                .doesNotContain("matched nothing");
        assertThat(out.indexOf("found " + TARGET)).as("once").isEqualTo(out.lastIndexOf("found " + TARGET));
    }
}
