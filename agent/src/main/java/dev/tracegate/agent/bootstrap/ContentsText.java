package dev.tracegate.agent.bootstrap;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Locale;

/**
 * The text of a LangChain4j tool result of several contents ({@code ToolExecutionResult#resultContents()}, 1.14 and
 * later: a {@code @Tool} that returns {@code List<Content>}), whose {@code resultText()} throws: what a contract judges
 * and the RETURN record holds. Each content one a line, in order: a text content's text; any other content (an image,
 * audio, a video, a PDF file) as {@code [image <url>]}, since the model's provider fetches that address and an address
 * can carry data, or {@code [image image/png, inline data]} when it comes as inline (base64) data, which is not read.
 * The contents are read by reflection, never by linking to the framework: JDK types only, the frameworks' advice
 * calls it from their own class loaders; the advice reads a single text itself and calls this for anything else.
 */
public final class ContentsText {
    private ContentsText() {}

    /** The contents' text as above; a content that cannot be read is noted by its type as {@code [<type>]}. */
    public static String of(List<?> contents) {
        StringBuilder text = new StringBuilder();
        if (contents == null) {
            return "";
        }
        for (Object content : contents) {
            if (content == null) {
                continue;
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            String kind = kind(content);
            if ("text".equals(kind)) {
                Object part = call(content, "text");
                text.append(part == null ? "" : part.toString());
                continue;
            }
            // ImageContent#image(), AudioContent#audio(), VideoContent#video(), PdfFileContent#pdfFile(): url, base64Data, mimeType
            Object media = call(content, "pdf".equals(kind) ? "pdfFile" : kind);
            Object url = media == null ? null : call(media, "url");
            text.append('[').append(kind);
            if (url != null) {
                text.append(' ').append(url);
            } else if (media != null && call(media, "base64Data") != null) {
                Object mime = call(media, "mimeType");
                text.append(' ').append(mime == null ? "" : mime + ", ").append("inline data");
            }
            text.append(']');
        }
        return text.toString();
    }

    /** {@code Content#type()} in lower case ("text", "image", "audio", "video", "pdf"), else the class's simple name's. */
    private static String kind(Object content) {
        Object type = call(content, "type");
        String name = type != null ? type.toString() : content.getClass().getSimpleName().replace("Content", "");
        return name.toLowerCase(Locale.ROOT);
    }

    private static Object call(Object target, String name) {
        try {
            Method method = target.getClass().getMethod(name);
            return method.getParameterCount() == 0 ? method.invoke(target) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
