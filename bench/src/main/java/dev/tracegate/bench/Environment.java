package dev.tracegate.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a measurement ran on: JVM, processors, CPU model, load, time; written next to every figure. */
final class Environment {
    private Environment() {}

    static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", Instant.now().toString());
        m.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        m.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put("loadAverage", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        m.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        return m;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) return line.substring(line.indexOf(':') + 1).trim();
            }
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        return "unknown";
    }
}
