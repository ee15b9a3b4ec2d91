package dev.tracegate.matchers.trace;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.tracegate.matchers.event.Event;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes events as JSONL in the format {@link TraceReader} reads; not thread-safe. */
public final class TraceWriter implements Closeable, Flushable {
    private final Writer out;
    private final JsonGenerator gen;

    public TraceWriter(Writer out) throws IOException {
        this.out = out;
        this.gen = TraceReader.JSON.getFactory().createGenerator(out);
        gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        gen.setRootValueSeparator(null);
        gen.setCodec(TraceReader.JSON);
    }

    /** Creates or truncates a UTF-8 file. */
    public static TraceWriter open(Path file) throws IOException {
        return new TraceWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
    }

    /** Writes one event as one line; absent fields are left out. */
    public void write(Event e) throws IOException {
        gen.writeStartObject();
        gen.writeStringField("session", e.session());
        gen.writeNumberField("seq", e.seq());
        if (e.ts() != 0) gen.writeNumberField("ts", e.ts());
        gen.writeStringField("kind", e.kind().name().toLowerCase(java.util.Locale.ROOT));
        if (e.tool() != null) gen.writeStringField("tool", e.tool());
        if (e.callId() != null) gen.writeStringField("id", e.callId());
        if (e.hasArgs()) {
            gen.writeFieldName("args");
            gen.writeTree(e.args().root());
        }
        if (e.result() != null) gen.writeStringField("result", e.result());
        if (e.text() != null) gen.writeStringField("text", e.text());
        if (e.subject() != null) gen.writeStringField("subject", e.subject());
        if (e.purposeCount() > 0) {
            gen.writeArrayFieldStart("purposes");
            for (int i = 0; i < e.purposeCount(); i++) gen.writeString(e.purpose(i));
            gen.writeEndArray();
        }
        if (e.categoryCount() > 0) {
            gen.writeArrayFieldStart("categories");
            for (int i = 0; i < e.categoryCount(); i++) gen.writeString(e.category(i));
            gen.writeEndArray();
        }
        if (e.kind() == dev.tracegate.matchers.event.EventKind.CONSENT) gen.writeBooleanField("granted", e.granted());
        if (e.error()) gen.writeBooleanField("error", true);
        if (e.tokens() >= 0) gen.writeNumberField("tokens", e.tokens());
        if (e.depth() != 0) gen.writeNumberField("depth", e.depth());
        gen.writeEndObject();
        gen.flush();
        out.write('\n');
    }

    @Override public void flush() throws IOException {
        gen.flush();
        out.flush();
    }

    @Override public void close() throws IOException {
        gen.close();
        out.close();
    }
}
