package demoapp.register;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A plain application whose privacy and mail methods a configuration names: it reads one step per line from standard
 * input ({@code erase:SESSION:SUBJECT}, {@code lookup:SESSION:SUBJECT}), runs it, and prints {@code STEP n ...}, then
 * {@code METHOD x ran} or {@code THROWN ...}, then {@code DONE n}, so that a test can change things between steps.
 */
public final class ScopeApp {
    private ScopeApp() {
    }

    /** Erasure requests (configured as ERASURE events). */
    public static final class Privacy {
        public void erase(String session, String subject) {
            System.out.println("METHOD erase ran");
        }
    }

    /** A look-up of a person's profile (configured as a tool). */
    public static final class Mail {
        public String lookup(String session, String email) {
            System.out.println("METHOD lookup ran");
            return "profile";
        }
    }

    public static void main(String[] args) throws IOException {
        Privacy privacy = new Privacy();
        Mail mail = new Mail();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int step = 0;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            String[] p = line.split(":");
            System.out.println("STEP " + ++step + " " + line);
            try {
                switch (p[0]) {
                    case "erase" -> privacy.erase(p[1], p[2]);
                    case "lookup" -> mail.lookup(p[1], p[2]);
                    default -> throw new IllegalArgumentException(line);
                }
            } catch (RuntimeException e) {
                System.out.println("THROWN " + e.getMessage());
            }
            System.out.println("DONE " + step);
            System.out.flush();
        }
    }
}
