package dev.tracegate.agent.instrumentation;

import org.junit.jupiter.api.Test;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which class loaders the weaver takes to see a framework (its marker class), and what that costs a host that makes a
 * loader per script or per class: a loader under one already found to see the framework is answered without a class path
 * look-up, unless it decides for itself what it shows (it overrides {@code getResource}).
 */
class FrameworkPresenceTest {

    private static final String MARKER = "example.framework.Marker";
    private static final String RESOURCE = "example/framework/Marker.class";

    private static URL framework(String name) {
        try {
            return RESOURCE.equals(name) ? new URL("file:/apps/lib/framework-1.2.jar") : null;
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A loader that holds the framework, counting the look-ups that reach it. Its parent sees the framework too, so
     * that it is no application of its own for {@code Applications} (whose JVM-wide list other tests read).
     */
    static final class Holding extends ClassLoader {
        final AtomicInteger lookups = new AtomicInteger();

        Holding() {
            super(new ClassLoader(null) {
                @Override
                public URL getResource(String name) {
                    return framework(name);
                }
            });
        }

        @Override
        public URL getResource(String name) {
            lookups.incrementAndGet();
            return framework(name);
        }
    }

    /** A loader per script: ClassLoader's own getResource, so its parent's resources are its own. */
    static final class Script extends ClassLoader {
        Script(ClassLoader parent) {
            super(parent);
        }
    }

    /** A loader that hides its parent's framework (an isolating plugin loader). */
    static final class Hiding extends ClassLoader {
        Hiding(ClassLoader parent) {
            super(parent);
        }

        @Override
        public URL getResource(String name) {
            return name.startsWith("example/framework/") ? null : super.getResource(name);
        }
    }

    @Test
    void aScriptLoaderUnderTheApplicationSeesItsFrameworkWithoutALookUp() {
        Weaver.FrameworkPresence presence = new Weaver.FrameworkPresence(MARKER);
        Holding app = new Holding();
        assertThat(presence.matches(app)).isTrue();
        assertThat(app.lookups.get()).isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            assertThat(presence.matches(new Script(app))).isTrue();
        }
        // each script loader's own getResource would have asked the application's loader again
        assertThat(app.lookups.get()).as("look-ups for 100 script loaders").isEqualTo(1);
        assertThat(presence.source).isEqualTo("file:/apps/lib/framework-1.2.jar");
    }

    @Test
    void aLoaderThatHidesItsParentsFrameworkDoesNotSeeIt() {
        Weaver.FrameworkPresence presence = new Weaver.FrameworkPresence(MARKER);
        Holding app = new Holding();
        assertThat(presence.matches(app)).isTrue();
        assertThat(presence.matches(new Hiding(app))).isFalse();
        assertThat(presence.matches(new Script(new Hiding(app)))).as("a script loader under the hiding one").isFalse();
    }

    @Test
    void aLoaderUnderOneWithoutTheFrameworkIsAskedItself() {
        Weaver.FrameworkPresence presence = new Weaver.FrameworkPresence(MARKER);
        ClassLoader plain = new Script(null);
        assertThat(presence.matches(plain)).isFalse();
        Holding below = new Holding();
        assertThat(presence.matches(new Script(plain))).isFalse();
        assertThat(presence.matches(below)).isTrue();
        assertThat(presence.matches(null)).as("the bootstrap loader's classes are never woven").isFalse();
    }
}
