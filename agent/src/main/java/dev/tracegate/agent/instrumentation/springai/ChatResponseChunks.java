package dev.tracegate.agent.instrumentation.springai;

import dev.tracegate.agent.bootstrap.AnswerChunks;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Collections;

/**
 * Spring AI's streamed {@code ChatResponse} chunks as the stream check reads them; by reflection, since the agent's
 * class loader cannot see Spring AI (the methods are looked up once per chunk class and loader, not per chunk).
 */
final class ChatResponseChunks implements AnswerChunks {

    private static final String CHAT_RESPONSE = "org.springframework.ai.chat.model.ChatResponse";
    private static final String GENERATION = "org.springframework.ai.chat.model.Generation";
    private static final String ASSISTANT_MESSAGE = "org.springframework.ai.chat.messages.AssistantMessage";

    /** The members used, resolved in the loader of the chunk's class (an application may hold several Spring AIs). */
    private static final class Shape {
        final Method getResult;
        final Method hasToolCalls;
        final Method getOutput;
        final Method getText;
        final Constructor<?> newMessage;
        final Constructor<?> newGeneration;
        final Constructor<?> newResponse;

        Shape(Class<?> chunkType) throws ReflectiveOperationException {
            ClassLoader loader = chunkType.getClassLoader();
            Class<?> response = Class.forName(CHAT_RESPONSE, false, loader);
            Class<?> generation = Class.forName(GENERATION, false, loader);
            Class<?> message = Class.forName(ASSISTANT_MESSAGE, false, loader);
            if (!response.isAssignableFrom(chunkType)) {
                throw new IllegalStateException("a streamed chunk of Spring AI is a " + chunkType.getName() + ", not a " + CHAT_RESPONSE);
            }
            getResult = response.getMethod("getResult");
            hasToolCalls = response.getMethod("hasToolCalls");
            getOutput = generation.getMethod("getOutput");
            getText = message.getMethod("getText");
            newMessage = message.getConstructor(String.class);
            newGeneration = generation.getConstructor(message);
            newResponse = response.getConstructor(java.util.List.class);
        }
    }

    private final ClassValue<Shape> shapes = new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
            try {
                return new Shape(type);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Spring AI's ChatResponse API is not as the agent expects (" + e + ")", e);
            }
        }
    };

    @Override
    public String text(Object chunk) {
        try {
            Shape shape = shapes.get(chunk.getClass());
            Object generation = shape.getResult.invoke(chunk);
            Object output = generation == null ? null : shape.getOutput.invoke(generation);
            return output == null ? null : (String) shape.getText.invoke(output);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read a streamed Spring AI chunk", e);
        }
    }

    @Override
    public boolean asksForTools(Object chunk) {
        try {
            return (Boolean) shapes.get(chunk.getClass()).hasToolCalls.invoke(chunk);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read a streamed Spring AI chunk", e);
        }
    }

    @Override
    public Object notice(Object last, String text) {
        try {
            Shape shape = shapes.get(last.getClass());
            Object generation = shape.newGeneration.newInstance(shape.newMessage.newInstance(text));
            return shape.newResponse.newInstance(Collections.singletonList(generation));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a Spring AI notice chunk", e);
        }
    }
}
