package dev.tracegate.agent.metrics;

import java.lang.management.ManagementFactory;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Every use of the platform MBean server, apart from the classes that do not need it: this class is loaded only on a
 * runtime that has java.management ({@link SupervisorMetrics#jmxAvailable}); a jlink'd image may not (trial40 03).
 */
final class Jmx {
    private Jmx() {
    }

    /** The current thread's CPU time in ns, 0 where the JVM cannot tell. */
    static long threadCpuNanos() {
        java.lang.management.ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        return cpu.isCurrentThreadCpuTimeSupported() ? cpu.getCurrentThreadCpuTime() : 0;
    }

    /** Registers {@code bean} as {@code objectName}, replacing one registered there before; returns its ObjectName. */
    static Object register(Object bean, String objectName) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = new ObjectName(objectName);
            try {
                server.registerMBean(bean, name);
            } catch (InstanceAlreadyExistsException e) {
                server.unregisterMBean(name);
                server.registerMBean(bean, name);
            }
            return name;
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        } catch (JMException e) {
            throw new IllegalStateException("cannot register the JMX MBean " + objectName + ": " + e
                    + "; set metrics.jmx: false to run without it", e);
        }
    }

    /** Unregisters the MBean {@code name} (an ObjectName from {@link #register}); one already gone is no error. */
    static void unregister(Object name) {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean((ObjectName) name);
        } catch (InstanceNotFoundException e) {
            // already gone (someone else unregistered it): nothing to do
        } catch (JMException e) {
            throw new IllegalStateException(e);
        }
    }
}
