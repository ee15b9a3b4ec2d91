package dev.tracegate.agent.config;

/** Whether decisions are applied ({@code enforce}) or only logged ({@code shadow}). */
public enum Mode {
    ENFORCE,
    SHADOW
}
