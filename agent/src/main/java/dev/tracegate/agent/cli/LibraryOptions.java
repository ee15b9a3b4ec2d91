package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;

import java.nio.file.Path;
import java.util.List;

/** Loads the libraries a command names, printing a library mistake as one paragraph (exit 2). */
final class LibraryOptions {
    private LibraryOptions() {}

    /** The compiled libraries, or null after printing why not. */
    static Library load(List<String> names) {
        try {
            return Library.load(names, Path.of(""));
        } catch (LibraryException e) {
            System.err.println(e.getMessage());
            return null;
        }
    }

    static final int BAD_INPUT = 2;
}
