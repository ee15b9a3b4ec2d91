package dev.tracegate.agent.instrumentation.configured;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.List;

/**
 * Follows the one value a Reactor {@code Mono} or an RxJava 3 {@code Single} or {@code Maybe} emits, through the
 * application's own classes: none of these types is on the agent's class path, so their operators are looked up by
 * reflection on the class the returned object extends (cached per class) and the functions handed to them are the JDK's
 * ({@code java.util.function}, which Reactor takes) or a {@link Proxy} of RxJava's own functional interfaces, defined in
 * their loader.
 *
 * <p>The host gets {@code source.doOnError(e).<on empty>(...).map(v)}: the same pipeline (nothing is subscribed here, so a
 * lazy source stays lazy), whose value passes {@link Hooks#value} before any subscriber sees it (a hook that throws makes
 * the pipeline fail with that exception: Reactor's and RxJava's {@code map} turn a thrown exception into an error signal),
 * whose failure is reported to {@link Hooks#error} and reaches the subscriber unchanged, and whose completion without a
 * value ({@code Mono.empty()}, an empty {@code Maybe}) is reported to {@link Hooks#empty}. A {@code Flux}, {@code Flowable},
 * {@code Observable} (many values), a {@code Completable} (none) or another {@code Publisher} is not followed.
 */
final class Reactive {
    private Reactive() {
    }

    /** What happens to each signal of a followed pipeline; all may run on any thread, once per subscription. */
    interface Hooks {
        /** The value emitted: the value the subscriber gets instead (the same one, a substitute), or throws to fail the pipeline. */
        Object value(Object value);

        /** The source failed with {@code failure}, which the subscriber then gets unchanged. */
        void error(Throwable failure);

        /** The source completed without a value; may throw to fail the pipeline instead. */
        void empty();
    }

    /** The classes whose single value is followed: Reactor's Mono, RxJava 3's Single and Maybe. */
    static final List<String> FOLLOWED = List.of("reactor.core.publisher.Mono", "io.reactivex.rxjava3.core.Single",
            "io.reactivex.rxjava3.core.Maybe");

    /** Whether the declared (raw) result type {@code name} is one whose value is followed. */
    static boolean followed(String name) {
        return FOLLOWED.contains(name);
    }

    /**
     * How a followed class's pipeline is wrapped: its base class (Mono, Single, Maybe) and the operators looked up on it.
     * {@code onEmpty} is Reactor's {@code doOnSuccess(Consumer)} (called with null for an empty Mono) or RxJava's
     * {@code Maybe#doOnComplete(Action)} (called only when empty); null for a Single, which cannot be empty.
     */
    record Shape(Class<?> base, Method map, Method doOnError, Method onEmpty, Method just, Method error) {
    }

    /** Per class of a returned object: its {@link Shape}, or null when it is no followed type (or its operators are not found). */
    private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                if (!followed(c.getName())) continue;
                try {
                    return shapeOf(c);
                } catch (RuntimeException | LinkageError e) {
                    return null;
                }
            }
            return null;
        }
    };

    /** The shape of {@code type}'s pipelines, or null: the per-class cache of {@link #shapeOf}. */
    static Shape shape(Class<?> type) {
        return SHAPES.get(type);
    }

    private static Shape shapeOf(Class<?> base) {
        boolean reactor = base.getName().startsWith("reactor.");
        Method map = oneArgument(base, "map", null);
        Method doOnError = oneArgument(base, "doOnError", null);
        Method onEmpty = reactor ? oneArgument(base, "doOnSuccess", null)
                : base.getName().endsWith(".Maybe") ? oneArgument(base, "doOnComplete", null) : null;
        Method just = oneArgument(base, "just", null);
        Method error = oneArgument(base, "error", Throwable.class);
        if (map == null || doOnError == null || just == null || error == null || (onEmpty == null && !base.getName().endsWith(".Single"))) return null;
        return new Shape(base, map, doOnError, onEmpty, just, error);
    }

    /** The public method {@code name} of {@code base} with one parameter (of type {@code parameter}, when given), or null. */
    private static Method oneArgument(Class<?> base, String name, Class<?> parameter) {
        for (Method m : base.getMethods()) {
            if (!m.getName().equals(name) || m.getParameterCount() != 1 || m.getDeclaringClass() != base) continue;
            if (parameter != null && m.getParameterTypes()[0] != parameter) continue;
            if (parameter == null && m.getParameterTypes()[0] == Class.class) continue;
            return m;
        }
        return null;
    }

    /**
     * The pipeline the host gets instead of {@code source}: as {@code source}, its value, failure and emptiness passed
     * through {@code hooks} (see the class comment); null when {@code source} is of no followed type.
     */
    static Object follow(Object source, Hooks hooks) throws ReflectiveOperationException {
        Shape shape = shape(source.getClass());
        if (shape == null) return null;
        Object out = shape.doOnError.invoke(source, function(shape.doOnError, args -> {
            hooks.error((Throwable) args[0]);
            return null;
        }));
        if (shape.onEmpty != null) {
            boolean reactor = shape.base.getName().startsWith("reactor.");
            out = shape.onEmpty.invoke(out, function(shape.onEmpty, args -> {
                if (!reactor || args[0] == null) hooks.empty();   // Reactor's doOnSuccess also sees the value: only null is empty
                return null;
            }));
        }
        return shape.map.invoke(out, function(shape.map, args -> hooks.value(args[0])));
    }

    /** A pipeline of {@code declared}'s class that emits {@code value} (null: fails with {@code failure}) once subscribed. */
    static Object completed(Class<?> declared, Object value, Throwable failure) throws ReflectiveOperationException {
        Shape shape = shape(declared);
        if (shape == null) return null;
        return value != null ? shape.just.invoke(null, value) : shape.error.invoke(null, failure);
    }

    /** What the body of the operator {@code operator}'s one functional parameter does, given its arguments. */
    interface Body {
        Object run(Object[] args);
    }

    /**
     * An instance of {@code operator}'s parameter type (a functional interface: {@code java.util.function.Function},
     * {@code Consumer}, or RxJava's {@code Function}, {@code Consumer}, {@code Action}) that runs {@code body}: a proxy
     * defined in the interface's own loader, so the agent needs none of these types.
     */
    private static Object function(Method operator, Body body) {
        Class<?> type = operator.getParameterTypes()[0];
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                switch (method.getName()) {
                    case "equals":
                        return proxy == args[0];
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    default:
                        return "tracegate check of " + type.getName();
                }
            }
            if (method.isDefault() || !Modifier.isAbstract(method.getModifiers())) {
                return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
            }
            return body.run(args == null ? new Object[0] : args);
        };
        ClassLoader loader = type.getClassLoader() != null ? type.getClassLoader() : Reactive.class.getClassLoader();
        return Proxy.newProxyInstance(loader, new Class<?>[] {type}, handler);
    }
}
