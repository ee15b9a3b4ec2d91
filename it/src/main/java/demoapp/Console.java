package demoapp;

/** How the applications under test report what happened, in lines the tests look for. */
public final class Console {
    private Console() {
    }

    public static void line(String text) {
        System.out.println(text);
        System.out.flush();
    }

    /** Prints an exception and its causes, one "EXCEPTION:" line each. */
    public static void exception(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            line("EXCEPTION: " + t.getClass().getName() + ": " + t.getMessage());
        }
    }
}
