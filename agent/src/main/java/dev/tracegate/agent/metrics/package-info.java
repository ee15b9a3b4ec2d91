/** The supervisor's counters and latency histogram, shown over JMX as {@code dev.tracegate:type=Supervisor}. */
package dev.tracegate.agent.metrics;
