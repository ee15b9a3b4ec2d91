package dev.tracegate.agent.audit;

import dev.tracegate.agent.bootstrap.WeakIdentityMap;
import dev.tracegate.agent.core.AgentLog;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;

/**
 * The W3C trace id and span id of the OpenTelemetry span current on the calling thread, for the audit record the thread
 * makes ({@code trace_id}, {@code span_id}; agent/CONFIG.md, {@code audit.trace-ids}). The application imports nothing:
 * the ids are read through the OpenTelemetry API classes its own class loader sees ({@code
 * io.opentelemetry.api.trace.Span.current().getSpanContext()}), which the OpenTelemetry Java agent bridges to its own
 * context; without that API in the application, through the API the OpenTelemetry Java agent puts on the bootstrap path
 * (its relocated copy, {@code io.opentelemetry.javaagent.shaded.io.opentelemetry.api.trace.Span}), so a service traced
 * by the OTel agent alone gets the ids too.
 * <p>
 * The loader is the thread's context class loader (the system class loader when it has none), the loader whose
 * application an event belongs to ({@code Applications}): the dispatcher the advice calls carries no class, and a
 * request thread's context loader is its application's. The API is looked up once per loader: a loader that sees none is
 * remembered as such, so a JVM without OpenTelemetry pays one failed class look-up per loader, then per record an
 * identity-map read that allocates nothing. The method handles live in a {@link ClassValue} of the API's {@code Span}
 * class (so in that class), and the map holds the class weakly: no class loader is kept alive by this cache.
 */
public final class TraceIds {
    /** The application's own OpenTelemetry API (also what the OTel agent bridges). */
    static final String API_SPAN = "io.opentelemetry.api.trace.Span";
    /** The OpenTelemetry Java agent's relocated API on the bootstrap path, for an application without the API. */
    static final String AGENT_SPAN = "io.opentelemetry.javaagent.shaded.io.opentelemetry.api.trace.Span";

    /** A loader that sees no OpenTelemetry API (a referent that is always null). */
    private static final WeakReference<Class<?>> NONE = new WeakReference<>(null);
    /** Per loader (by identity, weakly): the {@code Span} class it sees, weakly, or {@link #NONE}. */
    private static final WeakIdentityMap<ClassLoader, WeakReference<Class<?>>> SPANS = new WeakIdentityMap<>();
    /** Per {@code Span} class: the handles that read the current span's ids (null: the class lacks one of the methods). */
    private static final ClassValue<Reader> READERS = new ClassValue<Reader>() {
        @Override
        protected Reader computeValue(Class<?> span) {
            return Reader.of(span);
        }
    };
    /** How many loaders were looked up (a test's count: one per loader, not per record). */
    private static volatile int lookups;

    private TraceIds() {
    }

    /**
     * Sets {@code r}'s trace id and span id to those of the span current on this thread, when there is a valid one; leaves
     * it as it is otherwise (no OpenTelemetry, no current span, or one the API calls invalid). Never throws.
     */
    public static void stamp(AuditRecord r) {
        Thread t = Thread.currentThread();
        ClassLoader loader = t.getContextClassLoader();
        Class<?> span = spanClass(loader != null ? loader : ClassLoader.getSystemClassLoader());
        if (span == null) return;
        Reader reader = READERS.get(span);
        if (reader == null || reader.failed) return;
        try {
            Object context = reader.spanContext.invokeExact(reader.current.invokeExact());
            if (context == null || !(boolean) reader.valid.invokeExact(context)) return;
            String traceId = (String) reader.traceId.invokeExact(context);
            String spanId = (String) reader.spanId.invokeExact(context);
            if (traceId != null && spanId != null) r.trace(traceId, spanId);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            // the application's tracer failed (an API whose context cannot start: a jar missing beside it): the record goes
            // without ids, the decision is not touched, and this API copy is not read again (a failure that recurs on every
            // call, thrown and caught, cost 23 us and 1.6 KB per passed call): said once per copy
            reader.failed = true;
            AgentLog.warn("could not read the current OpenTelemetry span for the audit log's trace_id and span_id through "
                    + span.getName() + " (class loader " + span.getClassLoader() + "): " + e + ". Records of this class loader go"
                    + " without them until the JVM restarts; the decisions are not affected. Fix the application's OpenTelemetry"
                    + " (all of its jars on the class path), or set audit.trace-ids: false");
        }
    }

    /**
     * The last loader asked about and its answer: a service has one application loader, so a record finds it here with
     * one reference comparison instead of the map's hash and probe (both weak: it keeps no loader alive). Racy by design:
     * a thread that reads a stale pair only goes to the map.
     */
    private static Last last = new Last(null, NONE);

    private static final class Last {
        final WeakReference<ClassLoader> loader;
        final WeakReference<Class<?>> span;

        Last(ClassLoader loader, WeakReference<Class<?>> span) {
            this.loader = new WeakReference<>(loader);
            this.span = span;
        }
    }

    /** The {@code Span} class {@code loader} sees, looked up on its first record only; null: none. */
    static Class<?> spanClass(ClassLoader loader) {
        Last l = last;   // final fields: a pair read whole, published by the plain write below
        if (l.loader.get() == loader) return l.span.get();
        WeakReference<Class<?>> known = SPANS.get(loader);
        if (known == null) {
            Class<?> found = find(loader);
            WeakReference<Class<?>> mine = found == null ? NONE : new WeakReference<>(found);
            known = SPANS.putIfAbsent(loader, mine);
            if (known == null) known = mine;
        }
        last = new Last(loader, known);
        return known.get();
    }

    private static Class<?> find(ClassLoader loader) {
        lookups++;
        for (String name : new String[] {API_SPAN, AGENT_SPAN}) {
            try {
                return Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError | SecurityException e) {
                // not this one
            }
        }
        return null;
    }

    /** How many class loaders were looked up for an OpenTelemetry API so far. */
    static int lookups() {
        return lookups;
    }

    /** The handles of one API copy: {@code Span.current()}, {@code getSpanContext()}, {@code isValid()}, the two ids. */
    static final class Reader {
        final MethodHandle current;      // ()Object
        final MethodHandle spanContext;  // (Object)Object
        final MethodHandle valid;        // (Object)boolean
        final MethodHandle traceId;      // (Object)String
        final MethodHandle spanId;       // (Object)String
        /** Reading through this copy threw once: it is not read again (its records go without ids). */
        volatile boolean failed;

        private Reader(MethodHandle current, MethodHandle spanContext, MethodHandle valid, MethodHandle traceId, MethodHandle spanId) {
            this.current = current;
            this.spanContext = spanContext;
            this.valid = valid;
            this.traceId = traceId;
            this.spanId = spanId;
        }

        /** The reader of {@code span}'s API, or null when it does not have the shape of OpenTelemetry's (then no ids). */
        static Reader of(Class<?> span) {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                MethodHandle spanContext = lookup.findVirtual(span, "getSpanContext", MethodType.methodType(
                        Class.forName(span.getPackageName() + ".SpanContext", false, span.getClassLoader())));
                Class<?> contextType = spanContext.type().returnType();
                return new Reader(
                        lookup.findStatic(span, "current", MethodType.methodType(span)).asType(MethodType.methodType(Object.class)),
                        spanContext.asType(MethodType.methodType(Object.class, Object.class)),
                        lookup.findVirtual(contextType, "isValid", MethodType.methodType(boolean.class))
                                .asType(MethodType.methodType(boolean.class, Object.class)),
                        lookup.findVirtual(contextType, "getTraceId", MethodType.methodType(String.class))
                                .asType(MethodType.methodType(String.class, Object.class)),
                        lookup.findVirtual(contextType, "getSpanId", MethodType.methodType(String.class))
                                .asType(MethodType.methodType(String.class, Object.class)));
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                AgentLog.warn(span.getName() + " (class loader " + span.getClassLoader() + ") does not have OpenTelemetry's"
                        + " Span.current().getSpanContext() (" + e + "): the audit log's records go without trace_id and span_id");
                return null;
            }
        }
    }
}
