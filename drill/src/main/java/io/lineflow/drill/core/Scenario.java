package io.lineflow.drill.core;

/**
 * One drill run as the report names and judges it: a fault struck on the real job, the input
 * alone, or a negative control, a deliberately broken job that the verifier must catch. What a
 * backend needs to carry it out is the backend's own (LocalScenario, KubernetesScenario).
 *
 * @param injects whether something is done to the job mid-input (false: the input and the table only)
 */
public record Scenario(String name, boolean control, boolean injects) {}
