package io.lineflow.flinkrest;

/**
 * One metric of a metrics endpoint: its id, and either its {@code value} (job, vertex or task
 * manager metrics) or the aggregates asked for ({@code subtasks/metrics?agg=...}).
 */
public record Metric(String id, String value, Double min, Double max, Double avg, Double sum) {}
