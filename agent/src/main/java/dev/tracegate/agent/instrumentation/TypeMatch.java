package dev.tracegate.agent.instrumentation;

import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A hook point's type matcher that also says, by class names alone, which classes it can ever accept: its own name is
 * one of {@link #names}, starts with one of {@link #prefixes}, or it is one of {@link #supers} or has one of them among
 * its super types. The weaver uses that to pass over, without Byte Buddy describing it, a class that no point can match
 * ({@link SuperTypeNames}); a conjunction keeps the names of its first part (it only narrows), a disjunction of two
 * such matchers the names of both. Any other matcher says nothing, and every class goes to Byte Buddy for it.
 */
public final class TypeMatch extends ElementMatcher.Junction.AbstractBase<TypeDescription> {

    private final ElementMatcher<? super TypeDescription> matcher;
    final Set<String> names;
    final List<String> prefixes;
    final Set<String> supers;

    private TypeMatch(ElementMatcher<? super TypeDescription> matcher, Set<String> names, List<String> prefixes, Set<String> supers) {
        this.matcher = matcher;
        this.names = names;
        this.prefixes = prefixes;
        this.supers = supers;
    }

    /** The type of this binary name. */
    public static TypeMatch typeNamed(String name) {
        return new TypeMatch(ElementMatchers.named(name), Set.of(name), List.of(), Set.of());
    }

    /** The types whose binary name starts with this prefix. */
    public static TypeMatch typeNameStartsWith(String prefix) {
        return new TypeMatch(ElementMatchers.nameStartsWith(prefix), Set.of(), List.of(prefix), Set.of());
    }

    /**
     * The type of this binary name and every type that has it among its super types ({@code hasSuperType(named(name))}).
     * Not a JDK type ({@code java.}): the weaver does not read the JDK's class files to find one.
     */
    public static TypeMatch subTypeOf(String name) {
        if (name.startsWith("java.")) {
            throw new IllegalArgumentException(name + ": a JDK type's subtypes are not found by names; use Byte Buddy's matchers");
        }
        return new TypeMatch(ElementMatchers.hasSuperType(ElementMatchers.named(name)), Set.of(), List.of(), Set.of(name));
    }

    @Override
    public boolean matches(TypeDescription target) {
        return matcher.matches(target);
    }

    /** Whether the binary name alone makes this a class the matcher may accept (without looking at its super types). */
    boolean mayAcceptName(String className) {
        if (names.contains(className) || supers.contains(className)) {
            return true;
        }
        for (String prefix : prefixes) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U extends TypeDescription> Junction<U> and(ElementMatcher<? super U> other) {
        // a conjunction accepts no class this one refuses: its names still hold (U is a TypeDescription, which this takes)
        Junction<U> both = new Conjunction<U>(matcher, other);
        return (Junction<U>) (Junction<?>) new TypeMatch((ElementMatcher<? super TypeDescription>) (ElementMatcher<?>) both,
                names, prefixes, supers);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U extends TypeDescription> Junction<U> or(ElementMatcher<? super U> other) {
        Junction<U> either = new Disjunction<U>(matcher, other);
        if (!(other instanceof TypeMatch)) {
            return either; // the other part says nothing about names: neither does the disjunction
        }
        TypeMatch m = (TypeMatch) other;
        return (Junction<U>) (Junction<?>) new TypeMatch((ElementMatcher<? super TypeDescription>) (ElementMatcher<?>) either,
                union(names, m.names), List.copyOf(union(Set.copyOf(prefixes), Set.copyOf(m.prefixes))), union(supers, m.supers));
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    @Override
    public String toString() {
        return matcher.toString();
    }
}
