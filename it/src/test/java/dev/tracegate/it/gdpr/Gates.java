package dev.tracegate.it.gdpr;

import dev.tracegate.it.gdpr.RunLog.Rec;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Ways to stand between the agent and its tools, model and user, applied to a recorded unsupervised
 * dialogue: each decides per event whether it gets through, and {@link #simulate} rebuilds the log the
 * dialogue would have produced (a refused call does not run and the model sees a notice; a withheld
 * result reaches the model as a notice; a refused answer never reaches the user). The scripted agent
 * plans the same calls whatever it sees, so the rebuilt log is what the supervised run would record.
 */
final class Gates {

    private Gates() {
    }

    /** A gate over one dialogue at a time. */
    interface Gate {
        void begin(String session);

        default void user(String text) {
        }

        boolean refuseCall(String tool, String argsJson);

        boolean withholdResult(String tool, String result);

        boolean refuseAnswer(String text);
    }

    static List<Rec> simulate(String session, List<Rec> baseline, Gate gate) {
        gate.begin(session);
        List<Rec> out = new ArrayList<>();
        String lastSeen = null;
        boolean lastRefused = false;
        for (int i = 0; i < baseline.size(); i++) {
            Rec r = baseline.get(i);
            switch (r.kind()) {
                case "user" -> {
                    gate.user(r.text());
                    out.add(r);
                    lastSeen = null;
                    lastRefused = false;
                }
                case "exec" -> {
                    Rec seen = i + 1 < baseline.size() && baseline.get(i + 1).kind().equals("seen") ? baseline.get(++i) : null;
                    lastSeen = r.result();
                    if (gate.refuseCall(r.tool(), r.args().toString())) {
                        out.add(new Rec("seen", r.tool(), null, null, "[call refused]"));
                        lastRefused = true;
                    } else {
                        out.add(r);
                        if (gate.withholdResult(r.tool(), r.result())) {
                            out.add(new Rec("seen", r.tool(), null, null, "[result withheld]"));
                            lastRefused = true;
                        } else {
                            if (seen != null) out.add(seen);
                            lastRefused = false;
                        }
                    }
                }
                case "answer" -> {
                    String text = r.text();
                    if (lastRefused && lastSeen != null && !lastSeen.isEmpty()) text = text.replace(lastSeen, "[withheld]");
                    out.add(gate.refuseAnswer(text) ? new Rec("answer", null, null, null, "[answer refused]")
                            : new Rec("answer", null, null, null, text));
                }
                default -> out.add(r);
            }
        }
        return out;
    }

    /**
     * A regex PII guard that looks at each message (call arguments, tool result, answer) alone and
     * refuses any that matches its pattern: {@link #ANY_PII} or only {@link #SPECIAL} categories.
     */
    static final class PatternGuard implements Gate {
        /** Payment, bank, national-id and health or salary data: what a guard tuned for few false alarms looks for. */
        static final Pattern SPECIAL = Pattern.compile(String.join("|",
                "\\b\\d{4}[ -]\\d{4}[ -]\\d{4}[ -]\\d{4}\\b",
                "\\b[A-Z]{2}\\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\\b",
                "\\b\\d{3}-\\d{2}-\\d{4}\\b",
                "(?i)\\b(?:diagnosed|asthma|diabetes|hypertension|migraine|epilepsy|arthritis|salary)\\b"));

        private final Pattern pii;

        PatternGuard(Pattern pii) {
            this.pii = pii;
        }

        /** Every kind of personal data the guard knows. */
        static final Pattern ANY_PII = Pattern.compile(String.join("|",
                "[\\w.+-]+@[\\w-]+\\.[a-z]{2,}",                       // e-mail
                "\\+\\d{1,3}(?:[ -]?\\d{2,4}){3,4}",                      // international phone
                "\\b\\d{4}[ -]\\d{4}[ -]\\d{4}[ -]\\d{4}\\b",             // card
                "\\b[A-Z]{2}\\d{2}(?: ?[0-9A-Z]{4}){3,7}(?: ?[0-9A-Z]{1,3})?\\b", // IBAN
                "\\b\\d{3}-\\d{2}-\\d{4}\\b",                             // SSN
                "\\b(?:19|20)\\d{2}-\\d{2}-\\d{2}\\b",                   // ISO date
                "\\b\\d{1,4}[A-Z]? [A-Z][a-z]+ (?:Street|Road|Avenue|Lane)\\b", // street address
                "(?i)\\b(?:diagnosed|asthma|diabetes|hypertension|migraine|epilepsy|arthritis|salary)\\b"));

        @Override public void begin(String session) {
        }

        @Override public boolean refuseCall(String tool, String argsJson) {
            return pii.matcher(argsJson).find();
        }

        @Override public boolean withholdResult(String tool, String result) {
            return pii.matcher(result).find();
        }

        @Override public boolean refuseAnswer(String text) {
            return pii.matcher(text).find();
        }
    }

    /** Refuses each event with a fixed probability (seeded), whatever it is. */
    static final class RandomBlocker implements Gate {
        private final double rate;
        private final long seed;
        private Random random;

        RandomBlocker(double rate, long seed) {
            this.rate = rate;
            this.seed = seed;
        }

        @Override public void begin(String session) {
            random = new Random(seed ^ session.hashCode());
        }

        @Override public boolean refuseCall(String tool, String argsJson) {
            return random.nextDouble() < rate;
        }

        @Override public boolean withholdResult(String tool, String result) {
            return random.nextDouble() < rate;
        }

        @Override public boolean refuseAnswer(String text) {
            return random.nextDouble() < rate;
        }
    }

    /**
     * tracegate's contracts replayed offline. With noise, the categories the extractor finds in a call's
     * arguments are perturbed per argument: each found category is dropped with probability
     * {@code dropOut}, and with probability {@code overType} another category is added beside it.
     * With fail-closed handling every argument is read twice with independent noise: in free-text
     * arguments (the policy's field map does not type them) a category either reading finds counts, so an
     * ambiguous category is kept (fail closed); in arguments the field map types (the grounding adds
     * that category whatever the extractor says) a further category counts only when both readings find it.
     */
    static final class Monitor implements Gate {
        private final OfflineMonitor monitor;
        private final CasePolicy policy;
        private final double dropOut;
        private final double overType;
        private final boolean failClosed;
        private final long seed;
        private OfflineMonitor.Session session;
        private Random random;
        int decisions;
        int refusals;
        final java.util.Map<String, Integer> refusalsBySession = new java.util.LinkedHashMap<>();
        private String id;

        Monitor(OfflineMonitor monitor, CasePolicy policy, double dropOut, double overType, boolean failClosed, long seed) {
            this.monitor = monitor;
            this.policy = policy;
            this.dropOut = dropOut;
            this.overType = overType;
            this.failClosed = failClosed;
            this.seed = seed;
        }

        boolean noisy() {
            return dropOut > 0 || overType > 0;
        }

        @Override public void begin(String id) {
            this.id = id;
            refusalsBySession.put(id, 0);
            session = monitor.session(id);
            random = new Random(seed ^ id.hashCode());
        }

        @Override public void user(String text) {
            session.user(text);
        }

        @Override public boolean refuseCall(String tool, String argsJson) {
            return count(session.call(tool, argsJson, noisy() ? perturbed(tool, argsJson) : null).refused());
        }

        @Override public boolean withholdResult(String tool, String result) {
            return count(session.result(tool, result).refused());
        }

        @Override public boolean refuseAnswer(String text) {
            return count(session.answer(text).refused());
        }

        private boolean count(boolean refused) {
            decisions++;
            if (refused) {
                refusals++;
                refusalsBySession.merge(id, 1, Integer::sum);
            }
            return refused;
        }

        private Long perturbed(String tool, String argsJson) {
            com.fasterxml.jackson.databind.JsonNode args;
            try {
                args = new com.fasterxml.jackson.databind.ObjectMapper().readTree(argsJson);
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            java.util.Map<String, String> typed = policy.fields().getOrDefault(tool, java.util.Map.of());
            long mask = 0;
            for (var it = args.fields(); it.hasNext(); ) {
                var f = it.next();
                com.fasterxml.jackson.databind.node.ObjectNode one = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
                one.set(f.getKey(), f.getValue());
                long found = monitor.detect(tool, one.toString());
                if (failClosed) {
                    long first = noise(found);
                    long second = noise(found);
                    if (typed.containsKey(f.getKey())) {
                        mask |= first & second; // the field map types it; a further category must be read twice
                    } else {
                        mask |= first | second; // free text: a category either reading finds counts (fail closed)
                    }
                } else {
                    mask |= noise(found);
                }
            }
            return mask;
        }

        /** Built-in categories are bits 0..9 (e-mail ... financial). */
        private long noise(long found) {
            long out = 0;
            for (int b = 0; b < 10; b++) {
                if ((found & (1L << b)) == 0) continue;
                if (random.nextDouble() >= dropOut) out |= 1L << b;
                if (random.nextDouble() < overType) {
                    int other;
                    do {
                        other = random.nextInt(10);
                    } while ((found & (1L << other)) != 0);
                    out |= 1L << other;
                }
            }
            return out;
        }
    }
}
