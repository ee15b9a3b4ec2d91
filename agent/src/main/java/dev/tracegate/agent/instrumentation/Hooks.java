package dev.tracegate.agent.instrumentation;

import java.util.List;
import java.util.function.Predicate;

/**
 * An instrumentation of one framework: its name, a class whose presence in a class loader tells that
 * the framework is there (checked per loader before any type matching), and its hook points.
 */
public interface Hooks {

    String name();

    /** A class of the framework; loaders that cannot see it are skipped cheaply ("java.lang.Object" for hooks that depend on no framework). */
    String marker();

    List<HookPoint> points();

    /**
     * The binary class names the points can match, when they match types by name only (configured
     * methods), else null. The weaver asks it before Byte Buddy is built, so it must not use Byte Buddy.
     */
    default Predicate<String> classNames() {
        return null;
    }

    /**
     * Warnings about parts of this instrumentation that matched nothing although others did (a configured-methods entry
     * whose class or method is misspelt): asked with the matched-nothing report, each said once.
     */
    default List<String> unmatchedParts() {
        return List.of();
    }

    /**
     * As {@link #unmatchedParts()}; {@code classesMayLoadLater} is true right after an attach, when a class the part names
     * may still load (a plugin), so a warning should say what is true so far, not that the calls were never supervised.
     */
    default List<String> unmatchedParts(boolean classesMayLoadLater) {
        return unmatchedParts();
    }

    /**
     * The framework's own package ({@code dev.langchain4j}), or null for hooks that depend on no framework: a class
     * of {@link #chokePoints} found under another package is a relocated (shaded) copy, which these hooks do not match.
     */
    default String frameworkPackage() {
        return null;
    }

    /**
     * Classes under {@link #frameworkPackage} that every application of the framework loads and the hook points match
     * by name (LangChain4j's ToolService): a class whose name ends like one of them, outside that package, tells that
     * the application carries a relocated copy ({@link RelocatedFrameworks}).
     */
    default List<String> chokePoints() {
        return List.of();
    }

    /**
     * Other classes under {@link #frameworkPackage} that ship in the same artifact as the {@link #chokePoints} (LangChain4j's
     * AiServices beside ToolService): a class named like a choke point outside the package is taken for a relocated copy
     * only when these are there too under the same relocated prefix, so an application's own {@code com.acme.tool.ToolCallback}
     * is not.
     */
    default List<String> chokePointSiblings() {
        return List.of();
    }

    /** These hooks, saying that their points match only classes named as {@code classNames} accepts. */
    static Hooks matchingNames(Hooks hooks, Predicate<String> classNames) {
        return new Hooks() {
            @Override
            public String name() {
                return hooks.name();
            }

            @Override
            public String marker() {
                return hooks.marker();
            }

            @Override
            public List<HookPoint> points() {
                return hooks.points();
            }

            @Override
            public Predicate<String> classNames() {
                return classNames;
            }

            @Override
            public String frameworkPackage() {
                return hooks.frameworkPackage();
            }

            @Override
            public List<String> chokePoints() {
                return hooks.chokePoints();
            }

            @Override
            public List<String> chokePointSiblings() {
                return hooks.chokePointSiblings();
            }

            @Override
            public List<String> unmatchedParts() {
                return hooks.unmatchedParts();
            }

            @Override
            public List<String> unmatchedParts(boolean classesMayLoadLater) {
                return hooks.unmatchedParts(classesMayLoadLater);
            }
        };
    }
}
