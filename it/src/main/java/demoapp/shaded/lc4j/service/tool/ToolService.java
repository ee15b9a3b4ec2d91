package demoapp.shaded.lc4j.service.tool;

/** Stands for LangChain4j's ToolService as maven-shade relocates it (dev.langchain4j -> demoapp.shaded.lc4j). */
public class ToolService {
    public String executeTool(String name) {
        return "ran " + name;
    }
}
