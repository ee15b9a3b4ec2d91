package dev.tracegate.agent.instrumentation.configured;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.SyntheticState;
import net.bytebuddy.description.modifier.TypeManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.dynamic.scaffold.subclass.ConstructorStrategy;
import net.bytebuddy.implementation.FieldAccessor;
import net.bytebuddy.implementation.MethodCall;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Function;

/**
 * The continuation a configured Kotlin {@code suspend} method runs with in place of its caller's: a subclass of the
 * Kotlin runtime's own {@code kotlin.coroutines.jvm.internal.ContinuationImpl}, generated once per woven class into that
 * class's loader and package ({@code Owner$$TracegateResume}, synthetic, so no method glob weaves it). Its completion is
 * the caller's continuation, so it has the caller's context (dispatcher, job, elements) and is intercepted and dispatched
 * as a state machine's continuation is; when the call's value (or failure) arrives, the runtime calls its
 * {@code invokeSuspend} with it, which hands it to the check, and passes what the check returns (or throws) on to the
 * caller, as it does from one state machine to the next. Built with the Kotlin runtime the woven class links against.
 */
final class Continuations {

    private Continuations() {
    }

    /** The generated class of each woven class with suspend methods, or why there is none. */
    private static final ClassValue<Maker> MAKERS = new ClassValue<Maker>() {
        @Override
        protected Maker computeValue(Class<?> owner) {
            // one at a time: threads that first call suspend methods of the same class at once each compute a value (one is
            // kept), and the class is defined once, by the first; the others find it
            synchronized (Continuations.class) {
                try {
                    return Maker.of(owner);
                } catch (Throwable e) {
                    return new Maker(null, null, "cannot make a continuation for the suspend methods of " + owner.getName() + ": " + e);
                }
            }
        }
    };

    /** The maker for {@code owner}'s suspend methods; throws when there is none (counted as an internal error by the caller). */
    static Maker of(Class<?> owner) {
        Maker maker = MAKERS.get(owner);
        if (maker.problem != null) throw new IllegalStateException(maker.problem);
        return maker;
    }

    static final class Maker {
        private final MethodHandle constructor;
        private final java.lang.reflect.Field failure;
        final String problem;

        private Maker(MethodHandle constructor, java.lang.reflect.Field failure, String problem) {
            this.constructor = constructor;
            this.failure = failure;
            this.problem = problem;
        }

        static Maker of(Class<?> owner) throws ReflectiveOperationException {
            ClassLoader loader = owner.getClassLoader();
            Class<?> impl = Class.forName("kotlin.coroutines.jvm.internal.ContinuationImpl", false, loader);
            Class<?> continuation = Class.forName("kotlin.coroutines.Continuation", false, loader);
            java.lang.reflect.Field failure = Class.forName("kotlin.Result$Failure", false, loader).getField("exception");
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
            String name = owner.getName() + "$$TracegateResume";
            Class<?> made;
            try {
                made = Class.forName(name, false, loader);   // defined before, for a value another thread's look-up kept
            } catch (ClassNotFoundException notYet) {
                made = null;
            }
            if (made == null) made = new ByteBuddy()
                    .subclass(impl, ConstructorStrategy.Default.NO_CONSTRUCTORS)
                    .name(name)
                    .modifiers(Visibility.PUBLIC, TypeManifestation.FINAL, SyntheticState.SYNTHETIC)
                    .defineField("tgCheck", Function.class, Visibility.PRIVATE, SyntheticState.SYNTHETIC)
                    .defineConstructor(Visibility.PUBLIC)
                    .withParameters(continuation, Function.class)
                    .intercept(MethodCall.invoke(impl.getDeclaredConstructor(continuation)).withArgument(0)
                            .andThen(FieldAccessor.ofField("tgCheck").setsArgumentAt(1)))
                    .defineMethod("invokeSuspend", Object.class, Visibility.PUBLIC, SyntheticState.SYNTHETIC)
                    .withParameters(Object.class)
                    .intercept(MethodCall.invoke(Function.class.getMethod("apply", Object.class)).onField("tgCheck").withArgument(0))
                    .make()
                    .load(loader, ClassLoadingStrategy.UsingLookup.of(lookup))
                    .getLoaded();
            MethodHandle constructor = lookup.findConstructor(made, MethodType.methodType(void.class, continuation, Function.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Function.class));
            return new Maker(constructor, failure, null);
        }

        /** A continuation whose completion is {@code caller} and that hands the call's outcome to {@code check}. */
        Object wrap(Object caller, Function<Object, Object> check) throws Throwable {
            return constructor.invoke(caller, check);
        }

        /** The exception of an outcome that is a failure ({@code kotlin.Result.Failure}), or null for a value. */
        Throwable failureOf(Object outcome) throws IllegalAccessException {
            return outcome != null && outcome.getClass() == failure.getDeclaringClass() ? (Throwable) failure.get(outcome) : null;
        }
    }

    /** Throws {@code t} as it is (a checked exception too), as Kotlin code may. */
    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException rethrow(Throwable t) throws T {
        throw (T) t;
    }
}
