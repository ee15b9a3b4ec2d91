package dev.tracegate.agent.instrumentation.configured;

import java.util.ArrayList;
import java.util.List;

/** The parameter types of a JVM method descriptor, as Java names ({@code (Ljava/lang/String;J)V} -> String, long). */
final class ParameterTypes {
    private ParameterTypes() {}

    /** The parameter types of {@code descriptor}, or null when it is null or not a method descriptor. */
    static List<String> of(String descriptor) {
        if (descriptor == null || descriptor.isEmpty() || descriptor.charAt(0) != '(') return null;
        List<String> types = new ArrayList<>();
        int i = 1;
        while (i < descriptor.length() && descriptor.charAt(i) != ')') {
            int dims = 0;
            while (descriptor.charAt(i) == '[') { dims++; i++; }
            String type;
            char c = descriptor.charAt(i);
            if (c == 'L') {
                int end = descriptor.indexOf(';', i);
                if (end < 0) return null;
                type = descriptor.substring(i + 1, end).replace('/', '.');
                i = end + 1;
            } else {
                type = switch (c) {
                    case 'Z' -> "boolean"; case 'B' -> "byte"; case 'C' -> "char"; case 'S' -> "short";
                    case 'I' -> "int"; case 'J' -> "long"; case 'F' -> "float"; case 'D' -> "double";
                    default -> null;
                };
                if (type == null) return null;
                i++;
            }
            types.add(dims == 0 ? type : type + "[]".repeat(dims));
        }
        return i < descriptor.length() ? types : null;
    }

    private static final java.util.Set<String> PRIMITIVES = java.util.Set.of("boolean", "byte", "char", "short", "int", "long", "float", "double");

    /** Whether a type from {@link #of} is primitive (a parameter that cannot be null). */
    static boolean primitive(String type) {
        return PRIMITIVES.contains(type);
    }
}
