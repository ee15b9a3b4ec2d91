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
        return load(names, "check", " ", "");
    }

    /**
     * As {@link #load(List)}, for command {@code command}, which takes its libraries joined by {@code separator} and then
     * {@code rest} ({@code replay} with "," and " TRACE..."): a file given there that is an agent configuration is said to
     * be one, with the command that checks the libraries it lists instead.
     */
    static Library load(List<String> names, String command, String separator, String rest) {
        for (String name : split(names)) {
            if (isTrace(Path.of(name))) {
                System.err.println(name + ": a JSONL trace (or audit log) is given where a contract library is expected. The libraries"
                        + " come first (built-in names or .yaml files, comma separated), then the traces: replay LIB[,LIB...] " + name);
                return null;
            }
        }
        if (agentConfiguration(split(names), command, separator, rest)) return null;
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

    /**
     * Says, for each of {@code names} that is an agent configuration file (trial19 05: {@code check tracegate.yaml} read it
     * as a library with an unknown key, "did you mean 'library'?"), that it is one and which command checks the libraries
     * it lists, resolved as the agent resolves them (a relative entry against the file's directory); true if any was.
     */
    private static boolean agentConfiguration(List<String> names, String command, String separator, String rest) {
        List<String> instead = new ArrayList<>();
        List<String> said = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        boolean usable = true;
        for (String name : names) {
            String[] keys = agentKeys(Path.of(name));
            if (keys == null) {
                instead.add(name);
                continue;
            }
            StringBuilder b = new StringBuilder(name).append(':').append(keys[0]).append(": an agent configuration file (")
                    .append(keys.length == 2 ? "its key " : "its keys ").append(String.join(", ", java.util.Arrays.copyOfRange(keys, 1, keys.length)))
                    .append(keys.length == 2 ? " is" : " are").append(" the agent's: agent/CONFIG.md, \"Keys\"), not a contract library; ")
                    .append(command).append(" reads contract libraries (built-in names or library .yaml files), and the agent reads this file"
                            + " itself when it starts (-javaagent:tracegate-agent.jar=config=").append(name).append(')');
            try {
                java.util.Map<String, String> props = java.util.Map.of(dev.tracegate.agent.config.AgentConfig.PROPERTY_PREFIX
                        + dev.tracegate.agent.config.AgentConfig.CONFIG_KEY, Path.of(name).toAbsolutePath().toString());
                dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(null, java.util.Map.of(), props, java.util.Set.of());
                List<String> libraries = config.libraries();
                notes.addAll(sessionlessNotes(config));
                notes.addAll(redirectNotes(config));
                if (libraries.isEmpty()) {
                    b.append(". It lists no libraries (its 'libraries' key is missing or empty): give ").append(command)
                            .append(" the library files the agent should load");
                    usable = false;
                }
                for (String lib : libraries) instead.add(shown(lib));
            } catch (RuntimeException e) {
                // the agent would refuse it: say why, as it would, and give no command built from a file it cannot read
                b.append(". The agent would not start with it: ").append(e.getMessage());
                usable = false;
            }
            said.add(b.toString());
        }
        if (said.isEmpty()) return false;
        for (String s : said) System.err.println(s);
        for (String n : notes) System.err.println(n);
        if (usable) {
            List<String> quoted = new ArrayList<>();
            for (String n : instead) quoted.add(n.matches("[A-Za-z0-9_./:@+=-]+") ? n : "'" + n.replace("'", "'\\''") + "'");
            System.err.println("  give " + command + " the libraries it lists instead (relative entries resolved against the file's directory,"
                    + " as the agent resolves them):\n  " + command + " " + String.join(separator, quoted) + rest);
        }
        return true;
    }

    /**
     * For {@code check}: each of {@code names} that is an agent configuration file is replaced by the libraries it lists,
     * resolved as the agent resolves them (a relative entry against the file's directory), after a line that says so and
     * the notes on its configured methods and redirects (trial26 05: {@code check tracegate.yaml}, as agent/CONFIG.md
     * gives it, exited 2 without checking anything). Null after printing why, when the agent would not start with such a
     * file or it lists no library (exit 2).
     */
    static List<String> withConfigurationsExpanded(List<String> names) {
        List<String> out = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (String name : split(names)) {
            String[] keys = agentKeys(Path.of(name));
            if (keys == null) {
                out.add(name);
                continue;
            }
            dev.tracegate.agent.config.AgentConfig config;
            try {
                java.util.Map<String, String> props = java.util.Map.of(dev.tracegate.agent.config.AgentConfig.PROPERTY_PREFIX
                        + dev.tracegate.agent.config.AgentConfig.CONFIG_KEY, Path.of(name).toAbsolutePath().toString());
                config = dev.tracegate.agent.config.AgentConfig.load(null, java.util.Map.of(), props, java.util.Set.of());
            } catch (RuntimeException e) {
                System.err.println(name + ":" + keys[0] + ": an agent configuration file, and the agent would not start with it: " + e.getMessage());
                return null;
            }
            List<String> libraries = new ArrayList<>();
            for (String lib : config.libraries()) libraries.add(shown(lib));
            if (libraries.isEmpty()) {
                System.err.println(name + ":" + keys[0] + ": an agent configuration file that lists no libraries (its 'libraries' key is"
                        + " missing or empty), so there is nothing to check: add 'libraries: [gdpr, my-policy.yaml]' to it, or give check"
                        + " the library files the agent should load");
                return null;
            }
            System.out.println(name + ": agent configuration; checking the libraries it lists (relative entries resolved against the"
                    + " file's directory, as the agent resolves them): " + String.join(" ", libraries));
            out.addAll(libraries);
            notes.addAll(sessionlessNotes(config));
            notes.addAll(redirectNotes(config));
        }
        for (String n : notes) System.err.println(n);
        return out;
    }

    /**
     * A note for each consent or erasure entry of {@code config} without {@code session-param} when a contract of its
     * libraries reads {@code consent}/{@code erasure} as an event of the session: such an event is in the conversation
     * its thread is in, and one called outside any reaches only the register, which that contract does not read (the
     * agent WARNs at the first such call; agent/CONFIG.md, "Configured methods"). None when the libraries do not load
     * (check of them says why).
     */
    static List<String> sessionlessNotes(dev.tracegate.agent.config.AgentConfig config) {
        List<String> out = new ArrayList<>();
        List<dev.tracegate.agent.config.ConfiguredMethod> lacking = new ArrayList<>();
        for (dev.tracegate.agent.config.ConfiguredMethod m : config.configuredMethods()) {
            if (m.kind() != dev.tracegate.agent.config.ConfiguredMethod.Kind.TOOL && m.sessionParam() == null) lacking.add(m);
        }
        if (lacking.isEmpty() || config.libraries().isEmpty()) return out;
        dev.tracegate.contracts.library.Library lib = loadedOrNull(config);
        if (lib == null) return out;
        for (dev.tracegate.agent.config.ConfiguredMethod m : lacking) {
            String what = m.kind() == dev.tracegate.agent.config.ConfiguredMethod.Kind.ERASURE ? "erasure" : "consent";
            List<String> readers = new ArrayList<>();
            for (dev.tracegate.engine.monitor.Contract c : lib.contracts().contracts()) {
                if (dev.tracegate.agent.supervision.ContractSupervisor.readsEvent(c.assume(), what)
                        || dev.tracegate.agent.supervision.ContractSupervisor.readsEvent(c.guarantee(), what)) readers.add(c.id());
            }
            if (readers.isEmpty()) continue;
            out.add("note: configured-methods entry " + m.where() + " (" + what + ", class " + m.className() + ", method " + m.method()
                    + ") has no session-param: its " + what + " is in the conversation whose call runs on the calling thread, or whose calls"
                    + " that thread runs (an agent loop); called outside any conversation (a form's or a job's thread, a pooled thread that"
                    + " served several) it reaches only the GDPR register, and " + String.join(", ", readers)
                    + (readers.size() == 1 ? " reads" : " read") + " `" + what + "` as an event of the session, so "
                    + (readers.size() == 1 ? "it does" : "they do") + " not see it there. Add session-param where the method knows the"
                    + " conversation (agent/CONFIG.md, \"Configured methods\")");
        }
        return out;
    }

    /** {@code config}'s libraries, relative to its file's folder; null when they do not load (check of them says why). */
    private static dev.tracegate.contracts.library.Library loadedOrNull(dev.tracegate.agent.config.AgentConfig config) {
        try {
            Path base = config.configFile() == null ? Path.of("") : config.configFile().toAbsolutePath().getParent();
            return dev.tracegate.contracts.library.Library.load(config.libraries(), base);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * A note for each redirect contract of {@code config}'s libraries whose calls only configured methods see, so that
     * they are blocked, not redirected: the WARN the agent's start gives (supervision.RedirectReach), said here before
     * the start. None when the libraries do not load (check of them says why).
     */
    static List<String> redirectNotes(dev.tracegate.agent.config.AgentConfig config) {
        List<String> out = new ArrayList<>();
        if (config.libraries().isEmpty() || config.configuredMethods().isEmpty()) return out;
        dev.tracegate.contracts.library.Library lib = loadedOrNull(config);
        if (lib == null) return out;
        for (String line : dev.tracegate.agent.supervision.RedirectReach.onlyBlocked(lib, config, config.redirect())) out.add("note: " + line);
        return out;
    }

    /** A library entry as the agent resolved it, relative to the working directory when it lies under it. */
    private static String shown(String library) {
        Path p;
        try {
            p = Path.of(library);
        } catch (java.nio.file.InvalidPathException e) {
            return library;
        }
        if (!p.isAbsolute()) return library;   // a built-in name
        Path here = Path.of("").toAbsolutePath();
        return p.startsWith(here) && !p.equals(here) ? here.relativize(p).toString() : library;
    }

    /**
     * For a YAML file whose top-level keys are agent configuration keys and none a library's: the first such key's
     * line:column, then those keys; else null (a library, a broken file or not a file: the library loader says what is
     * wrong with it).
     */
    static String[] agentKeys(Path file) {
        if (!java.nio.file.Files.isRegularFile(file)) return null;
        try (com.fasterxml.jackson.core.JsonParser p = YAML.createParser(file.toFile())) {
            if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) return null;
            List<String> out = new ArrayList<>();
            out.add(null);
            for (com.fasterxml.jackson.core.JsonToken t = p.nextToken(); t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME; t = p.nextToken()) {
                String key = p.currentName();
                if (dev.tracegate.contracts.library.LibraryReader.isTopLevelKey(key)) return null;
                if (dev.tracegate.agent.config.AgentConfig.isKey(key) && !out.contains(key)) {
                    if (out.get(0) == null) {
                        com.fasterxml.jackson.core.JsonLocation at = p.currentTokenLocation();
                        out.set(0, at.getLineNr() + ":" + at.getColumnNr());
                    }
                    out.add(key);
                }
                p.nextToken();
                p.skipChildren();
            }
            return out.size() > 1 ? out.toArray(new String[0]) : null;
        } catch (java.io.IOException | RuntimeException e) {
            return null;   // not YAML the agent could read either: the library loader says where
        }
    }

    private static final com.fasterxml.jackson.dataformat.yaml.YAMLFactory YAML = new com.fasterxml.jackson.dataformat.yaml.YAMLFactory();

    static final int BAD_INPUT = 2;
}
