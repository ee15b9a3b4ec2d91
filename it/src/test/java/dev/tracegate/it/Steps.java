package dev.tracegate.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a forked app that reads one step per line on its standard input and ends each with "DONE n": sends one step
 * at a time and reads until it is done (the apps print "METHOD ..." when a supervised method body runs).
 */
final class Steps {
    private final Writer in;
    private final BufferedReader out;
    private final List<String> seen = new ArrayList<>();
    private int n;

    Steps(Writer in, BufferedReader out) {
        this.in = in;
        this.out = out;
    }

    /** Whether a method body ran during the step. */
    boolean run(String step) throws IOException {
        in.write(step + "\n");
        in.flush();
        n++;
        boolean ran = false;
        for (String line; (line = out.readLine()) != null; ) {
            seen.add(line);
            if (line.startsWith("METHOD ")) ran = true;
            if (line.equals("DONE " + n)) return ran;
        }
        throw new AssertionError("the application ended before step " + n + " was done: " + seen);
    }

    @Override
    public String toString() {
        return String.join("\n", seen);
    }
}
