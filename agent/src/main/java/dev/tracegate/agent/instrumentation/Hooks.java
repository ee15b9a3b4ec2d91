package dev.tracegate.agent.instrumentation;

import java.util.List;

/**
 * An instrumentation of one framework: its name, a class whose presence in a class loader tells that
 * the framework is there (checked per loader before any type matching), and its hook points.
 */
public interface Hooks {

    String name();

    /** A class of the framework; loaders that cannot see it are skipped cheaply ("java.lang.Object" for hooks that depend on no framework). */
    String marker();

    List<HookPoint> points();
}
