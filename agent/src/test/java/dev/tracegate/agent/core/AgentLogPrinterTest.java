package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's standard-error lines are handed to a printer thread: a stream that takes nothing never holds the thread
 * that logs, a full queue drops and counts, and the loss is said where it happened once the stream takes lines again.
 */
class AgentLogPrinterTest {

    /** A stream that takes nothing until it is let go: a pipe nobody reads. */
    private static final class Stalled extends OutputStream {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        final ByteArrayOutputStream taken = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            entered.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (taken) {
                taken.write(b, off, len);
            }
        }

        List<String> lines() {
            synchronized (taken) {
                return taken.toString(StandardCharsets.UTF_8).lines().toList();
            }
        }
    }

    @Test
    void aStreamThatTakesNothingHoldsNoLoggerAndTheLossIsSaidWhereItHappened() throws Exception {
        Stalled stream = new Stalled();
        AgentLog.Printer printer = new AgentLog.Printer(4, new PrintStream(stream, false, StandardCharsets.UTF_8));
        printer.offer("line 0");
        assertThat(stream.entered.await(30, TimeUnit.SECONDS)).as("the printer is stuck in its write of line 0").isTrue();
        for (int i = 1; i <= 9; i++) printer.offer("line " + i);   // returns at once: 1-4 wait in the queue, 5-9 are dropped
        assertThat(printer.dropped.get()).isEqualTo(5);
        printer.flush(50);                                      // bounded: returns although nothing can be written
        stream.go.countDown();
        printer.flush(30_000);
        printer.offer("line 10");
        printer.flush(30_000);
        assertThat(stream.lines()).containsExactly("line 0", "line 1", "line 2", "line 3", "line 4",
                AgentLog.droppedNote(5), "line 10");
        assertThat(AgentLog.droppedNote(5)).startsWith("[tracegate] WARN 5 lines dropped: ");
        assertThat(AgentLog.droppedNote(1)).startsWith("[tracegate] WARN 1 line dropped: ");
    }

    @Test
    void aLineThatComesBeforeTheQueueIsEmptyFollowsTheNoteOfTheLinesLostBeforeIt() throws Exception {
        Stalled stream = new Stalled();
        AgentLog.Printer printer = new AgentLog.Printer(3, new PrintStream(stream, false, StandardCharsets.UTF_8));
        printer.offer("a");
        assertThat(stream.entered.await(30, TimeUnit.SECONDS)).isTrue();
        printer.offer("b");
        printer.offer("c");
        printer.offer("d");
        printer.offer("lost 1");
        printer.offer("lost 2");
        assertThat(printer.dropped.get()).isEqualTo(2);
        // the queue is still full (b, c, d): a line needs room for the note and itself, else it is lost too
        printer.offer("lost 3");
        assertThat(printer.dropped.get()).isEqualTo(3);
        stream.go.countDown();
        printer.flush(30_000);
        assertThat(stream.lines()).containsExactly("a", "b", "c", "d", AgentLog.droppedNote(3));
    }
}
