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

    static final int BAD_INPUT = 2;
}
