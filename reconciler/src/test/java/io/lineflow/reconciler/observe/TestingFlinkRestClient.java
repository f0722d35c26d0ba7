package io.lineflow.reconciler.observe;

import io.lineflow.reconciler.model.FlinkObservation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** A Flink REST fake: answers per URL from what the test put in, or "connection refused". */
public final class TestingFlinkRestClient implements FlinkRestClient {

    private final Map<String, Function<String, FlinkObservation>> byUrl = new ConcurrentHashMap<>();
    private volatile Function<String, FlinkObservation> fallback =
            url -> FlinkObservation.failed(url, "ConnectException: Connection refused");
    public final AtomicInteger calls = new AtomicInteger();

    public TestingFlinkRestClient answer(String url, FlinkObservation o) {
        byUrl.put(url, u -> o);
        return this;
    }

    /** Answers every URL, e.g. with {@code url -> healthy job}. */
    public TestingFlinkRestClient answerAll(Function<String, FlinkObservation> f) {
        fallback = f;
        return this;
    }

    @Override
    public FlinkObservation observe(String restUrl, String topic) {
        calls.incrementAndGet();
        return byUrl.getOrDefault(restUrl, fallback).apply(restUrl);
    }
}
