package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Loads the libraries a command names, printing a library mistake as one paragraph (exit 2). */
final class LibraryOptions {
    private LibraryOptions() {}

    /**
     * The compiled libraries, or null after printing why not. Each name may itself list libraries separated by
     * commas, so {@code check a.yaml,gdpr} and {@code check a.yaml gdpr} load the same as {@code replay a.yaml,gdpr TRACE}.
     */
    static Library load(List<String> names) {
        for (String name : split(names)) {
            if (isTrace(Path.of(name))) {
                System.err.println(name + ": a JSONL trace (or audit log) is given where a contract library is expected. The libraries"
                        + " come first (built-in names or .yaml files, comma separated), then the traces: replay LIB[,LIB...] " + name);
                return null;
            }
        }
        try {
            return Library.load(split(names), Path.of(""));
        } catch (LibraryException e) {
            System.err.println(e.getMessage());
            return null;
        }
    }

    /** The names with comma-separated lists split, blanks trimmed and empty entries dropped. */
    static List<String> split(List<String> names) {
        List<String> out = new ArrayList<>();
        for (String name : names) {
            for (String part : name.split(",")) {
                if (!part.isBlank()) out.add(part.strip());
            }
        }
        return out;
    }

    /**
     * Whether {@code file} is a JSONL trace or audit log rather than a library: a file named .jsonl, or one whose first
     * non-blank line is a JSON object naming an event's or a record's fields (a YAML library in flow style names none).
     */
    static boolean isTrace(Path file) {
        if (!java.nio.file.Files.isRegularFile(file)) return false;
        if (file.getFileName().toString().endsWith(".jsonl")) return true;
        try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String t = line.strip();
                if (t.isEmpty()) continue;
                return t.startsWith("{\"") && (t.contains("\"kind\"") || t.contains("\"session\"") || t.contains("\"rec\""));
            }
            return false;
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return false;   // not readable as text: the library loader says what is wrong with it
        }
    }

    static final int BAD_INPUT = 2;
}
