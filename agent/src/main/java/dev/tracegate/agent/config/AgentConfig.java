package dev.tracegate.agent.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The agent's configuration, read once at start from a YAML file, {@code TRACEGATE_*} environment
 * variables, {@code -Dtracegate.*} system properties and the agent argument string, each overriding the
 * one before; every key, its type, default and an example are in {@code agent/CONFIG.md}.
 *
 * <p>A relative path (an entry of {@code libraries} that is not a built-in name, {@code audit.path}) written in the
 * file is read from the file's directory; one given by a property, an environment variable, the agent argument or a
 * default is read from the working directory. The values hold the resolved absolute paths, as {@link #describe} shows.
 *
 * <p>Immutable and thread-safe. A value that cannot be used (unknown key, wrong type, bad duration or
 * choice) stops {@link #load} with a {@link ConfigException} naming its source.
 */
public final class AgentConfig {
    /** The shortest {@code audit.hmac-key} taken, in UTF-8 bytes (128 bits, if random). */
    public static final int MIN_HMAC_KEY_BYTES = 16;
    /** System properties {@code -Dtracegate.<key>} override the file and the environment. */
    public static final String PROPERTY_PREFIX = "tracegate.";
    /** Environment variables {@code TRACEGATE_<KEY>} ('.' and '-' as '_') override the file. */
    public static final String ENV_PREFIX = "TRACEGATE_";
    /** The key that names the YAML file: agent argument {@code config=}, {@code -Dtracegate.config}, {@code TRACEGATE_CONFIG}. */
    public static final String CONFIG_KEY = "config";

    /**
     * The development options (agent/README.md): the fixed-rules supervisor ({@code supervisor=rules}, {@code block=a;b},
     * ...) and the bridge ({@code trace}, {@code onBlock}, {@code shadow}, {@code methods}) read them as free text beside
     * the keys of this class, from the agent argument, {@code -Dtracegate.KEY} and {@code TRACEGATE_KEY}. Lists in them
     * are separated by ';'. The agent starts with them as extra keys; {@code attach} takes what {@link #keyNames} lists.
     */
    public static final Set<String> DEVELOPMENT_KEYS = Set.of("supervisor", "block", "suppress", "suppressUser", "redact",
            "blockOutput", "trace", "onBlock", "shadow", "methods", "failOn");

    /**
     * Every key the agent takes, as the agent argument writes them: {@code config} first, the configuration keys, then
     * the {@link #DEVELOPMENT_KEYS} (the {@code attach} command passes its own settings on as such).
     */
    public static List<String> keyNames() {
        List<String> names = new ArrayList<>();
        names.add(CONFIG_KEY);
        names.addAll(ConfigKey.ALL.keySet());
        names.addAll(new java.util.TreeSet<>(DEVELOPMENT_KEYS));
        return names;
    }

    /** The environment variable of a key ({@code audit.path}: {@code TRACEGATE_AUDIT_PATH}). */
    public static String environmentName(String key) {
        return Source.envName(key);
    }

    /**
     * Whether the key's value names a file ({@code config}, {@code audit.path}, {@code register.path}, the development
     * key {@code methods}); {@code libraries} names files entry by entry ({@link #namesLibraryFile}). A relative one
     * given outside the configuration file is read in the working directory of the JVM that reads it.
     */
    public static boolean namesFile(String key) {
        ConfigKey k = ConfigKey.ALL.get(key);
        return key.equals(CONFIG_KEY) || key.equals("methods") || (k != null && k.type == ConfigKey.Type.PATH);
    }

    /** Whether a {@code libraries} entry names a library file, not a built-in library ({@code gdpr}, {@code builtin:NAME}). */
    public static boolean namesLibraryFile(String entry) {
        return !entry.startsWith("builtin:") && !dev.tracegate.contracts.library.Library.BUILTINS.contains(entry);
    }

    /** Whether the key's value is a list or a mapping, whose items the agent argument separates with ';' (',' elsewhere too). */
    public static boolean listValued(String key) {
        ConfigKey k = ConfigKey.ALL.get(key);
        return k != null && (k.type == ConfigKey.Type.LIST || k.type == ConfigKey.Type.MAPPING);
    }

    private final Path configFile;
    private final Path configDirectory;   // where relative paths written in the file are read from; null without a file
    private final List<String> libraries;
    private final Mode mode;
    private final FailPolicy fail;
    private final BlockStyle blockStyle;
    private final Path auditPath;
    private final Path registerPath;
    private final PersonalData auditPersonalData;
    private final String auditHmacKey;
    private final int auditQueueSize;
    private final OnFull auditOnFull;
    private final Duration auditMaxBlock;
    private final Duration auditMaxDelay;
    private final boolean auditTraceIds;
    private final int sessionsMax;
    private final Duration sessionsIdleTimeout;
    private final Duration sessionsInFlightTimeout;
    private final int engineMaxStates;
    private final String escalateApprover;
    private final Duration escalateTimeout;
    private final int escalateMaxStuck;
    private final Map<String, String> redirect;
    private final Map<String, Boolean> instrumentations;
    private final List<ConfiguredMethod> configuredMethods;
    private final Duration hotReload;   // ZERO: off
    private final boolean debug;
    private final boolean metricsJmx;
    private final View view;
    private final boolean warmup;
    private final boolean stderrDecisions;
    private final Map<String, String> extras;
    private final Map<String, Setting> settings;
    private final Map<String, Source> libraryPlaces;
    private final List<String> ignored;

    /** One effective value: what it is and where it came from. */
    private static final class Setting {
        final Object value;
        final String shown;
        final Source source;

        Setting(Object value, String shown, Source source) {
            this.value = value;
            this.shown = shown;
            this.source = source;
        }
    }

    private AgentConfig(Path configFile, Path configDirectory, Map<String, Setting> s, Set<String> extraKeys,
                        Map<String, Source> libraryPlaces, List<String> ignored) {
        this.configFile = configFile;
        this.ignored = List.copyOf(ignored);
        this.configDirectory = configDirectory;
        this.libraryPlaces = Collections.unmodifiableMap(new LinkedHashMap<>(libraryPlaces));
        this.settings = Collections.unmodifiableMap(new LinkedHashMap<>(s));
        this.libraries = new LibraryList(list(s, "libraries"), this::libraryPlace);
        this.mode = (Mode) s.get("mode").value;
        this.fail = (FailPolicy) s.get("fail").value;
        this.blockStyle = (BlockStyle) s.get("block.style").value;
        this.auditPath = (Path) s.get("audit.path").value;
        this.registerPath = s.containsKey("register.path") ? (Path) s.get("register.path").value : null;
        this.auditPersonalData = (PersonalData) s.get("audit.personal-data").value;
        this.auditHmacKey = s.containsKey("audit.hmac-key") ? (String) s.get("audit.hmac-key").value : null;
        this.auditQueueSize = (int) (long) (Long) s.get("audit.queue-size").value;
        this.auditOnFull = (OnFull) s.get("audit.on-full").value;
        this.auditMaxBlock = (Duration) s.get("audit.max-block").value;
        this.auditMaxDelay = (Duration) s.get("audit.max-delay").value;
        this.auditTraceIds = (Boolean) s.get("audit.trace-ids").value;
        this.sessionsMax = (int) (long) (Long) s.get("sessions.max").value;
        this.sessionsIdleTimeout = (Duration) s.get("sessions.idle-timeout").value;
        this.sessionsInFlightTimeout = (Duration) s.get("sessions.in-flight-timeout").value;
        this.engineMaxStates = (int) (long) (Long) s.get("engine.max-states").value;
        this.escalateApprover = s.containsKey("escalate.approver") ? (String) s.get("escalate.approver").value : null;
        this.escalateTimeout = (Duration) s.get("escalate.timeout").value;
        this.escalateMaxStuck = (int) (long) (Long) s.get("escalate.max-stuck").value;
        @SuppressWarnings("unchecked") Map<String, String> r = (Map<String, String>) s.get("redirect").value;
        this.redirect = r;
        Map<String, Boolean> inst = new LinkedHashMap<>();
        for (String i : ConfigKey.INSTRUMENTATIONS) inst.put(i, (Boolean) s.get("instrumentations." + i + ".enabled").value);
        this.instrumentations = Collections.unmodifiableMap(inst);
        @SuppressWarnings("unchecked") List<ConfiguredMethod> m = (List<ConfiguredMethod>) s.get("configured-methods").value;
        this.configuredMethods = m;
        this.hotReload = (Duration) s.get("hot-reload").value;
        this.debug = (Boolean) s.get("debug").value;
        this.metricsJmx = (Boolean) s.get("metrics.jmx").value;
        this.view = (View) s.get("view").value;
        this.warmup = (Boolean) s.get("warmup").value;
        this.stderrDecisions = (Boolean) s.get("stderr.decisions").value;
        Map<String, String> x = new LinkedHashMap<>();
        for (String k : extraKeys) if (s.containsKey(k)) x.put(k, (String) s.get(k).value);
        this.extras = Collections.unmodifiableMap(x);
    }

    /**
     * The {@code libraries} entries as a list that tells {@link dev.tracegate.contracts.library.Library#load} where each
     * was written, so that a missing file is reported at its configuration entry, wherever the list is loaded.
     */
    private static final class LibraryList extends java.util.AbstractList<String>
            implements dev.tracegate.contracts.library.Library.Sources, java.util.RandomAccess {
        private final List<String> entries;
        private final java.util.function.Function<String, String> places;

        LibraryList(List<String> entries, java.util.function.Function<String, String> places) {
            this.entries = entries;
            this.places = places;
        }

        @Override public String get(int index) { return entries.get(index); }

        @Override public int size() { return entries.size(); }

        @Override public String namedAt(String source) { return places.apply(source); }
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(Map<String, Setting> s, String key) {
        return (List<String>) s.get(key).value;
    }

    // ------------------------------------------------------------------ loading

    /** The configuration with every key at its default (no file, no overrides). */
    public static AgentConfig defaults() {
        return load(null, Map.of(), Map.of(), Set.of());
    }

    /** Loads from the agent argument string, this process's environment and system properties. */
    public static AgentConfig load(String agentArguments) {
        Map<String, String> props = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith(PROPERTY_PREFIX)) props.put(name, System.getProperty(name));
        }
        return load(agentArguments, System.getenv(), props, Set.of());
    }

    /**
     * Loads from the given sources.
     *
     * @param agentArguments {@code key=value,key=value} (lists inside a value separated by ';'), or null
     * @param environment environment variables (only {@code TRACEGATE_*} ones are read)
     * @param properties system properties (only {@code tracegate.*} ones are read)
     * @param extraKeys further keys that other parts of the agent read as free text (see {@link #extra})
     */
    public static AgentConfig load(String agentArguments, Map<String, String> environment, Map<String, String> properties,
                                   Set<String> extraKeys) {
        try {
            return new Loader(extraKeys).load(agentArguments, environment, properties);
        } catch (ConfigException e) {
            FailDespiteErrors fail = failPolicyDespiteErrors(agentArguments, environment, properties);
            throw e.withFailPolicy(fail.policy(), fail.unsupervisedHint());
        }
    }

    /**
     * The {@code fail} policy of a configuration that is unusable, and, when the file that could have said it cannot
     * be read, how to ask for {@code open} instead (else null: the usual advice, {@code fail: open}, works).
     */
    record FailDespiteErrors(FailPolicy policy, String unsupervisedHint) {
    }

    /**
     * The {@code fail} key read leniently from the same sources, for when the configuration as a whole
     * is unusable: the agent argument, else the property, else the environment, else a top-level
     * {@code fail:} in the file; {@code closed} if none can be read.
     */
    static FailDespiteErrors failPolicyDespiteErrors(String agentArguments, Map<String, String> env, Map<String, String> props) {
        String value = null;
        String file = null;
        if (agentArguments != null) {
            for (String piece : agentArguments.split(",")) {
                int eq = piece.indexOf('=');
                if (eq <= 0) continue;
                String k = piece.substring(0, eq).trim();
                if (k.equals("fail") && value == null) value = piece.substring(eq + 1);
                if (k.equals(CONFIG_KEY) && file == null) file = piece.substring(eq + 1).trim();
            }
        }
        if (value == null) value = props.get(PROPERTY_PREFIX + "fail");
        if (value == null) value = env.get(ENV_PREFIX + "FAIL");
        if (file == null) file = props.get(PROPERTY_PREFIX + CONFIG_KEY);
        if (file == null) file = env.get(ENV_PREFIX + "CONFIG");
        String hint = null;
        if (value == null && file != null) {
            try (Reader in = Files.newBufferedReader(Path.of(file.trim()), StandardCharsets.UTF_8)) {
                Raw root = YamlFile.read(file, in);
                Raw f = root == null ? null : root.fields.get("fail");
                if (f != null && f.isScalar()) value = f.text;
            } catch (IOException | RuntimeException unreadable) {
                // the file is what is broken: its fail key cannot be trusted, so stay closed, and say where open can be asked for
                hint = unreadFailHint(file.trim(), unreadable);
            }
        }
        FailPolicy policy = value != null && value.trim().equalsIgnoreCase("open") ? FailPolicy.OPEN : FailPolicy.CLOSED;
        return new FailDespiteErrors(policy, hint);
    }

    /** The places {@code fail=open} is read from when the configuration file is not. */
    static final String FAIL_OPEN_ELSEWHERE = "-Dtracegate.fail=open, TRACEGATE_FAIL=open or fail=open in the agent argument";

    /**
     * The advice for a configuration file whose {@code fail} key cannot be read ({@code why}: not valid YAML, or not
     * readable at all): it names the file's own top-level {@code fail:} line when there is one, since that line is not
     * obeyed, and the places that are read.
     */
    private static String unreadFailHint(String file, Exception why) {
        String failLine = null;
        if (!(why instanceof IOException)) {   // readable but not YAML: look for the line the user meant to count
            try {
                List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size() && failLine == null; i++) {
                    java.util.regex.Matcher m = TOP_LEVEL_FAIL.matcher(lines.get(i));
                    if (m.matches()) failLine = "'fail: " + m.group(1) + "' (line " + (i + 1) + ")";
                }
            } catch (IOException | RuntimeException ignored) {
                // as unreadable as before: the advice names no line
            }
        }
        String what = why instanceof IOException ? "the file cannot be read" : "the file is not valid YAML";
        return "run the application unsupervised with " + FAIL_OPEN_ELSEWHERE + ": "
                + (failLine != null ? "the file's " + failLine + " is not read either, since " + what
                                    : "a fail: key in the file is not read while " + what);
    }

    /** A top-level {@code fail:} line, its value unquoted and without a comment. */
    private static final java.util.regex.Pattern TOP_LEVEL_FAIL =
            java.util.regex.Pattern.compile("fail\\s*:\\s*[\"']?([^\"'#\\s]*)[\"']?\\s*(?:#.*)?");

    private static final class Loader {
        private final Map<String, ConfigKey> keys = new LinkedHashMap<>(ConfigKey.ALL);
        private final Map<String, String> byEnvName = new TreeMap<>();
        private final Map<String, Setting> values = new LinkedHashMap<>();
        /** Where each entry of the effective {@code libraries} was written (an item of a YAML list has its own place). */
        private final Map<String, Source> libraryPlaces = new LinkedHashMap<>();
        private final List<String> ignored = new ArrayList<>();
        private final Set<String> extraKeys;
        /** The configuration file's directory, against which relative paths written in the file are resolved. */
        private Path fileDirectory;

        Loader(Set<String> extraKeys) {
            this.extraKeys = extraKeys;
            for (String x : extraKeys) {
                if (keys.containsKey(x) || x.equals(CONFIG_KEY)) {
                    throw new IllegalArgumentException("extra key '" + x + "' is already a configuration key");
                }
                keys.put(x, ConfigKey.extra(x));
            }
            for (String k : keys.keySet()) byEnvName.put(Source.envName(k), k);
        }

        AgentConfig load(String agentArguments, Map<String, String> env, Map<String, String> props) {
            Map<String, String> args = parseArguments(agentArguments);
            for (ConfigKey k : keys.values()) {
                if (k.defaultText != null) put(k, Raw.scalar(Source.DEFAULT, k.defaultText));
            }
            Path file = null;
            Source fileFrom = null;
            if (args.containsKey(CONFIG_KEY)) {
                file = path(args.get(CONFIG_KEY), fileFrom = Source.argument(CONFIG_KEY));
            } else if (props.containsKey(PROPERTY_PREFIX + CONFIG_KEY)) {
                file = path(props.get(PROPERTY_PREFIX + CONFIG_KEY), fileFrom = Source.property(CONFIG_KEY));
            } else if (env.containsKey(ENV_PREFIX + "CONFIG")) {
                file = path(env.get(ENV_PREFIX + "CONFIG"), fileFrom = Source.environment(CONFIG_KEY));
            }
            if (file != null) {
                fileDirectory = directoryOf(file);
                readFile(file, fileFrom);
            }

            for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
                String name = e.getKey();
                if (!name.startsWith(ENV_PREFIX) || name.equals(ENV_PREFIX + "CONFIG")) continue;
                String key = byEnvName.get(name);
                Source at = Source.environmentVariable(name);
                if (key == null) {
                    // the environment is inherited by every child process and shared with scripts (TRACEGATE_JAR=...):
                    // a name that is no key is left out, and said, rather than stopping every JVM that inherits it
                    ignored.add(name + " is not a tracegate key and is ignored." + didYouMean(at, name, byEnvName.keySet())
                            + " Every key is listed in agent/CONFIG.md; unset or rename the variable to silence this warning.");
                    continue;
                }
                put(keys.get(key), Raw.scalar(at, e.getValue().trim()));
            }
            for (Map.Entry<String, String> e : new TreeMap<>(props).entrySet()) {
                String name = e.getKey();
                if (!name.startsWith(PROPERTY_PREFIX) || name.equals(PROPERTY_PREFIX + CONFIG_KEY)) continue;
                String key = name.substring(PROPERTY_PREFIX.length());
                Source at = Source.property(key);
                if (!keys.containsKey(key)) throw unknown(at, key, keys.keySet(), at.spell(key));
                put(keys.get(key), Raw.scalar(at, e.getValue().trim()));
            }
            for (Map.Entry<String, String> e : args.entrySet()) {
                String key = e.getKey();
                if (key.equals(CONFIG_KEY)) continue;
                Source at = Source.argument(key);
                if (!keys.containsKey(key)) throw unknown(at, key, keys.keySet(), key);
                put(keys.get(key), Raw.scalar(at, e.getValue()));
            }
            return new AgentConfig(file, fileDirectory, values, extraKeys, libraryPlaces, ignored);
        }

        /** The file's directory as the file system names it (no "work/../conf", no symlink), or as written if it cannot be read. */
        private static Path directoryOf(Path file) {
            Path parent = file.toAbsolutePath().getParent();
            try {
                return parent.toRealPath();
            } catch (IOException e) {
                return parent;   // reading the file fails next, with its own message
            }
        }

        private static Path path(String text, Source from) {
            if (text.isBlank()) {   // an unset template value: refused as every key's empty value is, not read as the working directory
                throw new ConfigException(from.text, CONFIG_KEY, "config must name the YAML configuration file, got ''. Name it, e.g. "
                        + from.example(CONFIG_KEY, "/etc/tracegate/tracegate.yaml") + ", or remove " + from.spell(CONFIG_KEY)
                        + " to run on defaults and overrides only.");
            }
            try {
                return Path.of(text.trim());
            } catch (InvalidPathException e) {
                throw new ConfigException(from.text, CONFIG_KEY, "'" + text + "' is not a file path (" + e.getReason()
                        + "). Name the YAML configuration file, e.g. " + from.example(CONFIG_KEY, "/etc/tracegate/tracegate.yaml") + ".");
            }
        }

        private static Map<String, String> parseArguments(String arguments) {
            Map<String, String> out = new LinkedHashMap<>();
            if (arguments == null || arguments.isBlank()) return out;
            String[] pieces = arguments.split(",");
            for (int i = 0; i < pieces.length; i++) {
                String piece = pieces[i];
                if (piece.isBlank()) continue;
                int eq = piece.indexOf('=');
                if (eq <= 0) {
                    String list = listValueHint(pieces, i);
                    throw new ConfigException("agent arguments", null, "'" + piece.trim() + "' is not key=value. " + (list != null
                            ? "Inside the agent argument ',' separates options: " + list + "."
                            : "Write e.g. -javaagent:tracegate-agent.jar=config=/etc/tracegate.yaml,mode=shadow (separate list items inside a value with ';')."));
                }
                String key = piece.substring(0, eq).trim();
                if (out.containsKey(key)) {
                    throw new ConfigException("agent arguments", key, "the key '" + key + "' is given twice. Keep one of them.");
                }
                out.put(key, piece.substring(eq + 1).trim());
            }
            return out;
        }

        private void readFile(Path file, Source from) {
            Raw root;
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                root = YamlFile.read(file.toString(), in);
            } catch (IOException e) {
                throw new ConfigException(from.text, CONFIG_KEY, "cannot read the configuration file " + file + " (" + e
                        + "). Fix the path, or remove " + from.spell(CONFIG_KEY) + " to run on defaults and overrides only.");
            }
            if (root != null) walk(root, "", "", new HashMap<>());
        }

        /**
         * Flattens nested mappings into dotted keys until a key of the schema is reached. {@code seen} holds, per key
         * set so far in this file, where and how it was spelled: 'audit.path:' and 'audit:' / 'path:' name the same key,
         * so the second is refused as a key written twice is (trial12: the later one silently won).
         */
        private void walk(Raw mapping, String prefix, String spelledPrefix, Map<String, String[]> seen) {
            for (Map.Entry<String, Raw> e : mapping.fields.entrySet()) {
                String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
                String spelled = spelledPrefix.isEmpty() ? e.getKey() : spelledPrefix + ": " + e.getKey();
                Source keyAt = mapping.keySources.get(e.getKey());
                Raw v = e.getValue();
                if (key.equals(CONFIG_KEY)) {
                    throw new ConfigException(keyAt.text, CONFIG_KEY, "'config' names this file and cannot be set inside it. Remove the line.");
                }
                ConfigKey k = keys.get(key);
                if (k != null && extraKeys.contains(key)) {
                    // the development supervisor and the bridge read these from the start's own sources only: in the
                    // file one was taken and never read (block: charge let every charge run)
                    throw new ConfigException(keyAt.text, key, "'" + key + "' is a development option (agent/README.md), read from"
                            + " the agent argument (" + key + "=...), -D" + PROPERTY_PREFIX + key + " or " + Source.envName(key)
                            + ", not from the configuration file, where it would be ignored. Give it there, or remove the line.");
                }
                if (k != null) {
                    String[] first = seen.putIfAbsent(key, new String[] {keyAt.text, spelled});
                    if (first != null) {
                        throw new ConfigException(keyAt.text, key, "the key '" + key + "' is set twice in this file: first as '" + first[1]
                                + "' at " + first[0] + ", again as '" + spelled + "' here (a dotted key and a nested mapping name the"
                                + " same key). Keep one of them.");
                    }
                    put(k, v);
                } else if (isGroup(key)) {
                    if (v.fields != null) {
                        walk(v, key, spelled, seen);
                    } else if (!v.isNull()) {
                        List<String> members = new ArrayList<>();
                        for (String name : keys.keySet()) if (name.startsWith(key + ".")) members.add(name.substring(key.length() + 1));
                        throw new ConfigException(v.source.text, key, "'" + key + "' is a group of keys (" + String.join(", ", members)
                                + "), not a value, but it is given " + v.shown() + ". Write its keys indented below it, e.g. '"
                                + key + ":' and on the next line '  " + members.get(0) + ": " + keys.get(key + "." + members.get(0)).example + "'.");
                    }
                } else {
                    throw unknown(keyAt, key, keys.keySet(), key);
                }
            }
        }

        private boolean isGroup(String key) {
            for (String k : keys.keySet()) if (k.startsWith(key + ".")) return true;
            return false;
        }

        private ConfigException unknown(Source at, String key, Collection<String> candidates, String spelled) {
            return new ConfigException(at.text, key, "unknown key '" + spelled + "'." + didYouMean(at, key, candidates)
                    + " Every key is listed in agent/CONFIG.md.");
        }

        /** " Did you mean 'x'?" with the nearest key as this source spells it, or "" when none is near. */
        private String didYouMean(Source at, String key, Collection<String> candidates) {
            if (at.kind == Source.Kind.ENVIRONMENT) {
                // compared without the prefix they all share, so that TRACEGATE_JAR is not "near" TRACEGATE_FAIL
                List<String> names = new ArrayList<>();
                for (String c : candidates) names.add(c.substring(ENV_PREFIX.length()));
                String near = nearest(key.substring(ENV_PREFIX.length()), names);
                return near == null ? "" : " Did you mean '" + ENV_PREFIX + near + "'?";
            }
            String near = nearest(key, candidates);
            return near == null ? "" : " Did you mean '" + at.spell(near) + "'?";
        }

        private void put(ConfigKey k, Raw r) {
            Setting s = convert(k, r);
            if (s == null) return;
            values.put(k.name, s);
            if (k.name.equals("libraries")) {
                libraryPlaces.clear();
                List<String> entries = list(values, k.name);   // resolved; a YAML list's items in their order
                for (int i = 0; i < entries.size(); i++) libraryPlaces.putIfAbsent(entries.get(i), r.items != null ? r.items.get(i).source : r.source);
            }
        }

        // -------------------------------------------------------------- types

        private Setting convert(ConfigKey k, Raw r) {
            if (r.isNull()) return null;   // "key:" with nothing keeps the value from before
            switch (k.type) {
                case TEXT: {
                    String t = scalar(k, r);
                    if (t.isBlank()) throw wrong(k, r, null);
                    if (k.name.equals("audit.hmac-key") && t.getBytes(StandardCharsets.UTF_8).length < MIN_HMAC_KEY_BYTES) {
                        // trial23: a 4-character key was taken without a word; HMAC under a guessable key hides nothing
                        throw new ConfigException(r.source.text, k.name, "audit.hmac-key must be at least " + MIN_HMAC_KEY_BYTES
                                + " bytes (UTF-8), got " + t.getBytes(StandardCharsets.UTF_8).length + " (the key itself is not shown): with a short"
                                + " key anyone who reads the audit log can test guesses of its hashed personal data (an e-mail address, an"
                                + " IBAN) offline. Use a long random secret, e.g. the output of 'openssl rand -base64 32', and set it through "
                                + Source.envName(k.name) + ".");
                    }
                    return new Setting(t, k.secret ? "(set)" : t, r.source);
                }
                case PATH: {
                    String t = scalar(k, r);
                    try {
                        if (t.isBlank()) throw wrong(k, r, null);
                        Path p = resolved(t.trim(), r.source);
                        if (Files.isDirectory(p)) {
                            // known to be wrong at start: refused like any bad value, not left to an outage that refuses every call (trial23)
                            throw new ConfigException(r.source.text, k.name, k.name + " must name a file, but " + p + " is a directory. Name a"
                                    + " file in it, e.g. " + r.source.example(k.name, p.resolve(k.name.equals("audit.path") ? "audit.jsonl"
                                    : "gdpr-register.jsonl").toString()) + ".");
                        }
                        return new Setting(p, p.toString(), r.source);
                    } catch (InvalidPathException e) {
                        throw wrong(k, r, null);
                    }
                }
                case SWITCH: {
                    Boolean b = bool(scalar(k, r));
                    if (b == null) throw wrong(k, r, null);
                    return new Setting(b, b.toString(), r.source);
                }
                case COUNT: {
                    String t = scalar(k, r).replace("_", "");
                    long n;
                    try {
                        n = Long.parseLong(t);
                    } catch (NumberFormatException e) {
                        throw wrong(k, r, null);
                    }
                    if (n < k.min || n > k.max) throw wrong(k, r, null);
                    return new Setting(n, Long.toString(n), r.source);
                }
                case DURATION: {
                    Duration d = duration(k, r);
                    // shown as written, so that debug prints the default CONFIG.md gives (24h, not 1d: trial23)
                    return new Setting(d, scalar(k, r).trim(), r.source);
                }
                case CHOICE: {
                    String t = scalar(k, r).trim();
                    for (Enum<?> c : k.choices) {
                        if (ConfigKey.wire(c).equalsIgnoreCase(t) || c.name().equalsIgnoreCase(t)) return new Setting(c, ConfigKey.wire(c), r.source);
                    }
                    List<String> names = new ArrayList<>();
                    for (Enum<?> c : k.choices) names.add(ConfigKey.wire(c));
                    throw wrong(k, r, nearest(t.toLowerCase(Locale.ROOT), names));
                }
                case LIST: {
                    List<String> items = new ArrayList<>();
                    if (r.items != null) {
                        for (Raw item : r.items) {
                            if (!item.isScalar() || item.text.isBlank()) throw wrong(k, item, null);
                            items.add(listItem(k, item, item.text.trim()));
                        }
                    } else {
                        for (String part : scalar(k, r).split("[,;]")) if (!part.isBlank()) items.add(listItem(k, r, part.trim()));
                        if (items.isEmpty() && r.source.kind != Source.Kind.DEFAULT) throw empty(k, r);
                    }
                    List<String> l = Collections.unmodifiableList(items);
                    return new Setting(l, l.toString(), r.source);
                }
                case MAPPING: {
                    Map<String, String> m = new LinkedHashMap<>();
                    if (r.fields != null) {
                        for (Map.Entry<String, Raw> e : r.fields.entrySet()) {
                            Raw v = e.getValue();
                            if (!v.isScalar() || v.text.isBlank()) throw wrong(k, v, null);
                            m.put(e.getKey().trim(), v.text.trim());
                        }
                    } else {
                        for (String pair : scalar(k, r).split("[,;]")) {
                            if (pair.isBlank()) continue;
                            int colon = pair.indexOf(':');
                            if (colon <= 0 || colon == pair.length() - 1) throw wrong(k, r, null);
                            m.put(pair.substring(0, colon).trim(), pair.substring(colon + 1).trim());
                        }
                        if (m.isEmpty() && r.source.kind != Source.Kind.DEFAULT) throw empty(k, r);
                    }
                    Map<String, String> u = Collections.unmodifiableMap(m);
                    return new Setting(u, u.toString(), r.source);
                }
                case METHODS:
                    return methods(k, r);
                case SWITCH_OR_DURATION: {
                    String t = scalar(k, r);
                    Boolean b = bool(t);
                    if (b != null) {
                        Duration d = b ? Duration.ofSeconds(2) : Duration.ZERO;
                        return new Setting(d, b ? "true (every 2s)" : "false", r.source);
                    }
                    Duration d = DurationText.parse(t);
                    if (d == null || d.toNanos() < k.min || d.toNanos() > k.max) throw wrong(k, r, null);
                    return new Setting(d, "true (every " + DurationText.format(d) + ")", r.source);
                }
                default:
                    throw new IllegalStateException(k.type.toString());
            }
        }

        /** A list item as the agent uses it: a {@code libraries} entry that names a file is resolved like any path. */
        private String listItem(ConfigKey k, Raw r, String item) {
            if (!k.name.equals("libraries") || !namesLibraryFile(item)) {
                return item;
            }
            try {
                return resolved(item, r.source).toString();
            } catch (InvalidPathException e) {
                throw new ConfigException(r.source.text, k.name, "the libraries entry '" + item + "' is not a file path (" + e.getReason()
                        + "). Name a library file, e.g. " + r.source.example(k.name, "/etc/tracegate/refunds.yaml") + ", or a built-in name: "
                        + String.join(", ", dev.tracegate.contracts.library.Library.BUILTINS) + ".");
            }
        }

        /**
         * The absolute path a value names: a relative path written in the configuration file is read from the file's
         * directory, as tools that read a configuration file commonly do; one typed where the program is started (a
         * property, an environment variable, the agent argument) or a default, from the working directory.
         */
        private Path resolved(String text, Source from) {
            Path p = Path.of(text);
            if (p.isAbsolute()) return p;
            return from.kind == Source.Kind.FILE && fileDirectory != null ? fileDirectory.resolve(p) : p.toAbsolutePath();
        }

        private static Boolean bool(String t) {
            String s = t.trim();
            if (s.equalsIgnoreCase("true")) return Boolean.TRUE;
            if (s.equalsIgnoreCase("false")) return Boolean.FALSE;
            return null;
        }

        private Duration duration(ConfigKey k, Raw r) {
            String t = scalar(k, r);
            Duration d;
            try {
                d = DurationText.parse(t);
            } catch (ArithmeticException e) {
                d = null;
            }
            if (d == null || d.compareTo(Duration.ofNanos(k.min)) < 0 || d.compareTo(Duration.ofNanos(k.max)) > 0) throw wrong(k, r, null);
            return d;
        }

        private String scalar(ConfigKey k, Raw r) {
            if (!r.isScalar()) throw wrong(k, r, null);
            return r.text;
        }

        /**
         * A list or mapping key given an empty text ({@code TRACEGATE_LIBRARIES=}, an unset deployment-template value):
         * refused like an empty value of any other key, not taken for an empty list, which would replace the file's list
         * key by key and, for {@code libraries}, leave nothing supervised under either failure policy (trial23 04).
         */
        private ConfigException empty(ConfigKey k, Raw r) {
            String none = k.type == ConfigKey.Type.LIST ? "[]" : "{}";
            String fix = r.source.kind == Source.Kind.FILE
                    ? " Write " + k.name + ": " + none + " if you mean none, or remove the line to keep the default."
                    : " Set it to the value you mean, e.g. " + r.source.example(k.name, k.type == ConfigKey.Type.MAPPING ? k.example.replace(": ", ":") : k.example)
                    + ", or remove " + r.source.spell(k.name) + " to keep " + before(k)
                    + " (an empty value is refused, not read as an empty " + (k.type == ConfigKey.Type.LIST ? "list" : "mapping")
                    + ", since it would replace the file's value" + (k.name.equals("libraries") ? " and leave nothing supervised" : "") + ").";
            return new ConfigException(r.source.text, k.name, k.name + " must be " + k.what() + ", got " + r.shown() + "." + fix);
        }

        /** The value {@code k} has before the source being read, for a message: "the default", or where it was set. */
        private String before(ConfigKey k) {
            Setting s = values.get(k.name);
            if (s == null || s.source.kind == Source.Kind.DEFAULT) return "the default";
            return (s.source.kind == Source.Kind.FILE ? "the configuration file's value (" : "the value of ") + s.source.text
                    + (s.source.kind == Source.Kind.FILE ? ")" : "");
        }

        private ConfigException wrong(ConfigKey k, Raw r, String suggestion) {
            String shown = k.secret ? "a value that cannot be used" : r.shown();
            StringBuilder m = new StringBuilder().append(k.name).append(" must be ").append(k.what()).append(", got ").append(shown).append('.');
            if (suggestion != null) m.append(" Did you mean '").append(suggestion).append("'?");
            String example = suggestion != null ? suggestion : k.example;
            if (r.source.kind == Source.Kind.FILE && (k.type == ConfigKey.Type.LIST)) example = "[" + example + "]";
            if (r.source.kind == Source.Kind.FILE && (k.type == ConfigKey.Type.MAPPING)) example = "{" + example + "}";
            if (r.source.kind != Source.Kind.FILE && k.type == ConfigKey.Type.MAPPING) example = example.replace(": ", ":");
            m.append(" Write e.g. ").append(r.source.example(k.name, example)).append('.');
            return new ConfigException(r.source.text, k.name, m.toString());
        }

        // -------------------------------------------------------------- configured methods

        private static final List<String> METHOD_FIELDS = List.of("class", "method", "kind", "tool-name", "args-param",
                "session-param", "subject-param", "purpose-param", "granted-param", "nested", "block-style", "exclude-params");

        private Setting methods(ConfigKey k, Raw r) {
            if (r.source.kind == Source.Kind.DEFAULT) return new Setting(List.of(), "[]", r.source);
            if (r.source.kind != Source.Kind.FILE) {
                throw new ConfigException(r.source.text, k.name, "configured-methods can only be set in the configuration file, as a list of mappings"
                        + " (class, method, kind, ...). Move it to the YAML file; CONFIG.md shows an example.");
            }
            if (r.items == null) {
                throw new ConfigException(r.source.text, k.name, "configured-methods must be a list of mappings, got " + r.shown()
                        + ". Write each method as an item starting with '- class: com.acme.Shop' (see CONFIG.md).");
            }
            List<ConfiguredMethod> out = new ArrayList<>();
            for (Raw item : r.items) {
                if (item.fields == null) {
                    throw new ConfigException(item.source.text, k.name, "each configured method must be a mapping, got " + item.shown()
                            + ". Write e.g. '- {class: com.acme.Shop, method: checkout, kind: tool}'.");
                }
                Map<String, String> f = new LinkedHashMap<>();
                List<String> exclude = new ArrayList<>();
                for (Map.Entry<String, Raw> e : item.fields.entrySet()) {
                    String name = e.getKey();
                    Source at = item.keySources.get(name);
                    if (!METHOD_FIELDS.contains(name)) {
                        String near = nearest(name, METHOD_FIELDS);
                        throw new ConfigException(at.text, k.name, "unknown field '" + name + "' in a configured method."
                                + (near != null ? " Did you mean '" + near + "'?" : "") + " The fields are " + String.join(", ", METHOD_FIELDS) + ".");
                    }
                    Raw v = e.getValue();
                    if (name.equals("exclude-params") && v.items != null) {
                        // a YAML list of parameters (exclude-params: [toolContext, 3]); one scalar is a list of one
                        if (v.items.isEmpty()) {
                            throw new ConfigException(v.source.text, k.name, "exclude-params of a configured method is an empty list, which"
                                    + " leaves out nothing. Name the parameters that are no tool data (exclude-params: [toolContext]), or"
                                    + " remove it.");
                        }
                        for (Raw item2 : v.items) {
                            if (!item2.isScalar() || item2.text.isBlank()) {
                                throw new ConfigException(item2.source.text, k.name, "each parameter in exclude-params must be a parameter's"
                                        + " 0-based index or its name, got " + item2.shown() + ". Write e.g. 'exclude-params: [toolContext]'.");
                            }
                            String problem = ConfiguredMethod.paramProblem("exclude-params", item2.text.trim());
                            if (problem != null) throw new ConfigException(item2.source.text, k.name, problem);
                            exclude.add(item2.text.trim());
                        }
                        f.put(name, String.join(",", exclude));
                        continue;
                    }
                    if (!v.isScalar() || v.text.isBlank()) {
                        throw new ConfigException(v.source.text, k.name, "the field '" + name + "' of a configured method must be a text or a number, got "
                                + v.shown() + ". Write e.g. '" + name + ": " + (name.endsWith("-param") ? "0" : "checkout") + "'.");
                    }
                    f.put(name, v.text.trim());
                    if (name.equals("exclude-params")) {
                        String problem = ConfiguredMethod.paramProblem("exclude-params", v.text.trim());
                        if (problem != null) throw new ConfigException(v.source.text, k.name, problem);
                        exclude.add(v.text.trim());
                    }
                }
                for (String required : List.of("class", "method", "kind")) {
                    if (!f.containsKey(required)) {
                        throw new ConfigException(item.source.text, k.name, "this configured method has no '" + required
                                + "'. Every method needs class, method and kind (tool, consent or erasure).");
                    }
                }
                ConfiguredMethod.Kind kind = null;
                for (ConfiguredMethod.Kind c : ConfiguredMethod.Kind.values()) if (ConfigKey.wire(c).equalsIgnoreCase(f.get("kind"))) kind = c;
                if (kind == null) {
                    Source at = item.fields.get("kind").source;
                    String near = nearest(f.get("kind").toLowerCase(Locale.ROOT), List.of("tool", "consent", "erasure"));
                    String given = f.get("kind").toLowerCase(Locale.ROOT);
                    boolean message = List.of("user", "assistant", "model", "llm", "chat", "message", "system").contains(given);
                    // a model call is the natural thing to try next (trial17): say that it has no kind here, and what is left
                    throw new ConfigException(at.text, k.name, "kind must be one of tool, consent, erasure, got '" + f.get("kind") + "'."
                            + (near != null ? " Did you mean '" + near + "'?" : "")
                            + (message ? " A configured method cannot be a USER or ASSISTANT message: an in-house model call cannot be"
                            + " supervised (no answer contract, user_matches or answer check sees it). Remove this entry, or keep it as"
                            + " 'kind: tool' to record the call as a tool call (its text is then a tool argument and result, which"
                            + " contracts on messages do not read); see README, \"Methods of your own code\"." : ""));
                }
                List<String> needed = kind == ConfiguredMethod.Kind.CONSENT ? List.of("subject-param", "purpose-param")
                        : kind == ConfiguredMethod.Kind.ERASURE ? List.of("subject-param") : List.of();
                for (String n : needed) {
                    if (!f.containsKey(n)) {
                        throw new ConfigException(item.source.text, k.name, "a " + ConfigKey.wire(kind) + " method needs '" + n
                                + "' (the index of the parameter that holds it, or a literal). Add e.g. '" + n + ": 0'.");
                    }
                }
                for (String param : List.of("tool-name", "args-param", "session-param", "subject-param", "purpose-param", "granted-param")) {
                    String problem = f.containsKey(param) ? ConfiguredMethod.paramProblem(param, f.get(param)) : null;
                    if (problem != null) throw new ConfigException(item.fields.get(param).source.text, k.name, problem);
                }
                String nested = f.getOrDefault("nested", "false").toLowerCase(Locale.ROOT);
                if (!nested.equals("true") && !nested.equals("false")) {
                    throw new ConfigException(item.fields.get("nested").source.text, k.name, "nested must be true or false, got '" + f.get("nested")
                            + "'. 'nested: true' supervises the method also when it runs inside another supervised call (CONFIG.md).");
                }
                String blockStyle = f.get("block-style");
                if (blockStyle != null && (kind != ConfiguredMethod.Kind.TOOL || !blockStyle.equalsIgnoreCase("exception"))) {
                    throw new ConfigException(item.fields.get("block-style").source.text, k.name, kind != ConfiguredMethod.Kind.TOOL
                            ? "block-style applies to a tool method only: a " + ConfigKey.wire(kind) + " method is never blocked. Remove it."
                            : "block-style on a configured method can only be 'exception', got '" + blockStyle + "': its blocked calls and"
                            + " withheld results then throw TracegateViolation whatever block.style says, so a cache (@Cacheable) or other"
                            + " wrapper that stores the method's value never stores a refusal (CONFIG.md, \"A refusal and a cache\")."
                            + " Leave it out to follow block.style.");
                }
                if (!exclude.isEmpty() && kind != ConfiguredMethod.Kind.TOOL) {
                    throw new ConfigException(item.keySources.get("exclude-params").text, k.name, "exclude-params applies to a tool method"
                            + " only: a " + ConfigKey.wire(kind) + " method's event has no arguments to leave a parameter out of (it reads only"
                            + " its subject-param, purpose-param, granted-param and session-param). Remove exclude-params.");
                }
                String args = f.get("args-param");
                if (!exclude.isEmpty() && args != null && !args.equals("*")) {
                    throw new ConfigException(item.keySources.get("exclude-params").text, k.name, "exclude-params leaves parameters out"
                            + " of the arguments when they are all parameters by name (no args-param), but this entry says args-param: " + args
                            + ", so its arguments are that one parameter's and the others are already left out. Remove exclude-params, or"
                            + " remove args-param to have every parameter but the excluded ones as the arguments.");
                }
                out.add(new ConfiguredMethod(f.get("class"), f.get("method"), kind, f.get("tool-name"), f.get("args-param"),
                        f.get("session-param"), f.get("subject-param"), f.get("purpose-param"), f.get("granted-param"), item.source.text,
                        nested.equals("true"), blockStyle != null, exclude));
            }
            List<ConfiguredMethod> l = Collections.unmodifiableList(out);
            return new Setting(l, l.isEmpty() ? "[]" : l.toString(), r.source);
        }
    }

    /**
     * For a piece of the agent argument string that is not {@code key=value} and follows a list-valued key
     * ({@code libraries=shop.yaml,gdpr}): the fix, "separate list values with ';': libraries=shop.yaml;gdpr",
     * joining every bare piece that follows the key; null when the piece does not follow a list-valued key.
     *
     * @param pieces the agent argument split at ','
     * @param bare   the index of the piece without '='
     */
    public static String listValueHint(String[] pieces, int bare) {
        int keyAt = bare - 1;
        while (keyAt >= 0 && pieces[keyAt].indexOf('=') <= 0) keyAt--;
        if (keyAt < 0) return null;
        String key = pieces[keyAt].substring(0, pieces[keyAt].indexOf('=')).trim();
        ConfigKey k = ConfigKey.ALL.get(key);
        if (k == null || (k.type != ConfigKey.Type.LIST && k.type != ConfigKey.Type.MAPPING)) return null;
        StringBuilder fixed = new StringBuilder(key).append('=').append(pieces[keyAt].substring(pieces[keyAt].indexOf('=') + 1).trim());
        for (int i = keyAt + 1; i < pieces.length && pieces[i].indexOf('=') <= 0; i++) {
            if (!pieces[i].isBlank()) fixed.append(';').append(pieces[i].trim());
        }
        return "separate list values with ';': " + fixed;
    }

    /**
     * Whether {@code key}, a top-level key of a YAML file, is one of the agent's configuration keys (agent/CONFIG.md,
     * "Keys"): a key ({@code libraries}, {@code audit.path}) or the section of dotted ones ({@code audit}).
     */
    public static boolean isKey(String key) {
        if (ConfigKey.ALL.containsKey(key)) return true;
        for (String name : ConfigKey.ALL.keySet()) if (name.startsWith(key + ".")) return true;
        return false;
    }

    /** The candidate nearest to {@code word} by edit distance, if near enough to be a likely typo; else null. */
    public static String nearest(String word, Collection<String> candidates) {
        // singular for plural and back (library for libraries) is a likelier slip than any edit distance says
        for (String c : candidates) if (singular(c).equals(singular(word)) && !c.equals(word)) return c;
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = dev.tracegate.contracts.library.Spelling.distance(word, c);
            if (d < bestD) { bestD = d; best = c; }
        }
        if (best != null && bestD <= Math.max(2, word.length() / 3)) return best;
        for (String c : candidates) if (c.endsWith("." + word) || c.endsWith("_" + word)) return c;
        return null;
    }

    /** A key's last word in the singular: libraries -> library, redirects -> redirect (only for comparing). */
    private static String singular(String written) {
        String key = written.toLowerCase(Locale.ROOT);
        if (key.endsWith("ies") && key.length() > 3) return key.substring(0, key.length() - 3) + "y";
        if (key.endsWith("s") && !key.endsWith("ss") && key.length() > 1) return key.substring(0, key.length() - 1);
        return key;
    }

    // ------------------------------------------------------------------ values

    /** The YAML file read, or null if none was named. */
    public Path configFile() { return configFile; }

    /** Contract libraries: built-in names (gdpr, injection, sop-refund, temporal-classes) or absolute file paths (see the class comment). */
    public List<String> libraries() { return libraries; }

    /**
     * The directory the relative entries of {@link #libraries()} were read from: the configuration file's when the
     * list was written there, else the working directory (the entries themselves are already resolved).
     */
    public Path libraryBase() {
        Setting s = settings.get("libraries");
        boolean inFile = configDirectory != null && s != null && s.source.kind == Source.Kind.FILE;
        return inFile ? configDirectory : Path.of("").toAbsolutePath();
    }

    /**
     * Where an entry of {@link #libraries()} was written, for a message about it: file:line:col of its item in the
     * configuration file, {@code -Dtracegate.libraries}, {@code TRACEGATE_LIBRARIES} or "agent argument libraries";
     * null for a name that is not an entry.
     */
    public String libraryPlace(String library) {
        Source s = libraryPlaces.get(library);
        return s == null ? null : s.text;
    }

    public Mode mode() { return mode; }

    public FailPolicy fail() { return fail; }

    public BlockStyle blockStyle() { return blockStyle; }

    /** The audit log file, absolute (a relative {@code audit.path} is resolved as the class comment says). */
    public Path auditPath() { return auditPath; }

    /**
     * The file that keeps the GDPR register's erasures, consents and withdrawals across restarts ({@code register.path}),
     * or null: the register lives in memory only.
     */
    public Path registerPath() { return registerPath; }

    public PersonalData auditPersonalData() { return auditPersonalData; }

    /** The HMAC key for personal data in the audit log (UTF-8 bytes of the configured text), or null for a per-file salt. */
    public byte[] auditHmacKey() { return auditHmacKey == null ? null : auditHmacKey.getBytes(StandardCharsets.UTF_8); }

    public int auditQueueSize() { return auditQueueSize; }

    public OnFull auditOnFull() { return auditOnFull; }

    /** How long an event's thread waits for room in a full audit queue (block mode) before giving up. */
    public Duration auditMaxBlock() { return auditMaxBlock; }

    /** The longest an accepted audit record waits in memory before it is handed to the operating system. */
    public Duration auditMaxDelay() { return auditMaxDelay; }

    public int sessionsMax() { return sessionsMax; }

    public Duration sessionsIdleTimeout() { return sessionsIdleTimeout; }

    /** How long a session with a tool call in flight is kept with no event (at least {@link #sessionsIdleTimeout()}). */
    public Duration sessionsInFlightTimeout() { return sessionsInFlightTimeout; }

    public int engineMaxStates() { return engineMaxStates; }

    /** The approver class for {@code escalate} contracts, or null (escalations are then refused). */
    public String escalateApprover() { return escalateApprover; }

    public Duration escalateTimeout() { return escalateTimeout; }

    /** {@code escalate.max-stuck}: approver threads stuck past escalate.timeout at which escalations are refused at once. */
    public int escalateMaxStuck() { return escalateMaxStuck; }

    /** The safe tool run instead when a {@code redirect} contract fires, keyed by contract id or by the blocked tool's name (the id wins). */
    public Map<String, String> redirect() { return redirect; }

    /**
     * Whether an instrumentation is on (all are by default).
     *
     * @throws IllegalArgumentException for a name that is not an instrumentation
     */
    public boolean instrumentationEnabled(String name) {
        Boolean b = instrumentations.get(name);
        if (b == null) throw new IllegalArgumentException("no instrumentation named '" + name + "'; known: " + instrumentations.keySet());
        return b;
    }

    /** The names {@link #instrumentationEnabled} knows. */
    public static List<String> instrumentationNames() { return ConfigKey.INSTRUMENTATIONS; }

    public List<ConfiguredMethod> configuredMethods() { return configuredMethods; }

    public boolean hotReload() { return !hotReload.isZero(); }

    /** How often library files are checked for changes when {@link #hotReload()} is on. */
    public Duration hotReloadInterval() { return hotReload.isZero() ? Duration.ofSeconds(2) : hotReload; }

    public boolean debug() { return debug; }

    /**
     * One warning per {@code TRACEGATE_*} environment variable that is no key (a script's {@code TRACEGATE_JAR}, a
     * misspelt override): the variable was left out, and the start goes on. Misspelt properties and agent arguments,
     * which are given to this JVM alone, stop the start instead.
     */
    public List<String> ignoredEnvironment() { return ignored; }

    public boolean metricsJmx() { return metricsJmx; }

    /** {@code view}: live prints every decision on standard error and a summary at exit. */
    public View view() { return view; }

    /** {@code warmup}: a background thread warms the supervision path up before the first real event. */
    public boolean warmup() { return warmup; }

    /** {@code stderr.decisions}: one line on standard error per decision that changes something (CONFIG.md, "Decisions on standard error"). */
    public boolean stderrDecisions() { return stderrDecisions; }

    /**
     * {@code audit.trace-ids}: an event's record carries the W3C trace and span id of the OpenTelemetry span current on
     * the thread that made it, when there is one (CONFIG.md, "Joining a record to its trace").
     */
    public boolean auditTraceIds() { return auditTraceIds; }

    /** An extension key's value (one passed to {@link #load(String, Map, Map, Set)}), or null if not set. */
    public String extra(String key) { return extras.get(key); }

    /** Where a key's effective value came from: "default", file:line:col, -Dtracegate.x, TRACEGATE_X or "agent argument x". */
    public String sourceOf(String key) {
        Setting s = settings.get(key);
        return s == null ? "unset" : s.source.text;
    }

    /** The effective configuration, one key per line with its value and source (secrets hidden): what {@code debug} prints. */
    public String describe() {
        StringBuilder b = new StringBuilder("tracegate effective configuration")
                .append(configFile == null ? " (no configuration file)" : " (file " + configFile.toAbsolutePath() + ")").append('\n');
        int width = 0;
        for (String k : ConfigKey.ALL.keySet()) width = Math.max(width, k.length());
        for (String k : extras.keySet()) width = Math.max(width, k.length());
        List<String> order = new ArrayList<>(ConfigKey.ALL.keySet());
        order.addAll(extras.keySet());
        for (String k : order) {
            Setting s = settings.get(k);
            String shown = s == null ? "(unset)" : s.shown;
            String from = s == null ? "default" : s.source.text;
            b.append("  ").append(k).append(" ".repeat(width - k.length())).append(" = ").append(shown)
                    .append("   [").append(from).append("]\n");
        }
        return b.toString();
    }

    @Override public String toString() { return describe(); }
}
