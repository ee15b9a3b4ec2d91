package demoapp.plain;

/**
 * Loads (and initialises) each class named on the command line that its class path has, and prints which: a host that
 * merely has these framework classes, so that an agent sees them defined. Knows nothing of tracegate.
 */
public final class LoadClasses {
    public static void main(String[] names) {
        for (String name : names) {
            try {
                Class.forName(name);
                System.out.println("LOADED " + name);
            } catch (ClassNotFoundException | LinkageError e) {
                System.out.println("ABSENT " + name + " (" + e.getClass().getSimpleName() + ")");
            }
        }
    }
}
