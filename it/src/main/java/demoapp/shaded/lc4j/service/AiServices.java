package demoapp.shaded.lc4j.service;

/**
 * Stands for LangChain4j's AiServices as maven-shade relocates it: a relocated framework brings its other classes with it,
 * which is how tracegate tells a relocated ToolService from an application's own class of that name.
 */
public final class AiServices {
    private AiServices() {
    }
}
