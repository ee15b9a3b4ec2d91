package demoapp.shaded;

import demoapp.shaded.lc4j.service.tool.ToolService;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * An application that carries a relocated (shaded) LangChain4j (trial40 02): it loads its copy of ToolService, says
 * READY with its pid, and waits for "quit" on standard input.
 */
public final class ShadedApp {
    private ShadedApp() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println(new ToolService().executeTool("pay"));
        System.out.println("READY pid=" + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
            System.out.println("echo " + line);
        }
    }
}
