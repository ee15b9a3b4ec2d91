package demoapp.inflight;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * A plain application whose bank methods a configuration names as tools: it reads one step per line from standard input
 * and prints {@code STEP n ...}, then {@code METHOD x ran} for a method whose body ran, then {@code DONE n}. A report is
 * slow: {@code start-report:SESSION} runs {@code buildReport} on a thread of its own and is done once the method has
 * begun; {@code finish-report} lets it return and waits for it. So a test can act while the report's call is in flight.
 */
public final class ReportApp {
    private ReportApp() {
    }

    /** The tools. */
    public static final class Bank {
        private final CountDownLatch begun = new CountDownLatch(1);
        private final CountDownLatch finish = new CountDownLatch(1);

        public String getBalance(String session) {
            System.out.println("METHOD getBalance ran");
            return "12 EUR";
        }

        public String lookup(String session) {
            System.out.println("METHOD lookup ran");
            return "found";
        }

        public String buildReport(String session) throws InterruptedException {
            System.out.println("METHOD buildReport ran");
            begun.countDown();
            finish.await();
            return "report";
        }

        public String sendMoney(String session, int amount) {
            System.out.println("METHOD sendMoney ran");
            return "sent " + amount;
        }
    }

    public static void main(String[] args) throws Exception {
        Bank bank = new Bank();
        Thread report = null;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int step = 0;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            String[] p = line.split(":");
            System.out.println("STEP " + ++step + " " + line);
            switch (p[0]) {
                case "balance" -> bank.getBalance(p[1]);
                case "lookup" -> bank.lookup(p[1]);
                case "send" -> bank.sendMoney(p[1], 5);
                case "start-report" -> {
                    report = new Thread(() -> {
                        try {
                            bank.buildReport(p[1]);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }, "report");
                    report.start();
                    bank.begun.await();
                }
                case "finish-report" -> {
                    bank.finish.countDown();
                    report.join();
                }
                default -> throw new IOException("unknown step " + line);
            }
            System.out.println("DONE " + step);
            System.out.flush();
        }
    }
}
