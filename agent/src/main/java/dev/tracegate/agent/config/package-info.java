/**
 * The agent's configuration: {@link dev.tracegate.agent.config.AgentConfig} reads a YAML file and its
 * {@code TRACEGATE_*}, {@code -Dtracegate.*} and agent-argument overrides once, at start; every key is
 * documented in {@code agent/CONFIG.md}.
 */
package dev.tracegate.agent.config;
